"""What one torch-engine job runs, as plain data (no torch): it travels as JSON to the ranks.

Arrangements are PyTorch's own implementations (torch 2.13):
- ``ddp``: ``DistributedDataParallel``;
- ``zero1``: DDP + ``torch.distributed.optim.ZeroRedundancyOptimizer`` (optimizer state by rank);
- ``shard_grad_op``: FSDP2 ``fully_shard(reshard_after_forward=False)`` on each block and the root;
- ``zero3``: FSDP2 ``fully_shard(reshard_after_forward=True)``;
- ``hybrid``: FSDP2 on a 2-D ``DeviceMesh`` (replicate x shard): HSDP, sharded over the
  ``ranks_per_node`` ranks of a node and replicated across nodes.
Layouts (``tensor`` and ``pipeline`` degrees, /v1/plan's ``parallelism`` block) compose as
torchtitan does (torchtitan/models/llama3/infra/parallelize.py, pipeline.py): a 3-D ``DeviceMesh``
(pipeline, data, tensor; tensor innermost, Megatron-LM's placement), DTensor tensor parallelism by
``parallelize_module`` (column-parallel q/k/v/up and output layer, row-parallel o/down and the
vocabulary-parallel embedding), each rank's pipeline stage kept by pruning the model and run by
``torch.distributed.pipelining`` (``PipelineStage``, ``Schedule1F1B`` or ``ScheduleGPipe`` over
``micro_batches``), and FSDP2 (zero3 or shard_grad_op) over the data dimension.
"""

from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

from models.enums import MlpKind
from service.inputs.architecture import Architecture
from service.sim.config import DroppedRank, SlowRank

ENGINE = "torch"


class TorchArrangement(StrEnum):
    ddp = "ddp"
    zero1 = "zero1"
    shard_grad_op = "shard_grad_op"
    zero3 = "zero3"
    hybrid = "hybrid"


LAYOUT_ARRANGEMENTS = ("zero3", "shard_grad_op")  # FSDP2 over the data dimension of a layout
PIPELINE_SCHEDULES = ("1f1b", "gpipe")
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
    tensor: int = 1
    pipeline: int = 1
    micro_batches: int = 1  # per step on each pipeline; batch_per_rank sequences each
    pipeline_schedule: str = "1f1b"

    @property
    def measured_steps(self) -> int:
        return self.steps - self.warmup_steps

    @property
    def layout(self) -> bool:
        """A tensor or pipeline degree: the mesh runs, not one data-parallel group."""
        return self.tensor > 1 or self.pipeline > 1

    @property
    def data(self) -> int:
        """d = world_size / (tensor x pipeline)."""
        return self.world_size // (self.tensor * self.pipeline)

    @property
    def replicas(self) -> int:
        """Data-parallel replicas, each with its own tokens: d in a layout, every rank otherwise."""
        return self.data if self.layout else self.world_size

    @property
    def sequences_per_replica(self) -> int:
        return self.micro_batches * self.batch_per_rank

    def stage_of(self, rank: int) -> int:
        """Mesh (pipeline, data, tensor), tensor innermost: rank = (stage x d + j) x t + i."""
        return rank // (self.data * self.tensor)

    def data_rank_of(self, rank: int) -> int:
        return rank // self.tensor % self.data

    def group_label(self, ranks: list[int]) -> str:
        """The mesh dimension a process group spans: the one coordinate its ranks differ in."""
        coordinates = {
            "pipeline": {self.stage_of(r) for r in ranks},
            "data": {self.data_rank_of(r) for r in ranks},
            "tensor": {r % self.tensor for r in ranks},
        }
        varying = [name for name, values in coordinates.items() if len(values) > 1]
        return varying[0] if len(varying) == 1 else "data" if not self.layout else "world"

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
    if TorchArrangement.hybrid in cfg.arrangements and not cfg.layout:
        g = cfg.ranks_per_node
        if g < 1 or n % g or n // g < 2:
            errors.append(("ranks_per_node", f"hybrid needs world_size {n} = nodes (at least 2) x ranks_per_node {g}"))
    for name in cfg.arrangements:
        if name not in TorchArrangement.__members__:
            errors.append(("arrangements", f"{name!r} is not one of {', '.join(ALL_ARRANGEMENTS)}"))
    if cfg.precision not in TORCH_PRECISIONS:
        errors.append(("precision", f"the torch engine runs {' or '.join(TORCH_PRECISIONS)}"))
    return errors + layout_errors(cfg)


def layout_errors(cfg: TorchSimConfig) -> list[tuple[str, str]]:
    """What a tensor x pipeline x data mesh needs of the world, the model and the batch (the
    planner's checks, service/mesh/degrees.py, plus what the engine needs to compare bytes exactly)."""
    t, p, n, m = cfg.tensor, cfg.pipeline, cfg.world_size, cfg.model
    errors: list[tuple[str, str]] = []
    if t < 1 or p < 1 or n % (t * p):
        return [
            (
                "parallelism",
                f"tensor {t} x pipeline {p} x data d must equal world_size {n}: d = {n} / {t * p} is not whole",
            )
        ]
    if m.attention_heads % t:
        errors.append(
            ("parallelism.tensor", f"tensor {t} does not divide the model's attention heads {m.attention_heads}")
        )
    if m.layers % p:
        errors.append(("parallelism.pipeline", f"pipeline {p} does not divide the model's layers {m.layers}"))
    if cfg.pipeline_schedule not in PIPELINE_SCHEDULES:
        errors.append(
            ("parallelism.pipeline_schedule", f"the torch engine runs the {' or '.join(PIPELINE_SCHEDULES)} schedules")
        )
    if cfg.micro_batches < 1 or (p > 1 and cfg.micro_batches < p):
        errors.append(
            (
                "micro_batches",
                f"{cfg.micro_batches} micro-batches per step: a pipeline of {p} stages needs at least {p}",
            )
        )
    if p == 1 and cfg.micro_batches != 1:
        errors.append(("micro_batches", "micro-batches are the pipeline's: give them with parallelism.pipeline"))
    if cfg.layout:
        others = [a for a in cfg.arrangements if a not in LAYOUT_ARRANGEMENTS]
        if others:
            errors.append(
                (
                    "arrangements",
                    f"with tensor or pipeline parallelism the torch engine runs FSDP2 over the data dimension "
                    f"({' or '.join(LAYOUT_ARRANGEMENTS)}), not {', '.join(others)}",
                )
            )
    return errors
