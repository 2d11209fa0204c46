"""Which communication hides under compute, as the frameworks name their overlaps (models.training.Levers).

- ``grad_reduce`` (Megatron-LM --overlap-grad-reduce, DeepSpeed overlap_comm; PyTorch DDP and FSDP always):
  the gradient reductions run bucket by bucket under the backward pass; off, they are exposed.
- ``param_gather`` (Megatron-LM --overlap-param-gather, megatron/core/distributed/param_and_grad_buffer.py):
  the distributed optimizer's all-gather of updated parameters runs under the next step's forward pass,
  bucket by bucket; off (the default), after the optimizer step, exposed.
- ``fsdp_prefetch`` (FSDP2's implicit prefetch, FSDP1 backward_prefetch=BACKWARD_PRE, DeepSpeed ZeRO-3's
  stage3_prefetch_bucket_size): the next unit's parameters gathered under the current unit's compute; off,
  every gather exposed.
- ``tp_comm`` (Megatron-LM --tp-comm-overlap, Transformer Engine userbuffers): each call of the group hidden only
  behind its share of the stage's compute: exposed calls x max(0, call - compute / calls), like ring attention's
  steps (service.time.mesh_traffic). A dense layer's tensor-parallel calls hide behind the one GEMM each is paired
  with (paired_exposed_seconds), as Transformer Engine's userbuffers and PyTorch's AsyncTP pair them.
- ``expert_comm`` (Megatron-LM --overlap-moe-expert-parallel-comm, the combined 1F1B of DeepSeek-V3's DualPipe):
  one micro-batch's forward runs beside another's backward, layer by layer, and each all-to-all phase of one hides
  only behind the compute piece of the other that the schedule pairs it with (combined_exposed_seconds); the
  warmup and cooldown passes, with no partner, hide nothing (combined_passes). Without the model's kernel shapes
  (or with a given utilisation) the pieces are unknown and each call hides behind its share of the stage's compute.

Hiding never adds a bucket: the data group's calls are the same whichever overlap is on (service.time.buckets),
so an overlap only moves seconds from exposed to hidden, where they cost the compute ``overlap_slowdown`` of
themselves (service.time.efficiency): with that fraction below one, an overlap never lengthens a step.
"""

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from models.enums import CollectiveName
from models.parallelism import PipelineSchedule
from service.numeric import maximum, minimum, select
from service.time.traffic import StepCollective, Window


@dataclass(frozen=True)
class Overlaps:
    grad_reduce: bool = True
    param_gather: bool = False
    fsdp_prefetch: bool = True
    tp_comm: bool = False
    expert_comm: bool = False


DEFAULT_OVERLAPS = Overlaps()


def overlapped_calls(calls: list[StepCollective], overlaps: Overlaps) -> list[StepCollective]:
    """The data group's collectives with the windows the overlaps give them (the same list when the defaults)."""
    if overlaps is DEFAULT_OVERLAPS or overlaps == DEFAULT_OVERLAPS:  # most plans keep the defaults' instance
        return calls
    changed = []
    for c in calls:
        window = c.window
        if c.name is not CollectiveName.all_gather:  # a gradient reduction
            window = Window.backward if overlaps.grad_reduce else Window.none
        elif c.per_micro_batch:  # ZeRO-3 / FSDP parameter gathers
            window = c.window if overlaps.fsdp_prefetch else Window.none
        else:  # ZeRO-1/2: the updated parameters, once per step
            window = Window.forward if overlaps.param_gather else Window.none
        changed.append(c if window is c.window else replace(c, window=window))
    return changed


def share_exposed_seconds(calls: Any, call_s: Any, compute_s: Any, group_calls: Any) -> Any:
    """Exposed seconds of ``calls`` calls of ``call_s`` each when every call of the group (``group_calls`` of them
    a step) hides only behind its share of the stage's ``compute_s``: calls x max(0, call_s - compute / calls)."""
    share_s = compute_s / maximum(group_calls, 1)
    gap = call_s - share_s
    return calls * maximum(gap, 0.0 * gap)


# The four projections of a dense layer, in service.time.efficiency.layer_matrices' order.
QKV, PROJ, FC1, FC2 = range(4)


def paired_gemm_weights(name: CollectiveName, full_recompute: bool) -> tuple[int, int, int, int]:
    """How many of one layer's calls of this kind (per micro-batch) each projection's GEMM hides, (qkv, proj, fc1,
    fc2), as Transformer Engine pairs them (transformer_engine/pytorch/module/base.py, initialize_ub:
    layers_all_gather_overlap qkv_fprop, fc1_fprop, proj_dgrad, fc2_dgrad, qkv_dgrad, fc1_dgrad;
    layers_reduce_scatter_overlap proj_fprop, fc2_fprop, qkv_wgrad, fc1_wgrad) and PyTorch's micro-pipelined
    AsyncTP fuses them (all_gather -> matmul, matmul -> reduce_scatter). An all-gather: before qkv and fc1 in the
    forward (again in a recomputed forward); in the backward the gradient of proj's and fc2's output before their
    input-gradient GEMMs, and qkv's and fc1's input gathered again beside their input-gradient GEMMs. A
    reduce-scatter (or, without sequence parallelism, an all-reduce): after proj and fc2 in the forward (again in a
    recomputed forward), and qkv's and fc1's input gradients beside their weight-gradient GEMMs."""
    again = 1 if full_recompute else 0
    if name is CollectiveName.all_gather:
        return (2 + again, 1, 2 + again, 1)
    return (1, 1 + again, 1, 1 + again)


def paired_exposed_seconds(calls: Any, call_s: Any, gemm_s: list[Any], weights: tuple[int, ...]) -> Any:
    """Exposed seconds of ``calls`` calls of ``call_s`` each, each hidden only behind the GEMM it is paired with:
    calls x the weighted mean over the projections of max(0, call_s - gemm_s) (weights: paired_gemm_weights). A
    GEMM's input- and weight-gradient products have its forward's FLOPs; ``gemm_s`` are the forward products."""
    total = sum(weights)
    gap_s: Any = 0.0
    for weight, g in zip(weights, gemm_s, strict=True):
        gap = call_s - g
        gap_s = gap_s + weight * maximum(gap, 0.0 * gap)
    return calls * gap_s / total


# The combined 1F1B's phases, in the order a layer pair runs them (Megatron-Core @d98e8a64,
# megatron/core/models/common/model_chunk_schedule_plan.py, TransformerLayerSchedulePlan.run: "comm_stream:
# combine_bwd | dispatch_fwd->dispatch_bwd | combine_fwd; comp_stream: pre_dispatch_fwd | mlp_bwd->mlp_bwd_dw->
# mlp_fwd | pre_dispatch_bwd"). Each phase's call waits for the compute piece before it on the other stream (the
# forward's dispatch for its attention piece, the backward's dispatch for its experts' gradients, each combine for
# the experts or attention gradient before it), so the four run as four pairs, each as long as the longer of its two:
# the backward's combine beside the forward's attention piece, the forward's dispatch beside the backward's experts,
# the backward's dispatch beside the forward's experts, the forward's combine beside the backward's attention piece.
# The attention piece is megatron/core/models/gpt/fine_grained_callables.py's pre_dispatch_computation (attention,
# the pre-MLP norm, the shared experts, the router and the dispatch preprocess), the experts piece its mlp node
# (routed_experts_compute), the weight gradients included (mlp_bwd_dw runs before dispatch_bwd on its stream).
COMBINED_PHASES = ("combine backward", "dispatch forward", "dispatch backward", "combine forward")


# The schedules whose steady state runs one micro-batch's forward beside another's backward, which the combined 1F1B
# pairs: Megatron-Core's 1F1B and interleaved 1F1B, and the zero-bubble family (their steady state alternates a
# forward and a backward too; DeepSeek-V3's DualPipe, a V of two chunks like ZB-V, pairs them the same way: the
# report's section 3.2.1). GPipe runs every forward before any backward: pipelined, it pairs none.
COMBINED_SCHEDULES = tuple(s for s in PipelineSchedule if s is not PipelineSchedule.gpipe)


# Streaming multiprocessors DeepEP's kernels hold while they run in Megatron-Core: its flex dispatcher sets DeepEP's
# Buffer.set_num_sms to moe_flex_dispatcher_num_sms, "None -> 20 (DeepEP's historical mcore default)"
# (megatron/core/transformer/moe/token_dispatcher.py @d98e8a64); DeepSeek-V3's report, section 3.2.2, "only 20
# SMs" for its dispatch and combine kernels.
DEEPEP_SMS = 20


def overlap_compute_share(multiprocessors: int, deepep: bool) -> float:
    """The share of the GPU's streaming multiprocessors a compute piece keeps while an expert phase runs beside it:
    (S - 20) / S under DeepEP's dispatch and combine kernels (DEEPEP_SMS), all of them otherwise (an all-to-all's
    copies, whose share of the SMs the fitted overlap slowdown stands for)."""
    return (multiprocessors - DEEPEP_SMS) / multiprocessors if deepep else 1.0


@dataclass(frozen=True)
class CombinedPairs:
    """What the combined 1F1B pairs on the paced stage, a step (numbers, or arrays for many layouts): its MoE layer
    passes (the busiest stage's MoE layers x m, the expert group's calls' basis), how many of them run beside
    another micro-batch's (combined_passes), and the compute pieces one layer pass's four phases hide behind, in
    COMBINED_PHASES' order: (attention forward, experts backward, experts forward, attention backward);
    ``compute_share``: of the GPU a piece keeps while a phase runs beside it (overlap_compute_share)."""

    layer_passes: Any
    paired: Any
    pieces_s: tuple[Any, ...]
    compute_share: float = 1.0

    @property
    def prices_the_sms(self) -> bool:
        """Whether the phases' hold on the SMs is priced here (DeepEP), in place of the fitted overlap slowdown."""
        return self.compute_share < 1.0


def combined_passes(p: Any, v: Any, m: Any, steady: Any) -> Any:
    """Of a stage's m x v chunk passes of a micro-batch (forward with its backward), how many run beside another's in
    the combined 1F1B, on the first pipeline rank (the most warmup: its timeline is the step's): all but the
    warmup's. Without pipelining, all but the first micro-batch's forward and the last's backward
    (megatron/core/pipeline_parallel/combined_1f1b.py, combined_1f1b_schedule_for_no_pipelining); pipelined,
    Megatron-Core runs it in the interleaved schedule alone (transformer_config.py asserts virtual stages when
    p > 1) with (p - 1) x 2 + (v - 1) x p warmup passes plus one "to ensure the forward and backward computations are
    independent" (schedules.py, get_pp_rank_microbatches, microbatch_group_size_per_vp_stage = p): m v - 2 (p - 1) -
    (v - 1) p - 1, at least 0, v the stage's model chunks. A schedule without a 1F1B steady state (``steady`` False:
    not in COMBINED_SCHEDULES) pairs none when pipelined. Numbers, or arrays."""
    warmup = select(p > 1, 2 * (p - 1) + (v - 1) * p + 1, 1)
    passes = maximum(m * v - warmup, 0 * m)
    return select(steady | (p == 1) if isinstance(p, np.ndarray) else steady or p == 1, passes, 0 * passes)


def combined_exposed_seconds(group_s: Any, phases: Any, pairs: CombinedPairs) -> Any:
    """Exposed seconds of the expert group's ``group_s`` a step under the combined 1F1B: its calls spread evenly over
    its ``phases`` (a dispatch or a combine, forward or backward, of one MoE layer pass: four a layer pass, six with a
    recomputed forward, whose two are never paired), each phase of a paired layer pass hidden behind its piece
    alone. A piece beside a phase runs on ``compute_share`` k of the SMs while the phase lasts, so the pair takes
    max(phase_s, piece_s + (1 - k) phase_s) and hides min(k phase_s, piece_s) of the phase:
    group_s - paired x sum over the four phases of min(k phase_s, piece_s), phase_s = group_s / phases."""
    phase_s = group_s / maximum(phases, 1)
    hidden_s: Any = 0.0
    for piece_s in pairs.pieces_s:
        hidden_s = hidden_s + minimum(phase_s * pairs.compute_share, piece_s)
    return group_s - pairs.paired * hidden_s
