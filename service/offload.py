"""Offload to host memory and its PCIe bill (Ren et al. 2021, ZeRO-Offload, section 4.1).

With the optimizer state offloaded, each GPU sends its gradient partition down to the host once
per step and receives the updated parameters of that partition back: for fp16/bf16 training,
2 bytes per weight of the partition down and 2 up. Offloading the parameters as well (ZeRO-3
only; Rajbhandari et al. 2021, ZeRO-Infinity) fetches each GPU's parameter shard over PCIe for
the forward and again for the backward gather of every micro-batch. The transfers are charged
in full, not overlapped, so the figure is a ceiling the real overlap lowers. With both offloads
the CPU optimizer writes the updated shard straight into the host copy: nothing goes up but the
fetches.
"""

from models.presets import PrecisionSpec
from service.arrangements import Sharding
from service.dtypes import tensor_bytes
from service.memory import Offload, held_elements
from service.numeric import IntLike, minimum


def pcie_bytes_per_gpu(
    parameter_count: IntLike,
    shard_degree: IntLike,
    precision: PrecisionSpec,
    sharding: Sharding,
    offload: Offload,
    micro_batches: int,
) -> IntLike:
    """Bytes each GPU moves over its host link per optimizer step, both directions."""
    total: IntLike = 0
    if offload.optimizer:
        partition = held_elements(parameter_count, shard_degree, sharding.shard_optimizer)
        total = total + tensor_bytes(partition, precision.gradient_dtype)  # gradients down
        if not offload.parameters:  # offloaded parameters are updated in host memory, not sent up
            total = total + tensor_bytes(partition, precision.parameter_dtype)
    if offload.parameters:
        shard = held_elements(parameter_count, shard_degree, True)
        total = total + 2 * micro_batches * tensor_bytes(shard, precision.parameter_dtype)
    return total


def host_bytes_per_node(host_bytes_per_gpu: IntLike, world_size: IntLike, gpus_per_node: IntLike) -> IntLike:
    """Host memory one node needs: the offloaded state of each of its GPUs."""
    return host_bytes_per_gpu * minimum(world_size, gpus_per_node)
