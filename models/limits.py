"""POST /v1/limits: the inverse questions. What is the largest model, micro-batch, sequence that fits?"""

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator

from models.common import Arrangement, ModelSpec, name_or_spec
from models.enums import ArrangementName
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


LIMITS_FAMILY_EXAMPLE: dict[str, JsonValue] = {
    "model": {"preset": "llama-3-70b"},
    "training": {"micro_batch_size": 1, "sequence_length": 8192},
    "cluster": {"world_size": 64, "gpus_per_node": 8, "gpu": "h100-80gb"},
    "arrangement": "zero3",
    "levers": {"recompute": "selective"},
}


class FamilyRule(StrEnum):
    """How the model's family grows toward the largest member that fits."""

    layers = "layers"


class LimitsRequest(PlanRequest):
    """The /v1/plan request with the model and the arrangement optional."""

    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [LIMITS_EXAMPLE, LIMITS_MODEL_EXAMPLE, LIMITS_FAMILY_EXAMPLE]}
    )

    model: ModelSpec | None = Field(  # type: ignore[assignment]
        default=None,
        description="The model whose family's largest member, largest micro-batch and longest sequence are "
        "asked for (a preset, a Hugging Face config or an architecture); without one only the model-states "
        "bound on the parameter count is answered.",
    )
    arrangement: Arrangement | None = Field(  # type: ignore[assignment]
        default=None,
        validate_default=True,  # sharding flags alone fill it, as /v1/plan reads them
        description="One arrangement, or null for DP, ZeRO-1, ZeRO-2 and ZeRO-3.",
    )
    pick_arrangement = field_validator("arrangement", mode="before")(name_or_spec("sharding"))

    family: FamilyRule = Field(
        default=FamilyRule.layers,
        description="The shape family the largest model is sought in. layers: the model's own width, heads, "
        "MLP, experts and vocabulary, with as many layers as fit (split over the stages as /v1/plan splits them; with "
        "parallelism.pipeline_layers, the split's depth plus or minus whole steps of one layer more in each filled "
        "chunk (a stage's chunks' worth for p entries), its empty entries kept empty); every "
        "member is planned as /v1/plan would plan it, at the request's sequence, micro-batch, recompute, levers "
        "and layout.",
    )


class ArrangementLimits(BaseModel):
    arrangement: ArrangementName
    largest_parameter_count: int | None = Field(
        description="The parameter count of the largest model of the request model's family (see `family`) "
        "whose per-GPU bytes fit the usable bytes: model states, the working set and activations at the "
        "request's sequence, micro-batch, recompute and layout, as /v1/plan counts them. Null without a model "
        "architecture (then only largest_parameter_count_model_states_only is answered) or when not even the "
        "smallest member fits; the arithmetic says which."
    )
    largest_layers: int | None = Field(description="The layers of that largest model; null with it.")
    largest_parameter_count_arithmetic: str
    largest_parameter_count_model_states_only: int | None = Field(
        description="An upper bound that ignores activations and the working set: the largest parameter count "
        "whose model states alone fit the usable bytes at this world size (the ZeRO paper's table 2 question). "
        "A real model of that size does not fit: its activations and working set come on top. Null when not "
        "even one parameter fits."
    )
    largest_parameter_count_model_states_only_arithmetic: str
    largest_micro_batch_size: int | None = Field(
        description="With a model: the largest micro-batch whose per-GPU bytes fit at the request's sequence "
        "length; with training.global_batch_size, the largest of the micro-batch sizes that divide the batch's "
        "sequences per data-parallel replica (the batch kept, its micro-batches derived as /v1/plan derives them). "
        "Null when even the smallest does not fit, or without a model or counted activations (the arithmetic says "
        "which)."
    )
    largest_micro_batch_size_arithmetic: str | None
    longest_sequence_length: int | None = Field(
        description="With a model: the longest sequence whose per-GPU bytes fit at the request's micro-batch "
        "size, a multiple of what the layout splits the sequence by (context, times tensor with sequence "
        "parallelism); null when even the shortest does not fit, or without a model or counted activations."
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
