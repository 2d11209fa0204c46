"""Model-state bytes per GPU (DESIGN.md, 'What one weight costs' and 'Three flags').

Bytes per weight at N = r + s/N (Rajbhandari et al. 2020, figure 1): r, the replicated floor,
sums the state classes whose flag is off; s sums the sharded ones. A sharded class holds
ceil(P / N) elements on each GPU: the flat buffer is padded to a multiple of N, as PyTorch FSDP's
FlatParameter and DeepSpeed's partitions are, so per-GPU bytes are exact integers. That padding
is why ZeRO-2 at 30e9 weights first fits an 80e9-byte card at 22 GPUs, not 21 (at 21 it is
6 bytes over: 14 x ceil(30e9 / 21) = 20,000,000,006).

Hybrid sharding shards over the G GPUs of a node instead of all N. Offload (Ren et al. 2021,
ZeRO-Offload) moves the optimizer state classes, and with ZeRO-3 the parameter shards, to host
memory: they leave the GPU's count and enter the host's.

Every function takes plain numbers or numpy int64 arrays for P, N and G, so the sweep and the
single plan share one definition.
"""

from dataclasses import dataclass

from models.enums import Dtype, ShardGroup, StateLocation
from models.presets import PrecisionSpec
from service.arrangements import Sharding
from service.dtypes import bytes_per_element, tensor_bytes
from service.numeric import IntLike, ceil_div, gpus, group_digits
from service.states import StateSpec, state_specs


def shard_elements(parameter_count: IntLike, world_size: IntLike) -> IntLike:
    """Elements of one shard of a P-element buffer padded to a multiple of N: ceil(P / N)."""
    return ceil_div(parameter_count, world_size)


def shard_degree(world_size: IntLike, gpus_per_node: IntLike | None, sharding: Sharding) -> IntLike:
    """How many GPUs share one copy of the sharded state: N, or G under hybrid sharding."""
    if not sharding.hybrid:
        return world_size
    if gpus_per_node is None:
        raise ValueError("hybrid sharding needs gpus_per_node")
    return gpus_per_node


@dataclass(frozen=True)
class Offload:
    """Which state classes live in host memory instead of on the GPU."""

    optimizer: bool = False
    parameters: bool = False

    def location(self, group: ShardGroup) -> StateLocation:
        on_host = (group is ShardGroup.optimizer and self.optimizer) or (
            group is ShardGroup.parameters and self.parameters
        )
        return StateLocation.host if on_host else StateLocation.gpu


NO_OFFLOAD = Offload()


def held_elements(parameter_count: IntLike, world_size: IntLike, sharded: bool) -> IntLike:
    return shard_elements(parameter_count, world_size) if sharded else parameter_count


def state_class_bytes(parameter_count: IntLike, world_size: IntLike, dtype: Dtype, sharded: bool) -> IntLike:
    """Bytes one GPU holds of one state class."""
    return tensor_bytes(held_elements(parameter_count, world_size, sharded), dtype)


@dataclass(frozen=True)
class StateBytes:
    spec: StateSpec
    sharded: bool
    location: StateLocation
    bytes: IntLike  # of this class per GPU, wherever it lives


def model_state_breakdown(
    parameter_count: IntLike,
    world_size: IntLike,
    precision: PrecisionSpec,
    sharding: Sharding,
    gpus_per_node: IntLike | None = None,
    offload: Offload = NO_OFFLOAD,
) -> list[StateBytes]:
    """Bytes of every state class held for each GPU, and where each lives."""
    degree = shard_degree(world_size, gpus_per_node, sharding)
    rows = []
    for spec in state_specs(precision):
        sharded = sharding.shards(spec.group)
        held = state_class_bytes(parameter_count, degree, spec.dtype, sharded)
        rows.append(StateBytes(spec, sharded, offload.location(spec.group), held))
    return rows


def bytes_at(rows: list[StateBytes], location: StateLocation) -> IntLike:
    """Sum of the breakdown's rows that live at ``location`` (gpu or host)."""
    return sum_bytes(row.bytes for row in rows if row.location is location)


def model_state_bytes(
    parameter_count: IntLike,
    world_size: IntLike,
    precision: PrecisionSpec,
    sharding: Sharding,
    gpus_per_node: IntLike | None = None,
    offload: Offload = NO_OFFLOAD,
) -> IntLike:
    """Per-GPU model-state bytes on the GPU: the sum of the breakdown's GPU rows."""
    rows = model_state_breakdown(parameter_count, world_size, precision, sharding, gpus_per_node, offload)
    return bytes_at(rows, StateLocation.gpu)


def replicated_floor_bytes(
    parameter_count: IntLike, precision: PrecisionSpec, sharding: Sharding, offload: Offload = NO_OFFLOAD
) -> IntLike:
    """Bytes of the replicated state classes on the GPU: what no GPU count lowers."""
    return sum_bytes(
        tensor_bytes(parameter_count, spec.dtype)
        for spec in state_specs(precision)
        if not sharding.shards(spec.group) and offload.location(spec.group) is StateLocation.gpu
    )


def bytes_per_weight_split(
    precision: PrecisionSpec, sharding: Sharding, offload: Offload = NO_OFFLOAD
) -> tuple[float, float]:
    """(r, s): replicated and sharded GPU bytes per weight, so that per-weight bytes at N = r + s/N."""
    replicated = sharded = 0.0
    for spec in state_specs(precision):
        if offload.location(spec.group) is StateLocation.host:
            continue
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
        return f"{per_value} x {weights} / {gpus(world_size)} = {result} B"
    return (
        f"{per_value} x ceil({weights} / {gpus(world_size)}) = {per_value} x {group_digits(elements)} "
        f"= {result} B (shards padded to a multiple of {world_size})"
    )


def _block_scaled(dtype: Dtype) -> bool:
    return bytes_per_element(dtype) != int(bytes_per_element(dtype))


def _per_value_words(dtype: Dtype) -> str:
    if _block_scaled(dtype):
        return f"({bytes_per_element(dtype):g} B incl. one shared scale per block)"
    return f"{int(bytes_per_element(dtype))} B"
