"""POST /v1/sweep: one plan request evaluated over the cartesian product of its axes."""

from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator

from models.common import MAX_GPUS_PER_NODE, MAX_WORLD_SIZE, Strict
from models.enums import ArrangementName, Recompute
from models.plan import PlanRequest

MAX_AXIS_VALUES = 100_000


def _axis(item: Any, description: str) -> Any:
    return Field(default=None, min_length=1, max_length=MAX_AXIS_VALUES, description=description)


class SweepAxes(Strict):
    """Each axis lists the values to sweep; an axis left out keeps the base request's value."""

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

    @field_validator("*")
    @classmethod
    def _distinct(cls, values: list[Any] | None) -> list[Any] | None:
        if values is not None and len(set(values)) != len(values):
            raise ValueError("lists a value twice")
        return values


class SweepSortKey(StrEnum):
    world_size = "world_size"
    per_gpu_bytes = "per_gpu_bytes"
    headroom_bytes = "headroom_bytes"
    bytes_sent_per_gpu = "bytes_sent_per_gpu"
    step_s = "step_s"
    exposed_communication_s = "exposed_communication_s"


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

    base: PlanRequest = Field(description="A /v1/plan request: every field an axis does not override.")
    axes: SweepAxes
    fits_only: bool = Field(default=False, description="Keep only the rows that fit the card.")
    sort_by: SweepSortKey | None = Field(default=None, description="Sort the rows by this column.")
    descending: bool = False
    offset: int = Field(default=0, ge=0, le=10**9)
    limit: int | None = Field(default=None, ge=1, le=10**9, description="Rows returned at most.")


class SweepResponse(BaseModel):
    """Columnar: ``columns[name][i]`` is row i's value of that column."""

    rows: int = Field(description="Rows returned.")
    matched_rows: int = Field(description="Rows after the filter, before offset and limit.")
    cells: int = Field(description="Cells of the cartesian product asked for.")
    skipped_cells: int = Field(description="Cells that are not valid jobs (see skipped_reasons).")
    skipped_reasons: list[str]
    columns: dict[str, list[int | float | bool | str]]
