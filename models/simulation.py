"""POST /v1/simulations: the gloo mini-simulation that measures the bytes the service predicts.

Request names are fixed for callers: ``world_size``, ``arrangements``, ``steps``,
``parameter_count``, ``faults``. Limits (largest world size, weights, steps) are settings the
route checks; what needs only the request is checked here.
"""

from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from models.common import Arrangement, ModelSpec, ShardingFlags, Strict
from models.enums import ArrangementName, CollectiveName, Dtype, StateClass
from models.parallelism import Parallelism

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


class SimulationEngine(StrEnum):
    """rings: hand-written rings over a flat vector; torch: PyTorch's own DDP, ZeRO-1, FSDP2, HSDP."""

    rings = "rings"
    torch = "torch"


# What the torch engine runs, by request name; zero2 and flag objects have no PyTorch engine.
TORCH_ENGINE_NAMES = {
    ArrangementName.ddp: "ddp",
    ArrangementName.no_shard: "ddp",
    ArrangementName.zero1: "zero1",
    ArrangementName.shard_grad_op: "shard_grad_op",
    ArrangementName.zero3: "zero3",
    ArrangementName.full_shard: "zero3",
    ArrangementName.hybrid: "hybrid",
}
TORCH_DEFAULT_ARRANGEMENTS = ("ddp", "zero1", "shard_grad_op", "zero3", "hybrid")
TORCH_DEFAULT_STEPS = 3


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


def _plain_items(schema: dict[str, Any]) -> None:
    """The items' one documented member (the name) without a oneOf around it."""
    items = schema.get("items", {})
    members = items.get("oneOf") or []
    if len(members) == 1:
        schema["items"] = members[0]


def _four_arrangements() -> list[ArrangementName | ShardingFlags]:
    return [ArrangementName.ddp, ArrangementName.zero1, ArrangementName.zero2, ArrangementName.zero3]


class SimulationRequest(Strict):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [SIMULATION_EXAMPLE]})

    engine: SimulationEngine = Field(
        default=SimulationEngine.rings,
        description="rings (default): hand-written rings over a flat vector; torch: PyTorch's own DDP, "
        "ZeroRedundancyOptimizer, FSDP2 and HSDP on a small transformer, measured by torch.distributed._tools. "
        f"With torch, arrangements default to {', '.join(TORCH_DEFAULT_ARRANGEMENTS)} and steps to "
        f"{TORCH_DEFAULT_STEPS} (the first 2 are warm-up).",
    )
    world_size: int = Field(ge=1, description="Ranks (gloo processes on the service's machine).")
    arrangements: list[Arrangement] = Field(
        default_factory=_four_arrangements,
        min_length=1,
        max_length=8,
        description="Arrangement names, as in /v1/plan (an object of the three sharding flags is accepted in "
        "place of a name).",
        json_schema_extra=_plain_items,
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
    model: ModelSpec | None = Field(
        default=None,
        description="torch engine only: the transformer's architecture fields as in /v1/plan (gelu MLP, "
        "multi-head attention, untied embeddings); default 2 layers, hidden 64, 4 heads, MLP 256, vocabulary 128.",
    )
    ranks_per_node: int | None = Field(
        default=None, ge=1, description="torch engine, hybrid: ranks per node, the shard degree (default 2)."
    )
    parallelism: Parallelism | None = Field(
        default=None,
        description="torch engine: a layout, named as /v1/plan's parallelism block. tensor (DTensor "
        "parallelize_module) and pipeline (torch.distributed.pipelining, 1f1b or gpipe) with FSDP2 (zero3 or "
        "shard_grad_op) over the data dimension d = world_size / (tensor x pipeline); context, expert, "
        "sequence_parallel and virtual_stages are not run.",
    )
    micro_batches: int | None = Field(
        default=None,
        ge=1,
        le=64,
        description="torch engine with parallelism.pipeline: micro-batches per step on each pipeline (default "
        "the pipeline degree; at least it for 1f1b).",
    )

    @field_validator("arrangements")
    @classmethod
    def _torch_runs_these(cls, arrangements: list[Any], info: ValidationInfo) -> list[Any]:
        if info.data.get("engine") is SimulationEngine.torch:
            for i, a in enumerate(arrangements):
                if not isinstance(a, ArrangementName) or a not in TORCH_ENGINE_NAMES:
                    raise ValueError(
                        f"arrangements.{i}: the torch engine runs {', '.join(TORCH_DEFAULT_ARRANGEMENTS)} "
                        "(FSDP2 has no ZeRO-2 with replicated parameters: use shard_grad_op)"
                    )
        return arrangements

    @field_validator("keep_gather")
    @classmethod
    def _rings_keep_gather(cls, keep_gather: bool, info: ValidationInfo) -> bool:
        if keep_gather and info.data.get("engine") is SimulationEngine.torch:
            raise ValueError("the torch engine runs FSDP2's own resharding (see shard_grad_op)")
        return keep_gather

    @field_validator("precision")
    @classmethod
    def _torch_precisions(cls, precision: SimulationPrecision, info: ValidationInfo) -> SimulationPrecision:
        if precision is SimulationPrecision.fp64_adam and info.data.get("engine") is SimulationEngine.torch:
            raise ValueError("the torch engine runs mixed_bf16_adam or fp32_adam")
        return precision

    @field_validator("faults")
    @classmethod
    def _rings_checkpoint(cls, faults: list[Any], info: ValidationInfo) -> list[Any]:
        if info.data.get("engine") is SimulationEngine.torch:
            if any(isinstance(f, PartialCheckpointFault) for f in faults):
                raise ValueError("partial_checkpoint is a scenario of the rings engine")
        return faults

    @field_validator("model")
    @classmethod
    def _torch_model(cls, m: ModelSpec | None, info: ValidationInfo) -> ModelSpec | None:
        if m is None:
            return m
        if info.data.get("engine") is not SimulationEngine.torch:
            raise ValueError("only the torch engine takes a model")
        if m.preset is not None or m.layers is None:
            raise ValueError("give the architecture fields (layers, hidden_size, ...), not a preset")
        if m.mlp not in (None, "gelu") or m.kv_heads not in (None, m.attention_heads) or m.tied_embeddings:
            raise ValueError("the torch engine's transformer has a gelu MLP, one kv head per head, untied")
        if m.linear_bias is False or m.normalization not in (None, "layernorm"):
            raise ValueError("the torch engine's transformer has biases on its linear layers and LayerNorm")
        return m

    @field_validator("parallelism", "micro_batches")
    @classmethod
    def _torch_layouts(cls, value: Any, info: ValidationInfo) -> Any:
        if value is not None and info.data.get("engine") is not SimulationEngine.torch:
            raise ValueError(f"only the torch engine takes {info.field_name} (the rings engine is data-parallel)")
        return value

    @field_validator("ranks_per_node")
    @classmethod
    def _torch_ranks_per_node(cls, ranks: int | None, info: ValidationInfo) -> int | None:
        if ranks is not None and info.data.get("engine") is not SimulationEngine.torch:
            raise ValueError("only the torch engine takes ranks_per_node")
        return ranks

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


class SimCheck(BaseModel):
    arrangement: str
    check: str = Field(description="What was compared: traffic, wire, memory, learning, gradient, activations, ...")
    passed: bool | None = Field(description="null where the engine cannot measure it (wire bytes under NCCL).")
    detail: str


VERDICT_FIELD = Field(
    default=None,
    description="One meaning for every engine: confirmed (every rank finished and every check passed), refuted "
    "(every rank finished, a check failed), incomplete (a rank failed or the job ran out of time); null in "
    "reports stored before verdicts.",
)
CHECKS_FIELD: Any = Field(default_factory=list, description="The checks the verdict is made of, per arrangement.")


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
    succeeded: bool = Field(description="Every rank finished (the rings engine); read `verdict` for the checks.")
    verdict: Literal["confirmed", "refuted", "incomplete"] | None = VERDICT_FIELD
    checks: list[SimCheck] = CHECKS_FIELD


class TorchSimModel(BaseModel):
    layers: int
    hidden_size: int
    attention_heads: int
    ffn_hidden_size: int
    vocab_size: int


class TorchSimMemory(BaseModel):
    state: Literal["parameters", "gradients", "optimizer_state"]
    measured_bytes: list[int] = Field(
        description="Per rank: the tracker's bytes of this class after the last step (with pipeline stages: counted "
        "from the local tensors, DTensor shards, the rank holds; FSDPMemTracker refuses micro-batches)."
    )
    predicted_bytes: list[int] = Field(
        description="Per rank: the core's breakdown for the layout the engine keeps plus its conventions."
    )
    matches: bool = Field(description="measured_bytes equal predicted_bytes exactly.")
    preset_bytes: int = Field(
        description="The core's bytes for the requested precision preset (/v1/plan), on the busiest rank."
    )
    preset_bytes_by_rank: list[int] = Field(
        description="Per rank: the core's bytes for the requested preset (a layout's stages differ)."
    )
    delta_from_preset_bytes: list[int]
    reasons: list[str] = Field(description="Why measured and preset differ, by design.")


class TorchSimConvention(BaseModel):
    name: str
    bytes_by_class: dict[str, int]
    reason: str


class TorchSimWire(BaseModel):
    measured_steps: int
    wire_bytes: list[int] = Field(description="Per rank: bytes written over the measured steps (/proc/self/io).")
    predicted_payload_bytes: list[int] = Field(description="Per rank: the observed calls priced by gloo's algorithm.")
    messages: list[int]
    allowance_bytes: list[int] = Field(description="Per rank: 144 header bytes per message.")
    within_allowance: bool


class TorchSimCollective(BaseModel):
    group: str = Field(description="The mesh dimension of the call: data, tensor or pipeline.")
    name: str
    dtype: str
    group_size: int
    calls: int
    payload_bytes: int
    gloo_algorithm: str
    calls_per_step: float
    payload_bytes_per_step: int = Field(description="Rank 0, per measured step, priced by gloo's algorithm.")
    plan_bytes_per_step: int | None = Field(description="The planner's bytes per step for this collective.")


class TorchSimTraffic(BaseModel):
    plan_bytes_per_step: dict[str, int] = Field(description="/v1/plan's bytes per rank per step by collective.")
    plan_total_bytes_per_step: int
    engine_layout_plan_bytes_per_step: dict[str, int] = Field(
        description="/v1/plan's bytes for the layout the engine keeps (fsdp2 for FSDP2 under bf16 compute)."
    )
    engine_bytes_per_step: list[int] = Field(description="Per rank: the observed calls priced by gloo's algorithm.")
    reasons: list[str] = Field(description="Why the engine's collectives differ from the plan's, by design.")
    plan_bytes_per_step_by_rank: list[dict[str, int]] | None = Field(
        default=None, description="Layouts: per rank, /v1/plan's bytes per step by 'group:collective'."
    )
    engine_bytes_per_step_by_group: list[dict[str, int]] | None = Field(
        default=None, description="Layouts: per rank, the observed calls' bytes per step by mesh dimension."
    )
    model_parallel_predicted_bytes_per_step: list[dict[str, int]] | None = Field(
        default=None,
        description="Layouts: per rank, the tensor and pipeline groups' bytes per step as PyTorch issues the "
        "planner's calls (each column-parallel module's input gradient all-reduced, the embedding's rows "
        "reduced, the logits gathered; a pipeline end sends one way), priced by gloo.",
    )
    model_parallel_matches: bool | None = Field(
        default=None, description="Layouts: the observed tensor and pipeline bytes equal that prediction exactly."
    )


class TorchSimLearning(BaseModel):
    max_abs_diff: float
    tolerance: float
    within_tolerance: bool
    losses: list[float]
    reference_losses: list[float]
    reference: str


class TorchSimCuda(BaseModel):
    plan: dict[str, int] = Field(
        description="/v1/plan on this card: per_gpu_bytes, model_state_bytes, activations_bytes, reserve_bytes, "
        "usable_bytes."
    )
    reserved_minus_plan_bytes: list[int] = Field(
        description="Per rank: max_memory_reserved minus the plan's per-GPU bytes: what the reserve must cover."
    )
    predicted_model_state_bytes: list[int]
    max_memory_allocated_bytes: list[int]
    max_memory_reserved_bytes: list[int]
    allocated_minus_predicted_bytes: list[int]
    reserved_minus_allocated_bytes: list[int]


class TorchSimPlanStage(BaseModel):
    stage: int
    layers: int
    parameters_per_gpu: int
    model_state_bytes: int


class TorchSimLayout(BaseModel):
    tensor: int
    pipeline: int
    data: int
    micro_batches: int
    pipeline_schedule: str
    mesh_dims: list[str] = Field(description="The DeviceMesh's dimensions, outermost first (tensor innermost).")
    stage_of_rank: list[int]
    data_rank_of_rank: list[int]
    tensor_rank_of_rank: list[int]


class TorchSimArrangement(BaseModel):
    arrangement: str
    implementation: str
    shard_degree: int
    memory: list[TorchSimMemory]
    memory_matches: bool
    conventions: list[list[TorchSimConvention]] = Field(description="Per rank.")
    tracker_peak_bytes: list[dict[str, int]] = Field(
        description="Per rank: the tracker's peak snapshot by its own categories (working set included)."
    )
    wire: TorchSimWire | None = Field(description="gloo only: NCCL's bytes do not pass through write(2).")
    wire_within_allowance: bool | None
    collectives: list[TorchSimCollective]
    traffic: TorchSimTraffic
    learning: TorchSimLearning
    step_s_mean: list[float]
    cuda: TorchSimCuda | None = None
    plan_stages: list[TorchSimPlanStage] | None = Field(
        default=None, description="Layouts: /v1/plan's memory.stages[] for this layout and the requested preset."
    )
    tracker_category_peak_bytes: list[dict[str, int]] = Field(
        default_factory=list,
        description="Per rank: each tracker category at its own largest over the last measured step's module "
        "snapshots (activations before the backward, all-gather buffers); empty where no tracker ran.",
    )
    plan_comparison: list["TorchSimPlanComparison"] = Field(
        default_factory=list,
        description="Rank 0: /v1/plan's activations and working set for this model, arrangement and layout beside "
        "the tracker's peaks, with the convention that separates them and the tolerance.",
    )
    checks_pass: bool


class TorchSimPlanComparison(BaseModel):
    term: str = Field(description="activations or working set.")
    plan_bytes: int
    engine_bytes: int
    ratio: float | None = Field(description="engine_bytes / plan_bytes.")
    tolerance: float | None = Field(description="Relative; 0 for exact; null where the two count different things.")
    within_tolerance: bool | None
    within_tolerance_all_ranks: bool | None
    convention: str


class TorchSimulationReport(BaseModel):
    engine: Literal["torch"]
    backend: str
    world_size: int
    model: TorchSimModel
    parameter_count: int
    precision: str
    steps: int
    measured_steps: int
    ranks_per_node: int
    wire_allowance_bytes_per_message: int
    learning_tolerance: float
    parallelism: TorchSimLayout
    not_run: str
    arrangements: list[TorchSimArrangement]
    faults: SimFaults
    ranks: list[SimRankProcess]
    wall_s: float
    timed_out: bool
    succeeded: bool = Field(description="Every rank finished and every arrangement's checks_pass; read `verdict`.")
    verdict: Literal["confirmed", "refuted", "incomplete"] | None = VERDICT_FIELD
    checks: list[SimCheck] = CHECKS_FIELD


class SimulationJob(BaseModel):
    id: str
    status: SimulationStatus
    created_at: datetime = Field(description="When the job was submitted: RFC 3339, UTC.")
    updated_at: datetime = Field(description="When its status last changed: RFC 3339, UTC.")
    request: SimulationRequest
    report: SimulationReport | TorchSimulationReport | None = None
    error: str | None = None
