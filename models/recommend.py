"""POST /v1/recommend: the ordered steps a team should take, cheapest first."""

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator

from models.common import (
    MAX_WORLD_SIZE,
    PRECISION_FIELD,
    PRECISION_SPEC_FIELD,
    Card,
    ModelSpec,
    Precision,
    Strict,
    precision_validator,
)
from models.enums import ArrangementName, Recompute
from models.parallelism import Parallelism
from models.plan import ACTIVATIONS_FIELD, TRAINING_FIELD
from models.presets import PrecisionSpec
from models.training import Activations, Training

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
    cluster: Card
    max_gpus: int = Field(default=1024, ge=1, le=MAX_WORLD_SIZE, description="The most GPUs the team can have.")
    overlap: bool = Field(default=True, description="Overlap communication with compute in every step.")
    bucket_bytes: int = Field(default=25 * 2**20, ge=1, le=10**12)
    parallelism: Parallelism = Field(
        default_factory=Parallelism,
        description="Data parallelism only: the steps are levers over the data-parallel group. For a layout, "
        "POST /v1/fit finds the smallest GPU count it fits on and POST /v1/plan its memory and step time.",
    )

    @field_validator("parallelism")
    @classmethod
    def _data_parallel_only(cls, parallelism: Parallelism) -> Parallelism:
        degrees = (parallelism.tensor, parallelism.pipeline, parallelism.context, parallelism.expert)
        if degrees != (1, 1, 1, 1) or parallelism.expert_tensor not in (None, 1):
            raise ValueError(
                "/v1/recommend plans data parallelism only: POST /v1/fit finds the smallest GPU count a layout "
                "fits on, POST /v1/plan its memory and step time"
            )
        return parallelism


class StepLevers(BaseModel):
    recompute: Recompute
    offload_optimizer: bool
    mxfp8: bool


class StepCost(BaseModel):
    extra_traffic_fraction: float = Field(description="Wire volume over data parallel's 2P, minus 1 (0.5: 50% more).")
    extra_compute_fraction: float = Field(description="FLOPs over 6PT, minus 1 (1/3 for full recomputation).")
    pcie_bytes_per_gpu: int = Field(description="Host-link bytes per GPU per step (offload).")
    hardware: str | None = Field(description="Hardware the step needs that the card is not; null if none.")
    added_step_s: float = Field(description="Step time over data parallel's at the same GPU count.")


class RecommendStep(BaseModel):
    rank: int
    lever: str
    arrangement: ArrangementName
    levers: StepLevers
    per_gpu_bytes: int = Field(description="Per-GPU bytes at world_size.")
    fits: bool
    min_gpus: int | None = Field(description="Smallest valid GPU count up to max_gpus that fits; null if none.")
    world_size: int = Field(
        description="GPU count the figures are for: min_gpus, or the largest valid job up to max_gpus when it "
        "never fits (max_gpus rounded down to whole nodes)."
    )
    step_s: float
    cost: StepCost
    why: str


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
    recommendation: RecommendStep | None = Field(description="The first step that fits; null if none does.")
    omitted: list[OmittedStep] = Field(
        description="Levers left out of the steps because they change nothing this case needs: the same per-GPU "
        "bytes as the arrangement without them and no shorter step (selective recomputation with flash attention, "
        "which stores no attention scores; recomputation when activations are not counted)."
    )
    summary: str
    questions: list[OpenQuestion]
    warnings: list[str]
