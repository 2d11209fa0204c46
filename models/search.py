"""POST /v1/search: every valid layout of a model on a cluster, ranked, with the Pareto front."""

from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, Field, JsonValue, StrictBool, field_serializer, field_validator, model_validator

from models.common import (
    MAX_WORLD_SIZE,
    PRECISION_FIELD,
    PRECISION_SPEC_FIELD,
    Arrangement,
    Card,
    ModelSpec,
    Precision,
    ShardingFlags,
    Strict,
    as_request_json,
    check_world_size,
    name_or_spec,
    plain_name,
    precision_validator,
    shared_default,
)
from models.enums import ArrangementName, Recompute
from models.parallelism import MAX_DEGREE, MAX_VIRTUAL_STAGES, Parallelism, ParallelismEcho, PipelineSchedule
from models.plan import ACTIVATIONS_FIELD, EstimatorOptions, Memory, PlanRequest, Time
from models.presets import PrecisionSpec
from models.resilience import Checkpoint
from models.training import (
    MAX_GLOBAL_BATCH_SIZE,
    MAX_MICRO_BATCH_SIZE,
    MIN_UTILISATION,
    Activations,
    Levers,
    measured_with_a_utilisation,
)

MAX_WORLD_SIZES = 256
MAX_TOP_K = 100
MAX_CHOICES = 64

SEARCH_EXAMPLE: dict[str, JsonValue] = {
    "model": {"preset": "llama-3.1-405b"},
    "cluster": {"world_size": [1024, 2048, 4096, 8192, 16384], "gpus_per_node": 8, "gpu": "h100-80gb"},
    "training": {"global_batch_size": 2048, "sequence_length": 8192},
    "objective": "step_s",
    "top_k": 5,
}

RESTRICTED_EXAMPLE: dict[str, JsonValue] = {
    "model": {"preset": "gpt-3-175b"},
    "cluster": {"world_size": 1024, "gpus_per_node": 8, "gpu": "a100-80gb"},
    "training": {"global_batch_size": 1536, "sequence_length": 2048},
    "objective": "tokens_per_s_per_gpu",
    "top_k": 3,
    "restrict": {"tensor": [4, 8], "arrangement": ["zero1"], "recompute": ["selective", "full"]},
}


class SearchObjective(StrEnum):
    """What the layouts are ranked by."""

    step_s = "step_s"  # the shortest step
    tokens_per_s_per_gpu = "tokens_per_s_per_gpu"  # the most tokens per second per GPU
    gpus = "gpus"  # the fewest GPUs, then the shortest step
    training_days = "training_days"  # the shortest run of training.total_tokens (wall time, goodput included)
    gpu_hours = "gpu_hours"  # the fewest GPU-hours for training.total_tokens
    cost = "cost"  # the least cost: gpu_hours x cluster.gpu_hour_price


class PipelineSplit(StrEnum):
    """How a pipelined layout's layers split over its stages (or model chunks), as the search tries it."""

    even = "even"  # layers / (p x v) a chunk, the last (layers mod p v) chunks one more
    embedding_loss = "embedding_loss"  # the embedding and the loss each counted as a layer (Megatron-LM's accounting)
    lighter_ends_1 = "lighter_ends_1"  # the first and the last chunk one layer lighter, the middle ones heavier
    lighter_ends_2 = "lighter_ends_2"  # the first and the last chunk two layers lighter


NEEDS = {
    SearchObjective.training_days: ("training.total_tokens",),
    SearchObjective.gpu_hours: ("training.total_tokens",),
    SearchObjective.cost: ("training.total_tokens", "cluster.gpu_hour_price"),
}


_LIST = Field(min_length=1, max_length=MAX_CHOICES, json_schema_extra={"uniqueItems": True})


def _choices(description: str, low: int = 1, high: int = MAX_DEGREE) -> Any:
    return Field(
        default=None,
        min_length=1,
        max_length=MAX_CHOICES,
        description=description,
        json_schema_extra={"uniqueItems": True},
    )


Degree = Annotated[int, Field(ge=1, le=MAX_DEGREE)]


MAX_BOUND = max(MAX_WORLD_SIZE, MAX_DEGREE)  # no searched axis takes a value past it


class AxisBounds(Strict):
    """An inclusive range of an axis: its default candidates between min and max (either may be left out)."""

    min: int | None = Field(default=None, ge=1, le=MAX_BOUND, description="The least value allowed.")
    max: int | None = Field(default=None, ge=1, le=MAX_BOUND, description="The largest value allowed.")

    @model_validator(mode="after")
    def _ordered(self) -> "AxisBounds":
        if self.min is None and self.max is None:
            raise ValueError("give min, max or both")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"min {self.min:,} is above max {self.max:,}")
        return self

    def admits(self, value: int) -> bool:
        return (self.min is None or value >= self.min) and (self.max is None or value <= self.max)


def _axis(description: str) -> Any:
    return Field(
        default=None,
        description=description + " A list fixes the values (each distinct); {min, max} bounds the default candidates.",
    )


class SearchRestrict(Strict):
    """Restrictions on the search space; a field left out searches its default candidates."""

    world_size: Annotated[list[Annotated[int, Field(ge=1, le=MAX_WORLD_SIZE)]], _LIST] | AxisBounds | None = _axis(
        "World sizes allowed, of cluster.world_size's."
    )
    tensor: Annotated[list[Degree], _LIST] | AxisBounds | None = _axis(
        "Tensor-parallel degrees allowed. Default: the powers of two up to gpus_per_node."
    )
    pipeline: Annotated[list[Degree], _LIST] | AxisBounds | None = _axis(
        "Pipeline-parallel degrees allowed. Default: the powers of two up to the model's layers and the "
        "divisors of its layers."
    )
    context: Annotated[list[Degree], _LIST] | AxisBounds | None = _axis(
        "Context-parallel degrees allowed. Default: 1, 2, 4, 8, 16."
    )
    expert: Annotated[list[Degree], _LIST] | AxisBounds | None = _axis(
        "Expert-parallel degrees allowed. Default: 1 for a dense model; the powers of two dividing the experts "
        "for a mixture of experts."
    )
    virtual_stages: Annotated[list[Annotated[int, Field(ge=1, le=MAX_VIRTUAL_STAGES)]], _LIST] | AxisBounds | None = (
        _axis(
            "Virtual stages of the interleaved schedule and of zb_h1 allowed. Default: 2 to 8 (interleaved with 1 "
            "is 1F1B; zb_h1 is also offered without, unless a restriction here leaves out 1)."
        )
    )
    micro_batch_size: Annotated[list[Annotated[int, Field(ge=1, le=100_000)]], _LIST] | AxisBounds | None = _axis(
        "Micro-batch sizes allowed. Default: the powers of two up to 64 (and the global batch)."
    )
    arrangement: list[ArrangementName] | None = _choices(
        "Arrangements allowed (no_shard is ddp, full_shard zero3). Default: ddp, zero1, zero2, zero3, "
        "shard_grad_op, hybrid (hybrid only without model parallelism, as /v1/plan models it)."
    )
    recompute: list[Recompute] | None = _choices("Recomputation modes allowed. Default: none, selective, full.")
    offload_optimizer: list[StrictBool] | None = _choices("Optimizer offload off/on. Default: both.")
    pipeline_schedule: list[PipelineSchedule] | None = _choices(
        "Pipeline schedules allowed for layouts with pipeline parallelism. Default: all six."
    )
    sequence_parallel: list[StrictBool] | None = _choices(
        "Sequence parallelism off/on for layouts with tensor parallelism. Default: both."
    )
    pipeline_split: list[PipelineSplit] | None = _choices(
        "Splits of the layers tried on every layout with pipeline parallelism, each written into the row's "
        "request: even (layers / (pipeline x virtual stages) a model chunk, the last chunks one more); "
        "embedding_loss (the input embedding and the loss each counted as a layer: pipeline_embedding_layers and "
        "pipeline_loss_layers 1, Megatron-LM's --account-for-embedding-in-pipeline-split and "
        "--account-for-loss-in-pipeline-split, as Llama 3.1 405B ran); lighter_ends_1, lighter_ends_2 (the first "
        "and the last model chunk one or two layers below layers // chunks, the others spreading the rest: "
        "pipeline_layers per chunk, as Megatron-Core's --pipeline-model-parallel-layout places them; without model "
        "chunks and with the middle stages even, Megatron-LM's --decoder-first-pipeline-num-layers and "
        "--decoder-last-pipeline-num-layers). Default: the request's own split (parallelism.pipeline_layers, or "
        "its pipeline_embedding_layers and pipeline_loss_layers, kept by every pipelined layout), else each "
        "pipelined layout under the one of the four whose slowest stage does the least of the model's FLOPs a "
        "token (the output layer's FLOPs on its stage; the first of equals, in this order)."
    )

    @field_validator("*")
    @classmethod
    def _distinct(cls, values: Any) -> Any:
        """Each list's values distinct, as the schema's uniqueItems says."""
        if isinstance(values, list) and len(set(values)) != len(values):
            twice = sorted({str(v) for v in values if values.count(v) > 1})
            raise ValueError(f"lists {', '.join(twice)} twice")
        return values


class SearchCluster(Card):
    """The card, GPUs per node and the world sizes to search."""

    world_size: int | list[Annotated[int, Field(ge=1, le=MAX_WORLD_SIZE)]] = Field(
        description="A GPU count or a list of them (each at most gpus_per_node or a multiple of it).",
        json_schema_extra={"examples": [1024, [1024, 2048, 4096]]},
    )

    @field_validator("world_size")
    @classmethod
    def _whole_nodes(cls, value: int | list[int], info: Any) -> int | list[int]:
        if isinstance(value, int) and not 1 <= value <= MAX_WORLD_SIZE:
            raise ValueError(f"world_size must be between 1 and {MAX_WORLD_SIZE:,}")
        sizes = [value] if isinstance(value, int) else value
        if not sizes:
            raise ValueError("world_size needs at least one GPU count")
        if len(sizes) > MAX_WORLD_SIZES:
            raise ValueError(f"at most {MAX_WORLD_SIZES} world sizes")
        if len(set(sizes)) != len(sizes):
            raise ValueError("world sizes must be distinct")
        gpus_per_node = info.data.get("gpus_per_node")
        if gpus_per_node is not None:
            for size in sizes:
                check_world_size(size, gpus_per_node)
        return value

    @property
    def world_sizes(self) -> list[int]:
        return [self.world_size] if isinstance(self.world_size, int) else sorted(self.world_size)


class SearchTraining(Strict):
    """The training shape every layout keeps: sequences per optimizer step and tokens per sequence; the rest
    as /v1/plan's training takes it."""

    global_batch_size: int | None = Field(
        default=None,
        ge=1,
        le=MAX_GLOBAL_BATCH_SIZE,
        description="Sequences per optimizer step. Omitted: the request's own job's, micro_batch_size x "
        "gradient_accumulation_steps x its data-parallel degree (cluster.world_size / (tensor x pipeline x "
        "context) of its parallelism), as a /v1/plan body states it.",
    )
    sequence_length: int = Field(default=2048, ge=1, le=10_000_000, description="Tokens per sequence (s).")
    micro_batch_size: int | None = Field(
        default=None,
        ge=1,
        le=MAX_MICRO_BATCH_SIZE,
        description="The job's micro-batch size (b): with global_batch_size omitted it sizes the batch; the "
        "search still tries every micro-batch size unless restrict.micro_batch_size says otherwise.",
    )
    gradient_accumulation_steps: int | None = Field(
        default=None,
        ge=1,
        le=1_000_000,
        description="The job's micro-batches per step: with global_batch_size omitted it sizes the batch.",
    )
    utilisation: float | None = Field(
        default=None,
        ge=MIN_UTILISATION,
        le=1,
        description="As /v1/plan's training.utilisation: the compute's MFU, overriding the efficiency model.",
    )
    utilisation_recompute: Recompute | None = Field(
        default=None,
        description="As /v1/plan's training.utilisation_recompute: the recomputation the run that measured "
        "training.utilisation ran with, kept by every layout. Omitted: each layout's own levers.recompute.",
    )
    total_tokens: int | None = Field(
        default=None,
        ge=1,
        le=10**16,
        description="Tokens of the whole run: each row's time then holds training_steps, training_days and "
        "gpu_hours (and cost with cluster.gpu_hour_price).",
    )
    checkpoint: Checkpoint | None = Field(
        default=None,
        description="As /v1/plan's training.checkpoint: interval, storage and save mode, which every layout keeps. "
        "With cluster.failures they set each row's goodput, and the training_days, gpu_hours and cost objectives "
        "rank by them: an asynchronous save's stall by each layout's own stage that holds the most checkpointed "
        "states, as /v1/plan prices it.",
    )

    check_utilisation_recompute = field_validator("utilisation_recompute")(measured_with_a_utilisation)


class SearchRequest(Strict):
    """A model, a cluster and a training shape: every valid layout, ranked by the objective. A /v1/plan body is
    a valid search: its layout, arrangement and levers are the job as it runs now (answered as `asked`), and
    the search looks for better ones."""

    model_config = {"json_schema_extra": {"examples": [SEARCH_EXAMPLE, RESTRICTED_EXAMPLE]}}

    model: ModelSpec = Field(
        description="The model, as in /v1/plan. Without an architecture (a bare parameter count) data parallelism is "
        "its only layout: world sizes, arrangements, micro-batch sizes and levers are searched, each planned as "
        "/v1/plan plans it."
    )
    precision_spec: PrecisionSpec | None = PRECISION_SPEC_FIELD
    precision: Precision = PRECISION_FIELD
    pick_precision = precision_validator()  # type: ignore[pydantic-field]
    cluster: SearchCluster
    training: SearchTraining = Field(default_factory=SearchTraining)
    activations: Activations = ACTIVATIONS_FIELD
    sharding: ShardingFlags | None = Field(
        default=None, description="The job's arrangement as its three sharding flags, instead of a name."
    )
    arrangement: Arrangement | None = Field(
        default=None,
        validate_default=True,  # sharding flags alone fill it, as /v1/plan reads them
        description="The job's arrangement now (a /v1/plan body's own): with it the answer's `asked` row is the "
        "job as stated. Every arrangement of restrict.arrangement is searched either way.",
        json_schema_extra=plain_name(nullable=True),
    )
    pick_arrangement = field_validator("arrangement", mode="before")(name_or_spec("sharding"))
    parallelism: Parallelism = Field(
        default_factory=shared_default(Parallelism),
        description="The job's layout now (a /v1/plan body's own): the starting point, answered as `asked`; the "
        "search tries every layout. Its expert_tensor is kept by every layout (as the top-level expert_tensor).",
    )
    levers: Levers = Field(
        default_factory=shared_default(Levers),
        description="The levers, as /v1/plan takes them. Every layout keeps overlap, bucket_bytes, ZeRO++, "
        "offload_parameters and MXFP8 from here; recompute and offload_optimizer are searched (restrict fixes "
        "them). offload_parameters keeps the search to the arrangements that shard parameters (zero3, hybrid), "
        "ZeRO++ to zero3 over data parallelism alone, as /v1/plan takes them.",
    )
    estimator: EstimatorOptions = Field(
        default_factory=shared_default(EstimatorOptions),
        description="Options of DeepSpeed's estimators, as /v1/plan takes them.",
    )
    objective: SearchObjective = Field(
        default=SearchObjective.step_s,
        description="step_s: the shortest step; tokens_per_s_per_gpu: the most tokens per second per GPU; "
        "gpus: the fewest GPUs, then the shortest step; training_days, gpu_hours: the shortest run, the fewest "
        "GPU-hours of training.total_tokens (each layout's plan: its goodput included); cost: the least cost, "
        "gpu_hours x cluster.gpu_hour_price. Ties: fewer GPUs first.",
    )
    top_k: int = Field(default=10, ge=1, le=MAX_TOP_K, description="How many of the best layouts to return.")
    expert_tensor: int | None = Field(
        default=None,
        ge=1,
        le=MAX_DEGREE,
        description="The expert tensor-parallel degree every layout keeps (parallelism.expert_tensor of "
        "/v1/plan, Megatron-LM's --expert-tensor-parallel-size). Omitted: parallelism.expert_tensor, else each "
        "layout's tensor degree. A layout whose expert_tensor x expert does not divide its tensor x context x "
        "data GPUs is skipped.",
    )
    restrict: SearchRestrict = Field(default_factory=SearchRestrict, description="Restrictions of the space.")

    @property
    def kept_expert_tensor(self) -> int | None:
        return self.expert_tensor if self.expert_tensor is not None else self.parallelism.expert_tensor


class SearchLayout(BaseModel):
    """One layout: its degrees and levers, the /v1/plan answer's memory and time, and why it ranks here."""

    rank: int = Field(description="1 for the best by the objective (pareto rows: their rank, or 0 when below top_k).")
    world_size: int
    parallelism: ParallelismEcho
    arrangement: ArrangementName
    micro_batch_size: int
    recompute: Recompute
    offload_optimizer: bool
    per_gpu_bytes: int
    fits: bool
    step_s: float
    tokens_per_s_per_gpu: float
    mfu: float = Field(description="Model FLOPs utilisation of the step (PaLM's count over N x peak).")
    why: str = Field(
        description="The reason it ranks here, in words: the terms of time and memory (seconds, bytes) that "
        "separate it from the next row and from the best row, and the framework that runs it."
    )
    framework: str = Field(description="The framework conventions that run this layout (schedule and sharding).")
    equivalents: list[dict[str, JsonValue]] = Field(
        default_factory=list,
        description="Other choices with identical figures (step and bytes), each as the fields that differ from "
        "this row's (e.g. {'recompute': 'selective'}); the row shows the cheapest.",
    )
    memory: Memory = Field(description="The /v1/plan answer's memory for `request`.")
    time: Time = Field(description="The /v1/plan answer's time for `request`.")
    request: PlanRequest = Field(
        description="The complete /v1/plan request that reproduces this row, as a client writes it (nulls left out, "
        "each name or object field in its own field): send it to any planning endpoint."
    )

    # No return annotation on purpose: the spec then shows PlanRequest's own schema for `request`.
    @field_serializer("request")
    def _as_client_writes_it(self, request: PlanRequest):  # type: ignore[no-untyped-def]
        return as_request_json(request, exclude_unset=True)


class SearchResponse(BaseModel):
    objective: SearchObjective
    asked: SearchLayout | None = Field(
        default=None,
        description="The job as the request states it (its arrangement, layout, micro-batch and levers at its "
        "first world size), answered as /v1/plan answers it, to compare with the best; null without an "
        "arrangement.",
    )
    layouts: list[SearchLayout] = Field(description="The top_k layouts that fit, best first.")
    pareto: list[SearchLayout] = Field(
        description="The Pareto front of GPUs against step time among the layouts that fit: for each world size "
        "on the front its fastest layout, kept when it is faster than every layout on fewer GPUs."
    )
    considered: int = Field(description="Valid layouts of the space: evaluated + every count of pruned.")
    pruned: dict[str, int] = Field(
        description="Valid layouts never evaluated, by reason: what a memory lower bound shows cannot fit, and what a "
        "lower bound on the step shows cannot rank (branch and bound)."
    )
    evaluated: int = Field(description="Valid layouts evaluated.")
    fitting: int = Field(description="Of those, the layouts that fit the card.")
    never_finishing: int = Field(
        default=0,
        description="Of the fitting layouts, those whose run never finishes training.total_tokens under "
        "cluster.failures (interruptions come faster than a restart and a checkpoint interval absorb): /v1/plan "
        "refuses them at /cluster/failures, so they are not ranked. 0 without training.total_tokens.",
    )
    dominated: int = Field(
        description="Fitting layouts left out of the ranking: the same layout and arrangement with other levers "
        "(recompute, offload) is as fast or faster with no more bytes (under asynchronous checkpoint saves with a "
        "whole-run objective: better by the objective, its saves staging fewer bytes)."
    )
    skipped: dict[str, int] = Field(description="Combinations that are not valid layouts, by reason.")
    candidates: dict[str, list[JsonValue]] = Field(description="The values searched on each axis.")
    note: str | None = Field(description="Why the answer is empty, when no layout fits; else null.")
