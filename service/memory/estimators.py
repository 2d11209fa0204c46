"""DeepSpeed's own model-state estimators, as its current code computes them.

- ``estimate_zero2_model_states_mem_needs`` (deepspeed/runtime/zero/stage_1_and_2.py):
  offload_optimizer=cpu: GPU 2P; CPU P x max(4 x total GPUs, 16) x buffer factor.
  none: GPU 2P + int(18P / total GPUs); CPU P x 4 x GPUs per node x buffer factor.
- ``estimate_zero3_model_states_mem_needs`` (deepspeed/runtime/zero/stage3.py), with
  largest_layer_memory = 4 x largest layer parameters and gpus_factor = 1 / nodes:
  offload_param and offload_optimizer=cpu: GPU largest_layer_memory; CPU P x 18 x gpus_factor x
  factor with zero.Init, P x max(4 x GPUs per node, 18 x gpus_factor) x factor without.
  offload_optimizer=cpu only: GPU largest_layer_memory + int(2P / total GPUs); CPU as above with 16.
  none: GPU largest_layer_memory + int(18P / total GPUs); CPU largest layer x 4 x GPUs per node x
  factor with zero.Init, P x 4 x GPUs per node x factor without.

The CPU figure is per node and includes what loading the model costs (the 4 x GPUs per node
term: each process materialises an fp32 model unless zero.Init partitions it as it is built).

The documentation's memory page (docs/code-docs/source/memory.rst) is stale for ZeRO-2 without
offload: it prints 4P + 16P / N (15.93 GB for 2851M parameters on 8 GPUs) where the code
computes 2P + 18P / N (11.28 GB); and for ZeRO-2 with offload it writes max(4 x GPUs per node, 16)
where the code multiplies 4 by the total GPU count. This module follows the code; the ZeRO-3
tables of that page match the code.

The arithmetic is kept as DeepSpeed writes it (Python floats, then int()), so a figure here
equals the estimator's to the byte.
"""

from dataclasses import dataclass

DEFAULT_BUFFER_FACTOR = 1.5
ZERO2_FUNCTION = "deepspeed.runtime.zero.stage_1_and_2.estimate_zero2_model_states_mem_needs"
ZERO3_FUNCTION = "deepspeed.runtime.zero.stage3.estimate_zero3_model_states_mem_needs"


@dataclass(frozen=True)
class Estimate:
    function: str
    gpu_bytes: int
    cpu_bytes: int  # per node
    largest_layer_bytes: int
    arithmetic: str


def zero2_estimate(
    total_params: int, gpus_per_node: int, nodes: int, cpu_offload: bool, buffer_factor: float
) -> Estimate:
    total_gpus = nodes * gpus_per_node
    if cpu_offload:
        gpu_mem = 2 * total_params
        cpu_mem = total_params * max(4 * total_gpus, 16) * buffer_factor
        words = f"GPU 2 x {total_params:,}; CPU {total_params:,} x max(4 x {total_gpus} GPUs, 16) x {buffer_factor:g}"
    else:
        gpu_mem = 2 * total_params + int(18 * total_params / total_gpus)
        cpu_mem = total_params * 4 * gpus_per_node * buffer_factor
        words = (
            f"GPU 2 x {total_params:,} + int(18 x {total_params:,} / {total_gpus} GPUs); "
            f"CPU {total_params:,} x 4 x {gpus_per_node} GPUs per node x {buffer_factor:g}"
        )
    return Estimate(ZERO2_FUNCTION, int(gpu_mem), int(cpu_mem), 0, words)


def zero3_estimate(
    total_params: int,
    largest_layer_params: int,
    gpus_per_node: int,
    nodes: int,
    cpu_offload: bool,
    cpu_offload_params: bool,
    zero_init: bool,
    buffer_factor: float,
) -> Estimate:
    total_gpus = nodes * gpus_per_node
    gpus_factor = 1 / nodes
    largest_layer_memory = 4 * largest_layer_params
    layer = f"4 x {largest_layer_params:,} largest layer"
    if cpu_offload:
        per_weight = 18 if cpu_offload_params else 16
        if cpu_offload_params:
            gpu_mem = largest_layer_memory
            gpu_words = layer
        else:
            gpu_mem = largest_layer_memory + int(2 * total_params / total_gpus)
            gpu_words = f"{layer} + int(2 x {total_params:,} / {total_gpus} GPUs)"
        if zero_init:
            cpu_mem = total_params * per_weight * gpus_factor * buffer_factor
            cpu_words = f"{total_params:,} x {per_weight} / {nodes} nodes x {buffer_factor:g}"
        else:
            cpu_mem = total_params * max(4 * gpus_per_node, per_weight * gpus_factor) * buffer_factor
            cpu_words = f"{total_params:,} x max(4 x {gpus_per_node}, {per_weight} / {nodes} nodes) x {buffer_factor:g}"
    else:
        gpu_mem = largest_layer_memory + int(18 * total_params / total_gpus)
        gpu_words = f"{layer} + int(18 x {total_params:,} / {total_gpus} GPUs)"
        if zero_init:
            cpu_mem = largest_layer_params * 4 * gpus_per_node * buffer_factor
            cpu_words = f"{largest_layer_params:,} x 4 x {gpus_per_node} GPUs per node x {buffer_factor:g}"
        else:
            cpu_mem = total_params * 4 * gpus_per_node * buffer_factor
            cpu_words = f"{total_params:,} x 4 x {gpus_per_node} GPUs per node x {buffer_factor:g}"
    words = f"GPU {gpu_words}; CPU {cpu_words}"
    return Estimate(ZERO3_FUNCTION, int(gpu_mem), int(cpu_mem), largest_layer_memory, words)


def _device(on: bool) -> str:
    return "cpu " if on else "none"  # DeepSpeed pads OffloadDeviceEnum.cpu to four characters


def deepspeed_estimate(
    stage: str,
    total_params: int,
    largest_layer_params: int,
    world_size: int,
    gpus_per_node: int,
    offload_optimizer: bool,
    offload_parameters: bool,
    zero_init: bool,
    buffer_factor: float,
) -> tuple[Estimate, str] | None:
    """The estimator of a ZeRO stage ("zero2" or "zero3") and its options as DeepSpeed prints them."""
    nodes = max(world_size // gpus_per_node, 1)
    per_node = min(world_size, gpus_per_node)
    if stage == "zero2":
        estimate = zero2_estimate(total_params, per_node, nodes, offload_optimizer, buffer_factor)
        return estimate, f"offload_optimizer={_device(offload_optimizer)}"
    if stage == "zero3":
        estimate = zero3_estimate(
            total_params,
            largest_layer_params,
            per_node,
            nodes,
            offload_optimizer,
            offload_parameters,
            zero_init,
            buffer_factor,
        )
        options = (
            f"offload_param={_device(offload_parameters)}, offload_optimizer={_device(offload_optimizer)}, "
            f"zero_init={int(zero_init)}"
        )
        return estimate, options
    return None
