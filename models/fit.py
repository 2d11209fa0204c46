"""POST /v1/fit: which arrangements fit a card, from how many GPUs."""

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Discriminator, Field, JsonValue, Tag, ValidationInfo, field_validator

from models.common import (
    MAX_WORLD_SIZE,
    NAME_TAG,
    PRECISION_FIELD,
    PRECISION_SPEC_FIELD,
    SPEC_TAG,
    Arrangement,
    Card,
    ModelSpec,
    Precision,
    ShardingFlags,
    Strict,
    check_world_size,
    name_or_spec,
    plain_name,
    precision_validator,
    shared_default,
)
from models.enums import ArrangementName, GpuCountGrid
from models.parallelism import Parallelism, ParallelismEcho
from models.plan import ACTIVATIONS_FIELD, TRAINING_FIELD, EstimatorOptions
from models.presets import PrecisionSpec
from models.training import Activations, Levers, Training

FIT_EXAMPLE: dict[str, JsonValue] = {
    "model": {"parameter_count": 30_000_000_000},
    "precision": "mixed_bf16_adam",
    "cluster": {"gpus_per_node": 8, "gpu": "seed-80gb"},
    "gpu_count_grid": "powers_of_two",
    "max_gpus": 64,
}

FIT_LAYOUT_EXAMPLE: dict[str, JsonValue] = {
    "model": {"preset": "llama-3-70b"},
    "precision": "megatron",
    "training": {"micro_batch_size": 1, "sequence_length": 8192, "global_batch_size": 512},
    "cluster": {"gpus_per_node": 8, "gpu": "h100-80gb"},
    "parallelism": {"tensor": 4, "pipeline": 4, "sequence_parallel": True},
    "max_gpus": 1024,
}

FIT_PLAN_BODY_EXAMPLE: dict[str, JsonValue] = {
    "model": {"preset": "mixtral-8x7b"},
    "training": {"micro_batch_size": 1, "sequence_length": 4096},
    "cluster": {"world_size": 16, "gpus_per_node": 8, "gpu": "a100-80gb"},
    "arrangement": "full_shard",
}

MAX_GRID_POINTS = 4096

GpuCount = Annotated[int, Field(ge=1, le=MAX_WORLD_SIZE)]


def _name_or_list(value: object) -> str | None:
    if isinstance(value, str):
        return NAME_TAG
    return SPEC_TAG if isinstance(value, list) else None


Grid = Annotated[
    Annotated[GpuCountGrid, Tag(NAME_TAG)]
    | Annotated[
        list[GpuCount],
        Tag(SPEC_TAG),
        Field(min_length=1, max_length=MAX_GRID_POINTS, json_schema_extra={"uniqueItems": True}),
    ],
    Discriminator(
        _name_or_list,
        custom_error_type="grid",
        custom_error_message="give powers_of_two, whole_nodes or a list of GPU counts",
    ),
]


class FitCluster(Card):
    """The card and the node; the world size is optional here: given (a /v1/plan body's own), it is the GPU
    count asked about."""

    world_size: int | None = Field(
        default=None,
        ge=1,
        le=MAX_WORLD_SIZE,
        description="Optional: the GPU count asked about (a /v1/plan body sent as it is). Each arrangement's "
        "at_world_size then says whether it fits there; at most gpus_per_node or a multiple of it, as /v1/plan "
        "takes it.",
    )

    @field_validator("world_size")
    @classmethod
    def _whole_nodes(cls, world_size: int | None, info: ValidationInfo) -> int | None:
        gpus_per_node = info.data.get("gpus_per_node")
        if world_size is None or gpus_per_node is None:
            return world_size
        return check_world_size(world_size, gpus_per_node)


class FitRequest(Strict):
    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [FIT_EXAMPLE, FIT_LAYOUT_EXAMPLE, FIT_PLAN_BODY_EXAMPLE]}
    )

    model: ModelSpec
    precision_spec: PrecisionSpec | None = PRECISION_SPEC_FIELD
    precision: Precision = PRECISION_FIELD
    pick_precision = precision_validator()  # type: ignore[pydantic-field]
    training: Training | None = TRAINING_FIELD
    activations: Activations = ACTIVATIONS_FIELD
    cluster: FitCluster
    sharding: ShardingFlags | None = Field(
        default=None, description="The three sharding flags: one arrangement given by its flags instead of a name."
    )
    arrangement: Arrangement | None = Field(
        default=None,
        validate_default=True,  # sharding flags alone fill it, as /v1/plan reads them
        description="One arrangement (a /v1/plan body's own), or null for every compared arrangement (ddp, zero1, "
        "zero2, zero3, shard_grad_op).",
        json_schema_extra=plain_name(nullable=True),
    )
    pick_arrangement = field_validator("arrangement", mode="before")(name_or_spec("sharding"))

    @field_validator("arrangement")
    @classmethod
    def _hybrid_needs_whole_nodes(cls, arrangement: Any, info: ValidationInfo) -> Any:
        cluster = info.data.get("cluster")
        if cluster is None or cluster.world_size is None:
            return arrangement
        asked = cluster.world_size
        if arrangement == ArrangementName.hybrid and asked % cluster.gpus_per_node:
            raise ValueError(
                f"hybrid shards inside a node and replicates across nodes: cluster.world_size {asked} is not a "
                f"multiple of cluster.gpus_per_node {cluster.gpus_per_node}"
            )
        return arrangement

    estimator: EstimatorOptions = Field(
        default_factory=shared_default(EstimatorOptions),
        description="Options of DeepSpeed's estimators, as /v1/plan takes them (a fit compares the service's own "
        "byte counts).",
    )
    gpu_count_grid: Grid = Field(
        default=GpuCountGrid.powers_of_two,
        description="powers_of_two (1, 2, 4, ...), whole_nodes (G, 2G, ...) or an explicit list of distinct GPU "
        "counts, each at most cluster.gpus_per_node or a multiple of it.",
    )
    max_gpus: int = Field(default=1024, ge=1, le=MAX_WORLD_SIZE, description="Largest GPU count tabulated.")
    levers: Levers = Field(
        default_factory=shared_default(Levers),
        description="Levers applied to every arrangement; offload_parameters applies to ZeRO-3 only.",
    )
    parallelism: Parallelism = Field(
        default_factory=shared_default(Parallelism),
        description="A layout (tensor, pipeline, context, expert degrees, schedule) each arrangement shards the "
        "data-parallel group of. Given, the GPU counts are those the layout can run on: t x p x c x d, part of a "
        "node or whole nodes, expert dividing d x c, and with training.global_batch_size a whole number m = "
        "global / (micro_batch_size x d) of micro-batches, m >= p for 1f1b, interleaved, zb_h1 and zb_v (a "
        "multiple of p for interleaved and zb_h1 with virtual stages), m >= 2p - 1 for zero_bubble; the minimum is "
        "the smallest such count whose busiest GPU fits, up to 1,000,000 GPUs. "
        "Omitted: data parallelism alone.",
    )

    @field_validator("gpu_count_grid")
    @classmethod
    def _explicit_grid(cls, grid: GpuCountGrid | list[int], info: ValidationInfo) -> GpuCountGrid | list[int]:
        if not isinstance(grid, list):
            return grid
        if len(set(grid)) != len(grid):
            raise ValueError("lists a GPU count twice")
        cluster = info.data.get("cluster")
        if cluster is not None:
            for gpus in grid:
                check_world_size(gpus, cluster.gpus_per_node, field="GPU count")
        return grid


class FitCell(BaseModel):
    world_size: int = Field(description="The GPU count, as /v1/plan's cluster.world_size.")
    per_gpu_bytes: int
    fits: bool


class ArrangementFit(BaseModel):
    arrangement: ArrangementName
    replicated_bytes_per_weight: float
    sharded_bytes_per_weight: float
    replicated_floor_bytes: int
    never_fits: bool = Field(
        description="No GPU count holds the bytes: the replicated floor alone does not fit. With "
        "training.global_batch_size, min_gpus may be null while this is false: the bytes fit from min_gpus_exact, "
        "but no count from there splits the batch (the reason says so)."
    )
    reason: str = Field(description="Why it fits from where it does, or the floor that stops it.")
    min_gpus: int | None = Field(
        description="The answer: the smallest GPU count /v1/plan accepts (part of one node, or whole nodes; with a "
        "layout, one it can run; with training.global_batch_size, one it splits over in whole micro-batches) at which "
        "this arrangement fits; every smaller such count does not. Null when none does."
    )
    min_gpus_exact: int | None = Field(
        description="Where the per-GPU bytes meet the usable bytes, any integer GPU count (the ZeRO arithmetic's "
        "boundary; past one node it may not be a whole number of nodes: min_gpus is the job to ask for). Null "
        "when none fits."
    )
    min_gpus_whole_nodes: int | None = Field(
        description="Smallest whole-node GPU count (multiple of G) whose bytes fit: the bytes alone, as "
        "min_gpus_exact (a global batch may not split over it; min_gpus is the job to ask for)."
    )
    min_gpus_on_grid: int | None = Field(description="Smallest grid GPU count up to max_gpus that fits.")
    table: list[FitCell] = Field(
        description="Per-GPU bytes over the grid (the busiest GPU with a layout; grid counts the layout cannot run "
        "on, or a global batch does not split over, are left out)."
    )
    at_world_size: FitCell | None = Field(
        default=None, description="With cluster.world_size: the per-GPU bytes there and whether they fit; else null."
    )
    parallelism: ParallelismEcho | None = Field(
        default=None,
        description="With a layout: the layout at min_gpus (its data-parallel degree and micro-batches); null "
        "without one, or when nothing fits.",
    )


class FitResponse(BaseModel):
    parameter_count: int
    active_parameter_count: int = Field(
        description="Parameters one token uses (top_k of the routed experts in a mixture of experts; all of "
        "them in a dense model). Compute counts these; memory holds parameter_count."
    )
    activations_bytes: int = Field(
        description="Activation bytes on every GPU, included in per_gpu_bytes, with the whole model on each GPU; "
        "with a layout each stage holds its own share (the tables hold the busiest GPU's bytes)."
    )
    activations_counted: bool = Field(description="Whether per_gpu_bytes includes activations (see warnings).")
    card_bytes: int
    card_gib: float
    reserve_bytes: int = Field(description="CUDA context and NCCL buffers: bytes of each card a job cannot use.")
    fragmentation_bytes: int = Field(description="ceil(fragmentation x card_bytes): held by the allocator, unusable.")
    usable_bytes: int = Field(description="card_bytes - reserve_bytes - fragmentation_bytes: what fit compares to.")
    gpus_per_node: int
    world_size: int | None = Field(description="The GPU count asked about (cluster.world_size); null when not given.")
    grid: list[int]
    arrangements: list[ArrangementFit]
    warnings: list[str]
