"""The collectives of one optimizer step, per arrangement (DESIGN.md, 'Collectives at ring cost').

- DDP all-reduces the gradients: 2P.
- ZeRO-1 and ZeRO-2 reduce-scatter the gradients and all-gather the updated parameters: P + P.
- ZeRO-3 all-gathers the parameters for the forward pass, frees them, all-gathers them again for
  the backward pass and reduce-scatters the gradients: 3P (Rajbhandari et al. 2020, section 7.2.2).

P counts model-sized buffers in the dtype on the wire. With k micro-batches of gradient
accumulation, ZeRO-2 and ZeRO-3 reduce the gradients every micro-batch (a GPU that keeps only
its gradient shard cannot hold the accumulated full gradient) and ZeRO-3 gathers the parameters
every micro-batch; DDP and ZeRO-1 accumulate locally and communicate once per step.
"""

from dataclasses import dataclass

from models.enums import CollectiveName, Dtype
from models.presets import PrecisionSpec
from service.arrangements import Sharding
from service.collectives import RING_PHASES, ring_bytes_sent, ring_hops
from service.dtypes import tensor_bytes
from service.numeric import IntLike


@dataclass(frozen=True)
class StepCollective:
    name: CollectiveName
    purpose: str
    dtype: Dtype
    count_per_step: int


def step_collectives(precision: PrecisionSpec, sharding: Sharding, micro_batches: int = 1) -> list[StepCollective]:
    """The collectives one optimizer step runs, with how many times each runs."""
    grads, params = precision.gradient_dtype, precision.parameter_dtype
    if not sharding.shard_optimizer:
        return [StepCollective(CollectiveName.all_reduce, "gradients, once per step", grads, 1)]
    if not sharding.shard_parameters:
        grad_calls = micro_batches if sharding.shard_gradients else 1
        when = "every micro-batch" if sharding.shard_gradients else "once per step"
        return [
            StepCollective(CollectiveName.reduce_scatter, f"gradients, {when}", grads, grad_calls),
            StepCollective(CollectiveName.all_gather, "updated parameters, once per step", params, 1),
        ]
    return [
        StepCollective(
            CollectiveName.all_gather, "parameters for the forward pass, every micro-batch", params, micro_batches
        ),
        StepCollective(
            CollectiveName.all_gather,
            "parameters again for the backward pass, every micro-batch",
            params,
            micro_batches,
        ),
        StepCollective(CollectiveName.reduce_scatter, "gradients, every micro-batch", grads, micro_batches),
    ]


def collective_buffer_bytes(parameter_count: IntLike, collective: StepCollective) -> IntLike:
    return tensor_bytes(parameter_count, collective.dtype)


def collective_bytes_sent(parameter_count: IntLike, world_size: IntLike, collective: StepCollective) -> IntLike:
    """Bytes each GPU sends for one call of this collective."""
    return ring_bytes_sent(collective.name, parameter_count, world_size, collective.dtype)


def collective_hops(world_size: IntLike, collective: StepCollective) -> IntLike:
    return ring_hops(collective.name, world_size)


def step_bytes_sent(
    parameter_count: IntLike, world_size: IntLike, precision: PrecisionSpec, sharding: Sharding, micro_batches: int = 1
) -> IntLike:
    """Exact ring-cost bytes each GPU sends per optimizer step."""
    total: IntLike = 0
    for collective in step_collectives(precision, sharding, micro_batches):
        total = total + collective.count_per_step * collective_bytes_sent(parameter_count, world_size, collective)
    return total


def volume_in_p(precision: PrecisionSpec, sharding: Sharding, micro_batches: int = 1) -> float:
    """Model-sized buffers moved per step before the (N-1)/N factor (2 for DP, 3 for ZeRO-3)."""
    return float(
        sum(RING_PHASES[c.name] * c.count_per_step for c in step_collectives(precision, sharding, micro_batches))
    )
