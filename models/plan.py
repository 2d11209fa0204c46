"""POST /v1/plan: one arrangement on one cluster."""

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from models.common import Arrangement, Cluster, ModelSpec, Precision, Strict
from models.enums import ArrangementName, CollectiveName, Dtype, StateClass
from models.presets import PrecisionPresetName

PLAN_EXAMPLE: dict[str, JsonValue] = {
    "model": {"parameter_count": 30_000_000_000},
    "precision": "mixed_bf16_adam",
    "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "seed-80gb"},
    "arrangement": "zero3",
}


class PlanRequest(Strict):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [PLAN_EXAMPLE]})

    model: ModelSpec
    precision: Precision = Field(
        default=PrecisionPresetName.mixed_bf16_adam,
        description="A precision preset name or explicit dtypes and optimizer.",
    )
    cluster: Cluster
    arrangement: Arrangement = Field(
        description="An arrangement name (ddp, zero1, zero2, zero3; FSDP: no_shard, shard_grad_op, "
        "full_shard) or the three sharding flags."
    )


class ResolvedArrangement(BaseModel):
    name: ArrangementName = Field(description="Canonical name of the flag set.")
    shard_optimizer: bool
    shard_gradients: bool
    shard_parameters: bool


class StateBytes(BaseModel):
    state: StateClass
    dtype: Dtype
    bytes: int = Field(description="Bytes of this state class on each GPU.")
    sharded: bool
    arithmetic: str = Field(description="The computation in words and numbers.")


class Memory(BaseModel):
    per_gpu_bytes: int = Field(description="Model-state bytes each GPU holds.")
    per_gpu_gib: float = Field(description="per_gpu_bytes / 2**30 (presentation).")
    per_gpu_gb: float = Field(description="per_gpu_bytes / 1e9 (presentation).")
    bytes_per_weight: float = Field(description="per_gpu_bytes / parameter_count.")
    replicated_bytes_per_weight: float = Field(description="Bytes per weight that every GPU holds in full (r).")
    sharded_bytes_per_weight: float = Field(description="Bytes per weight divided among the GPUs (s, before / N).")
    replicated_floor_bytes: int = Field(description="Replicated part: the floor no GPU count lowers.")
    card_bytes: int
    card_gib: float
    fits: bool = Field(description="per_gpu_bytes <= card_bytes, decided in integer bytes.")
    headroom_bytes: int = Field(description="card_bytes - per_gpu_bytes; negative when it does not fit.")
    breakdown: list[StateBytes]


class Collective(BaseModel):
    name: CollectiveName
    purpose: str = Field(description="What the collective moves and when.")
    dtype: Dtype
    buffer_bytes: int = Field(description="Bytes of the whole buffer (model-sized).")
    bytes_sent_per_gpu: int = Field(description="Bytes each GPU sends for one call, at ring cost.")
    hops: int = Field(description="Sequential ring steps of one call.")
    count_per_step: int = Field(description="Calls per optimizer step.")
    arithmetic: str


class Traffic(BaseModel):
    collectives: list[Collective]
    bytes_sent_per_gpu: int = Field(description="Exact ring cost per GPU per optimizer step.")
    volume_in_p: float = Field(
        description="Model-sized buffers moved per step before the (N-1)/N factor: 2 for DP, "
        "ZeRO-1 and ZeRO-2, 3 for ZeRO-3."
    )


class PlanResponse(BaseModel):
    parameter_count: int
    world_size: int
    gpus_per_node: int
    arrangement: ResolvedArrangement
    memory: Memory
    traffic: Traffic
