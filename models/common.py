"""Request parts shared by every planning operation: model, precision, cluster, arrangement."""

from typing import Annotated, Any, Self

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, field_validator, model_validator

from models.enums import ArrangementName
from models.presets import GpuPresetName, ModelPresetName, PrecisionPresetName, PrecisionSpec

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


class ModelSpec(Strict):
    """The model: a preset name or an explicit parameter count."""

    preset: ModelPresetName | None = Field(default=None, description="A model preset; see GET /v1/presets.")
    parameter_count: int | None = Field(
        default=None, ge=1, le=MAX_PARAMETER_COUNT, description="Parameter count (elements, not bytes)."
    )

    @model_validator(mode="after")
    def _one_source(self) -> Self:
        if self.preset is None and self.parameter_count is None:
            raise ValueError("give model.parameter_count or model.preset")
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


class Card(Strict):
    """The card and the node: a GPU preset or an explicit memory size, and GPUs per node."""

    gpus_per_node: int = Field(default=8, ge=1, le=MAX_GPUS_PER_NODE, description="GPUs per node (G).")
    gpu: GpuPresetName | None = Field(default=None, description="A GPU preset; see GET /v1/presets.")
    gpu_memory_bytes: int | None = Field(
        default=None, ge=1, le=MAX_GPU_MEMORY_BYTES, description="Usable memory of one GPU, bytes."
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
