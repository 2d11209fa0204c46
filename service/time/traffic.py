"""The collectives of one optimizer step, per arrangement (DESIGN.md, 'Collectives at ring cost').

- DDP all-reduces the gradients: 2P.
- ZeRO-1 and ZeRO-2 reduce-scatter the gradients and all-gather the updated parameters: P + P.
- ZeRO-3 all-gathers the parameters for the forward pass, frees them, all-gathers them again for
  the backward pass and reduce-scatters the gradients: 3P (Rajbhandari et al. 2020, section 7.2.2).
- FSDP SHARD_GRAD_OP all-gathers the parameters before every micro-batch's forward pass, keeps
  them through the backward, and reduce-scatters the gradients: 2P per micro-batch, about 2kP a
  step with k micro-batches (DeepSpeed's ZeRO-2 moves (k+1)P: one gather per step).
- ZeRO++ (Wang et al. 2023, section 3; DeepSpeed stage3.py and partition_parameters.py) on ZeRO-3:
  qwZ gathers the parameters in int8 with group scales (0.5M instead of M); hpZ gathers them for
  the backward from a secondary partition inside the node (no cross-node traffic); qgZ reduces
  the gradients with an int4 all-to-all inside the node and then across nodes (0.25M across
  nodes). Cross-node volume: ZeRO-3's 3M becomes 0.75M.
- Hybrid sharding (PyTorch FSDP HYBRID_SHARD, Zhao et al. 2023, section 3.2.2): ZeRO-3 inside
  each node of G GPUs, and an all-reduce of each gradient shard (ceil(P / G)) across the N / G
  nodes.

P counts model-sized buffers in the dtype on the wire: the gathers send ``parameter_gather_dtype``
(else the compute copy's dtype, else the stored one), the reductions ``gradient_reduce_dtype``.
With k micro-batches of gradient accumulation, ZeRO-2 and ZeRO-3 reduce the gradients every
micro-batch (a GPU that keeps only its gradient shard cannot hold the accumulated full gradient)
and ZeRO-3 gathers the parameters every micro-batch; DDP and ZeRO-1 accumulate locally and
communicate once per step.
"""

from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property, lru_cache

from models.enums import CollectiveName, Dtype
from models.presets import PrecisionSpec
from service.inputs.arrangements import Sharding
from service.kept_hash import keeps_hash
from service.memory.dtypes import tensor_bytes
from service.memory.model_states import shard_elements
from service.numeric import CountLike, IntLike, maximum, minimum
from service.time.collectives import RING_PHASES, ring_bytes_sent, ring_hops


class RankGroup(StrEnum):
    """Who takes part: every GPU, the GPUs of one node, or one GPU per node (its replicas)."""

    all = "all"
    node = "node"
    replicas = "replicas"


class Window(StrEnum):
    """The compute a collective can hide under."""

    forward = "forward"
    backward = "backward"
    none = "none"


@keeps_hash
@dataclass(frozen=True)
class StepCollective:
    name: CollectiveName
    purpose: str
    dtype: Dtype
    count_per_step: CountLike  # k or 1
    group: RankGroup = RankGroup.all
    node_shard_buffer: bool = False  # the buffer is one node-shard, ceil(P / G), not the model
    window: Window = Window.none
    per_micro_batch: bool = False  # runs every micro-batch (count_per_step is k), not once per step
    per_run: bool = False  # once per run of the pipeline schedule (count_per_step the runs: pipelined_collectives)

    @cached_property  # the step's collectives are memoised (step_collectives): their keys are built once
    def cost_key(self) -> tuple[CollectiveName, Dtype, RankGroup, bool]:
        """What one call's bytes and seconds depend on: collectives equal here (ZeRO-3's forward and backward
        gathers) cost the same per call, whatever their purpose, window or count."""
        return (self.name, self.dtype, self.group, self.node_shard_buffer)


def gather_dtype(precision: PrecisionSpec) -> Dtype:
    """What a parameter all-gather of ZeRO-3/FSDP sends."""
    return precision.parameter_gather_dtype or precision.compute_parameter_dtype or precision.parameter_dtype


def reduce_dtype(precision: PrecisionSpec) -> Dtype:
    """What a gradient reduction sends."""
    return precision.gradient_reduce_dtype or precision.gradient_dtype


def step_collectives(
    precision: PrecisionSpec,
    sharding: Sharding,
    micro_batches: CountLike = 1,
    *,
    pipelined: bool = False,
    runs: int = 1,
) -> list[StepCollective]:
    """The collectives one optimizer step runs, with how many times each runs (k may be an array). ``pipelined``:
    a pipeline stage's sharded parameters as torchtitan runs FSDP with pipelining (pipelined_collectives), over
    ``runs`` runs of the schedule a step."""
    if isinstance(micro_batches, int):  # one plan: a pure function of hashable values, asked several times
        return list(_step_collectives(precision, sharding, micro_batches, pipelined, runs))
    return _collectives(precision, sharding, micro_batches, pipelined, runs)


@lru_cache(maxsize=1024)
def _step_collectives(
    precision: PrecisionSpec, sharding: Sharding, micro_batches: int, pipelined: bool = False, runs: int = 1
) -> tuple[StepCollective, ...]:
    return tuple(_collectives(precision, sharding, micro_batches, pipelined, runs))


def pipelined_collectives(precision: PrecisionSpec, runs: int = 1) -> list[StepCollective]:
    """FSDP (ZeRO-3, SHARD_GRAD_OP) on a pipeline stage as torchtitan runs it: ``reshard_after_forward = not
    pp_enabled`` (torchtitan/distributed/fsdp.py @b5bcd76c, get_fsdp_reshard_after_forward_policy), and
    torch.distributed.pipelining runs every micro-batch's backward with ``set_reshard_after_backward(False)`` and
    ``set_requires_gradient_sync(False)`` and reduces once after the schedule (torch 2.13
    torch/distributed/pipelining/stage.py, backward_maybe_with_nosync and perform_reduce_grad, called by
    schedules.py after the last micro-batch). So the stage's parameters are gathered once, before the first
    micro-batch's forward, and its gradients reduce-scattered once, after the last backward, not hidden. A step of
    ``runs`` runs of the schedule (parallelism.pipeline_runs: torchtitan's and NeMo Automodel's gradient
    accumulation, ``schedule.step`` once per local batch) does both once per run."""
    ag, rs = CollectiveName.all_gather, CollectiveName.reduce_scatter
    once = "once per step" if runs == 1 else f"once per run of the schedule ({runs} a step)"
    return [
        StepCollective(
            ag,
            f"the stage's parameters, {once}, kept gathered through every micro-batch (pipelining)",
            gather_dtype(precision),
            runs,
            window=Window.forward,
            per_run=True,
        ),
        StepCollective(
            rs, f"the stage's gradients, {once} after the last micro-batch", reduce_dtype(precision), runs, per_run=True
        ),
    ]


def _collectives(
    precision: PrecisionSpec, sharding: Sharding, micro_batches: CountLike, pipelined: bool = False, runs: int = 1
) -> list[StepCollective]:
    grads, params, k = reduce_dtype(precision), precision.parameter_dtype, micro_batches
    rs, ag, ar = CollectiveName.reduce_scatter, CollectiveName.all_gather, CollectiveName.all_reduce
    if pipelined and sharding.shard_parameters and not sharding.hybrid and not sharding.zeropp.any:
        return pipelined_collectives(precision, runs)
    if not sharding.shard_optimizer:
        return [StepCollective(ar, "gradients, once per step", grads, 1, window=Window.backward)]
    if not sharding.shard_parameters:
        grad_calls = k if sharding.shard_gradients else 1
        when = "every micro-batch" if sharding.shard_gradients else "once per step"
        return [
            StepCollective(
                rs,
                f"gradients, {when}",
                grads,
                grad_calls,
                window=Window.backward,
                per_micro_batch=sharding.shard_gradients,
            ),
            StepCollective(ag, "updated parameters, once per step", params, 1),
        ]
    gathered = gather_dtype(precision)
    if sharding.gathers_whole_model:
        return [
            StepCollective(
                ag,
                "parameters before the forward pass, kept until after the backward, every micro-batch",
                gathered,
                k,
                window=Window.forward,
                per_micro_batch=True,
            ),
            StepCollective(rs, "gradients, every micro-batch", grads, k, window=Window.backward, per_micro_batch=True),
        ]
    if sharding.zeropp.any:
        return zeropp_collectives(precision, sharding, k)
    group = RankGroup.node if sharding.hybrid else RankGroup.all
    calls = [
        StepCollective(
            ag, "parameters for the forward pass, every micro-batch", gathered, k, group, False, Window.forward, True
        ),
        StepCollective(
            ag,
            "parameters again for the backward pass, every micro-batch",
            gathered,
            k,
            group,
            False,
            Window.backward,
            True,
        ),
        StepCollective(rs, "gradients, every micro-batch", grads, k, group, False, Window.backward, True),
    ]
    if sharding.hybrid:
        calls.append(
            StepCollective(
                ar,
                "gradient shards across nodes, every micro-batch",
                grads,
                k,
                RankGroup.replicas,
                True,
                Window.backward,
                True,
            )
        )
    return calls


def zeropp_collectives(precision: PrecisionSpec, sharding: Sharding, k: CountLike) -> list[StepCollective]:
    """ZeRO-3's three collectives with the ZeRO++ levers that are on."""
    zpp, ag, rs = sharding.zeropp, CollectiveName.all_gather, CollectiveName.reduce_scatter
    gathered = Dtype.int8_blockwise if zpp.quantized_weights else gather_dtype(precision)
    qwz = " in int8 with group scales (qwZ)" if zpp.quantized_weights else ""
    calls = [
        StepCollective(
            ag,
            f"parameters for the forward pass{qwz}, every micro-batch",
            gathered,
            k,
            window=Window.forward,
            per_micro_batch=True,
        )
    ]
    if zpp.hierarchical_partition:
        calls.append(
            StepCollective(
                ag,
                "parameters again for the backward pass, from the node's secondary partition (hpZ), every micro-batch",
                precision.parameter_dtype,
                k,
                RankGroup.node,
                window=Window.backward,
                per_micro_batch=True,
            )
        )
    else:
        calls.append(
            StepCollective(
                ag,
                f"parameters again for the backward pass{qwz}, every micro-batch",
                gathered,
                k,
                window=Window.backward,
                per_micro_batch=True,
            )
        )
    if not zpp.quantized_gradients:
        calls.append(
            StepCollective(
                rs,
                "gradients, every micro-batch",
                reduce_dtype(precision),
                k,
                window=Window.backward,
                per_micro_batch=True,
            )
        )
        return calls
    four = Dtype.int4_blockwise
    calls.append(
        StepCollective(
            rs,
            "gradients, int4 all-to-all inside the node (qgZ), every micro-batch",
            four,
            k,
            RankGroup.node,
            window=Window.backward,
            per_micro_batch=True,
        )
    )
    calls.append(
        StepCollective(
            rs,
            "the node's gradient shard, int4 all-to-all across nodes (qgZ), every micro-batch",
            four,
            k,
            RankGroup.replicas,
            True,
            Window.backward,
            True,
        )
    )
    return calls


def node_count(world_size: IntLike, gpus_per_node: IntLike) -> IntLike:
    """Nodes a job spans; a job inside one node counts as one."""
    return maximum(world_size // gpus_per_node, 1)


def collective_ranks(collective: StepCollective, world_size: IntLike, gpus_per_node: IntLike) -> IntLike:
    if collective.group is RankGroup.node:
        return minimum(world_size, gpus_per_node)  # a job inside one node uses N of its GPUs
    if collective.group is RankGroup.replicas:
        return node_count(world_size, gpus_per_node)  # one node: a ring of one, no traffic
    return world_size


def collective_buffer_elements(collective: StepCollective, parameter_count: IntLike, gpus_per_node: IntLike) -> IntLike:
    return shard_elements(parameter_count, gpus_per_node) if collective.node_shard_buffer else parameter_count


def collective_buffer_bytes(
    parameter_count: IntLike, collective: StepCollective, gpus_per_node: IntLike = 1
) -> IntLike:
    return tensor_bytes(collective_buffer_elements(collective, parameter_count, gpus_per_node), collective.dtype)


def collective_bytes_sent(
    parameter_count: IntLike, world_size: IntLike, collective: StepCollective, gpus_per_node: IntLike = 1
) -> IntLike:
    """Bytes each GPU sends for one call of this collective, at ring cost."""
    elements = collective_buffer_elements(collective, parameter_count, gpus_per_node)
    return ring_bytes_sent(
        collective.name, elements, collective_ranks(collective, world_size, gpus_per_node), collective.dtype
    )


def collective_hops(world_size: IntLike, collective: StepCollective, gpus_per_node: IntLike = 1) -> IntLike:
    return ring_hops(collective.name, collective_ranks(collective, world_size, gpus_per_node))


def calls_bytes_sent(
    parameter_count: IntLike, world_size: IntLike, calls: list[StepCollective], gpus_per_node: IntLike = 1
) -> list[IntLike]:
    """Bytes each GPU sends for one call of each collective, in the order of ``calls``; collectives of one cost_key
    (ZeRO-3's forward and backward gathers) send the same, counted once."""
    sent: dict[tuple[object, ...], IntLike] = {}
    for c in calls:
        if c.cost_key not in sent:
            sent[c.cost_key] = collective_bytes_sent(parameter_count, world_size, c, gpus_per_node)
    return [sent[c.cost_key] for c in calls]


def per_step(calls: list[StepCollective], per_call: list[IntLike]) -> IntLike:
    """A per-call figure of each collective summed over the step: each one x its calls per step."""
    total: IntLike = 0
    for c, value in zip(calls, per_call, strict=True):
        total = total + c.count_per_step * value
    return total


def step_bytes_sent(
    parameter_count: IntLike,
    world_size: IntLike,
    precision: PrecisionSpec,
    sharding: Sharding,
    micro_batches: CountLike = 1,
    gpus_per_node: IntLike = 1,
) -> IntLike:
    """Exact ring-cost bytes each GPU sends per optimizer step."""
    calls = step_collectives(precision, sharding, micro_batches)
    return per_step(calls, calls_bytes_sent(parameter_count, world_size, calls, gpus_per_node))


def bytes_sent_by_collective(
    parameter_count: IntLike,
    world_size: IntLike,
    precision: PrecisionSpec,
    sharding: Sharding,
    micro_batches: CountLike = 1,
    gpus_per_node: IntLike = 1,
    *,
    pipelined: bool = False,
) -> dict[CollectiveName, IntLike]:
    """Bytes each GPU sends per step in each kind of collective, summed over its calls."""
    split: dict[CollectiveName, IntLike] = {}
    for c in step_collectives(precision, sharding, micro_batches, pipelined=pipelined):
        sent = c.count_per_step * collective_bytes_sent(parameter_count, world_size, c, gpus_per_node)
        split[c.name] = split.get(c.name, 0) + sent
    return split


def volume_in_p(
    precision: PrecisionSpec, sharding: Sharding, micro_batches: CountLike = 1, *, pipelined: bool = False
) -> float:
    """Model-sized buffers moved per step before the (N-1)/N factor (2 for DP, 3 for ZeRO-3)."""
    if isinstance(micro_batches, int):  # one plan: a pure function of hashable values
        return _volume_in_p(precision, sharding, micro_batches, pipelined)
    return _volume(precision, sharding, micro_batches, pipelined)


@lru_cache(maxsize=1024)
def _volume_in_p(precision: PrecisionSpec, sharding: Sharding, micro_batches: int, pipelined: bool = False) -> float:
    return _volume(precision, sharding, micro_batches, pipelined)


def _volume(precision: PrecisionSpec, sharding: Sharding, micro_batches: CountLike, pipelined: bool = False) -> float:
    return float(
        sum(
            RING_PHASES[c.name] * c.count_per_step
            for c in step_collectives(precision, sharding, micro_batches, pipelined=pipelined)
            if not c.node_shard_buffer
        )
    )
