"""GET and POST /v1/figures/{name}: the four figures of issue 4 and the two of a layout, as PNG or SVG.

The body is a /v1/plan request without ``arrangement`` (every figure draws DP, ZeRO-1, ZeRO-2,
ZeRO-3 and FSDP's SHARD_GRAD_OP side by side), plus the GPU range of the memory curve, the image
size and, for the traffic figure, bytes a simulation measured (POST /v1/simulations) to draw
beside the formula's. The layout figures (layout-memory, layout-traffic) draw the /v1/plan answer for
``parallelism`` under ``layout_arrangement``: each pipeline stage's memory, each group's traffic.
"""

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator

from models.common import (
    MAX_GPU_MEMORY_BYTES,
    MAX_GPUS_PER_NODE,
    MAX_PARAMETER_COUNT,
    MAX_WORLD_SIZE,
    PRECISION_FIELD,
    PRECISION_SPEC_FIELD,
    Arrangement,
    Cluster,
    ModelSpec,
    Precision,
    ShardingFlags,
    Strict,
    name_or_spec,
    plain_name,
    precision_validator,
    shared_default,
)
from models.enums import ArrangementName, CollectiveName
from models.parallelism import Parallelism
from models.plan import ACTIVATIONS_FIELD, TRAINING_FIELD, EstimatorOptions
from models.presets import GpuPresetName, ModelPresetName, PrecisionPresetName, PrecisionSpec
from models.training import Activations, Levers, Training

DRAWN_ARRANGEMENTS = (
    ArrangementName.ddp,
    ArrangementName.zero1,
    ArrangementName.zero2,
    ArrangementName.zero3,
    ArrangementName.shard_grad_op,
)
MAX_MEASURED = len(DRAWN_ARRANGEMENTS) * len(CollectiveName)
DEFAULT_WIDTH_PX, DEFAULT_HEIGHT_PX = 960, 600
MIN_WIDTH_PX, MIN_HEIGHT_PX, MAX_SIDE_PX = 640, 400, 4096
DEFAULT_MAX_GPUS = 64

FIGURE_EXAMPLE: dict[str, JsonValue] = {
    "model": {"parameter_count": 30_000_000_000},
    "precision": "mixed_bf16_adam",
    "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "seed-80gb"},
    "max_gpus": 64,
    "measured": [
        {"arrangement": "zero3", "collective": "all_gather", "bytes_per_gpu": 105_000_000_000},
        {"arrangement": "zero3", "collective": "reduce_scatter", "bytes_per_gpu": 52_500_000_000},
    ],
}


class FigureName(StrEnum):
    """The four figures (issue 4, 'The four figures'), and the two of a layout (its stages' memory, the bytes
    each of its groups sends)."""

    memory_vs_gpus = "memory-vs-gpus"
    bytes_per_weight = "bytes-per-weight"
    traffic = "traffic"
    step_time = "step-time"
    layout_memory = "layout-memory"
    layout_traffic = "layout-traffic"


ARRANGEMENT_FIGURES = (
    FigureName.memory_vs_gpus,
    FigureName.bytes_per_weight,
    FigureName.traffic,
    FigureName.step_time,
)


class FigureFormat(StrEnum):
    png = "png"
    svg = "svg"


FIGURE_MEDIA_TYPES: dict[FigureFormat, str] = {FigureFormat.png: "image/png", FigureFormat.svg: "image/svg+xml"}

MAX_GPUS_FIELD = Field(
    default=DEFAULT_MAX_GPUS,
    ge=1,
    le=MAX_WORLD_SIZE,
    description="Largest GPU count of the memory-vs-gpus curve (powers of two up to it, each a valid job).",
)
WIDTH_FIELD = Field(default=DEFAULT_WIDTH_PX, ge=MIN_WIDTH_PX, le=MAX_SIDE_PX, description="Image width, pixels.")
HEIGHT_FIELD = Field(default=DEFAULT_HEIGHT_PX, ge=MIN_HEIGHT_PX, le=MAX_SIDE_PX, description="Image height, pixels.")


class MeasuredBytes(Strict):
    """Bytes one GPU sent per optimizer step in one collective, as a simulation measured them."""

    arrangement: ArrangementName = Field(
        description="ddp, zero1, zero2, zero3 or shard_grad_op (the arrangements drawn)."
    )
    collective: CollectiveName
    bytes_per_gpu: int = Field(ge=0, le=10**18, description="Bytes each GPU sent per optimizer step, measured.")

    @field_validator("arrangement")
    @classmethod
    def _drawn(cls, arrangement: ArrangementName) -> ArrangementName:
        if arrangement not in DRAWN_ARRANGEMENTS:
            names = ", ".join(a.value for a in DRAWN_ARRANGEMENTS)
            raise ValueError(f"{arrangement.value} is not drawn: give one of {names}")
        return arrangement


class FigureRequest(Strict):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [FIGURE_EXAMPLE]})

    model: ModelSpec
    precision_spec: PrecisionSpec | None = PRECISION_SPEC_FIELD
    precision: Precision = PRECISION_FIELD
    pick_precision = precision_validator()  # type: ignore[pydantic-field]
    training: Training | None = TRAINING_FIELD
    activations: Activations = ACTIVATIONS_FIELD
    cluster: Cluster = Field(description="The card, GPUs per node and the chosen world size N of the bar figures.")
    levers: Levers = Field(
        default_factory=shared_default(Levers),
        description="Levers applied to every arrangement drawn; offload_parameters applies to ZeRO-3 only.",
    )
    sharding: ShardingFlags | None = Field(
        default=None, description="The job's arrangement as its three sharding flags, instead of a name."
    )
    arrangement: Arrangement | None = Field(
        default=None,
        validate_default=True,  # sharding flags alone fill it, as /v1/plan reads them
        description="The job's arrangement (a /v1/plan body's own): the layout figures draw it (instead of "
        "layout_arrangement); the four others draw every arrangement side by side.",
        json_schema_extra=plain_name(nullable=True),
    )
    pick_arrangement = field_validator("arrangement", mode="before")(name_or_spec("sharding"))
    layout_arrangement: ArrangementName = Field(
        default=ArrangementName.zero1,
        description="The arrangement of the layout figures (layout-memory, layout-traffic) when `arrangement` is "
        "not given, over the data-parallel group; the four others draw every arrangement side by side.",
    )
    estimator: EstimatorOptions = Field(
        default_factory=shared_default(EstimatorOptions),
        description="Options of DeepSpeed's estimators, as /v1/plan takes them.",
    )
    parallelism: Parallelism = Field(
        default_factory=shared_default(Parallelism),
        description="The layout the layout figures draw, as in /v1/plan; the four others draw data parallelism.",
    )
    max_gpus: int = MAX_GPUS_FIELD
    measured: list[MeasuredBytes] | None = Field(
        default=None,
        max_length=MAX_MEASURED,
        description="Measured bytes per GPU per step (e.g. from a simulation report), drawn beside the "
        "formula's in the traffic figure; at most one entry per arrangement and collective.",
    )
    width_px: int = WIDTH_FIELD
    height_px: int = HEIGHT_FIELD

    @field_validator("measured")
    @classmethod
    def _one_measurement_each(cls, measured: list[MeasuredBytes] | None) -> list[MeasuredBytes] | None:
        seen: set[tuple[ArrangementName, CollectiveName]] = set()
        for entry in measured or []:
            key = (entry.arrangement, entry.collective)
            if key in seen:
                raise ValueError(f"lists {key[0].value} {key[1].value} twice: give one measurement each")
            seen.add(key)
        return measured


class FigureQuery(BaseModel):
    """GET /v1/figures/{name} query parameters: the common case of a FigureRequest, flat.

    Query parameters arrive as text, so this model converts them (lax mode); the FigureRequest
    it stands for is then validated strictly like any body.
    """

    model_config = ConfigDict(extra="forbid")

    parameter_count: int | None = Field(
        default=None, ge=1, le=MAX_PARAMETER_COUNT, description="Parameter count (model.parameter_count)."
    )
    preset: ModelPresetName | None = Field(default=None, description="A model preset (model.preset).")
    precision: PrecisionPresetName = Field(
        default=PrecisionPresetName.mixed_bf16_adam, description="A precision preset."
    )
    world_size: int = Field(default=8, ge=1, le=MAX_WORLD_SIZE, description="Chosen GPU count N (cluster.world_size).")
    gpus_per_node: int = Field(
        default=8, ge=1, le=MAX_GPUS_PER_NODE, description="GPUs per node (cluster.gpus_per_node)."
    )
    gpu: GpuPresetName | None = Field(default=None, description="A GPU preset (cluster.gpu).")
    gpu_memory_bytes: int | None = Field(
        default=None, ge=1, le=MAX_GPU_MEMORY_BYTES, description="Usable memory of one GPU (cluster.gpu_memory_bytes)."
    )
    max_gpus: int = MAX_GPUS_FIELD
    width_px: int = WIDTH_FIELD
    height_px: int = HEIGHT_FIELD
    format: FigureFormat | None = Field(default=None, description="png or svg; wins over the Accept header.")

    def body(self) -> dict[str, Any]:
        """The FigureRequest body these parameters stand for (validate it with FigureRequest)."""
        model = {k: v for k, v in (("parameter_count", self.parameter_count), ("preset", self.preset)) if v is not None}
        cluster: dict[str, Any] = {"world_size": self.world_size, "gpus_per_node": self.gpus_per_node}
        cluster |= {k: v for k, v in (("gpu", self.gpu), ("gpu_memory_bytes", self.gpu_memory_bytes)) if v is not None}
        return {
            "model": model,
            "precision": self.precision,
            "cluster": cluster,
            "max_gpus": self.max_gpus,
            "width_px": self.width_px,
            "height_px": self.height_px,
        }
