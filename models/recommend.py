"""POST /v1/recommend: the ordered steps a team should take, cheapest first."""

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_serializer, field_validator

from models.common import (
    MAX_WORLD_SIZE,
    PRECISION_FIELD,
    PRECISION_SPEC_FIELD,
    Arrangement,
    ModelSpec,
    Precision,
    ShardingFlags,
    Strict,
    as_request_json,
    name_or_spec,
    plain_name,
    precision_validator,
    shared_default,
)
from models.enums import ArrangementName, Recompute
from models.fit import FitCluster
from models.parallelism import Parallelism
from models.plan import ACTIVATIONS_FIELD, TRAINING_FIELD, EstimatorOptions, PlanRequest
from models.presets import PrecisionSpec
from models.training import Activations, Levers, Training

RECOMMEND_EXAMPLE: dict[str, JsonValue] = {
    "model": {"parameter_count": 30_000_000_000},
    "cluster": {"gpus_per_node": 8, "gpu": "seed-80gb", "links": "seed"},
    "max_gpus": 64,
}


class RecommendRequest(Strict):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [RECOMMEND_EXAMPLE]})

    model: ModelSpec
    precision_spec: PrecisionSpec | None = PRECISION_SPEC_FIELD
    precision: Precision = PRECISION_FIELD
    pick_precision = precision_validator()  # type: ignore[pydantic-field]
    training: Training | None = TRAINING_FIELD
    activations: Activations = ACTIVATIONS_FIELD
    cluster: FitCluster
    sharding: ShardingFlags | None = Field(
        default=None, description="The three sharding flags of the job as it runs now, instead of a name."
    )
    arrangement: Arrangement | None = Field(
        default=None,
        validate_default=True,  # sharding flags alone fill it, as /v1/plan reads them
        description="The arrangement the job runs now (a /v1/plan body's own): the step with it and the request's "
        "levers is marked `asked`; where no candidate is that job, it is a step of its own ('the job as asked: "
        "...'). Every candidate is listed either way.",
        json_schema_extra=plain_name(nullable=True),
    )
    pick_arrangement = field_validator("arrangement", mode="before")(name_or_spec("sharding"))
    max_gpus: int = Field(default=1024, ge=1, le=MAX_WORLD_SIZE, description="The most GPUs the team can have.")
    levers: Levers = Field(
        default_factory=shared_default(Levers),
        description="The job's levers, as /v1/plan takes them. Each step keeps overlap, bucket_bytes and ZeRO++ "
        "from here and sets recompute, offload_optimizer and mxfp8 itself.",
    )
    parallelism: Parallelism = Field(
        default_factory=shared_default(Parallelism),
        description="The layout every step keeps (tensor, pipeline, context, expert degrees, schedule): the steps "
        "are arrangements and levers over its data-parallel group, each found and priced as /v1/fit and /v1/plan "
        "find and price it. Omitted: data parallelism alone.",
    )
    estimator: EstimatorOptions = Field(
        default_factory=shared_default(EstimatorOptions),
        description="Options of DeepSpeed's estimators, as /v1/plan takes them.",
    )


class StepLevers(BaseModel):
    recompute: Recompute
    offload_optimizer: bool
    mxfp8: bool
    fp8_param_gather: bool = Field(
        default=False, description="levers.fp8_param_gather: Transformer Engine's weights kept in FP8 alone."
    )


class StepCost(BaseModel):
    extra_traffic_fraction: float = Field(description="Wire volume over data parallel's 2P, minus 1 (0.5: 50% more).")
    extra_compute_fraction: float = Field(description="FLOPs over 6PT, minus 1 (1/3 for full recomputation).")
    pcie_bytes_per_gpu: int = Field(description="Host-link bytes per GPU per step (offload).")
    hardware: str | None = Field(description="Hardware the step needs that the card is not; null if none.")
    added_step_s: float = Field(description="Step time over data parallel's at the same GPU count.")


class RecommendStep(BaseModel):
    rank: int = Field(description="Steps that fit come first (cheapest first), then those that do not.")
    lever: str
    arrangement: ArrangementName
    levers: StepLevers
    per_gpu_bytes: int = Field(description="Per-GPU bytes at world_size.")
    fits: bool
    min_gpus: int | None = Field(description="Smallest valid GPU count up to max_gpus that fits; null if none.")
    needs_gpus: int | None = Field(
        description="Smallest GPU count /v1/plan accepts at which the step fits, past max_gpus too (what a step "
        "that does not fit would need); null when it fits at no count."
    )
    world_size: int = Field(
        description="GPU count the figures are for, each the /v1/plan of this step at that count: cluster.world_size "
        "when given; else min_gpus, or the largest valid job up to max_gpus when it does not fit there."
    )
    asked: bool = Field(description="The request's own arrangement and levers (a /v1/plan body's job).")
    step_s: float = Field(
        description="The step's /v1/plan step time at world_size. With training.utilisation, the utilisation is "
        "read as measured with the request's own recomputation (training.utilisation_recompute, unless the request "
        "gives it): the /v1/plan body of a step that changes levers.recompute carries that field."
    )
    cost: StepCost
    why: str
    request: PlanRequest = Field(
        description="The step's /v1/plan request, as a client writes it (nulls left out): the request's own fields "
        "with cluster.world_size, arrangement and the step's levers, and a given training.utilisation with "
        "training.utilisation_recompute; its /v1/plan answer holds this step's per_gpu_bytes, fits and step_s. "
        "Send it to any planning endpoint, or submit the job it names."
    )

    # No return annotation on purpose: the spec then shows PlanRequest's own schema for `request`.
    @field_serializer("request")
    def _as_client_writes_it(self, request: PlanRequest):  # type: ignore[no-untyped-def]
        return as_request_json(request, exclude_unset=True)


class OmittedStep(BaseModel):
    lever: str
    arrangement: ArrangementName
    levers: StepLevers
    same_as: str = Field(description="The step without the lever, whose memory and time this one matches.")
    why: str


class OpenQuestion(BaseModel):
    question: str
    what_settles_it: str
    relevant: bool = Field(description="Whether this case's answer hinges on it.")
    why: str


class RecommendResponse(BaseModel):
    parameter_count: int
    active_parameter_count: int = Field(
        description="Parameters one token uses (top_k of the routed experts in a mixture of experts; all of "
        "them in a dense model). Compute counts these; memory holds parameter_count."
    )
    card_bytes: int
    usable_bytes: int = Field(description="The card less its reserve and fragmentation: what every step must fit.")
    steps: list[RecommendStep]
    world_size: int | None = Field(
        description="cluster.world_size: the GPU count every step is priced at; null when "
        "not given (each step at its own smallest fitting count)."
    )
    recommendation: RecommendStep | None = Field(description="The first step that fits; null if none does.")
    omitted: list[OmittedStep] = Field(
        description="Levers left out of the steps because they change nothing this case needs: the same per-GPU "
        "bytes as the arrangement without them and no shorter step (selective recomputation with flash attention, "
        "which stores no attention scores; recomputation when activations are not counted)."
    )
    summary: str
    questions: list[OpenQuestion]
    warnings: list[str]
