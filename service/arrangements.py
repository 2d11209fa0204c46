"""Arrangements as three sharding flags (DESIGN.md, 'Three flags describe every arrangement').

| arrangement | shard optimizer | shard gradients | shard parameters |
| DDP         | no              | no              | no               |
| ZeRO-1      | yes             | no              | no               |
| ZeRO-2      | yes             | yes             | no               |
| ZeRO-3      | yes             | yes             | yes              |

Rajbhandari et al. 2020 (ZeRO) name the stages P_os, P_os+g, P_os+g+p; PyTorch FSDP names the
same flag sets NO_SHARD, SHARD_GRAD_OP and FULL_SHARD. Hybrid sharding (FSDP HYBRID_SHARD) is
ZeRO-3 inside each node and replication across nodes: the shard degree is G, not N.
"""

from dataclasses import dataclass

from models.enums import ArrangementName, ShardGroup
from service.errors import NonMonotoneSharding


@dataclass(frozen=True)
class Sharding:
    shard_optimizer: bool
    shard_gradients: bool
    shard_parameters: bool
    hybrid: bool = False  # shard within a node, replicate across nodes

    def __post_init__(self) -> None:
        if (
            (self.shard_parameters and not self.shard_gradients)
            or (self.shard_gradients and not self.shard_optimizer)
            or (self.hybrid and not self.shard_parameters)
        ):
            raise NonMonotoneSharding(
                "sharding flags must be monotone: shard_parameters implies shard_gradients implies shard_optimizer"
            )

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

CANONICAL: dict[ArrangementName, Sharding] = {
    ArrangementName.ddp: DDP,
    ArrangementName.zero1: ZERO1,
    ArrangementName.zero2: ZERO2,
    ArrangementName.zero3: ZERO3,
}

NAMED: dict[ArrangementName, Sharding] = CANONICAL | {ArrangementName.hybrid: HYBRID}

ALIASES: dict[ArrangementName, ArrangementName] = {
    ArrangementName.no_shard: ArrangementName.ddp,
    ArrangementName.shard_grad_op: ArrangementName.zero2,
    ArrangementName.full_shard: ArrangementName.zero3,
}


def sharding_for(name: ArrangementName) -> Sharding:
    return NAMED[ALIASES.get(name, name)]


def canonical_name(sharding: Sharding) -> ArrangementName:
    for name, flags in NAMED.items():
        if flags == sharding:
            return name
    raise AssertionError(f"unreachable: monotone flags {sharding} have a name")
