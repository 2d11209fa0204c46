"""Request parts shared by every planning operation: model, precision, cluster, arrangement."""

from typing import Annotated, Any, Self

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, field_validator, model_validator

from models.enums import ArrangementName, MlpKind
from models.presets import (
    GpuPresetName,
    LinkPresetName,
    LinkSpec,
    ModelPresetName,
    PrecisionPresetName,
    PrecisionSpec,
)

MAX_PARAMETER_COUNT = 10**15
MAX_WORLD_SIZE = 1_000_000
MAX_GPUS_PER_NODE = 1024
MAX_GPU_MEMORY_BYTES = 10**15

# Union members carry tags that start with "~": the error mapper drops them from JSON pointers.
NAME_TAG = "~name"
SPEC_TAG = "~spec"


def _name_or_object(value: Any) -> str | None:
    if isinstance(value, str):
        return NAME_TAG
    if isinstance(value, dict | BaseModel):
        return SPEC_TAG
    return None


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


ARCHITECTURE_FIELDS = ("layers", "hidden_size", "attention_heads", "ffn_hidden_size", "vocab_size")


class ModelSpec(Strict):
    """The model: a preset, a parameter count, or a transformer architecture (fields override a preset's)."""

    preset: ModelPresetName | None = Field(default=None, description="A model preset; see GET /v1/presets.")
    parameter_count: int | None = Field(
        default=None,
        ge=1,
        le=MAX_PARAMETER_COUNT,
        description="Parameter count (elements, not bytes). Derived from the architecture when one is given; "
        "a given count that differs by more than 1% is reported as a warning.",
    )
    layers: int | None = Field(default=None, ge=1, le=10_000, description="Transformer layers (L).")
    hidden_size: int | None = Field(default=None, ge=1, le=1_000_000, description="Model width (h).")
    attention_heads: int | None = Field(default=None, ge=1, le=100_000, description="Attention heads (a).")
    kv_heads: int | None = Field(default=None, ge=1, le=100_000, description="Key/value heads; default a (MHA).")
    ffn_hidden_size: int | None = Field(default=None, ge=1, le=10_000_000, description="MLP inner width.")
    vocab_size: int | None = Field(default=None, ge=1, le=100_000_000, description="Vocabulary size (V).")
    mlp: MlpKind | None = Field(default=None, description="gelu (GPT-style, with biases) or swiglu (Llama-style).")
    tied_embeddings: bool | None = Field(default=None, description="Output layer shares the embedding matrix.")

    @model_validator(mode="after")
    def _one_source(self) -> Self:
        given = [name for name in ARCHITECTURE_FIELDS if getattr(self, name) is not None]
        if self.preset is None and given and len(given) < len(ARCHITECTURE_FIELDS):
            missing = ", ".join(f"model.{n}" for n in ARCHITECTURE_FIELDS if n not in given)
            raise ValueError(f"an architecture needs {missing} too (or a model.preset to complete it)")
        if self.preset is None and self.parameter_count is None and not given:
            raise ValueError("give model.parameter_count, model.preset or an architecture")
        if self.hidden_size is not None and self.attention_heads is not None:
            if self.hidden_size % self.attention_heads:
                raise ValueError(
                    f"model.hidden_size {self.hidden_size} is not a multiple of model.attention_heads "
                    f"{self.attention_heads}"
                )
        if self.attention_heads is not None and self.kv_heads is not None:
            if self.attention_heads % self.kv_heads:
                raise ValueError(
                    f"model.attention_heads {self.attention_heads} is not a multiple of model.kv_heads {self.kv_heads}"
                )
        return self


class ShardingFlags(Strict):
    """The three flags that describe every arrangement (DESIGN.md, 'Three flags')."""

    shard_optimizer: bool
    shard_gradients: bool
    shard_parameters: bool

    @model_validator(mode="after")
    def _monotone(self) -> Self:
        if self.shard_parameters and not self.shard_gradients:
            raise ValueError(
                "shard_parameters=true needs shard_gradients=true: no framework shards parameters "
                "but keeps every gradient"
            )
        if self.shard_gradients and not self.shard_optimizer:
            raise ValueError(
                "shard_gradients=true needs shard_optimizer=true: no framework shards gradients "
                "but keeps every optimizer state"
            )
        return self


Arrangement = Annotated[
    Annotated[ArrangementName, Tag(NAME_TAG)] | Annotated[ShardingFlags, Tag(SPEC_TAG)],
    Discriminator(
        _name_or_object,
        custom_error_type="name_or_flags",
        custom_error_message="give an arrangement name or an object of the three sharding flags",
    ),
]

Precision = Annotated[
    Annotated[PrecisionPresetName, Tag(NAME_TAG)] | Annotated[PrecisionSpec, Tag(SPEC_TAG)],
    Discriminator(
        _name_or_object,
        custom_error_type="name_or_spec",
        custom_error_message="give a precision preset name or an object of dtypes and optimizer",
    ),
]


Links = Annotated[
    Annotated[LinkPresetName, Tag(NAME_TAG)] | Annotated[LinkSpec, Tag(SPEC_TAG)],
    Discriminator(
        _name_or_object,
        custom_error_type="name_or_spec",
        custom_error_message="give a link preset name or an object of bandwidths and latencies",
    ),
]


class Card(Strict):
    """The card and the node: a GPU preset or an explicit memory size, and GPUs per node."""

    gpus_per_node: int = Field(default=8, ge=1, le=MAX_GPUS_PER_NODE, description="GPUs per node (G).")
    gpu: GpuPresetName | None = Field(default=None, description="A GPU preset; see GET /v1/presets.")
    gpu_memory_bytes: int | None = Field(
        default=None,
        ge=1,
        le=MAX_GPU_MEMORY_BYTES,
        description="Memory of one GPU, bytes; with no reserve unless cluster.reserve_bytes or "
        "cluster.fragmentation says otherwise.",
    )
    reserve_bytes: int | None = Field(
        default=None,
        ge=0,
        le=MAX_GPU_MEMORY_BYTES,
        description="Bytes of each card a job cannot use: CUDA context and NCCL buffers. Default: the GPU "
        "preset's (see GET /v1/presets), 0 with gpu_memory_bytes.",
    )
    fragmentation: float | None = Field(
        default=None,
        ge=0,
        lt=1,
        description="Fraction of the card the allocator cannot use (fragmentation). Default: the GPU preset's, "
        "0 with gpu_memory_bytes.",
    )
    peak_flops_per_s: float | None = Field(
        default=None, gt=0, le=1e18, description="Dense peak FLOP/s of one GPU; default the GPU preset's."
    )
    links: Links = Field(
        default=LinkPresetName.seed,
        description="Link bandwidths and latencies: a preset name or explicit values.",
    )

    @model_validator(mode="after")
    def _one_card(self) -> Self:
        if (self.gpu is None) == (self.gpu_memory_bytes is None):
            raise ValueError("give exactly one of cluster.gpu and cluster.gpu_memory_bytes")
        return self


def check_world_size(world_size: int, gpus_per_node: int, field: str = "world_size") -> int:
    """A job is part of one node or a whole number of nodes (torchtitan ParallelDims style)."""
    if world_size > gpus_per_node and world_size % gpus_per_node:
        nodes, rest = divmod(world_size, gpus_per_node)
        raise ValueError(
            f"{field} {world_size} is not a whole number of nodes: {world_size} = "
            f"{nodes} x gpus_per_node {gpus_per_node} + {rest}; use at most {gpus_per_node} GPUs "
            f"or a multiple of {gpus_per_node}"
        )
    return world_size


class Cluster(Card):
    """A card, GPUs per node and the world size (N, the data-parallel GPU count)."""

    world_size: int = Field(ge=1, le=MAX_WORLD_SIZE, description="Data-parallel GPU count (N).")

    @field_validator("world_size")
    @classmethod
    def _whole_nodes(cls, world_size: int, info: Any) -> int:
        gpus_per_node = info.data.get("gpus_per_node")
        if gpus_per_node is None:
            return world_size
        return check_world_size(world_size, gpus_per_node)
