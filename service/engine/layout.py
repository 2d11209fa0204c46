"""One evaluation of a layout: every figure of a plan on a mesh, per stage, from the core's formulas.

The rank of each stage holds its share of the parameters (service.mesh.stages); the arrangement's
flags shard that share's model states over the data-parallel group x context, the experts' over
the expert-data-parallel group (service.mesh.degrees). Activations are the stage's micro-batches in flight
(service.mesh.pipeline) of Korthikanti et al.'s per-layer bytes with t, sequence parallelism and the
context's share of the sequence (service.memory.activations). The busiest GPU is the plan's per_gpu_bytes.

A step is the slowest stage's compute, the pipeline bubble, the exposed part of each group's
communication (service.time.mesh_traffic; the data group's as service.time.communication prices it on the rank's
share) and host-link time when offloading. Compute splits the model FLOPs (active parameters for a
mixture of experts) over stages by their layers; each stage's work is divided over its t x c x d
GPUs at the requested utilisation. Each step is service.engine.step's, the one the data-parallel plan
(the mesh whose model-parallel degrees are 1) and the layout grid take too.
"""

from collections.abc import Callable
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np

from models.enums import MoeTokenDispatcher, Recompute
from models.parallelism import ContextAttention
from service.engine.setup import Setup
from service.engine.step import (
    Part,
    efficiency_of,
    flops_per_token,
    held,
    nccl_system_of,
    rank_step,
    replicated_bytes,
    stage_bubble,
    stage_compute,
    time_links,
)
from service.inputs.architecture import (
    Architecture,
    active_parameter_count,
    attention_width,
    layer_parameters,
    moe_layer_parameters,
    norm_width,
    routed_expert_parameters,
)
from service.memory.activations import StageLayers, TensorSplit, stage_activation_components, transformer_shape
from service.memory.model_states import StateBytes
from service.memory.offload import stages_host_bytes_per_node
from service.memory.working_set import Units, WorkingSetRow, working_set_rows
from service.mesh.degrees import Group, Mesh, model_chunks, run_micro_batches, schedule_runs, tensor_sequence_split
from service.mesh.pipeline import (
    end_chunk_in_flight,
    output_stage,
    schedule_in,
    stage_in_flight,
    stage_layer_indices,
    v_shaped,
)
from service.mesh.stages import StageShare, embedding_split, is_moe_layer, layer_split, output_split, rank_parameters
from service.mesh.stages import stage_shares as shares_of
from service.numeric import group_digits
from service.time.communication import CollectivePrice, alpha_beta_seconds, exposed_in_window, link_speed
from service.time.compute import tokens_per_step
from service.time.efficiency import (
    attention_core_backward_seconds,
    attention_core_seconds,
    gemm_seconds,
    layer_matrices,
    moe_layer_pieces,
)
from service.time.mesh_traffic import (
    GroupCall,
    StageWork,
    all_to_all_seconds,
    beside_data_seconds,
    group_call_price,
    links_alone,
    model_parallel_calls,
    ring_exposed_seconds,
)
from service.time.overlaps import (
    COMBINED_SCHEDULES,
    CombinedPairs,
    combined_exposed_seconds,
    combined_passes,
    overlap_compute_share,
    overlapped_calls,
    paired_exposed_seconds,
    paired_gemm_weights,
    share_exposed_seconds,
)
from service.time.traffic import StepCollective, Window, step_collectives


@dataclass(frozen=True)
class DataGroup:
    """One data-parallel group's collectives: the dense share over d x c, or the experts over d x c / e."""

    label: str  # "dense" or "experts"
    parameters: int  # the rank's share the collectives move
    ranks: int
    members_per_node: int
    calls: list[StepCollective]
    total_s: float  # as NCCL runs it over the node's NICs (service.time.nccl)
    exposed_s: float
    prices: tuple[CollectivePrice, ...]  # per collective of calls: its NCCL calls, algorithm and latency


@dataclass(frozen=True)
class StageEvaluation:
    share: StageShare
    rows: list[StateBytes]  # dense share's state classes, then the experts'
    expert_rows: list[StateBytes]
    working: list[WorkingSetRow]
    activations: dict[str, int]
    in_flight: Fraction
    model_state_bytes: int
    working_set_bytes: int
    activations_bytes: int
    per_gpu_bytes: int
    host_bytes: int
    cpu_optimizer_bytes: int  # host-memory bytes the CPU optimizer streams for this GPU per step
    fits: bool


@dataclass(frozen=True)
class LayoutEvaluation:
    mesh: Mesh
    micro_batches: int
    stages: list[StageEvaluation]
    busiest: int  # index of the stage with the most bytes per GPU
    slowest: int  # index of the stage with the most compute
    group_calls: list[GroupCall]
    data_groups: list[DataGroup]
    replicated_floor_bytes: int
    tokens_per_step: int
    model_flops: float
    compute_flops: float
    compute_s: float
    pipeline_bubble_s: float
    bubble_fraction: float  # the bubble over the compute of a step
    tensor_parallel_s: float
    pipeline_p2p_s: float
    context_parallel_s: float
    expert_parallel_s: float
    data_parallel_s: float
    data_parallel_exposed_s: float
    pcie_bytes_per_gpu: int
    host_bytes: int  # per node
    host_fits: bool
    offload_transfer_s: float
    cpu_optimizer_s: float
    offload_s: float
    step_s: float
    tokens_per_s: float
    mfu: float
    hfu: float
    optimizer_s: float = 0.0  # the efficiency model's optimizer step over HBM
    overlap_slowdown_s: float = 0.0  # compute lost to the data-parallel communication it hides
    ring_step_core_s: float = 0.0  # one ring-attention step's attention core (ring_step_core_s), forward
    ring_step_backward_core_s: float = 0.0  # the same step's core in the backward (ring_step_backward_core_s)

    @property
    def top(self) -> StageEvaluation:
        return self.stages[self.busiest]


def layout_units(arch: Architecture, mesh: Mesh) -> Units:
    """FSDP units as one GPU holds them: a block's, the embedding's and the output layer's share."""
    t, e = mesh.tensor, mesh.expert
    kinds = {is_moe_layer(arch, i): i for i in range(arch.layers)}  # a layer's split depends on its kind alone
    blocks = {sum(rank_parameters(layer_split(arch, i), t, e, mesh.expert_tensor)) for i in kinds.values()}
    block = max(blocks)
    embedding = rank_parameters(embedding_split(arch, t), t, e)[0]
    output = rank_parameters(output_split(arch, t, mesh.pipeline), t, e)[0]
    pairs = [embedding + block, block + output] + ([2 * block] if arch.layers > 1 else [])
    words = (
        f"units per GPU: embedding {group_digits(embedding)}, block {group_digits(block)}, "
        f"output {group_digits(output)} parameters"
    )
    return Units(max(embedding, block, output), max(pairs), words)


def active_layer_parameters(arch: Architecture, index: int) -> int:
    if not is_moe_layer(arch, index):
        return layer_parameters(arch)
    moe = arch.moe
    assert moe is not None
    return moe_layer_parameters(arch) - (moe.experts - moe.top_k) * routed_expert_parameters(arch)


@lru_cache(maxsize=256)  # a pure function of a frozen architecture, read for every stage of every split
def dense_layer_parameters(arch: Architecture) -> int:
    return layer_parameters(arch)


def stage_flops_per_token(arch: Architecture, indices: list[int], last: bool, sequence_length: int) -> int:
    """6 x (the stage's active matmul parameters) + 12 x its layers x width x s (PaLM appendix B), exact.

    The output layer's matmul (and the final norm) belongs to the last stage; the input embedding is
    a lookup. Summed over the stages this is compute.model_flops_per_token of the whole model.
    """
    moe_layers = 0 if arch.moe is None else sum(1 for i in indices if is_moe_layer(arch, i))
    # every dense layer has the same active parameters, every MoE layer too: two values, not one per layer
    weights = (len(indices) - moe_layers) * dense_layer_parameters(arch)
    if moe_layers:
        weights += moe_layers * active_layer_parameters(arch, next(i for i in indices if is_moe_layer(arch, i)))
    if last:
        norm = norm_width(arch) * arch.hidden_size
        weights += arch.vocab_size * arch.hidden_size + norm
    return 6 * weights + 12 * len(indices) * attention_width(arch) * sequence_length


def stage_parts(mesh: Mesh, share: StageShare) -> list[Part]:
    """What a stage's rank holds, each part with the data-parallel group its states shard over: the dense share
    over d x c (the experts' too unless they shard apart), the experts' over the expert-data-parallel group."""
    apart = bool(mesh.experts_apart) and share.expert_parameters > 0
    dense = share.dense_parameters + (0 if apart else share.expert_parameters)
    parts = [Part(dense, mesh.data_context, mesh.members_per_node(Group.data))]
    if apart:
        parts.append(Part(share.expert_parameters, mesh.expert_data, mesh.expert_data_per_node))
    return parts


def torch_native(setup: Setup) -> bool:
    """Whether a stage runs as torchtitan runs it (service.memory.activations, ``torch_native``): parameters sharded,
    the FSDP2 convention that the plan already takes for FSDP with pipelining (working_set.pipelined_rows);
    Megatron-LM and DeepSpeed shard no more than the optimizer and gradients under tensor parallelism."""
    return bool(setup.sharding.shard_parameters)


def _end_flight(mesh: Mesh, share: StageShare, m: int, stage: int) -> Fraction:
    """Micro-batches held of the end chunk of ``stage`` (the embedding's on stage 0, the output layer's on the
    last: service.mesh.pipeline.end_chunk_in_flight); the stage's own count when it holds neither end."""
    if share.stage != stage or v_shaped(mesh.schedule, mesh.pipeline):
        return stage_in_flight(mesh.schedule, share.stage, mesh.pipeline, mesh.virtual_stages, m, share.chunk_layers)
    chunk = 0 if stage == 0 else mesh.virtual_stages - 1
    numerator, denominator = end_chunk_in_flight(mesh.schedule, stage, mesh.pipeline, mesh.virtual_stages, m, chunk)
    return Fraction(int(numerator), int(denominator))


def _stage(
    arch: Architecture,
    mesh: Mesh,
    setup: Setup,
    share: StageShare,
    m: int,
    b: int,
    s: int,
    counted: bool,
    units: Units | None,
) -> StageEvaluation:
    parts = stage_parts(mesh, share)
    states = held(parts, setup)
    rows = states.rows[0]
    expert_rows = states.rows[1] if len(parts) > 1 else []
    model_state, host = int(states.gpu_bytes), int(states.host_bytes)
    cpu = int(states.cpu_optimizer_bytes)
    pipelined = mesh.pipeline > 1  # FSDP with pipelining as torchtitan runs it (working_set.pipelined_rows)
    working = working_set_rows(
        share.parameters,
        setup.precision,
        setup.sharding,
        units,
        setup.bucket_bytes,
        setup.overlap,
        pipelined=pipelined,
        runs=mesh.runs,
    )
    run_m = run_micro_batches(m, mesh.runs, mesh.pipeline)  # what one run of the schedule holds and keeps
    flight = stage_in_flight(mesh.schedule, share.stage, mesh.pipeline, mesh.virtual_stages, run_m, share.chunk_layers)
    activations: dict[str, int] = {}
    if counted:
        layers = StageLayers(
            share.layers - share.moe_layers,
            share.moe_layers,
            share.first,
            share.last,
            flight,
            first_in_flight=_end_flight(mesh, share, run_m, 0),
            last_in_flight=_end_flight(mesh, share, run_m, mesh.pipeline - 1),
            micro_batches=run_m if pipelined else 0,
            chunks=max(1, len(share.chunk_layers)),
        )
        split = TensorSplit(mesh.tensor, mesh.sequence_parallel, mesh.context)
        act = setup.activations
        components = stage_activation_components(
            b,
            s,
            transformer_shape(arch),
            act.flash_attention,
            setup.recompute,
            layers,
            split,
            act.cross_entropy,
            torch_native=torch_native(setup),
        )
        activations = {name: int(value) for name, value in components.items()}
    working_bytes = sum(row.bytes for row in working)
    activation_bytes = sum(activations.values())
    per_gpu = model_state + working_bytes + activation_bytes
    return StageEvaluation(
        share=share,
        rows=rows,
        expert_rows=expert_rows,
        working=working,
        activations=activations,
        in_flight=flight,
        model_state_bytes=model_state,
        working_set_bytes=working_bytes,
        activations_bytes=activation_bytes,
        per_gpu_bytes=per_gpu,
        host_bytes=host,
        cpu_optimizer_bytes=cpu,
        fits=per_gpu <= setup.usable_bytes,
    )


def split_of(mesh: Mesh) -> dict[str, Any]:
    """The mesh's split of the layers, as stage_shares and stage_flops take it (pipeline.chunk_layers)."""
    return {
        "pipeline_layers": mesh.pipeline_layers,
        "embedding_layers": mesh.embedding_layers,
        "loss_layers": mesh.loss_layers,
        "v_shape": v_shaped(mesh.schedule, mesh.pipeline),
    }


@dataclass(frozen=True)
class PacingStage:
    """A stage that may set a pipeline's pace: its index, layers, whether it holds the output layer, and its share
    of the model's FLOPs."""

    index: int
    layers: int
    last: bool
    share: Fraction


def stage_flops(
    arch: Architecture,
    pipeline: int,
    virtual_stages: int,
    s: int,
    *,
    pipeline_layers: tuple[int, ...] | None = None,
    embedding_layers: int = 0,
    loss_layers: int = 0,
    v_shape: bool = False,
) -> tuple[list[list[int]], int, list[int]]:
    """(each stage's layer indices, the stage with the output layer, each stage's FLOPs a token): the model's FLOPs
    split over the stages by their layers (stage_flops_per_token). The output layer is on the last stage, or on
    stage 0 in ZB-V's V (``v_shape``)."""
    indices = stage_layer_indices(
        arch.layers, pipeline, virtual_stages, pipeline_layers, embedding_layers, loss_layers, v_shape
    )
    output = output_stage(v_shape, pipeline)
    return indices, output, [stage_flops_per_token(arch, idx, i == output, s) for i, idx in enumerate(indices)]


def pacing_stages(arch: Architecture, pipeline: int, virtual_stages: int, s: int, **split: Any) -> list[PacingStage]:
    """The stages one of which is the slowest, the one with the most FLOPs first, then the one with the output layer
    and, of the others, the one with the most layers (the most FLOPs among equals); ``split``: stage_flops' split of
    the layers. A stage's compute is its share of the FLOPs at a given utilisation, else its layers and the output
    layer timed by the efficiency model (service.engine.step.stage_compute): both grow with the layers, and the
    output layer's time need not be a layer's, so these three hold the slowest stage by either measure. The
    pipeline runs at the pace of its slowest stage (Narayanan et al. 2021, section 2.2), which the caller takes by
    that compute."""
    indices, output, per_stage = stage_flops(arch, pipeline, virtual_stages, s, **split)
    total = sum(per_stage)
    slowest = max(range(len(per_stage)), key=lambda i: per_stage[i])
    others = [i for i in range(len(indices)) if i != output]
    widest = max(others, key=lambda i: (len(indices[i]), per_stage[i])) if others else output
    return [
        PacingStage(i, len(indices[i]), i == output, Fraction(per_stage[i], total))
        for i in dict.fromkeys((slowest, output, widest))
    ]


def group_call_seconds(call: GroupCall, setup: Setup) -> Any:
    """One call's seconds (a float; an array for many layouts, whose link is then a bool array): an all-reduce,
    all-gather or reduce-scatter as NCCL's tuning model prices it, a send/receive at alpha-beta, an all-to-all at
    alpha-beta on each link at once (service.time.mesh_traffic.all_to_all_seconds); a call run beside another on
    the other link (GroupCall.beside) for what it takes beyond that one."""
    if call.beside is not None:  # overlapped with the call beside it, on the other link: only its excess counts
        own = group_call_seconds(replace(call, beside=None), setup)
        excess = np.maximum(0.0, own - group_call_seconds(call.beside, setup))
        return excess if isinstance(excess, np.ndarray) else float(excess)
    links = time_links(setup, 1)  # a model-parallel call: the GPU's own NIC
    price = group_call_price(call, links, nccl_system_of(setup))
    if price is not None:
        return price.seconds
    if call.node_members is not None:  # an all-to-all: NVLink and the NIC at once
        return all_to_all_seconds(call, links)
    latency_s, bytes_per_s = link_speed(call.link, links)
    seconds = alpha_beta_seconds(call.hops, call.bytes_sent, latency_s, bytes_per_s)
    return seconds if isinstance(seconds, np.ndarray) else float(seconds)


def ring_step_core_s(setup: Setup, b: Any, s: int, tensor: Any, context: Any) -> Any:
    """One ring-attention step's attention core, forward, per layer and micro-batch: the rank's queries against
    one K/V chunk, 1 / c of the efficiency model's attention term (service.time.efficiency.attention_core_seconds);
    0 without the model's kernel shapes (nothing is then hidden). Numbers, or arrays for many layouts."""
    eff = setup.efficiency
    if eff is None or eff.kernels is None:
        return 0.0
    return attention_core_seconds(eff, b, s, tensor, context) / context


def ring_step_backward_core_s(setup: Setup, b: Any, s: int, tensor: Any, context: Any) -> Any:
    """One ring-attention step's attention core in the backward, per layer and micro-batch: 1 / c of the attention
    core's backward (service.time.efficiency.attention_core_backward_seconds), which runs at its own published
    speed on 2.5 times the forward's FLOPs. TransformerEngine's AttnFuncWithCPAndKVP2P.backward
    (transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py @d0067d0d) sends K/V on and the
    accumulated dK/dV back in the same step, both beside that step's backward kernel, so each of the two transfers
    hides behind half of it (ring_exposed_seconds). 0 without the model's kernel shapes."""
    eff = setup.efficiency
    if eff is None or eff.kernels is None:
        return 0.0
    return attention_core_backward_seconds(eff, b, s, tensor, context) / context


def ring_transfer_window_s(call: GroupCall, step_core_s: Any, step_backward_core_s: Any) -> Any:
    """The attention core one ring-attention transfer hides behind: a forward step's core, or half a backward
    step's (two transfers a backward step: ring_step_backward_core_s)."""
    return step_core_s if call.window is Window.forward else step_backward_core_s / 2


def dense_kernels(setup: Setup) -> bool:
    """Whether the efficiency model knows a dense model's kernel shapes (its projections' GEMMs)."""
    eff = setup.efficiency
    return eff is not None and eff.kernels is not None and not eff.kernels.experts


def paired_gemm_s(call: GroupCall, setup: Setup) -> list[Any]:
    """Seconds of the forward GEMM of each projection of a dense layer (qkv, proj, fc1, fc2) on one tensor-parallel
    rank, for the tokens of this call's buffer (s'b x h gathered), that a tensor-parallel call paired with it can
    hide behind (service.time.overlaps.paired_exposed_seconds): (t - 1) / t of it. The overlap is micro-pipelined
    over the t shards: the rank's own shard is multiplied while the first remote shard is copied in, then each
    remote shard's product follows its copy, the copies one after another (torch 2.13.0,
    torch/distributed/_symmetric_memory/__init__.py, _pipelined_multi_all_gather_and_consume, and its mirror
    _pipelined_produce_and_all2all for a product then reduce-scatter; Transformer Engine's ring exchange splits the
    same way), so the step takes max(call + GEMM / t, GEMM): one shard's product is never beside a copy."""
    eff = setup.efficiency
    assert eff is not None and eff.kernels is not None
    shape = eff.kernels
    tokens = call.elements // shape.hidden_size
    ceiling = eff.calibration.ceiling(eff.device.generation)
    t = call.ranks
    matrices = layer_matrices(shape, t)[:4]
    return [gemm_seconds(tokens, k, n, eff.gemm_device, ceiling) * (t - 1) / t for k, n in matrices]


def lever_overlapped(group: Group, setup: Setup) -> bool:
    """Whether an overlap lever hides this group's calls behind its share of the compute (service.time.overlaps)."""
    if not setup.overlap:
        return False
    return (group is Group.tensor and setup.overlaps.tp_comm) or (group is Group.expert and setup.overlaps.expert_comm)


def combined_priced(setup: Setup) -> bool:
    """Whether the expert overlap is priced as the combined 1F1B pairs it (combined_pairs): the lever on, and the
    efficiency model's kernel shapes of a mixture for the pieces (not a given utilisation); otherwise each expert
    call hides behind its share of the stage's compute."""
    eff = setup.efficiency
    if not lever_overlapped(Group.expert, setup) or setup.utilisation is not None:
        return False
    return eff is not None and eff.kernels is not None and bool(eff.kernels.experts)


def combined_pieces(
    setup: Setup,
    b: Any,
    s: int,
    tensor: Any,
    context: Any,
    expert: Any,
    expert_tensor: Any,
    sequence: Any,
    ring: bool,
) -> tuple[Any, Any, Any, Any]:
    """The compute one MoE layer pass's four phases of the combined 1F1B hide behind, in
    service.time.overlaps.COMBINED_PHASES' order (attention forward, experts backward, experts forward, attention
    backward): service.time.efficiency.moe_layer_pieces, as stage_compute's efficiency model runs the layer. For
    one layout or a grid's arrays; the setup must be combined_priced."""
    attention_f, experts_f, attention_b, experts_b = moe_layer_pieces(
        efficiency_of(setup), b, s, tensor, context, expert, expert_tensor, sequence, ring
    )
    return attention_f, experts_b, experts_f, attention_b


def combined_pairs(
    setup: Setup,
    schedule: Any,
    p: Any,
    v: Any,
    m: Any,
    moe_layers: Any,
    pieces_s: tuple[Any, ...],
    runs: int = 1,
) -> CombinedPairs:
    """What the expert overlap's combined 1F1B pairs on the paced stage (service.time.overlaps.CombinedPairs), for
    one layout or a grid's arrays: its MoE layers' passes, the paired ones (combined_passes: m x chunks chunk passes
    but the warmup's, each of the schedule's ``runs`` with a warmup of its own: parallelism.pipeline_runs; a chunk
    holds 1 / chunks of the stage's layers: Mesh.chunks), one layer pass's pieces (combined_pieces) and the share of
    the SMs they keep beside the setup's dispatcher's kernels (overlap_compute_share). ``schedule``: the
    PipelineSchedule, or a grid's codes into SCHEDULES."""
    steady = schedule_in(schedule, COMBINED_SCHEDULES)
    chunks = model_chunks(schedule, v)
    run_m = run_micro_batches(m, runs, p)
    paired = moe_layers * schedule_runs(runs, p) * combined_passes(p, chunks, run_m, steady) / chunks
    eff = efficiency_of(setup)
    share = overlap_compute_share(eff.device.multiprocessors, eff.dispatcher is MoeTokenDispatcher.deepep)
    return CombinedPairs(moe_layers * m, paired, pieces_s, share)


def group_seconds(calls: list[GroupCall], group: Group, seconds_of: Callable[[GroupCall], Any]) -> Any:
    """Seconds of every call of the group a step, exposed or not (numbers, or arrays for many layouts)."""
    return sum(c.count_per_step * seconds_of(c) for c in calls if c.group is group)


def combined_group_s(group_s: Any, full_recompute: bool, pairs: CombinedPairs) -> Any:
    """The expert group's exposed seconds under the combined 1F1B (service.time.overlaps.combined_exposed_seconds),
    its ``group_s`` over four phases a MoE layer pass, six when the forward is recomputed (its dispatch and combine
    again, never paired)."""
    phases = (6 if full_recompute else 4) * pairs.layer_passes
    return combined_exposed_seconds(group_s, phases, pairs)


def exposed_group_s(
    calls: list[GroupCall],
    group: Group,
    setup: Setup,
    forward_s: Any,
    backward_s: Any,
    step_core_s: Any = 0.0,
    priced: Callable[[GroupCall], Any] | None = None,
    full_recompute: bool | None = None,
    step_backward_core_s: Any = 0.0,
    pairs: CombinedPairs | None = None,
) -> Any:
    """Every call of the group on the critical path, except a window's calls, hidden under its compute
    but the first; ring attention's transfers each behind one ring step's attention core alone, ``step_core_s``
    in the forward (ring_step_core_s), half of ``step_backward_core_s`` in the backward
    (ring_step_backward_core_s; service.time.mesh_traffic.ring_exposed_seconds); with tp_comm_overlap or the expert
    overlap, each call of its group behind its share of the stage's compute (service.time.overlaps), a dense
    layer's tensor calls each behind the GEMM it is paired with, the expert group's phases each behind the piece of
    the other micro-batch the combined 1F1B pairs it with (``pairs``: combined_pairs). ``priced``: a call's seconds
    (group_call_seconds, or a grid's memo of it); ``full_recompute``: whether the calls' forward is recomputed (None:
    as the setup says)."""
    seconds_of = priced or (lambda call: group_call_seconds(call, setup))
    exposed: Any = 0.0
    members = [c for c in calls if c.group is group]
    if lever_overlapped(group, setup):
        count: Any = sum(c.count_per_step for c in members)
        paired = group is Group.tensor and dense_kernels(setup)
        full = setup.recompute is Recompute.full if full_recompute is None else full_recompute
        if group is Group.expert and pairs is not None:
            return combined_group_s(group_seconds(calls, group, seconds_of), full, pairs)
        for call in members:
            if paired:
                weights = paired_gemm_weights(call.name, full)
                exposed += paired_exposed_seconds(
                    call.count_per_step, seconds_of(call), paired_gemm_s(call, setup), weights
                )
                continue
            share = share_exposed_seconds(call.count_per_step, seconds_of(call), forward_s + backward_s, count)
            exposed += share
        return exposed
    for call in members:
        call_s = seconds_of(call)  # priced once: NCCL's model is the costly part of a grid's groups
        if call.ring_step:
            window_s = ring_transfer_window_s(call, step_core_s, step_backward_core_s)
            exposed += ring_exposed_seconds(call.count_per_step, call_s, window_s)
            continue
        total = call.count_per_step * call_s
        if call.window is Window.none:
            exposed += total
        else:
            window_s = forward_s if call.window is Window.forward else backward_s
            exposed += exposed_in_window(total, call_s, window_s)
    return exposed


def hidden_lever_s(
    calls: list[GroupCall],
    setup: Setup,
    forward_s: Any,
    backward_s: Any,
    priced: Callable[[GroupCall], Any] | None = None,
    full_recompute: bool | None = None,
    pairs: CombinedPairs | None = None,
    groups: tuple[Group, ...] = (Group.tensor, Group.expert),
) -> Any:
    """Seconds of model-parallel communication the overlap levers hide (of ``groups``: tensor, expert): what the
    overlap slowdown charges the compute for (numbers, or arrays for many layouts); ``pairs``: the expert overlap's
    combined_pairs, whose phases charge their pieces for DeepEP's SMs themselves (CombinedPairs.prices_the_sms)."""
    seconds_of = priced or (lambda call: group_call_seconds(call, setup))
    hidden: Any = 0.0
    for group in groups:
        if not lever_overlapped(group, setup):
            continue
        total = group_seconds(calls, group, seconds_of)
        exposed = exposed_group_s(
            calls, group, setup, forward_s, backward_s, priced=seconds_of, full_recompute=full_recompute, pairs=pairs
        )
        hidden = hidden + (expert_hidden_s(total, exposed, pairs) if group is Group.expert else total - exposed)
    return hidden


def expert_hidden_s(total_s: Any, exposed_s: Any, pairs: CombinedPairs | None) -> Any:
    """The expert group's seconds the overlap hides, as the fitted overlap slowdown charges them: total - exposed,
    none where the combined 1F1B's pairs charge their pieces for DeepEP's SMs themselves (prices_the_sms)."""
    if pairs is not None and pairs.prices_the_sms:
        return 0.0 * total_s
    return total_s - exposed_s


def evaluate_layout(
    arch: Architecture,
    mesh: Mesh,
    setup: Setup,
    micro_batches: int,
    micro_batch_size: int,
    sequence_length: int,
    activations_counted: bool,
) -> LayoutEvaluation:
    m, b, s = micro_batches, micro_batch_size, sequence_length
    stages = stage_memory(arch, mesh, setup, m, b, s, activations_counted)
    busiest = max(range(len(stages)), key=lambda i: stages[i].per_gpu_bytes)
    top = stages[busiest]

    # Compute: the model's FLOPs split over the stages by their layers; the slowest stage sets the pace.
    active = active_parameter_count(arch)
    tokens = int(tokens_per_step(mesh.data, b, s, m))
    model_per_token, hardware_per_token = flops_per_token(setup, active, s)
    model_flops, flops = model_per_token * tokens, hardware_per_token * tokens
    t, c, p, v = mesh.tensor, mesh.context, mesh.pipeline, mesh.virtual_stages
    stage_gpus = t * c * mesh.data
    paced: tuple[Any, Any] | None = None
    slowest = 0
    for stage in pacing_stages(arch, p, v, s, **split_of(mesh)):  # the first of equals: the most FLOPs
        timed = stage_compute(
            setup,
            model_per_token,
            active,
            m,
            b,
            s,
            tokens,
            float(stage.share),
            stage_gpus,
            stage.layers,
            t,
            c,
            stage.last,
            mesh.expert,
            mesh.etp,
            tensor_sequence_split(t, mesh.sequence_parallel),
            mesh.context_attention is ContextAttention.ring,
        )
        if paced is None or float(timed[0]) > float(paced[0]):
            paced, slowest = timed, stage.index
    assert paced is not None
    compute_s, forward_s = float(paced[0]), float(paced[1])
    backward_s = compute_s - forward_s
    bubble_s = float(stage_bubble(setup, mesh.schedule, p, v, m, compute_s, forward_s, mesh.post_validation, mesh.runs))
    idle = bubble_s / compute_s if compute_s > 0 else 0.0

    work = StageWork(
        layers=max(stage.share.layers for stage in stages),
        moe_layers=max(stage.share.moe_layers for stage in stages),
        micro_batches=m,
        micro_batch_size=b,
        sequence_length=s,
        full_recompute=setup.recompute is Recompute.full,
        dispatcher=efficiency_of(setup).dispatcher,
        fp8_gathers=setup.efficiency is not None and setup.efficiency.fp8,
    )
    calls = model_parallel_calls(mesh, arch, work)
    core_s = ring_step_core_s(setup, b, s, mesh.tensor, mesh.context)
    back_core_s = ring_step_backward_core_s(setup, b, s, mesh.tensor, mesh.context)
    sequence = tensor_sequence_split(t, mesh.sequence_parallel)
    ring = mesh.context_attention is ContextAttention.ring
    pairs = None  # the expert overlap as the combined 1F1B pairs it, where its pieces are known
    if combined_priced(setup):
        pieces_s = combined_pieces(setup, b, s, t, c, mesh.expert, mesh.etp, sequence, ring)
        pairs = combined_pairs(setup, mesh.schedule, p, v, m, work.moe_layers, pieces_s, mesh.runs)
    group_s: dict[Group, float] = {
        g: float(
            exposed_group_s(
                calls, g, setup, forward_s, backward_s, core_s, step_backward_core_s=back_core_s, pairs=pairs
            )
        )
        for g in Group
        if g is not Group.data
    }

    # Data parallelism on the busiest stage's parts: the dense share over d x c, the experts over d x c / e; a
    # group of one rank makes no call.
    parts = stage_parts(mesh, top.share)
    n, g = mesh.world_size, mesh.gpus_per_node
    pipelined = mesh.pipeline > 1  # FSDP with pipelining as torchtitan runs it (traffic.pipelined_collectives)
    data_calls = overlapped_calls(
        step_collectives(setup.precision, setup.sharding, m, pipelined=pipelined, runs=mesh.runs), setup.overlaps
    )
    exposed = sum(group_s.values())
    lever_hidden = (
        float(hidden_lever_s(calls, setup, forward_s, backward_s, pairs=pairs)) if setup.efficiency is not None else 0.0
    )
    step = rank_step(
        parts,
        setup,
        data_calls,
        m,
        forward_s / m,
        backward_s / m,
        top.share.layers,
        top.cpu_optimizer_bytes,
        n,
        g,
        compute_s,
        bubble_s,
        exposed,
        tokens,
        model_flops,
        flops,
        not mesh.trivial,
        lever_hidden,
        beside_data_seconds(group_s, links_alone(mesh)),
    )
    groups = [
        DataGroup(
            label,
            part.parameters,
            part.ranks,
            part.per_node,
            data_calls,
            float(t.total_s),
            float(t.exposed_s),
            tuple(priced),
        )
        for label, part, t, priced in zip(("dense", "experts"), parts, step.groups, step.prices, strict=False)
        if part.ranks > 1
    ]
    data_total, data_exposed = float(step.data_s), float(step.data_exposed_s)
    host_link, totals = step.host, step.totals
    host = int(stages_host_bytes_per_node((stage.host_bytes for stage in stages), n, g))
    host_fits = setup.host_memory_bytes is None or host <= setup.host_memory_bytes
    optimizer_s = float(step.optimizer_s)
    offload_s = float(host_link.offload_s)
    floor = int(replicated_bytes(parts, setup)) + top.working_set_bytes + top.activations_bytes
    return LayoutEvaluation(
        mesh=mesh,
        micro_batches=m,
        stages=stages,
        busiest=busiest,
        slowest=slowest,
        group_calls=calls,
        data_groups=groups,
        replicated_floor_bytes=floor,
        tokens_per_step=tokens,
        model_flops=float(model_flops),
        compute_flops=float(flops),
        compute_s=compute_s,
        pipeline_bubble_s=bubble_s,
        bubble_fraction=idle,
        tensor_parallel_s=group_s[Group.tensor],
        pipeline_p2p_s=group_s[Group.pipeline],
        context_parallel_s=group_s[Group.context],
        expert_parallel_s=group_s[Group.expert],
        data_parallel_s=data_total,
        data_parallel_exposed_s=data_exposed,
        pcie_bytes_per_gpu=int(host_link.pcie_bytes_per_gpu),
        host_bytes=host,
        host_fits=host_fits,
        offload_transfer_s=float(host_link.transfer_s),
        cpu_optimizer_s=float(host_link.cpu_optimizer_s),
        offload_s=offload_s,
        step_s=float(totals.step_s),
        tokens_per_s=float(totals.tokens_per_s),
        mfu=float(totals.mfu),
        hfu=float(totals.hfu),
        optimizer_s=optimizer_s,
        overlap_slowdown_s=float(totals.overlap_slowdown_s),
        ring_step_core_s=float(core_s),
        ring_step_backward_core_s=float(back_core_s),
    )


def stage_memory(
    arch: Architecture,
    mesh: Mesh,
    setup: Setup,
    micro_batches: int,
    micro_batch_size: int,
    sequence_length: int,
    activations_counted: bool,
) -> list[StageEvaluation]:
    """Each stage's bytes per GPU alone, without the step's time: what a fit search compares."""
    shares = shares_of(
        arch, mesh.tensor, mesh.pipeline, mesh.expert, mesh.virtual_stages, mesh.expert_tensor, **split_of(mesh)
    )
    m, b, s = micro_batches, micro_batch_size, sequence_length
    units = layout_units(arch, mesh) if setup.units is not None else None
    return [_stage(arch, mesh, setup, share, m, b, s, activations_counted, units) for share in shares]
