"""Offload to host memory and its PCIe bill (Ren et al. 2021, ZeRO-Offload, section 4.1).

With the optimizer state offloaded, each GPU sends its gradient partition down to the host and
receives the updated parameters of that partition back: for fp16/bf16 training, 2 bytes per
weight of the partition down and 2 up (the paper's 2M + 2M). Under gradient accumulation a GPU
that keeps only a gradient shard (ZeRO-2/3) copies its partition to the host at every micro-step
(DeepSpeed stage_1_and_2.py, ``async_accumulate_grad_in_cpu_via_gpu``; stage3.py,
``partition_grads`` into the pinned fp32 ``grad_partitions_flat_buffer``), so the bill downwards
grows with k; DDP and ZeRO-1 accumulate on the GPU and copy once per step. Offloading the parameters as well (ZeRO-3
only; Rajbhandari et al. 2021, ZeRO-Infinity) fetches each GPU's parameter shard over PCIe for
the forward and again for the backward gather of every micro-batch. The transfers are charged
in full, not overlapped, so the figure is a ceiling the real overlap lowers. With both offloads
the CPU optimizer writes the updated shard straight into the host copy: nothing goes up but the
fetches.

The CPU optimizer step (Ren et al. 2021, section 5.1, CPU-Adam) is an element-wise update that
does a few FLOPs per byte it touches: on any server CPU it sits on the bandwidth side of the
roofline (Williams, Waterman and Patterson 2009), so it is priced as the bytes it streams through
host memory over the node's host memory bandwidth: the fp32 gradient partition read once, the
master weights and each moment read and written, the updated 16-bit parameters written, for
every GPU of the node (they share its memory).
"""

from collections.abc import Iterable
from functools import reduce

from models.enums import ShardGroup, StateClass, StateLocation
from models.presets import PrecisionSpec
from service.inputs.arrangements import Sharding
from service.memory.dtypes import tensor_bytes
from service.memory.model_states import Offload, StateBytes, held_elements
from service.numeric import CountLike, FloatLike, IntLike, maximum, minimum
from service.time.traffic import reduce_dtype


def pcie_bytes_per_gpu(
    parameter_count: IntLike,
    shard_degree: IntLike,
    precision: PrecisionSpec,
    sharding: Sharding,
    offload: Offload,
    micro_batches: CountLike,
) -> IntLike:
    """Bytes each GPU moves over its host link per optimizer step, both directions."""
    total: IntLike = 0
    if offload.optimizer:
        partition = held_elements(parameter_count, shard_degree, sharding.shard_optimizer)
        copies = micro_batches if sharding.shard_gradients else 1
        total = total + copies * tensor_bytes(partition, reduce_dtype(precision))  # gradients down
        if not offload.parameters:  # offloaded parameters are updated in host memory, not sent up
            total = total + tensor_bytes(partition, precision.parameter_dtype)
    if offload.parameters:
        shard = held_elements(parameter_count, shard_degree, True)
        total = total + 2 * micro_batches * tensor_bytes(shard, precision.parameter_dtype)
    return total


def host_bytes_per_node(host_bytes_per_gpu: IntLike, world_size: IntLike, gpus_per_node: IntLike) -> IntLike:
    """Host memory one node needs: the offloaded state of each of its GPUs."""
    return host_bytes_per_gpu * minimum(world_size, gpus_per_node)


def stages_host_bytes_per_node(
    stage_host_bytes: Iterable[IntLike], world_size: IntLike, gpus_per_node: IntLike
) -> IntLike:
    """Host memory the busiest node needs on a pipeline: each GPU's offloaded state at the stage whose GPUs offload
    the most (``stage_host_bytes``: each stage's bytes per GPU, ints for one plan or arrays for many layouts).

    Megatron-Core orders ranks tensor, context, data, then pipeline outermost (parallel_state.RankGenerator), so
    where a stage is whole nodes each node holds one stage's GPUs and this is exact; where a node holds GPUs of
    several stages it is an upper bound. It is not the stage whose GPUs hold the most bytes: the first stage's
    embedding and the last's logits move that with the micro-batch and the sequence, while the offloaded states
    do not move."""
    most: IntLike = reduce(maximum, stage_host_bytes)
    return host_bytes_per_node(most, world_size, gpus_per_node)


# Passes the CPU optimizer makes over each host state class: read the gradients; read and write the rest.
CPU_OPTIMIZER_PASSES: dict[StateClass, int] = {
    StateClass.optimizer_gradients: 1,
    StateClass.master_weights: 2,
    StateClass.momentum: 2,
    StateClass.variance: 2,
}


def cpu_optimizer_bytes_per_gpu(
    rows: list[StateBytes],
    parameter_count: IntLike,
    shard_degree: IntLike,
    precision: PrecisionSpec,
    sharding: Sharding,
    offload: Offload,
) -> IntLike:
    """Host-memory bytes the CPU optimizer streams per step for one GPU's partition."""
    if not offload.optimizer:
        return 0 * parameter_count
    streamed: IntLike = 0
    for row in rows:
        if row.location is StateLocation.host and row.spec.group is ShardGroup.optimizer:
            streamed = streamed + CPU_OPTIMIZER_PASSES.get(row.spec.state, 2) * row.bytes
    partition = held_elements(parameter_count, shard_degree, sharding.shard_optimizer)
    return streamed + tensor_bytes(partition, precision.parameter_dtype)  # the updated 16-bit parameters


def offload_seconds(
    pcie_bytes_per_gpu: IntLike,
    cpu_optimizer_bytes_per_gpu: IntLike,
    world_size: IntLike,
    gpus_per_node: IntLike,
    host_link_bytes_per_s: float,
    host_memory_bytes_per_s: float,
) -> tuple[FloatLike, FloatLike]:
    """(PCIe transfer, CPU optimizer) seconds of one step with offload: each GPU's PCIe bytes at its host
    link's speed, and the CPU optimizer's bytes of every GPU of a node through the node's host memory
    bandwidth (both charged in full, as the module's docstring says)."""
    transfer_s = pcie_bytes_per_gpu / host_link_bytes_per_s
    cpu_s = host_bytes_per_node(cpu_optimizer_bytes_per_gpu, world_size, gpus_per_node) / host_memory_bytes_per_s
    return transfer_s, cpu_s
