"""POST /v1/limits: the inverse questions. What is the largest model, micro-batch, sequence that fits?"""

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator

from models.common import Arrangement, ModelSpec
from models.enums import ArrangementName
from models.parallelism import Parallelism
from models.plan import PlanRequest

LIMITS_EXAMPLE: dict[str, JsonValue] = {
    "precision": "mixed_fp16_adam",
    "cluster": {"world_size": 64, "gpus_per_node": 8, "gpu_memory_bytes": 32_000_000_000},
}

LIMITS_MODEL_EXAMPLE: dict[str, JsonValue] = {
    "model": {"preset": "llama-3-8b"},
    "training": {"micro_batch_size": 1, "sequence_length": 8192},
    "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "h100-80gb"},
    "arrangement": "zero3",
}


class LimitsRequest(PlanRequest):
    """The /v1/plan request with the model and the arrangement optional."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [LIMITS_EXAMPLE, LIMITS_MODEL_EXAMPLE]})

    model: ModelSpec | None = Field(  # type: ignore[assignment]
        default=None,
        description="The model whose largest micro-batch and longest sequence are asked for; without one only "
        "the largest parameter count is answered.",
    )
    arrangement: Arrangement | None = Field(  # type: ignore[assignment]
        default=None, description="One arrangement, or null for DP, ZeRO-1, ZeRO-2 and ZeRO-3."
    )

    @field_validator("parallelism")
    @classmethod
    def _data_parallel_only(cls, parallelism: Parallelism) -> Parallelism:
        if parallelism != Parallelism():
            raise ValueError(
                "/v1/limits plans data parallelism only: POST /v1/fit finds the smallest GPU count a layout fits "
                "on, POST /v1/plan its memory and step time"
            )
        return parallelism


class ArrangementLimits(BaseModel):
    arrangement: ArrangementName
    largest_parameter_count: int | None = Field(
        description="The largest parameter count whose model states fit the usable bytes at this world size (the "
        "ZeRO paper's table 2 question; the working set and activations of a real model come on top); null when "
        "not even one parameter fits."
    )
    largest_parameter_count_arithmetic: str
    largest_micro_batch_size: int | None = Field(
        description="With a model: the largest micro-batch whose per-GPU bytes fit at the request's sequence "
        "length; null when even 1 does not fit, or without a model or counted activations (the arithmetic says "
        "which)."
    )
    largest_micro_batch_size_arithmetic: str | None
    longest_sequence_length: int | None = Field(
        description="With a model: the longest sequence whose per-GPU bytes fit at the request's micro-batch "
        "size; null when even 1 token does not fit, or without a model or counted activations."
    )
    longest_sequence_length_arithmetic: str | None


class LimitsResponse(BaseModel):
    parameter_count: int | None = Field(description="The model's parameter count; null without a model.")
    world_size: int
    gpus_per_node: int
    card_bytes: int
    usable_bytes: int = Field(description="The card less its reserve and fragmentation: what every limit fits.")
    micro_batch_size: int = Field(description="The micro-batch size the longest sequence is found at.")
    sequence_length: int = Field(description="The sequence length the largest micro-batch is found at.")
    arrangements: list[ArrangementLimits]
    warnings: list[str]
