"""POST /v1/sweep: one plan request evaluated over the cartesian product of its axes."""

from enum import StrEnum
from typing import Annotated, Any, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    ModelWrapValidatorHandler,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from models.common import MAX_GPUS_PER_NODE, MAX_PARAMETER_COUNT, MAX_WORLD_SIZE, ModelSpec, Strict
from models.enums import ArrangementName, Recompute
from models.plan import PlanRequest

MAX_AXIS_VALUES = 100_000
# Each model is resolved and evaluated on its own (its architecture sets the activations).
MAX_MODELS = 256


def _axis(item: Any, description: str) -> Any:
    return Field(
        default=None,
        min_length=1,
        max_length=MAX_AXIS_VALUES,
        description=description,
        json_schema_extra={"uniqueItems": True},
    )


class SweepAxes(Strict):
    """Each axis lists distinct values to sweep; an axis left out keeps the base request's value."""

    model: list[ModelSpec] | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_MODELS,
        description="Models, each as in /v1/plan: a preset, a parameter count or an architecture; replaces base.model.",
    )
    parameter_count: list[Annotated[int, Field(ge=1, le=MAX_PARAMETER_COUNT)]] | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_MODELS,
        description="Parameter counts, each a model given by its count alone; replaces base.model. Not with "
        '`model` (write counts there as {"parameter_count": ...}).',
    )
    world_size: list[Annotated[int, Field(ge=1, le=MAX_WORLD_SIZE)]] | None = _axis(int, "GPU counts (N).")
    gpus_per_node: list[Annotated[int, Field(ge=1, le=MAX_GPUS_PER_NODE)]] | None = _axis(int, "GPUs per node (G).")
    arrangement: list[ArrangementName] | None = _axis(str, "Arrangement names.")
    micro_batch_size: list[Annotated[int, Field(ge=1, le=100_000)]] | None = _axis(int, "Micro-batch sizes.")
    sequence_length: list[Annotated[int, Field(ge=1, le=10_000_000)]] | None = _axis(int, "Sequence lengths.")
    gradient_accumulation_steps: list[Annotated[int, Field(ge=1, le=1_000_000)]] | None = _axis(
        int, "Micro-batches per step."
    )
    recompute: list[Recompute] | None = _axis(str, "Recomputation modes.")
    offload_optimizer: list[bool] | None = _axis(bool, "Optimizer offload off/on.")
    mxfp8: list[bool] | None = _axis(bool, "MXFP8 off/on.")
    tensor: list[Annotated[int, Field(ge=1, le=1_000_000)]] | None = _axis(
        int,
        "Tensor-parallel degrees; replaces base.parallelism.tensor. A cell with any degree above 1 is evaluated as "
        "/v1/plan plans its layout, every such cell of a model at once (with or without a given "
        "training.utilisation).",
    )
    pipeline: list[Annotated[int, Field(ge=1, le=1_000_000)]] | None = _axis(int, "Pipeline-parallel degrees.")
    context: list[Annotated[int, Field(ge=1, le=1_000_000)]] | None = _axis(int, "Context-parallel degrees.")
    expert: list[Annotated[int, Field(ge=1, le=1_000_000)]] | None = _axis(int, "Expert-parallel degrees.")
    virtual_stages: list[Annotated[int, Field(ge=1, le=1_000)]] | None = _axis(
        int, "Virtual stages of the interleaved schedule (base.parallelism.pipeline_schedule interleaved)."
    )

    @model_validator(mode="wrap")
    @classmethod
    def _known_axes(cls, data: Any, handler: ModelWrapValidatorHandler[Self]) -> Self:
        """An unknown axis is an error at its own pointer that lists the axes there are."""
        unknown = [name for name in data if name not in cls.model_fields] if isinstance(data, dict) else []
        if unknown:
            allowed = ", ".join(cls.model_fields)
            errors = [
                InitErrorDetails(
                    type=PydanticCustomError("unknown_axis", "unknown axis {name}: the axes are {allowed}", ctx),
                    loc=(name,),
                    input=data[name],
                )
                for name in unknown
                for ctx in [{"name": repr(name), "allowed": allowed}]
            ]
            raise ValidationError.from_exception_data(cls.__name__, errors)
        return handler(data)

    @field_validator("*")
    @classmethod
    def _distinct(cls, values: list[Any] | None) -> list[Any] | None:
        if values is None:
            return values
        keys = [v.model_dump_json() if isinstance(v, BaseModel) else v for v in values]
        if len(set(keys)) != len(keys):
            raise ValueError("lists a value twice")
        return values

    @model_validator(mode="after")
    def _one_model_axis(self) -> Self:
        if self.model is not None and self.parameter_count is not None:
            raise ValueError(
                "give axes.model or axes.parameter_count, not both: a count is a model too, "
                '{"parameter_count": 7000000000} in axes.model'
            )
        return self


class SweepSortKey(StrEnum):
    parameter_count = "parameter_count"
    world_size = "world_size"
    per_gpu_bytes = "per_gpu_bytes"
    headroom_bytes = "headroom_bytes"
    bytes_sent_per_gpu = "bytes_sent_per_gpu"
    step_s = "step_s"
    exposed_communication_s = "exposed_communication_s"
    tokens_per_s = "tokens_per_s"
    tokens_per_s_per_gpu = "tokens_per_s_per_gpu"
    training_days = "training_days"
    gpu_hours = "gpu_hours"
    cost = "cost"


SWEEP_EXAMPLE: dict[str, JsonValue] = {
    "base": {
        "model": {"parameter_count": 30_000_000_000},
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "seed-80gb"},
        "arrangement": "zero3",
    },
    "axes": {"world_size": [1, 2, 4, 8, 16, 32, 64], "arrangement": ["ddp", "zero1", "zero2", "zero3"]},
    "sort_by": "step_s",
}


class SweepRequest(Strict):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [SWEEP_EXAMPLE]})

    base: PlanRequest = Field(
        description="A /v1/plan request: every field an axis does not override. With training.global_batch_size "
        "every cell keeps that global batch, its micro-batches per step m = B / (micro_batch_size x d) at the cell's "
        "own data degree d, as /v1/plan resolves them (a cell whose batch they do not divide is skipped with the "
        "plan's reason); the axes may then not vary gradient_accumulation_steps."
    )
    axes: SweepAxes
    fits_only: bool = Field(default=False, description="Keep only the rows that fit the card.")
    sort_by: SweepSortKey | None = Field(default=None, description="Sort the rows by this column.")
    descending: bool = False
    offset: int = Field(default=0, ge=0, le=10**9)
    limit: int | None = Field(default=None, ge=1, le=10**9, description="Rows returned at most.")

    @field_validator("axes")
    @classmethod
    def _a_global_batch_sets_the_micro_batches(cls, axes: SweepAxes, info: ValidationInfo) -> SweepAxes:
        """A global batch B sets each cell's micro-batches per step, m = B / (b x d): they are not an axis then."""
        base = info.data.get("base")
        if base is None or base.training is None or base.training.global_batch_size is None:
            return axes
        if axes.gradient_accumulation_steps is not None:
            raise ValueError(
                "base.training.global_batch_size sets each cell's micro-batches per step (global batch / (micro-batch "
                "size x data degree)): sweep gradient_accumulation_steps with a base that gives "
                "training.gradient_accumulation_steps instead of a global batch"
            )
        return axes


class SweepResponse(BaseModel):
    """Columnar: ``columns[name][i]`` is row i's value of that column."""

    rows: int = Field(description="Rows returned.")
    matched_rows: int = Field(description="Rows after the filter, before offset and limit.")
    cells: int = Field(description="Cells of the cartesian product asked for.")
    skipped_cells: int = Field(description="Cells that are not valid jobs (see skipped_reasons).")
    skipped_reasons: list[str]
    columns: dict[str, list[int | float | bool | str]]
