"""How many NCCL calls a data-parallel collective takes: each framework's own bucketing, as data.

Which framework runs the data-parallel group follows the arrangement and the layout:
- ``ddp`` / ``no_shard`` without model parallelism: PyTorch DDP, buckets of ``bucket_cap_mb`` = 25 MiB
  (torch/nn/parallel/distributed.py, ``DistributedDataParallel(bucket_cap_mb=25)``);
- ``ddp`` or ``zero1`` in a layout with tensor, pipeline, context or expert parallelism: Megatron-Core's
  DistributedDataParallel (its distributed optimizer is ZeRO-1), buckets of max(40M, 1M x dp) parameters,
  dp the data-parallel x context group (megatron/core/distributed/distributed_data_parallel.py,
  ``DistributedDataParallel.__init__``; DistributedDataParallelConfig.bucket_size: "larger DP sizes need larger
  buckets to ensure collectives do not become latency-bound");
- ``zero1`` / ``zero2`` without model parallelism, and ``zero2`` in any layout: DeepSpeed, ``reduce_bucket_size``
  and ``allgather_bucket_size`` of 5e8 elements (deepspeed/runtime/zero/config.py, DeepSpeedZeroConfig);
- arrangements that shard parameters (``zero3``, FSDP's): one call per wrapped unit and collective (FSDP2
  ``fully_shard`` per transformer block; DeepSpeed ZeRO-3 fetches per module).

``levers.bucket_bytes`` overrides the bucket of every bucketed framework. Megatron-Core turns bucketing off when
``overlap_grad_reduce`` is off; the step is priced with its buckets either way, so that switching an overlap on
never lengthens a step by the latency of the buckets it brings.
"""

from enum import StrEnum
from typing import Any

from models.enums import Dtype
from service.inputs.arrangements import Sharding
from service.memory.dtypes import tensor_bytes
from service.numeric import IntLike, ceil_div, maximum, select

MIB_BYTES = 2**20
PYTORCH_DDP_BUCKET_BYTES = 25 * MIB_BYTES  # bucket_cap_mb=25
MEGATRON_MIN_BUCKET_PARAMETERS = 40_000_000  # max(40000000, 1000000 * dp_size)
MEGATRON_BUCKET_PARAMETERS_PER_RANK = 1_000_000
DEEPSPEED_BUCKET_ELEMENTS = 500_000_000  # reduce_bucket_size = allgather_bucket_size = 5e8


class DataParallelFramework(StrEnum):
    """The framework whose data-parallel convention a plan's data group follows."""

    pytorch_ddp = "pytorch_ddp"
    megatron = "megatron"
    deepspeed = "deepspeed"
    fsdp = "fsdp"


BUCKET_SOURCES: dict[DataParallelFramework, str] = {
    DataParallelFramework.pytorch_ddp: "PyTorch DDP bucket_cap_mb=25 (torch/nn/parallel/distributed.py)",
    DataParallelFramework.megatron: "Megatron-Core DDP buckets of max(40M, 1M x dp) parameters "
    "(megatron/core/distributed/distributed_data_parallel.py)",
    DataParallelFramework.deepspeed: "DeepSpeed reduce_bucket_size = allgather_bucket_size = 5e8 elements "
    "(deepspeed/runtime/zero/config.py)",
    DataParallelFramework.fsdp: "FSDP: one call per wrapped unit (torch/distributed/fsdp/_fully_shard)",
}


def data_parallel_framework(sharding: Sharding, model_parallel: bool = False) -> DataParallelFramework:
    """The framework convention of the data group (module docstring)."""
    if sharding.shard_parameters:
        return DataParallelFramework.fsdp
    if sharding.shard_gradients:
        return DataParallelFramework.deepspeed
    if model_parallel:
        return DataParallelFramework.megatron
    return DataParallelFramework.deepspeed if sharding.shard_optimizer else DataParallelFramework.pytorch_ddp


def bucket_bytes(framework: DataParallelFramework, dtype: Dtype, data_ranks: IntLike, given: int | None) -> IntLike:
    """Bytes of one bucket of a collective in ``dtype``: the lever when given, else the framework's default."""
    if given is not None:
        return given
    if framework is DataParallelFramework.megatron:
        parameters = maximum(MEGATRON_BUCKET_PARAMETERS_PER_RANK * data_ranks, MEGATRON_MIN_BUCKET_PARAMETERS)
        return tensor_bytes(parameters, dtype)
    if framework is DataParallelFramework.deepspeed:
        return tensor_bytes(DEEPSPEED_BUCKET_ELEMENTS, dtype)
    return PYTORCH_DDP_BUCKET_BYTES


def data_bucket_bytes(
    sharding: Sharding, dtype: Dtype, data_ranks: IntLike, model_parallel: Any, given: int | None
) -> IntLike:
    """The bucket of a data-parallel collective: the lever when given, else the default of the framework the
    arrangement and layout name (``model_parallel`` a flag, or a bool array over many layouts)."""
    if given is not None:
        return given
    if sharding.shard_gradients:  # DeepSpeed ZeRO-2 (a parameter-sharding arrangement calls per unit instead)
        return bucket_bytes(DataParallelFramework.deepspeed, dtype, data_ranks, None)
    alone = DataParallelFramework.deepspeed if sharding.shard_optimizer else DataParallelFramework.pytorch_ddp
    megatron = bucket_bytes(DataParallelFramework.megatron, dtype, data_ranks, None)
    chosen: IntLike = select(model_parallel, megatron, bucket_bytes(alone, dtype, data_ranks, None))
    return chosen


def call_count(buffer_bytes: IntLike, bucket: IntLike, units: int | None) -> IntLike:
    """NCCL calls one collective takes: one per unit when parameters are sharded in units, else one per bucket
    (at least one)."""
    if units is not None:
        return units + 0 * buffer_bytes
    return maximum(ceil_div(buffer_bytes, bucket), 1)
