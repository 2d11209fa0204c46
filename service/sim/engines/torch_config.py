"""What one torch-engine job runs, as plain data (no torch): it travels as JSON to the ranks.

Arrangements are PyTorch's own implementations (torch 2.13):
- ``ddp``: ``DistributedDataParallel``;
- ``zero1``: DDP + ``torch.distributed.optim.ZeroRedundancyOptimizer`` (optimizer state by rank);
- ``shard_grad_op``: FSDP2 ``fully_shard(reshard_after_forward=False)`` on each block and the root;
- ``zero3``: FSDP2 ``fully_shard(reshard_after_forward=True)``;
- ``hybrid``: FSDP2 on a 2-D ``DeviceMesh`` (replicate x shard): HSDP, sharded over the
  ``ranks_per_node`` ranks of a node and replicated across nodes.
Tensor and pipeline degrees need layouts the planner does not have yet; they are not offered.
"""

from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

from models.enums import MlpKind
from service.architecture import Architecture
from service.sim.config import DroppedRank, SlowRank

ENGINE = "torch"


class TorchArrangement(StrEnum):
    ddp = "ddp"
    zero1 = "zero1"
    shard_grad_op = "shard_grad_op"
    zero3 = "zero3"
    hybrid = "hybrid"


FSDP_ARRANGEMENTS = frozenset({TorchArrangement.shard_grad_op, TorchArrangement.zero3, TorchArrangement.hybrid})
ALL_ARRANGEMENTS = tuple(TorchArrangement)
# The precisions the engine runs, named as the service's presets.
TORCH_PRECISIONS = ("mixed_bf16_adam", "fp32_adam")


@dataclass(frozen=True)
class TinyArchitecture:
    """The decoder-only transformer the ranks train: /v1/plan's architecture fields (gelu MLP,
    multi-head attention, untied output layer), so the planner counts exactly its weights."""

    layers: int = 2
    hidden_size: int = 64
    attention_heads: int = 4
    ffn_hidden_size: int = 256
    vocab_size: int = 128

    def architecture(self) -> Architecture:
        return Architecture(
            layers=self.layers,
            hidden_size=self.hidden_size,
            attention_heads=self.attention_heads,
            kv_heads=self.attention_heads,
            ffn_hidden_size=self.ffn_hidden_size,
            vocab_size=self.vocab_size,
            mlp=MlpKind.gelu,
            tied_embeddings=False,
        )


@dataclass(frozen=True)
class TorchSimConfig:
    world_size: int
    arrangements: tuple[str, ...] = tuple(a.value for a in ALL_ARRANGEMENTS)
    model: TinyArchitecture = TinyArchitecture()
    steps: int = 3
    warmup_steps: int = 2  # DDP rebuilds its buckets in the second iteration: measure after it
    batch_per_rank: int = 2
    sequence_length: int = 16
    precision: str = "mixed_bf16_adam"
    ranks_per_node: int = 2  # the shard degree of hybrid (HSDP's inner mesh dimension)
    seed: int = 0
    learning_rate: float = 1e-3
    collective_timeout_s: float = 10.0
    backend: str = "gloo"  # "nccl" on GPUs (one device per rank)
    slow_rank: SlowRank | None = None
    dropped_rank: DroppedRank | None = None
    engine: str = ENGINE

    @property
    def measured_steps(self) -> int:
        return self.steps - self.warmup_steps

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "TorchSimConfig":
        data = dict(data)
        data["arrangements"] = tuple(data["arrangements"])
        data["model"] = TinyArchitecture(**data["model"])
        for name, kind in (("slow_rank", SlowRank), ("dropped_rank", DroppedRank)):
            if data.get(name) is not None:
                data[name] = kind(**data[name])
        return cls(**data)


def config_errors(cfg: TorchSimConfig) -> list[tuple[str, str]]:
    """(field, message) for what the engine cannot run exactly; empty when it can.

    Widths must be multiples of 2N: FSDP2 then shards every parameter's dim 0 without padding and
    gloo's ring cuts every buffer into 2N equal segments, so measured bytes compare exactly.
    """
    errors: list[tuple[str, str]] = []
    n, m = cfg.world_size, cfg.model
    for name in ("hidden_size", "ffn_hidden_size", "vocab_size"):
        value = getattr(m, name)
        if value % (2 * n):
            errors.append((f"model.{name}", f"model.{name} {value} is not a multiple of 2 x world_size = {2 * n}"))
    if m.hidden_size % m.attention_heads:
        errors.append(("model.attention_heads", f"model.hidden_size {m.hidden_size} is not a multiple of it"))
    if cfg.steps <= cfg.warmup_steps:
        errors.append(("steps", f"steps must exceed the {cfg.warmup_steps} warm-up steps that are not measured"))
    if TorchArrangement.hybrid in cfg.arrangements:
        g = cfg.ranks_per_node
        if g < 1 or n % g or n // g < 2:
            errors.append(("ranks_per_node", f"hybrid needs world_size {n} = nodes (at least 2) x ranks_per_node {g}"))
    for name in cfg.arrangements:
        if name not in TorchArrangement.__members__:
            errors.append(("arrangements", f"{name!r} is not one of {', '.join(ALL_ARRANGEMENTS)}"))
    if cfg.precision not in TORCH_PRECISIONS:
        errors.append(("precision", f"the torch engine runs {' or '.join(TORCH_PRECISIONS)}"))
    return errors
