"""What the core predicts for a torch-engine run, and the engines' documented conventions (no torch).

Memory: the planner's breakdown (service/memory/model_states.py ``model_state_breakdown``) for the tiny
model's exact parameter count, once for the requested preset and once for the layout the engine
really keeps (``ENGINE_LAYOUT``), plus three conventions of the engines, each computed, never a
tolerance:
- FSDP2 shards every parameter on dim 0 and pads each to ceil(d0 / N) rows
  (torch/distributed/fsdp/_fully_shard/_fsdp_param.py) instead of one flat buffer of ceil(P / N);
- ZeroRedundancyOptimizer gives each rank whole parameter tensors, largest first to the rank with
  the fewest elements so far (torch/distributed/optim/zero_redundancy_optimizer.py,
  ``_partition_parameters``), instead of ceil(P / N) elements each;
- torch.optim.Adam/AdamW keep a 0-dim fp32 ``step`` tensor per parameter tensor (torch/optim/adam.py,
  ``_init_group``): 4 bytes per tensor the rank updates.

Wire: each observed collective call priced by the algorithm gloo runs for it, with the core's ring
formula (service/time/collectives.py) wherever gloo runs a ring:
- all_reduce: gloo's ring (gloo/allreduce.cc), the core's 2(N-1) chunks;
- all_gather: gloo's ring (gloo/allgather.cc), the core's N-1 chunks;
- reduce_scatter: ProcessGroupGloo reduces the whole input with the all-reduce ring and keeps its
  chunk, so it sends an all-reduce's worth: 2(N-1) chunks, twice the core's reduce-scatter;
- broadcast: gloo's binomial tree (gloo/broadcast.cc): relative rank v sends the whole buffer to
  v + 2^k for every 2^k > v with v + 2^k < N;
- send and recv (pipelining's stage boundaries): the whole buffer one way; one message each.
gloo pipelines at least two segments per ring chunk: a ring call makes 2 x hops segment hops, each
a send and a receive costing the 144 header bytes of the rings engine's allowance
(service/sim/report.py: three 48-byte writes per hop); a broadcast's send or receive costs at most
as much.
"""

from dataclasses import dataclass
from typing import Any

from models.enums import CollectiveName, CrossEntropy, Dtype, StateClass
from models.presets import PRECISION_PRESETS, PrecisionPresetName, PrecisionSpec
from service.inputs.architecture import parameter_count
from service.inputs.arrangements import DDP, HYBRID, SHARD_GRAD_OP, ZERO1, ZERO3, Sharding
from service.memory.activations import LOSS_PEAK_SBV
from service.memory.dtypes import bytes_per_element
from service.memory.model_states import model_state_breakdown
from service.sim.engines.torch_config import FSDP_ARRANGEMENTS, TinyArchitecture, TorchArrangement, TorchSimConfig
from service.sim.report import WIRE_HEADER_BYTES, WIRE_WRITES_PER_HOP
from service.time.collectives import ring_bytes_sent, ring_hops

MESSAGE_ALLOWANCE_BYTES = WIRE_HEADER_BYTES * WIRE_WRITES_PER_HOP
SEGMENTS_PER_CHUNK = 2
ADAM_STEP_BYTES = 4  # one fp32 scalar per parameter tensor
FP32_ADAM = PRECISION_PRESETS[PrecisionPresetName.fp32_adam].spec

# What the engines keep, whatever the compute dtype: fp32 parameters (the master copy), fp32
# gradients, fp32 Adam. Under bf16 compute FSDP2 is the planner's fsdp2 preset (bf16 gathers and
# reductions, a transient bf16 compute copy); DDP and ZeRO-1 under autocast keep fp32_adam's layout.
ENGINE_LAYOUT = FP32_ADAM
FSDP2_MIXED = PRECISION_PRESETS[PrecisionPresetName.fsdp2].spec


def engine_layout(cfg: TorchSimConfig, arrangement: TorchArrangement) -> PrecisionSpec:
    if cfg.precision == "mixed_bf16_adam" and arrangement in FSDP_ARRANGEMENTS:
        return FSDP2_MIXED
    return ENGINE_LAYOUT


ENGINE_LAYOUT_REASON = {
    "mixed_bf16_adam": "the engines keep fp32 parameters (they are the master copy, no separate one) and fp32 "
    "gradients; bf16 exists only as the transient compute copy (FSDP2 MixedPrecisionPolicy(param_dtype=bf16) "
    "gathers bf16 unsharded parameters and frees them, and casts the bf16-reduced gradient shards back to fp32; "
    "DDP and ZeRO-1 cast under torch.autocast): the same 16 bytes per weight, split 4 + 4 + 8 instead of "
    "2 + 2 + 12",
    "fp32_adam": "",
}
# The tracker's classes of the state held between steps. A compute copy in another dtype (FSDP2's
# param_dtype) is not among them: FSDP2 frees it after the backward (the working set).
CLASS_OF_STATE = {
    StateClass.parameters.value: "parameters",
    StateClass.gradients.value: "gradients",
    StateClass.optimizer_gradients.value: "optimizer_state",
    StateClass.master_weights.value: "optimizer_state",
    StateClass.momentum.value: "optimizer_state",
    StateClass.variance.value: "optimizer_state",
}
CLASSES = ("parameters", "gradients", "optimizer_state")
# On CUDA MemTracker counts each storage in whole blocks of the caching allocator
# (torch/distributed/_tools/mem_tracker.py, _PYTORCH_MIN_ALLOCATE): at most 511 bytes more each.
CUDA_BLOCK_BYTES = 512


def parameter_shapes(m: TinyArchitecture) -> list[tuple[str, tuple[int, ...]]]:
    """Every parameter of torch_model.TinyDecoder in registration order (a test checks it)."""
    h, f, v = m.hidden_size, m.ffn_hidden_size, m.vocab_size
    shapes: list[tuple[str, tuple[int, ...]]] = [("embed.weight", (v, h))]
    for i in range(m.layers):
        block: list[tuple[str, tuple[int, ...]]] = [("norm1.weight", (h,)), ("norm1.bias", (h,))]
        for proj in "qkvo":
            block += [(f"{proj}.weight", (h, h)), (f"{proj}.bias", (h,))]
        block += [("norm2.weight", (h,)), ("norm2.bias", (h,))]
        block += [("up.weight", (f, h)), ("up.bias", (f,)), ("down.weight", (h, f)), ("down.bias", (h,))]
        shapes += [(f"blocks.{i}.{name}", shape) for name, shape in block]
    return shapes + [("norm.weight", (h,)), ("norm.bias", (h,)), ("out.weight", (v, h))]


def ceil_div(numerator: int, denominator: int) -> int:
    return -(-numerator // denominator)


def _numel(shape: tuple[int, ...]) -> int:
    out = 1
    for d in shape:
        out *= d
    return out


def fsdp_shard_elements(shape: tuple[int, ...], degree: int) -> int:
    """Elements of one rank's padded FSDP2 shard of a parameter: ceil(d0 / N) x the other dims."""
    return ceil_div(shape[0], degree) * _numel(shape[1:])


def zero_partition(sizes: list[int], world_size: int) -> list[list[int]]:
    """Indices of the parameters each rank's ZeroRedundancyOptimizer updates (its greedy rule)."""
    owned: list[list[int]] = [[] for _ in range(world_size)]
    totals = [0] * world_size
    for index in sorted(range(len(sizes)), key=lambda i: sizes[i], reverse=True):  # stable, as sorted()
        rank = totals.index(min(totals))
        owned[rank].append(index)
        totals[rank] += sizes[index]
    return owned


def core_sharding(arrangement: TorchArrangement) -> Sharding:
    """The core's arrangement for each engine (the planner's shard_grad_op is FSDP's: parameters
    sharded at rest, the gathered copy kept from forward to the end of backward)."""
    return {
        TorchArrangement.ddp: DDP,
        TorchArrangement.zero1: ZERO1,
        TorchArrangement.shard_grad_op: SHARD_GRAD_OP,
        TorchArrangement.zero3: ZERO3,
        TorchArrangement.hybrid: HYBRID,
    }[arrangement]


def shard_degree(cfg: TorchSimConfig, arrangement: TorchArrangement) -> int:
    if cfg.layout:
        return cfg.data
    return cfg.ranks_per_node if arrangement is TorchArrangement.hybrid else cfg.world_size


def core_class_bytes(cfg: TorchSimConfig, arrangement: TorchArrangement, spec: PrecisionSpec) -> dict[str, int]:
    """The planner's per-GPU bytes by class for the tiny model (what /v1/plan answers)."""
    p = parameter_count(cfg.model.architecture())
    rows = model_state_breakdown(p, cfg.world_size, spec, core_sharding(arrangement), gpus_per_node=cfg.ranks_per_node)
    out = dict.fromkeys(CLASSES, 0)
    for row in rows:
        name = CLASS_OF_STATE.get(row.spec.state.value)
        if name is not None:
            out[name] += int(row.bytes)
    return out


def class_bytes_of_rank(
    cfg: TorchSimConfig, arrangement: TorchArrangement, spec: PrecisionSpec, rank: int
) -> dict[str, int]:
    """The planner's bytes by class on ``rank``: its stage's share in a layout, the whole model's otherwise."""
    if cfg.layout:
        return layout_core_class_bytes(cfg, arrangement, spec, rank)
    return core_class_bytes(cfg, arrangement, spec)


@dataclass(frozen=True)
class Convention:
    name: str
    bytes_by_class: dict[str, int]
    reason: str


def conventions(cfg: TorchSimConfig, arrangement: TorchArrangement, rank: int) -> list[Convention]:
    """The engine's documented departures from the core's layout, in bytes per class on ``rank``."""
    if cfg.layout:
        return layout_conventions(cfg, rank)
    shapes = [shape for _, shape in parameter_shapes(cfg.model)]
    sizes = [_numel(s) for s in shapes]
    p, out = sum(sizes), []
    fp32, adam_bytes = 4, 2 * int(bytes_per_element(ENGINE_LAYOUT.optimizer_state_dtype))
    if arrangement in FSDP_ARRANGEMENTS:
        degree = shard_degree(cfg, arrangement)
        padding = sum(fsdp_shard_elements(s, degree) for s in shapes) - ceil_div(p, degree)
        out.append(
            Convention(
                "fsdp2_dim0_shards",
                {"parameters": fp32 * padding, "gradients": fp32 * padding, "optimizer_state": adam_bytes * padding},
                "FSDP2 pads each parameter to ceil(dim0 / N) rows, not one flat buffer to ceil(P / N)",
            )
        )
        tensors = len(shapes)
    elif arrangement is TorchArrangement.zero1:
        owned = zero_partition(sizes, cfg.world_size)[rank]
        delta = sum(sizes[i] for i in owned) - ceil_div(p, cfg.world_size)
        out.append(
            Convention(
                "zero_partition_by_tensor",
                {"optimizer_state": adam_bytes * delta},
                f"ZeroRedundancyOptimizer gives rank {rank} {len(owned)} whole tensors "
                f"({sum(sizes[i] for i in owned):,} weights) instead of ceil(P / N) = {ceil_div(p, cfg.world_size):,}",
            )
        )
        tensors = len(owned)
    else:
        tensors = len(shapes)
    out.append(
        Convention(
            "adam_step_counters",
            {"optimizer_state": ADAM_STEP_BYTES * tensors},
            f"Adam keeps a 4-byte fp32 step counter per parameter tensor: {tensors} tensors",
        )
    )
    return out


def optimizer_tensors(cfg: TorchSimConfig, arrangement: TorchArrangement, rank: int) -> int:
    """Parameter tensors whose optimizer state ``rank`` keeps (all of them but under ZeRO-1)."""
    if cfg.layout:
        return len(rank_parameter_shapes(cfg, rank))
    shapes = parameter_shapes(cfg.model)
    if arrangement is TorchArrangement.zero1:
        return len(zero_partition([_numel(s) for _, s in shapes], cfg.world_size)[rank])
    return len(shapes)


def predicted_class_bytes(cfg: TorchSimConfig, arrangement: TorchArrangement, rank: int) -> dict[str, int]:
    """The engine layout's core bytes plus every convention: what the tracker must measure exactly."""
    out = class_bytes_of_rank(cfg, arrangement, engine_layout(cfg, arrangement), rank)
    for convention in conventions(cfg, arrangement, rank):
        for name, delta in convention.bytes_by_class.items():
            out[name] += delta
    return out


# ---- collectives ------------------------------------------------------------------------------
GLOO_ALGORITHM = {
    "all_reduce": "ring (gloo/allreduce.cc): the core's all-reduce",
    "all_gather": "ring (gloo/allgather.cc): the core's all-gather",
    "reduce_scatter": "all-reduce ring on the whole input (ProcessGroupGloo): twice the core's reduce-scatter",
    "broadcast": "binomial tree (gloo/broadcast.cc): the whole buffer to each child",
    "send": "point-to-point (ProcessGroupGloo::send): the whole buffer to the neighbouring stage",
    "recv": "point-to-point (ProcessGroupGloo::recv): sends nothing but its readiness",
}


def binomial_children(relative_rank: int, group_size: int) -> int:
    """Ranks one rank sends the whole buffer to in a binomial-tree broadcast."""
    step, children = 1, 0
    while step < group_size:
        if step > relative_rank and relative_rank + step < group_size:
            children += 1
        step *= 2
    return children


@dataclass(frozen=True)
class CallCost:
    payload_bytes: int  # sent by this rank
    messages: int  # header units: ring hop-segments (a send and a receive each); a broadcast's sends and receive


def gloo_call_cost(op: str, elements: int, dtype: Dtype, group_size: int, group_rank: int, root: int) -> CallCost:
    """Bytes this rank sends for one call (``elements`` of the buffer every rank reduces or
    gathers in full; a broadcast's buffer) and the messages it sends or receives."""
    n = group_size
    if n == 1:
        return CallCost(0, 0)
    if op in ("all_reduce", "reduce_scatter"):
        name = CollectiveName.all_reduce
    elif op == "all_gather":
        name = CollectiveName.all_gather
    elif op in ("send", "recv"):
        return CallCost(elements * int(bytes_per_element(dtype)) if op == "send" else 0, 1)
    elif op == "broadcast":
        relative = (group_rank - root) % n
        sends = binomial_children(relative, n)
        whole = elements * int(bytes_per_element(dtype))
        return CallCost(sends * whole, sends + (0 if relative == 0 else 1))
    else:
        raise ValueError(f"no gloo cost for {op}")
    hops = int(ring_hops(name, n))
    return CallCost(int(ring_bytes_sent(name, elements, n, dtype)), SEGMENTS_PER_CHUNK * hops)


def traffic_reasons(cfg: TorchSimConfig, arrangement: TorchArrangement) -> list[str]:
    """Why the engine's collectives differ from the planner's for the requested preset, by design."""
    mixed = cfg.precision == "mixed_bf16_adam"
    reasons = layout_traffic_reasons(cfg, arrangement) if cfg.layout else []
    if arrangement in (TorchArrangement.ddp, TorchArrangement.zero1) and mixed:
        reasons.append("autocast keeps fp32 gradients: DDP all-reduces 4 bytes a weight, the preset's 2")
    if arrangement is TorchArrangement.zero1:
        reasons.append(
            "ZeroRedundancyOptimizer runs on DDP: the gradients are all-reduced (2P, not a reduce-scatter) and each "
            "rank broadcasts the fp32 parameters it updated through gloo's binomial tree instead of an all-gather"
        )
    if arrangement in FSDP_ARRANGEMENTS:
        reasons.append("gloo's reduce-scatter is an all-reduce of the whole gradient: twice the ring reduce-scatter")
        if not mixed:
            reasons.append("fp32 parameters are gathered in fp32")
    return reasons


def planned_gpu_memory(cfg: TorchSimConfig, arrangement: TorchArrangement, card_bytes: int) -> dict[str, int]:
    """What /v1/plan answers for this job on this card: per-GPU bytes (model state, the working set
    and activations for the run's micro-batch and sequence), and the card's reserve and usable bytes."""
    from models.common import Cluster, ModelSpec
    from models.plan import PlanRequest
    from models.training import Training
    from service.answers.plan import plan

    m = cfg.model
    nodes_of = cfg.ranks_per_node if arrangement is TorchArrangement.hybrid else cfg.world_size
    request = PlanRequest(
        model=ModelSpec(
            layers=m.layers,
            hidden_size=m.hidden_size,
            attention_heads=m.attention_heads,
            ffn_hidden_size=m.ffn_hidden_size,
            vocab_size=m.vocab_size,
        ),
        precision=PrecisionPresetName(cfg.precision),
        training=Training(micro_batch_size=cfg.batch_per_rank, sequence_length=cfg.sequence_length),
        cluster=Cluster(world_size=cfg.world_size, gpus_per_node=nodes_of, gpu_memory_bytes=card_bytes),
        arrangement=arrangement.value,
    )
    memory = plan(request).memory
    return {
        "per_gpu_bytes": memory.per_gpu_bytes,
        "model_state_bytes": memory.model_state_bytes,
        "working_set_bytes": memory.working_set_bytes,
        "activations_bytes": memory.activations_bytes,
        "reserve_bytes": memory.reserve_bytes,
        "usable_bytes": memory.usable_bytes,
    }


def plan_collectives(cfg: TorchSimConfig, arrangement: TorchArrangement, spec: PrecisionSpec) -> dict[str, int]:
    """The planner's bytes per rank per step by collective (service/time/traffic.py), for comparison."""
    from service.time.traffic import bytes_sent_by_collective

    p = parameter_count(cfg.model.architecture())
    sharding = core_sharding(arrangement)
    split = bytes_sent_by_collective(p, cfg.world_size, spec, sharding, 1, cfg.ranks_per_node)
    return {name.value: int(v) for name, v in split.items()}


# ---- layouts: tensor x pipeline x data ----------------------------------------------------------
COLUMN_PARALLEL = ("q", "k", "v", "up")  # weight and bias split on dim 0 (output features)
ROW_PARALLEL = ("o", "down")  # weight split on dim 1 (input features), bias whole


def stage_of_layer(cfg: TorchSimConfig, layer: int) -> int:
    return layer // (cfg.model.layers // cfg.pipeline)


def rank_parameter_shapes(cfg: TorchSimConfig, rank: int) -> list[tuple[str, tuple[int, ...]]]:
    """The parameters ``rank`` holds before FSDP2 shards them: its stage's tensors, each its
    tensor-parallel local shape (torch_layouts: column-parallel q/k/v/up and output layer,
    row-parallel o/down and embedding rows, norms and row-parallel biases whole)."""
    t, stage = cfg.tensor, cfg.stage_of(rank)
    out: list[tuple[str, tuple[int, ...]]] = []
    for name, shape in parameter_shapes(cfg.model):
        parts = name.split(".")
        if parts[0] == "blocks" and stage_of_layer(cfg, int(parts[1])) != stage:
            continue
        if parts[0] == "embed" and stage != 0:
            continue
        if parts[0] in ("norm", "out") and stage != cfg.pipeline - 1:
            continue
        module = parts[-2]
        if module in COLUMN_PARALLEL or parts[0] in ("embed", "out"):
            shape = (shape[0] // t, *shape[1:])
        elif module in ROW_PARALLEL and parts[-1] == "weight":
            shape = (shape[0], shape[1] // t)
        out.append((name, shape))
    return out


def layout_mesh(cfg: TorchSimConfig) -> Any:
    from service.mesh.degrees import Mesh

    return Mesh(world_size=cfg.world_size, gpus_per_node=cfg.world_size, tensor=cfg.tensor, pipeline=cfg.pipeline)


def layout_core_class_bytes(
    cfg: TorchSimConfig, arrangement: TorchArrangement, spec: PrecisionSpec, rank: int
) -> dict[str, int]:
    """The planner's bytes by class for ``rank``'s GPU: its stage's parameter share (service/mesh/stages.py:
    layers / p, matrices / t, the embedding on the first stage, the final norm and output layer on
    the last, norms and row-parallel biases whole) sharded over the data group d as the arrangement's
    flags say (service/memory/model_states.py), the functions /v1/plan's memory.stages[] come from."""
    from service.mesh.stages import stage_shares

    share = stage_shares(cfg.model.architecture(), cfg.tensor, cfg.pipeline, 1)[cfg.stage_of(rank)]
    rows = model_state_breakdown(share.dense_parameters, cfg.data, spec, core_sharding(arrangement))
    out = dict.fromkeys(CLASSES, 0)
    for row in rows:
        name = CLASS_OF_STATE.get(row.spec.state.value)
        if name is not None:
            out[name] += int(row.bytes)
    return out


def layout_conventions(cfg: TorchSimConfig, rank: int) -> list[Convention]:
    """FSDP2's per-tensor dim-0 shards over d and Adam's step counters, on the rank's local tensors."""
    shapes = [shape for _, shape in rank_parameter_shapes(cfg, rank)]
    p, d = sum(_numel(s) for s in shapes), cfg.data
    padding = sum(fsdp_shard_elements(s, d) for s in shapes) - ceil_div(p, d)
    adam_bytes = 2 * int(bytes_per_element(ENGINE_LAYOUT.optimizer_state_dtype))
    return [
        Convention(
            "fsdp2_dim0_shards",
            {"parameters": 4 * padding, "gradients": 4 * padding, "optimizer_state": adam_bytes * padding},
            "FSDP2 pads each local tensor to ceil(dim0 / d) rows, not the stage's share to ceil(P / d)",
        ),
        Convention(
            "adam_step_counters",
            {"optimizer_state": ADAM_STEP_BYTES * len(shapes)},
            f"Adam keeps a 4-byte fp32 step counter per parameter tensor: {len(shapes)} tensors on rank {rank}",
        ),
    ]


def planned_stages(cfg: TorchSimConfig, arrangement: TorchArrangement) -> list[dict[str, int]]:
    """/v1/plan's memory.stages[] for this job's layout and preset: each stage's layers, parameters
    and model-state bytes per GPU (service.answers.plan.plan, as a caller of the API gets them)."""
    return [
        {
            "stage": s.stage,
            "layers": s.layers,
            "parameters_per_gpu": s.parameters_per_gpu,
            "model_state_bytes": s.model_state_bytes,
        }
        for s in _layout_plan(cfg, arrangement).memory.stages
    ]


def _layout_plan(cfg: TorchSimConfig, arrangement: TorchArrangement) -> Any:
    """/v1/plan's answer for this job: its model, preset, micro-batch, sequence and layout."""
    from models.common import Cluster, ModelSpec
    from models.parallelism import Parallelism, PipelineSchedule
    from models.plan import PlanRequest
    from models.training import Training
    from service.answers.plan import plan

    m = cfg.model
    nodes_of = cfg.ranks_per_node if arrangement is TorchArrangement.hybrid else cfg.world_size
    request = PlanRequest(
        model=ModelSpec(
            layers=m.layers,
            hidden_size=m.hidden_size,
            attention_heads=m.attention_heads,
            ffn_hidden_size=m.ffn_hidden_size,
            vocab_size=m.vocab_size,
        ),
        precision=PrecisionPresetName(cfg.precision),
        training=Training(
            micro_batch_size=cfg.batch_per_rank,
            sequence_length=cfg.sequence_length,
            gradient_accumulation_steps=cfg.micro_batches,
        ),
        # model states do not depend on the card: an 80 GB one, the service's default size
        cluster=Cluster(world_size=cfg.world_size, gpus_per_node=nodes_of, gpu_memory_bytes=80 * 10**9),
        arrangement=arrangement.value,
        parallelism=Parallelism(
            tensor=cfg.tensor,
            pipeline=cfg.pipeline,
            pipeline_schedule=PipelineSchedule(cfg.pipeline_schedule),
        ),
    )
    return plan(request)


# The activation comparison's tolerance, relative to the plan's activations: 10% either way. The plan
# counts the tensors a layer stores for its backward by Korthikanti et al.'s table 2 (16-bit, flash
# attention: no s x s scores, no dropout masks, as this model has none); the engine's tracker counts
# what autograd really saves: beside those, the attention kernel's log-sum-exp rows, the layer norms'
# fp32 mean and rstd, the fp32 logits the loss upcasts, and under tensor parallelism without sequence
# parallelism the replicated layer-norm inputs PyTorch's ColwiseParallel keeps in another form than
# the formula's. Measured with torch 2.13 on gloo (2 x 16 tokens, width 64, 2 layers): +7.0% DDP and
# ZeRO-1 (after autocast's weight copies), +2.9% FSDP2 and HSDP; at tensor 2, -8.1% ZeRO-3 and +3.2%
# SHARD_GRAD_OP. The working set compares exactly (ZeRO-3 and HSDP, dense and at tensor 2).
ACTIVATION_TOLERANCE = 0.10


def _loss_transient_bytes(cfg: TorchSimConfig, stage: int) -> int:
    """What of the plan's loss peak on ``stage`` is not yet live after the forward: all of it but the fp32
    log-softmax, 4 B per token and vocabulary entry (vocabulary-parallel over t, as the plan divides it)."""
    if stage != cfg.pipeline - 1:
        return 0
    logits = cfg.batch_per_rank * cfg.sequence_length * cfg.model.vocab_size
    t = cfg.tensor
    return -(-LOSS_PEAK_SBV[CrossEntropy.unfused] * logits // t) - -(-4 * logits // t)


def plan_memory_comparison(
    cfg: TorchSimConfig, arrangement: TorchArrangement, peaks: dict[str, int], rank: int
) -> list[dict[str, Any]]:
    """The plan's activations and working set beside the tracker's peaks on ``rank``, with the convention
    that separates them and whether they agree (None where the two count different things)."""
    memory = _layout_plan(cfg, arrangement).memory
    stage = cfg.stage_of(rank)
    planned = memory.stages[stage] if cfg.layout else memory
    rows = []
    activations = peaks.get("Activation")
    if activations is not None:
        casts = 0
        note = "the tracker's Activation category at its largest (after the forward, before the backward)"
        if arrangement in (TorchArrangement.ddp, TorchArrangement.zero1):
            # autocast keeps the bf16 copy of every weight it casts for the backward: 2 bytes a weight
            casts = 2 * parameter_count(cfg.model.architecture())
            note += f", less autocast's bf16 weight copies saved for the backward (2 B x weights = {casts:,} B)"
        engine = activations - casts
        # The tracker's largest Activation is after the forward: of the loss's peak (bf16 logits, fp32 log-softmax
        # and its gradient, service.memory.activations) only the saved fp32 log-softmax, 4 B a logit, is there.
        plan_bytes = planned.activations_bytes - _loss_transient_bytes(cfg, stage)
        note += "; of the plan's loss peak, the fp32 log-softmax the loss saves (4 B per logit)"
        rows.append(
            {
                "term": "activations",
                "plan_bytes": plan_bytes,
                "engine_bytes": engine,
                "ratio": engine / plan_bytes if plan_bytes else None,
                "tolerance": ACTIVATION_TOLERANCE,
                "within_tolerance": bool(plan_bytes) and abs(engine - plan_bytes) <= ACTIVATION_TOLERANCE * plan_bytes,
                "convention": note,
            }
        )
    gathered = peaks.get("All Gather")
    if gathered is not None:
        engine = gathered + peaks.get("Unsharded Grad", 0)
        same = arrangement in (TorchArrangement.zero3, TorchArrangement.hybrid)
        rows.append(
            {
                "term": "working set",
                "plan_bytes": planned.working_set_bytes,
                "engine_bytes": engine,
                "ratio": engine / planned.working_set_bytes if planned.working_set_bytes else None,
                "tolerance": 0.0 if same else None,
                "within_tolerance": engine == planned.working_set_bytes if same else None,
                "convention": "FSDP2's all-gather buffers at their largest (the unit in flight and the prefetched "
                "one) plus the largest unsharded gradient before its reduce-scatter"
                + (
                    ""
                    if same
                    else "; not compared: SHARD_GRAD_OP keeps the gathered parameters from the forward to the "
                    "backward, which the plan counts among model states (parameters), while the engine's gather "
                    "buffers that fill them are transient"
                ),
            }
        )
    return rows


def layout_plan_collectives(
    cfg: TorchSimConfig, arrangement: TorchArrangement, spec: PrecisionSpec, rank: int
) -> dict[str, int]:
    """The planner's bytes per step for ``rank`` by group and collective ("tensor:all_reduce", ...):
    the model-parallel groups' calls (service/time/mesh_traffic.py) and the data group's collectives on
    the stage's share over d (service/time/traffic.py)."""
    from service.mesh.stages import stage_shares
    from service.time.mesh_traffic import StageWork, model_parallel_calls
    from service.time.traffic import bytes_sent_by_collective

    arch = cfg.model.architecture()
    share = stage_shares(arch, cfg.tensor, cfg.pipeline, 1)[cfg.stage_of(rank)]
    work = StageWork(share.layers, 0, cfg.micro_batches, cfg.batch_per_rank, cfg.sequence_length)
    out: dict[str, int] = {}
    for call in model_parallel_calls(layout_mesh(cfg), arch, work):
        key = f"{call.group.value}:{call.name.value}"
        out[key] = out.get(key, 0) + call.bytes_sent * call.count_per_step
    split = bytes_sent_by_collective(
        share.dense_parameters,
        cfg.data,
        spec,
        core_sharding(arrangement),
        cfg.micro_batches,
        cfg.data,
        pipelined=cfg.pipeline > 1,  # FSDP with pipelining (service.time.traffic.pipelined_collectives)
    )
    for name, v in split.items():
        out[f"data:{name.value}"] = int(v)
    return out


def layout_traffic_reasons(cfg: TorchSimConfig, arrangement: TorchArrangement) -> list[str]:
    """Why a layout's observed collectives differ from the planner's groups, by design."""
    reasons = []
    if cfg.tensor > 1:
        reasons.append(
            "tensor: PyTorch's ColwiseParallel on separate q, k, v and up projections all-reduces each one's input "
            "gradient (4 all-reduces of s·b·h per layer in the backward, Megatron-LM's fused QKV 2); the planner "
            "leaves out the vocabulary-parallel embedding's all-reduce and the replicated logits' all-gather"
        )
    if cfg.pipeline > 1:
        reasons.append(
            "pipeline: the planner prices a middle stage, which sends both ways (activations forward, gradients "
            "backward); a first or last stage sends one way and receives the other"
        )
        if arrangement is TorchArrangement.zero3:
            reasons.append(
                "data: the planner prices FSDP with pipelining as torchtitan runs it (reshard_after_forward off: the "
                "stage's parameters gathered once a step, its gradients reduce-scattered once after the last "
                "micro-batch); this engine's zero3 reshards after every forward and gathers again for the next "
                "micro-batch"
            )
    return reasons


def tensor_calls_per_micro_batch(layers: int, first: bool, last: bool) -> tuple[int, int]:
    """(all-reduces of s·b·h, all-gathers of the logits) one tensor rank issues per micro-batch under
    torch's parallelize_module plan (torch/distributed/tensor/parallel/style.py): forward, a
    row-parallel output's partial sums (o and down per layer, the embedding's rows) reduced; backward,
    each column-parallel module's replicated input gets its gradient all-reduced (q, k, v and up per
    layer, the output layer); the replicated logits gathered from the vocabulary halves."""
    forward = 2 * layers + int(first)
    backward = 4 * layers + int(last)
    return forward + backward, int(last)


def layout_engine_group_bytes(cfg: TorchSimConfig, rank: int) -> dict[str, int]:
    """Bytes a step ``rank`` sends in its tensor and pipeline groups, by the engines' conventions and
    gloo's algorithms: the planner's calls as PyTorch issues them (tensor_calls_per_micro_batch; a
    pipeline stage sends its activations forward and their gradients back, one way at either end)."""
    dtype = Dtype.bf16 if cfg.precision == "mixed_bf16_adam" else Dtype.fp32
    b, s, h, v = cfg.batch_per_rank, cfg.sequence_length, cfg.model.hidden_size, cfg.model.vocab_size
    stage = cfg.stage_of(rank)
    first, last = stage == 0, stage == cfg.pipeline - 1
    layers = cfg.model.layers // cfg.pipeline
    out: dict[str, int] = {}
    if cfg.tensor > 1:
        reduces, gathers = tensor_calls_per_micro_batch(layers, first, last)
        group_rank = rank % cfg.tensor
        reduce = gloo_call_cost("all_reduce", b * s * h, dtype, cfg.tensor, group_rank, 0).payload_bytes
        gather = gloo_call_cost("all_gather", b * s * v, dtype, cfg.tensor, group_rank, 0).payload_bytes
        out["tensor"] = cfg.micro_batches * (reduces * reduce + gathers * gather)
    if cfg.pipeline > 1:
        directions = int(not last) + int(not first)
        send = gloo_call_cost("send", b * s * h, dtype, 2, 0, 0).payload_bytes
        out["pipeline"] = cfg.micro_batches * directions * send
    return out
