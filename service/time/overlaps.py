"""Which communication hides under compute, as the frameworks name their overlaps (models.training.Levers).

- ``grad_reduce`` (Megatron-LM --overlap-grad-reduce, DeepSpeed overlap_comm; PyTorch DDP and FSDP always):
  the gradient reductions run bucket by bucket under the backward pass; off, they are exposed.
- ``param_gather`` (Megatron-LM --overlap-param-gather, megatron/core/distributed/param_and_grad_buffer.py):
  the distributed optimizer's all-gather of updated parameters runs under the next step's forward pass,
  bucket by bucket; off (the default), after the optimizer step, exposed.
- ``fsdp_prefetch`` (FSDP2's implicit prefetch, FSDP1 backward_prefetch=BACKWARD_PRE, DeepSpeed ZeRO-3's
  stage3_prefetch_bucket_size): the next unit's parameters gathered under the current unit's compute; off,
  every gather exposed.
- ``tp_comm`` (Megatron-LM --tp-comm-overlap, Transformer Engine userbuffers) and ``expert_comm``
  (Megatron-LM --overlap-moe-expert-parallel-comm, DeepEP, DualPipe): each call of the group hidden only behind
  its share of the stage's compute (the GEMM it is paired with, or the other micro-batch's work): exposed
  calls x max(0, call - compute / calls), like ring attention's steps (service.time.mesh_traffic).

Hiding never adds a bucket: the data group's calls are the same whichever overlap is on (service.time.buckets),
so an overlap only moves seconds from exposed to hidden, where they cost the compute ``overlap_slowdown`` of
themselves (service.time.efficiency): with that fraction below one, an overlap never lengthens a step.
"""

from dataclasses import dataclass, replace
from typing import Any

from models.enums import CollectiveName
from service.numeric import maximum
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
    if overlaps == DEFAULT_OVERLAPS:
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
