"""Arrangements as three sharding flags (DESIGN.md, 'Three flags describe every arrangement').

| arrangement | shard optimizer | shard gradients | shard parameters |
| DDP         | no              | no              | no               |
| ZeRO-1      | yes             | no              | no               |
| ZeRO-2      | yes             | yes             | no               |
| ZeRO-3      | yes             | yes             | yes              |

Rajbhandari et al. 2020 (ZeRO) name the stages P_os, P_os+g, P_os+g+p; PyTorch FSDP's NO_SHARD
is data parallel and FULL_SHARD is ZeRO-3. Hybrid sharding (FSDP HYBRID_SHARD) is ZeRO-3 inside
each node and replication across nodes: the shard degree is G, not N.

FSDP's SHARD_GRAD_OP is not DeepSpeed's ZeRO-2: its parameters are sharded at rest too, gathered
before the forward pass and freed only after the backward pass (PyTorch
torch/distributed/fsdp/api.py, ShardingStrategy.SHARD_GRAD_OP; FSDP2's
``fully_shard(reshard_after_forward=False)``, torch/distributed/fsdp/_fully_shard/_fully_shard.py).
Here it is the ZeRO-3 flag set with ``reshard_after_forward`` off: the gathered parameters stay on
the GPU from the forward to the end of the backward, and are gathered again every micro-batch.
"""

from dataclasses import dataclass, field, replace
from functools import lru_cache

from models.enums import ArrangementName, ShardGroup
from service.errors import NonMonotoneSharding
from service.kept_hash import keeps_hash


@dataclass(frozen=True)
class ZeroPlusPlus:
    """ZeRO++ (Wang et al. 2023, section 3): qwZ, hpZ and qgZ on ZeRO-3."""

    quantized_weights: bool = False
    hierarchical_partition: bool = False
    quantized_gradients: bool = False

    @property
    def any(self) -> bool:
        return self.quantized_weights or self.hierarchical_partition or self.quantized_gradients


NO_ZEROPP = ZeroPlusPlus()


@keeps_hash
@dataclass(frozen=True)
class Sharding:
    shard_optimizer: bool
    shard_gradients: bool
    shard_parameters: bool
    hybrid: bool = False  # shard within a node, replicate across nodes
    reshard_after_forward: bool = True  # False: FSDP SHARD_GRAD_OP, gathered parameters kept until after backward
    zeropp: ZeroPlusPlus = field(default=NO_ZEROPP)

    def __post_init__(self) -> None:
        if (
            (self.shard_parameters and not self.shard_gradients)
            or (self.shard_gradients and not self.shard_optimizer)
            or (self.hybrid and not self.shard_parameters)
            or (not self.reshard_after_forward and (not self.shard_parameters or self.hybrid))
            or (self.zeropp.any and not (self.shard_parameters and self.reshard_after_forward and not self.hybrid))
        ):
            raise NonMonotoneSharding(
                "sharding flags must be monotone: shard_parameters implies shard_gradients implies shard_optimizer"
            )

    @property
    def gathers_whole_model(self) -> bool:
        """Parameters sharded at rest but held gathered through forward and backward (SHARD_GRAD_OP)."""
        return self.shard_parameters and not self.reshard_after_forward

    def shards(self, group: ShardGroup) -> bool:
        return {
            ShardGroup.optimizer: self.shard_optimizer,
            ShardGroup.gradients: self.shard_gradients,
            ShardGroup.parameters: self.shard_parameters,
        }[group]


DDP = Sharding(False, False, False)
ZERO1 = Sharding(True, False, False)
ZERO2 = Sharding(True, True, False)
ZERO3 = Sharding(True, True, True)
HYBRID = Sharding(True, True, True, hybrid=True)
SHARD_GRAD_OP = Sharding(True, True, True, reshard_after_forward=False)

CANONICAL: dict[ArrangementName, Sharding] = {
    ArrangementName.ddp: DDP,
    ArrangementName.zero1: ZERO1,
    ArrangementName.zero2: ZERO2,
    ArrangementName.zero3: ZERO3,
}

# Every arrangement /v1/fit, the figures and the page set side by side.
COMPARED: dict[ArrangementName, Sharding] = CANONICAL | {ArrangementName.shard_grad_op: SHARD_GRAD_OP}

NAMED: dict[ArrangementName, Sharding] = COMPARED | {ArrangementName.hybrid: HYBRID}

ALIASES: dict[ArrangementName, ArrangementName] = {
    ArrangementName.no_shard: ArrangementName.ddp,
    ArrangementName.full_shard: ArrangementName.zero3,
}


def sharding_for(name: ArrangementName) -> Sharding:
    return NAMED[ALIASES.get(name, name)]


@lru_cache(maxsize=256)  # a pure function of frozen flags, asked twice by every plan
def canonical_name(sharding: Sharding) -> ArrangementName:
    sharding = replace(sharding, zeropp=NO_ZEROPP)  # ZeRO++ is a set of levers on zero3, not a stage
    for name, flags in NAMED.items():
        if flags == sharding:
            return name
    raise AssertionError(f"unreachable: monotone flags {sharding} have a name")
