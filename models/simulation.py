"""POST /v1/simulations: the gloo mini-simulation that measures the bytes the service predicts.

Request names are fixed for callers: ``world_size``, ``arrangements``, ``steps``,
``parameter_count``, ``faults``. Limits (largest world size, weights, steps) are settings the
route checks; what needs only the request is checked here.
"""

from enum import StrEnum
from typing import Annotated, Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from models.common import Arrangement, ShardingFlags, Strict
from models.enums import ArrangementName, CollectiveName, Dtype, StateClass

SIMULATION_EXAMPLE: dict[str, Any] = {
    "world_size": 4,
    "arrangements": ["ddp", "zero1", "zero2", "zero3"],
    "steps": 10,
    "parameter_count": 1_000_000,
    "keep_gather": True,
    "faults": [],
}


class SimulationPrecision(StrEnum):
    """mixed_bf16_adam and fp32_adam as in GET /v1/presets; fp64_adam for bitwise checks."""

    mixed_bf16_adam = "mixed_bf16_adam"
    fp32_adam = "fp32_adam"
    fp64_adam = "fp64_adam"


class SimulationStatus(StrEnum):
    queued = "queued"
    running = "running"
    succeeded = "succeeded"
    failed = "failed"
    cancelled = "cancelled"


class SlowRankFault(Strict):
    kind: Literal["slow_rank"]
    rank: int = Field(ge=0, description="The rank that sleeps before each step from step steps // 2 on.")
    delay_s: float = Field(gt=0, le=5, description="Seconds of delay per step.")


class DroppedRankFault(Strict):
    kind: Literal["dropped_rank"]
    rank: int = Field(ge=0)
    step: int = Field(ge=0, description="The step (from 0) at whose start the rank exits or hangs.")
    mode: Literal["exit", "hang"] = "exit"


class PartialCheckpointFault(Strict):
    kind: Literal["partial_checkpoint"]
    step: int = Field(ge=1, description="Save after this many steps of the first arrangement.")
    writer_rank: int = Field(default=0, ge=0, description="The only rank that writes the refused checkpoint.")


Fault = Annotated[SlowRankFault | DroppedRankFault | PartialCheckpointFault, Field(discriminator="kind")]


def _four_arrangements() -> list[ArrangementName | ShardingFlags]:
    return [ArrangementName.ddp, ArrangementName.zero1, ArrangementName.zero2, ArrangementName.zero3]


class SimulationRequest(Strict):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [SIMULATION_EXAMPLE]})

    world_size: int = Field(ge=1, description="Ranks (gloo processes on the service's machine).")
    arrangements: list[Arrangement] = Field(
        default_factory=_four_arrangements,
        min_length=1,
        max_length=8,
        description="Names or the three sharding flags, as in /v1/plan.",
    )
    keep_gather: bool = Field(
        default=False,
        description="Also run ZeRO-3 keeping the forward gather for the "
        "backward pass: 2P of traffic instead of 3P, the whole model resident at the peak.",
    )
    steps: int = Field(default=10, ge=1, description="Optimizer steps per arrangement.")
    parameter_count: int = Field(
        default=1_000_000,
        ge=64,
        description="Approximate weights; the report gives the exact count of the 4-layer MLP used.",
    )
    precision: SimulationPrecision = SimulationPrecision.mixed_bf16_adam
    faults: list[Fault] = Field(default_factory=list, max_length=3)

    @model_validator(mode="after")
    def _faults_fit(self) -> Self:
        kinds = [f.kind for f in self.faults]
        if len(set(kinds)) != len(kinds):
            raise ValueError("faults: at most one fault of each kind")
        for fault in self.faults:
            ranks = [fault.rank] if not isinstance(fault, PartialCheckpointFault) else [fault.writer_rank]
            if any(r >= self.world_size for r in ranks):
                raise ValueError(f"faults: {fault.kind} names rank {ranks[0]}, but ranks are 0..{self.world_size - 1}")
            if isinstance(fault, DroppedRankFault | PartialCheckpointFault) and fault.step >= self.steps:
                raise ValueError(f"faults: {fault.kind} at step {fault.step} is past the last step {self.steps - 1}")
        return self


class SimCollective(BaseModel):
    name: CollectiveName
    purpose: str
    dtype: Dtype
    formula_bytes: int = Field(description="Bytes each rank sends over the run, by the core's ring formula.")
    payload_bytes: list[int] = Field(description="Per rank: bytes of every point-to-point send, counted as sent.")
    wire_bytes: list[int] = Field(description="Per rank: bytes written to sockets (/proc/self/io wchar).")
    sends_per_rank: list[int]
    calls_per_rank: list[int]
    wire_overhead_bytes_per_send: list[float]
    payload_matches: bool
    wire_within_allowance: bool


class SimMemory(BaseModel):
    state: StateClass
    formula_bytes: int = Field(description="Persistent bytes per rank by the core's memory breakdown.")
    resident_bytes: list[int] = Field(description="Per rank: bytes of the tensors the rank really holds.")
    matches: bool


class SimTransient(BaseModel):
    note: str
    peak_gathered_parameter_bytes: list[int]
    peak_parameter_bytes: list[int] = Field(description="Persistent parameters plus the peak of gathered units.")
    peak_gradient_buffer_bytes: list[int]


class SimLearning(BaseModel):
    bitwise_equal_ring_order: bool
    max_abs_diff_ring_order: float
    max_abs_diff_one_pass: float
    one_pass_tolerance: float
    identical: bool
    reference: str


class SimGradientCheck(BaseModel):
    points: int
    max_abs_error: float
    scale: float
    rtol: float
    passed: bool
    method: str


class SimArrangement(BaseModel):
    arrangement: ArrangementName
    shard_optimizer: bool
    shard_gradients: bool
    shard_parameters: bool
    keep_gather: bool
    collectives: list[SimCollective]
    volume_in_p_measured: float
    payload_matches: bool
    wire_within_allowance: bool
    memory: list[SimMemory]
    memory_matches: bool
    transient: SimTransient
    learning: SimLearning | None
    gradient_check: SimGradientCheck
    step_s_mean: list[float]


class SimBuiltinReduceScatter(BaseModel):
    elements: int
    ring_formula_bytes: int
    wire_bytes: list[int]
    ratio_to_ring: list[float]
    note: str


class SimRankProcess(BaseModel):
    rank: int
    pid: int | None
    exit_code: int | None
    killed: bool


class SlowRankObservation(BaseModel):
    delay_s: float
    from_step: int
    baseline_step_s: list[float]
    slowed_step_s: list[float]
    rise_s: list[float]
    busy_s: list[float]
    slow_rank: int = Field(description="The rank with the most time outside collectives.")
    configured_rank: int


class RankFailure(BaseModel):
    rank: int
    run: int | None
    step: int | None
    error: str
    after_s: float


class FailureObservation(BaseModel):
    ranks_without_result: list[SimRankProcess]
    failed_ranks: list[RankFailure]
    failed_at_steps: list[int]
    timed_out: bool
    summary: str


class CheckpointObservation(BaseModel):
    saved_at_step: int
    partial_refused: bool
    missing: list[str]
    resumed_equal: bool


class SimFaults(BaseModel):
    slow_rank: SlowRankObservation | None = None
    failure: FailureObservation | None = None
    checkpoint: CheckpointObservation | None = None


class SimulationReport(BaseModel):
    world_size: int
    parameter_count_requested: int
    parameter_count: int = Field(description="Exact weights of the model used.")
    layers: int
    unit_elements: int
    precision: str
    steps: int
    formula_basis: str
    wire_allowance_bytes_per_send: int
    arrangements: list[SimArrangement]
    builtin_reduce_scatter: SimBuiltinReduceScatter | None = None
    faults: SimFaults
    ranks: list[SimRankProcess]
    wall_s: float
    timed_out: bool
    succeeded: bool


class SimulationJob(BaseModel):
    id: str
    status: SimulationStatus
    created_at: float = Field(description="Unix time, seconds.")
    updated_at: float
    request: SimulationRequest
    report: SimulationReport | None = None
    error: str | None = None
