"""Model-state bytes per GPU (DESIGN.md, 'What one weight costs' and 'Three flags').

Bytes per weight at N = r + s/N (Rajbhandari et al. 2020, figure 1): r, the replicated floor,
sums the state classes whose flag is off; s sums the sharded ones. A sharded class holds
ceil(P / N) elements on each GPU: the flat buffer is padded to a multiple of N, as PyTorch FSDP's
FlatParameter and DeepSpeed's partitions are, so per-GPU bytes are exact integers. That padding
is why ZeRO-2 at 30e9 weights first fits an 80e9-byte card at 22 GPUs, not 21 (at 21 it is
6 bytes over: 14 x ceil(30e9 / 21) = 20,000,000,006).

Every function takes plain numbers or numpy int64 arrays for P and N, so the sweep and the
single plan share one definition.
"""

from dataclasses import dataclass

from models.enums import Dtype
from models.presets import PrecisionSpec
from service.arrangements import Sharding
from service.dtypes import bytes_per_element, tensor_bytes
from service.numeric import IntLike, ceil_div, group_digits
from service.states import StateSpec, state_specs


def shard_elements(parameter_count: IntLike, world_size: IntLike) -> IntLike:
    """Elements of one shard of a P-element buffer padded to a multiple of N: ceil(P / N)."""
    return ceil_div(parameter_count, world_size)


def held_elements(parameter_count: IntLike, world_size: IntLike, sharded: bool) -> IntLike:
    return shard_elements(parameter_count, world_size) if sharded else parameter_count


def state_class_bytes(parameter_count: IntLike, world_size: IntLike, dtype: Dtype, sharded: bool) -> IntLike:
    """Bytes one GPU holds of one state class."""
    return tensor_bytes(held_elements(parameter_count, world_size, sharded), dtype)


@dataclass(frozen=True)
class StateBytes:
    spec: StateSpec
    sharded: bool
    bytes: IntLike


def model_state_breakdown(
    parameter_count: IntLike, world_size: IntLike, precision: PrecisionSpec, sharding: Sharding
) -> list[StateBytes]:
    """Per-GPU bytes of every state class."""
    rows = []
    for spec in state_specs(precision):
        sharded = sharding.shards(spec.group)
        rows.append(StateBytes(spec, sharded, state_class_bytes(parameter_count, world_size, spec.dtype, sharded)))
    return rows


def model_state_bytes(
    parameter_count: IntLike, world_size: IntLike, precision: PrecisionSpec, sharding: Sharding
) -> IntLike:
    """Per-GPU model-state bytes: the sum of the breakdown."""
    return sum_bytes(row.bytes for row in model_state_breakdown(parameter_count, world_size, precision, sharding))


def replicated_floor_bytes(parameter_count: IntLike, precision: PrecisionSpec, sharding: Sharding) -> IntLike:
    """Bytes of the replicated state classes: what no GPU count lowers."""
    return sum_bytes(
        tensor_bytes(parameter_count, spec.dtype) for spec in state_specs(precision) if not sharding.shards(spec.group)
    )


def bytes_per_weight_split(precision: PrecisionSpec, sharding: Sharding) -> tuple[float, float]:
    """(r, s): replicated and sharded bytes per weight, so that per-weight bytes at N = r + s/N."""
    replicated = sharded = 0.0
    for spec in state_specs(precision):
        if sharding.shards(spec.group):
            sharded += bytes_per_element(spec.dtype)
        else:
            replicated += bytes_per_element(spec.dtype)
    return replicated, sharded


def sum_bytes(values: object) -> IntLike:
    total: IntLike = 0
    for value in values:  # type: ignore[attr-defined]
        total = total + value
    return total


def state_arithmetic(parameter_count: int, world_size: int, dtype: Dtype, sharded: bool) -> str:
    """'4 B x 30,000,000,000 weights / 8 GPUs = 15,000,000,000 B' for one state class."""
    per_value = _per_value_words(dtype)
    weights = f"{group_digits(parameter_count)} weights"
    result = group_digits(int(state_class_bytes(parameter_count, world_size, dtype, sharded)))
    if not sharded:
        return f"{per_value} x {weights} = {result} B (replicated on every GPU)"
    elements = int(shard_elements(parameter_count, world_size))
    if elements * world_size == parameter_count and not _block_scaled(dtype):
        return f"{per_value} x {weights} / {world_size} GPUs = {result} B"
    return (
        f"{per_value} x ceil({weights} / {world_size} GPUs) = {per_value} x {group_digits(elements)} "
        f"= {result} B (shards padded to a multiple of {world_size})"
    )


def _block_scaled(dtype: Dtype) -> bool:
    return bytes_per_element(dtype) != int(bytes_per_element(dtype))


def _per_value_words(dtype: Dtype) -> str:
    if _block_scaled(dtype):
        return f"({bytes_per_element(dtype):g} B incl. one shared scale per block)"
    return f"{int(bytes_per_element(dtype))} B"
