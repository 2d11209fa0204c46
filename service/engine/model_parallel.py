"""The model-parallel groups' share of a step: each call of the tensor, context, pipeline and expert groups priced
(NCCL's tuning model for the rings, alpha-beta for sends and all-to-alls), and what of it the step waits for: a
window's calls hidden under its compute but the first, ring attention's transfers each behind one ring step's
attention core, and the overlap levers' calls behind their share of the compute, the GEMM they are paired with
or the combined 1F1B's other micro-batch (service.time.overlaps). Written over numbers for one layout and over
arrays for many (service.engine.evaluation, service.engine.layout_grid).
"""

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from models.enums import MoeTokenDispatcher, Recompute
from service.engine.setup import Setup
from service.engine.step import efficiency_of, nccl_system_of, time_links
from service.mesh.degrees import Group, model_chunks, run_micro_batches, schedule_runs
from service.mesh.pipeline import schedule_in
from service.time.communication import alpha_beta_seconds, exposed_in_window, link_speed
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
    group_call_price,
    ring_exposed_seconds,
)
from service.time.overlaps import (
    COMBINED_SCHEDULES,
    CombinedPairs,
    combined_exposed_seconds,
    combined_passes,
    overlap_compute_share,
    paired_exposed_seconds,
    paired_gemm_weights,
    share_exposed_seconds,
)
from service.time.traffic import Window

MODEL_GROUPS = (Group.tensor, Group.context, Group.pipeline, Group.expert)  # the mesh's model-parallel groups


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


def stage_work(setup: Setup, layers: Any, moe_layers: Any, m: Any, b: Any, s: int, full_recompute: bool) -> StageWork:
    """The busiest stage as the model-parallel groups see it (service.time.mesh_traffic.StageWork): its layers and
    MoE layers, the micro-batches and their shape, whether the forward is recomputed, the setup's token dispatcher
    and whether its GEMMs run in FP8 (numbers for one layout, arrays for many)."""
    return StageWork(
        layers,
        moe_layers,
        m,
        b,
        s,
        full_recompute,
        dispatcher=efficiency_of(setup).dispatcher,
        fp8_gathers=setup.efficiency is not None and setup.efficiency.fp8,
    )


def model_exposed_s(exposed_s: Mapping[Group, Any]) -> Any:
    """The step's exposed model-parallel seconds: each group's, summed in MODEL_GROUPS' order wherever a step or its
    report adds them, so that one layout's sum is the same float everywhere."""
    return sum(exposed_s[group] for group in MODEL_GROUPS)
