"""POST /v1/plan: one arrangement on one cluster."""

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationInfo, field_validator

from models.common import (
    MAX_PARAMETER_COUNT,
    PRECISION_FIELD,
    PRECISION_SPEC_FIELD,
    Arrangement,
    Cluster,
    ModelSpec,
    Precision,
    ShardingFlags,
    Strict,
    StrictValue,
    name_or_spec,
    plain_name,
    precision_validator,
    shared_default,
)
from models.enums import (
    ActivationModel,
    ArrangementName,
    CollectiveName,
    Dtype,
    Link,
    StateClass,
    StateLocation,
)
from models.parallelism import ParallelGroup, Parallelism, ParallelismEcho, StageMemory
from models.presets import PrecisionSpec
from models.training import Activations, Levers, Training

PLAN_EXAMPLE: dict[str, JsonValue] = {
    "model": {"parameter_count": 30_000_000_000},
    "precision": "mixed_bf16_adam",
    "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "seed-80gb"},
    "arrangement": "zero3",
}

LEVER_RICH_EXAMPLE: dict[str, JsonValue] = {
    "model": {"preset": "llama-3-70b"},
    "precision": "mixed_bf16_adam",
    "training": {"micro_batch_size": 1, "sequence_length": 8192, "gradient_accumulation_steps": 4, "utilisation": 0.4},
    "activations": {"model": "transformer", "flash_attention": True},
    "cluster": {"world_size": 64, "gpus_per_node": 8, "gpu": "h100-80gb", "links": "nvlink4-ib400"},
    "arrangement": "zero3",
    "levers": {
        "recompute": "selective",
        "offload_optimizer": True,
        "overlap": True,
        "bucket_bytes": 26214400,
        "mxfp8": False,
    },
}

LAYOUT_EXAMPLE: dict[str, JsonValue] = {
    "model": {"preset": "llama-3-70b"},
    "precision": "megatron",
    "training": {"micro_batch_size": 1, "sequence_length": 4096, "global_batch_size": 32},
    "cluster": {"world_size": 64, "gpus_per_node": 8, "gpu": "h100-80gb"},
    "arrangement": "zero1",
    "levers": {"recompute": "selective"},
    "parallelism": {"tensor": 8, "pipeline": 4, "sequence_parallel": True, "pipeline_schedule": "1f1b"},
}

TRAINING_FIELD = Field(
    default=None,
    description="Training shape; default 1 x 2048 tokens, one micro-batch, the efficiency model's compute time.",
)
ACTIVATIONS_FIELD = Field(default_factory=shared_default(Activations))


class EstimatorOptions(StrictValue):
    """Inputs of DeepSpeed's estimators (memory.framework_estimate) that a plan does not otherwise carry."""

    largest_layer_parameters: int | None = Field(
        default=None,
        ge=1,
        le=MAX_PARAMETER_COUNT,
        description="Parameters of the largest single module (DeepSpeed's largest_layer_params); default: "
        "derived from the architecture, else 0 (the estimate then omits its 4 x largest layer term).",
    )
    additional_buffer_factor: float = Field(
        default=1.5, ge=1, le=100, description="DeepSpeed's additional_buffer_factor on the CPU figure."
    )
    zero_init: bool = Field(default=True, description="Model built under deepspeed.zero.Init (ZeRO-3 CPU figure).")


def allows_zeropp(arrangement: ArrangementName | ShardingFlags) -> bool:
    """ZeRO++ is built on ZeRO-3: every flag on, resharded after the forward, sharded over all N."""
    if isinstance(arrangement, ShardingFlags):
        return arrangement.shard_parameters
    return arrangement in (ArrangementName.zero3, ArrangementName.full_shard)


def shards_parameters(arrangement: ArrangementName | ShardingFlags) -> bool:
    if isinstance(arrangement, ShardingFlags):
        return arrangement.shard_parameters
    return arrangement in (ArrangementName.zero3, ArrangementName.full_shard, ArrangementName.hybrid)


def shards_optimizer(arrangement: ArrangementName | ShardingFlags) -> bool:
    if isinstance(arrangement, ShardingFlags):
        return arrangement.shard_optimizer
    return arrangement not in (ArrangementName.ddp, ArrangementName.no_shard)


def lever_refusals(arrangement: ArrangementName | ShardingFlags, levers: Levers) -> list[str]:
    """Why /v1/plan refuses levers under an arrangement, each lever it cannot take in words (none: it takes them
    all). Every answer that plans a job under an arrangement of its own choosing asks here."""
    refused = []
    if levers.offload_parameters and not shards_parameters(arrangement):
        refused.append(
            "levers.offload_parameters needs an arrangement that shards parameters (zero3, full_shard, "
            "hybrid): a replicated parameter copy must stay on the GPU"
        )
    if levers.fp8_param_gather and not shards_optimizer(arrangement):
        refused.append(
            "levers.fp8_param_gather needs an arrangement that shards the optimizer (zero1, zero2, zero3, "
            "full_shard, shard_grad_op, hybrid): Megatron-LM takes it only with the distributed optimizer or FSDP"
        )
    if levers.fp8_param_gather and (levers.zeropp.asked or levers.offload_parameters):
        refused.append(
            "levers.fp8_param_gather is Megatron-LM's; ZeRO++ and parameter offload are DeepSpeed's and FSDP's, "
            "which keep no Transformer Engine FP8 weights: choose one"
        )
    zeropp = levers.zeropp
    if zeropp.asked and not allows_zeropp(arrangement):
        refused.append("levers.zeropp needs zero3 or full_shard: ZeRO++ changes ZeRO-3's collectives")
    return refused


class PlanRequest(Strict):
    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [PLAN_EXAMPLE, LEVER_RICH_EXAMPLE, LAYOUT_EXAMPLE]}
    )

    model: ModelSpec
    precision_spec: PrecisionSpec | None = PRECISION_SPEC_FIELD
    precision: Precision = PRECISION_FIELD
    training: Training | None = TRAINING_FIELD
    activations: Activations = ACTIVATIONS_FIELD
    cluster: Cluster
    sharding: ShardingFlags | None = Field(
        default=None, description="The three sharding flags: an arrangement given by its flags instead of a name."
    )
    arrangement: Arrangement = Field(
        default=None,
        validate_default=True,
        description="An arrangement name (ddp, zero1, zero2, zero3; FSDP: no_shard = ddp, full_shard = zero3, "
        "shard_grad_op: parameters sharded at rest, gathered before every micro-batch's forward and kept until "
        "after its backward; hybrid: ZeRO-3 inside a node, replicated across nodes); or give `sharding` instead. "
        "hybrid needs cluster.world_size a multiple of cluster.gpus_per_node.",
        json_schema_extra=plain_name(nullable=True),
    )

    pick_precision = precision_validator()  # type: ignore[pydantic-field]
    pick_arrangement = field_validator("arrangement", mode="before")(name_or_spec("sharding", required=True))
    parallelism: Parallelism = Field(
        default_factory=shared_default(Parallelism),
        description="Tensor, pipeline, context and expert parallelism beside data parallelism; all 1 by default. "
        "The data-parallel degree is cluster.world_size / (tensor x pipeline x context).",
    )
    levers: Levers = Field(
        default_factory=shared_default(Levers),
        description="levers.offload_parameters needs an arrangement that shards parameters (zero3, full_shard, "
        "hybrid or shard_parameters true); levers.zeropp needs zero3 or full_shard; levers.fp8_param_gather an "
        "arrangement that shards the optimizer.",
    )
    estimator: EstimatorOptions = Field(
        default_factory=shared_default(EstimatorOptions),
        description="Options of DeepSpeed's estimators, used with precision deepspeed under zero2 or zero3.",
    )

    @field_validator("arrangement")
    @classmethod
    def _hybrid_needs_whole_nodes(cls, arrangement: Any, info: ValidationInfo) -> Any:
        cluster = info.data.get("cluster")
        if arrangement == ArrangementName.hybrid and cluster is not None:
            if cluster.world_size % cluster.gpus_per_node:
                raise ValueError(
                    f"hybrid shards inside a node and replicates across nodes: cluster.world_size "
                    f"{cluster.world_size} is not a multiple of cluster.gpus_per_node {cluster.gpus_per_node}"
                )
        return arrangement

    @field_validator("levers")
    @classmethod
    def _parameter_offload_needs_zero3(cls, levers: Levers, info: ValidationInfo) -> Levers:
        arrangement = info.data.get("arrangement")
        refused = lever_refusals(arrangement, levers) if arrangement is not None else []
        if refused:
            raise ValueError(refused[0])
        return levers


class ResolvedArrangement(BaseModel):
    name: ArrangementName = Field(description="Canonical name of the flag set.")
    shard_optimizer: bool
    shard_gradients: bool
    shard_parameters: bool
    hybrid: bool = Field(description="Sharded over the GPUs of one node, replicated across nodes.")


class StateBytes(BaseModel):
    state: StateClass
    dtype: Dtype
    bytes: int = Field(description="Bytes of this state class on each GPU.")
    sharded: bool
    location: StateLocation = Field(description="gpu, or host when offloaded (then not in per_gpu_bytes).")
    arithmetic: str = Field(description="The computation in words and numbers.")


class ActivationComponent(BaseModel):
    name: str
    bytes: int
    arithmetic: str


class ActivationMemory(BaseModel):
    model: ActivationModel
    bytes: int = Field(description="Activation bytes on every GPU (replicated; sharding never touches them).")
    fudge: float | None = Field(description="The fudge factor of the fudge model: a fudge, not a measurement.")
    components: list[ActivationComponent]
    source: str


class FrameworkEstimate(BaseModel):
    """A framework's own estimator for this plan, computed as its code computes it."""

    function: str = Field(description="The estimator, by its module path.")
    options: str = Field(description="The estimator's options, as it prints them.")
    gpu_bytes: int = Field(description="Its per-GPU figure, bytes.")
    cpu_bytes_per_node: int = Field(description="Its per-node host figure (with the buffer factor), bytes.")
    largest_layer_parameters: int
    largest_layer_bytes: int = Field(description="4 x largest_layer_parameters (ZeRO-3), else 0.")
    additional_buffer_factor: float
    arithmetic: str
    note: str = Field(description="How the figure relates to this plan's own count.")


class Memory(BaseModel):
    per_gpu_bytes: int = Field(
        description="Bytes each GPU holds: model states on the GPU, the working set and activations."
    )
    model_state_bytes: int = Field(description="Model-state bytes on each GPU.")
    working_set_bytes: int = Field(
        description="Held unsharded for a moment on every GPU: ZeRO-3's gathered units and unit gradients, or "
        "DDP/ZeRO-1/2's gradient buckets (0 when the model's units are unknown; see warnings)."
    )
    activations_bytes: int = Field(description="Activation bytes on each GPU.")
    host_bytes: int = Field(description="Host memory per node (not per GPU) for offloaded state; 0 without offload.")
    host_memory_bytes: int | None = Field(description="cluster.host_memory_bytes: the node's host memory, or null.")
    host_fits: bool = Field(description="host_bytes <= host_memory_bytes (true when that is not given).")
    per_gpu_gib: float = Field(description="per_gpu_bytes / 2**30 (presentation).")
    per_gpu_gb: float = Field(description="per_gpu_bytes / 1e9 (presentation).")
    bytes_per_weight: float = Field(description="model_state_bytes / parameter_count (activations excluded).")
    replicated_bytes_per_weight: float = Field(description="Bytes per weight that every GPU holds in full (r).")
    sharded_bytes_per_weight: float = Field(description="Bytes per weight divided among the GPUs (s, before / N).")
    replicated_floor_bytes: int = Field(
        description="Replicated model states, the working set and activations: the floor no GPU count lowers."
    )
    card_bytes: int = Field(description="Memory of the card, as the device reports it.")
    card_gib: float
    reserve_bytes: int = Field(description="CUDA context and NCCL buffers: bytes of the card a job cannot use.")
    fragmentation_bytes: int = Field(description="ceil(fragmentation x card_bytes): held by the allocator, unusable.")
    usable_bytes: int = Field(description="card_bytes - reserve_bytes - fragmentation_bytes: what fits compares to.")
    usable_arithmetic: str
    fits: bool = Field(description="per_gpu_bytes <= usable_bytes, decided in integer bytes.")
    headroom_bytes: int = Field(description="usable_bytes - per_gpu_bytes; negative when it does not fit.")
    activations_counted: bool = Field(
        description="Whether per_gpu_bytes includes activations; false without a training shape and architecture."
    )
    breakdown: list[StateBytes]
    activations: ActivationMemory
    stages: list[StageMemory] = Field(
        description="Each pipeline stage's GPUs (one stage without pipeline parallelism); per_gpu_bytes is the "
        "busiest's, and breakdown, working set and activations above are that stage's."
    )
    framework_estimate: FrameworkEstimate | None = Field(
        default=None, description="DeepSpeed's estimator, with precision deepspeed under zero2 or zero3; else null."
    )


class Collective(BaseModel):
    name: CollectiveName
    purpose: str = Field(description="What the collective moves and when.")
    dtype: Dtype
    buffer_bytes: int = Field(
        description="Bytes of the whole buffer: model-sized (the GPU's parameter share in a layout), one node's shard "
        "for hybrid's cross-node all-reduce, or for a model-parallel group the activations of one call."
    )
    bytes_sent_per_gpu: int = Field(description="Bytes each GPU sends for one call, at ring cost.")
    hops: int = Field(description="Sequential ring steps of one call.")
    ranks: int = Field(description="GPUs in the ring.")
    count_per_step: int = Field(description="Calls per optimizer step.")
    link: Link = Field(description="The slowest link a flat ring crosses.")
    seconds: float = Field(
        description="Time of one occurrence: an all-reduce, all-gather or reduce-scatter as NCCL's own tuning model "
        "prices its calls (src/graph/tuning.cc: the algorithm and protocol NCCL picks, base and per-step latency, "
        "intra-node steps at NVLink latency, inter-node steps at the network's; a data-parallel collective's every "
        "bucket or FSDP unit); a send/receive or all-to-all at alpha-beta cost (hops x link latency + bytes / bus "
        "bandwidth)."
    )
    overlaps_with: str = Field(description="forward, backward or none: the compute it can hide under.")
    group: ParallelGroup = Field(
        description="The mesh group it runs in: data (the data-parallel group x context; for expert weights the "
        "expert-data-parallel group), tensor, pipeline, context or expert.",
    )
    arithmetic: str
    calls: int | None = Field(
        default=None,
        description="NCCL calls one occurrence takes: a data-parallel collective's buffer cut into the framework's "
        "buckets (levers.bucket_bytes) or one per FSDP unit; 1 for a model-parallel group's collective; null for a "
        "send/receive or all-to-all.",
    )
    algorithm: str | None = Field(
        default=None,
        description="The algorithm and protocol NCCL picks for each call, as algorithm/protocol: ring, tree, nvls, "
        "nvls_tree or pat, over LL, LL128 or Simple; null for a send/receive or all-to-all.",
    )
    latency_s: float | None = Field(
        default=None,
        description="The latency part of seconds: calls x NCCL's predicted latency of one call; the rest is bytes "
        "over bandwidth. Null for a send/receive or all-to-all.",
    )


class Traffic(BaseModel):
    collectives: list[Collective]
    bytes_sent_per_gpu: int = Field(description="Exact ring cost per GPU per optimizer step.")
    volume_in_p: float = Field(
        description="Model-sized buffers moved per step before the (N-1)/N factor: 2 for DP, "
        "ZeRO-1 and ZeRO-2, 3 for ZeRO-3."
    )
    intra_node_bytes_per_gpu: int = Field(description="Bytes each GPU sends inside its node, hierarchical schedule.")
    inter_node_bytes_per_gpu: int = Field(description="Bytes each GPU sends across nodes, hierarchical schedule.")
    pcie_bytes_per_gpu: int = Field(description="Host-link bytes per GPU per step under offload, both directions.")


class CheckpointReport(BaseModel):
    """Checkpoints and failures as the plan prices them (service.time.goodput)."""

    interval_steps: int | None = Field(description="Steps between checkpoints; null: none (no failures).")
    interval_s: float | None = Field(description="interval_steps x step_s; null: none.")
    optimal_interval_s: float | None = Field(
        description="Daly 2006's higher-order optimum: sqrt(2 delta M)(1 + sqrt(delta/2M)/3 + delta/18M) - "
        "delta, delta the stall, M the job's MTBF; null without failures."
    )
    young_interval_s: float | None = Field(description="Young 1974: sqrt(2 delta M); null without failures.")
    bytes: int = Field(description="Bytes of one checkpoint: parameters, master weights and moments, once.")
    bytes_per_node: int = Field(description="ceil(bytes / nodes): what each node writes and reads.")
    staged_bytes_per_gpu: int = Field(
        description="The checkpointed states one GPU holds: what an asynchronous save copies to the host."
    )
    save: str = Field(description="synchronous or asynchronous.")
    storage_bytes_per_s_per_node: float
    write_s: float = Field(description="bytes_per_node / storage_bytes_per_s_per_node.")
    stall_s: float = Field(
        description="Training stopped per checkpoint: write_s (synchronous), or staged_bytes_per_gpu over the "
        "host link plus any wait for a write longer than the interval (asynchronous)."
    )
    restart_s: float = Field(description="cluster.failures.restart_s + write_s (reading the checkpoint back).")
    interruptions_per_gpu_hour: float
    job_mtbf_hours: float | None = Field(description="1 / (interruptions_per_gpu_hour x world_size); null: none.")
    sources: list[str] = Field(description="Where the storage and failure figures come from.")


class Time(BaseModel):
    tokens_per_step: int
    model_flops_per_step: float = Field(
        description="(6 x N + 12 x L x h x s) x tokens: N the parameters less the input embedding, the attention "
        "term when the architecture is known (PaLM appendix B)."
    )
    hardware_flops_per_step: float = Field(
        description="Model FLOPs plus what recomputation repeats (full: a forward; selective without flash "
        "attention: the attention core's forward)."
    )
    compute_flops: float = Field(description="The hardware FLOPs of the step (same as hardware_flops_per_step).")
    compute_s: float = Field(
        description="Forward and backward of every micro-batch: with training.utilisation, model_flops_per_step / "
        "(N x peak x utilisation); without it, the efficiency model's sum of matrix multiplications, attention and "
        "memory-bound work on the GPU."
    )
    communication_s: float = Field(description="All communication of the step on the faster schedule.")
    communication_flat_s: float = Field(description="On flat rings (across nodes at the inter-node speed).")
    communication_hierarchical_s: float = Field(
        description="Deprecated: equal to communication_flat_s. Collectives are priced as NCCL's flat ring at bus "
        "bandwidth, which already runs over every NIC of a node (a two-level schedule is never faster).",
    )
    schedule: str = Field(description="The data group's collective schedule: flat (NCCL's ring over the node's NICs).")
    exposed_communication_s: float = Field(description="Communication that overlap does not hide.")
    offload_transfer_s: float = Field(description="pcie_bytes_per_gpu over the host link, not overlapped.")
    cpu_optimizer_s: float = Field(
        description="The CPU optimizer step under offload: the bytes it streams per node over the node's host "
        "memory bandwidth (cluster.host_memory_bytes_per_s)."
    )
    offload_s: float = Field(description="offload_transfer_s + cpu_optimizer_s, not overlapped.")
    pipeline_bubble_s: float = Field(
        description="Idle time of the pipeline: compute_s x (p - 1) / (v m) for 1f1b and interleaved, "
        "(p - 1) / m for gpipe; for the zero-bubble schedules from the slowest stage's forward, input-gradient and "
        "weight-gradient pass times T_F, T_B, T_W per micro-batch (Qi et al. 2023, table 2): zb_h1 (p - 1)(T_F + "
        "T_B - T_W), zero_bubble (p - 1) max(0, T_F + T_B - 2 T_W) plus (p - 1) T_F without optimizer "
        "post-validation, zb_v (p - 1)/2 x the excess of its conditions W + 2B >= 2F, W + 2F >= 2B plus "
        "(p - 1) T_F / 2 without post-validation; 0 without pipeline parallelism."
    )
    schedule_source: str | None = Field(
        default=None,
        description="The framework that runs the pipeline schedule (and its class or option); none without "
        "pipeline parallelism.",
    )
    pipeline_bubble_fraction: float = Field(
        description="pipeline_bubble_s / (compute_s + pipeline_bubble_s): the share of the pipeline's time it idles, "
        "in [0, 1)."
    )
    tensor_parallel_s: float = Field(description="Tensor-parallel collectives, on the critical path (exposed).")
    pipeline_p2p_s: float = Field(description="Pipeline sends and receives between stages (exposed).")
    context_parallel_s: float = Field(
        description="Exposed part of the ring-attention exchange: what the stage's compute does not hide."
    )
    expert_parallel_s: float = Field(description="Expert all-to-all dispatch and combine (exposed).")
    optimizer_s: float = Field(
        default=0.0,
        description="The optimizer step streaming its shard through HBM (efficiency model; 0 with a utilisation).",
    )
    overlap_slowdown_s: float = Field(
        default=0.0,
        description="Compute time lost to communication kernels running beside it (efficiency model; 0 with a "
        "utilisation).",
    )
    step_s: float = Field(
        description="The slowest stage's compute_s + overlap_slowdown_s + pipeline_bubble_s + "
        "exposed_communication_s (every group's exposed part) + offload_s + optimizer_s."
    )
    tokens_per_s_per_gpu: float = Field(description="tokens_per_s / world_size.")
    total_tokens: int | None = Field(description="training.total_tokens, the token budget; null when not given.")
    training_steps: int | None = Field(description="ceil(total_tokens / tokens_per_step) optimizer steps.")
    training_days: float | None = Field(description="training_steps x step_s, in days of wall time.")
    gpu_hours: float | None = Field(description="training_steps x step_s x world_size / 3600.")
    cost: float | None = Field(description="gpu_hours x cluster.gpu_hour_price; null without a price.")
    currency: str | None = Field(description="cluster.currency, the currency of cost; null without a price.")
    ideal_training_days: float | None = Field(
        description="training_steps x step_s in days: the ideal steps alone, no checkpoint, failure or restart."
    )
    ideal_gpu_hours: float | None = Field(description="training_steps x step_s x world_size / 3600, ideal.")
    goodput: float = Field(
        description="The useful fraction of the run's wall time: ideal time / wall time with checkpoints, "
        "interruptions and restarts (Daly 2006's complete model); training_days = ideal_training_days / goodput."
    )
    expected_interruptions: float | None = Field(
        description="Wall time / the job's mean time between interruptions; null without a token budget."
    )
    checkpoint_hours: float | None = Field(description="Wall hours stalled saving checkpoints.")
    restart_hours: float | None = Field(description="Wall hours re-launching and reading checkpoints back.")
    lost_work_hours: float | None = Field(description="Wall hours redoing work lost since the last checkpoint.")
    checkpoint: CheckpointReport = Field(description="The checkpoints and failures behind goodput.")
    tokens_per_s: float = Field(description="tokens_per_step / step_s, the whole job.")
    mfu: float = Field(description="model_flops_per_step / (step_s x N x peak): the step's model FLOPs utilisation.")
    hfu: float = Field(description="hardware_flops_per_step / (step_s x N x peak).")
    assumptions: list[str]


class PlanResponse(BaseModel):
    parameter_count: int
    active_parameter_count: int = Field(
        description="Parameters one token uses (top_k of the routed experts in a mixture of experts; all of "
        "them in a dense model). Compute counts these; memory holds parameter_count."
    )
    world_size: int
    gpus_per_node: int
    arrangement: ResolvedArrangement
    parallelism: ParallelismEcho = Field(description="The layout as planned, with the data degree and micro-batches.")
    memory: Memory
    traffic: Traffic
    time: Time
    warnings: list[str] = Field(description="What the caller should know: mismatches, hardware the lever needs.")
