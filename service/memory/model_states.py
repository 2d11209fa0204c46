"""Model-state bytes per GPU (DESIGN.md, 'What one weight costs' and 'Three flags').

Bytes per weight at N = r + s/N (Rajbhandari et al. 2020, figure 1): r, the replicated floor,
sums the state classes whose flag is off; s sums the sharded ones. A sharded class holds
ceil(P / N) elements on each GPU: the flat buffer is padded to a multiple of N, as PyTorch FSDP's
FlatParameter and DeepSpeed's partitions are, so per-GPU bytes are exact integers. That padding
is why ZeRO-2 at 30e9 weights first fits an 80e9-byte card at 22 GPUs, not 21 (at 21 it is
6 bytes over: 14 x ceil(30e9 / 21) = 20,000,000,006).

Hybrid sharding shards over the G GPUs of a node instead of all N. FSDP's SHARD_GRAD_OP keeps
the gathered parameters from the forward to the end of the backward: a whole-model copy on every
GPU beside the parameter shard. A compute copy in another dtype (FSDP2's param_dtype) is
replicated when parameters are not sharded; under ZeRO-3 only the units in flight hold it, which
is the working set, not a resident state class.

Offload as ZeRO-Offload does it (Ren et al. 2021, section 3 and figure 2; DeepSpeed
stage_1_and_2.py and stage3.py with offload_optimizer): the fp32 master weights, the moments and
an fp32 gradient partition live in host memory, where the CPU runs the optimizer; the GPU keeps
its 16-bit parameters. Sharded gradients then exist on the GPU only in flight (bucket by bucket
on their way to the host), so they leave the GPU's count. Parameter offload (ZeRO-Infinity,
Rajbhandari et al. 2021) moves the parameter shards to the host as well.

Every function takes plain numbers or numpy int64 arrays for P, N and G, so the sweep and the
single plan share one definition.
"""

from dataclasses import dataclass
from functools import lru_cache

from models.enums import Dtype, ShardGroup, StateClass, StateLocation
from models.presets import PrecisionSpec
from service.inputs.arrangements import Sharding
from service.memory.dtypes import bytes_per_element, tensor_bytes
from service.memory.state_classes import StateSpec, state_specs
from service.numeric import IntLike, ceil_div, gpus, group_digits, minimum

# Elements of one shard of a P-element buffer padded to a multiple of N: ceil(P / N). Bound to ceil_div, not
# wrapped in a function of its own: a plan asks it a dozen times, each a call the wrapper would double.
shard_elements = ceil_div


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

# The CPU optimizer consumes fp32 gradients (DeepSpeed's pinned fp32 gradient partition).
HOST_GRADIENT_DTYPE = Dtype.fp32


@dataclass(frozen=True)
class Resident:
    """A state class a GPU keeps between steps: sharded or not, on the GPU or in host memory."""

    spec: StateSpec
    sharded: bool
    location: StateLocation
    node_sharded: bool = False  # sharded over the GPUs of a node, not all N (ZeRO++ hpZ)


# A pure function of three frozen (hashable) values, asked several times by every plan and sweep group.
@lru_cache(maxsize=1024)
def resident_states(
    precision: PrecisionSpec, sharding: Sharding, offload: Offload = NO_OFFLOAD
) -> tuple[Resident, ...]:
    """Every state class held for each GPU, in breakdown order (see the module docstring)."""
    on_host = StateLocation.host if offload.optimizer else StateLocation.gpu
    rows = []
    for spec in state_specs(precision):
        if spec.state is StateClass.gradients and offload.optimizer and sharding.shard_gradients:
            continue  # reduced bucket by bucket on its way to the host's fp32 partition
        if spec.group is ShardGroup.optimizer:
            rows.append(Resident(spec, sharding.shard_optimizer, on_host))
            continue
        rows.append(Resident(spec, sharding.shards(spec.group), offload.location(spec.group)))
        if spec.state is StateClass.parameters:
            rows.extend(_compute_copy(precision, sharding))
            if sharding.zeropp.hierarchical_partition:
                secondary = StateSpec(StateClass.secondary_parameters, precision.parameter_dtype, ShardGroup.parameters)
                rows.append(Resident(secondary, True, StateLocation.gpu, node_sharded=True))
    if offload.optimizer and precision.optimizer_gradient_dtype is None:
        host_gradients = StateSpec(StateClass.optimizer_gradients, HOST_GRADIENT_DTYPE, ShardGroup.optimizer)
        rows.insert(_after_gradients(rows), Resident(host_gradients, sharding.shard_optimizer, StateLocation.host))
    return tuple(rows)


def _compute_copy(precision: PrecisionSpec, sharding: Sharding) -> list[Resident]:
    """The whole-model compute copy, where one stays on every GPU."""
    dtype = precision.compute_parameter_dtype
    if sharding.gathers_whole_model:
        dtype = dtype or precision.parameter_dtype
    elif sharding.shard_parameters:
        dtype = None  # gathered unit by unit: the working set, not a resident state
    if dtype is None:
        return []
    copies = precision.compute_parameter_copies if precision.compute_parameter_dtype is not None else 1
    spec = StateSpec(StateClass.compute_parameters, dtype, ShardGroup.parameters, copies)
    return [Resident(spec, False, StateLocation.gpu)]


def _after_gradients(rows: list[Resident]) -> int:
    order = list(StateClass)
    position = order.index(StateClass.optimizer_gradients)
    return sum(1 for row in rows if order.index(row.spec.state) < position)


def held_elements(parameter_count: IntLike, world_size: IntLike, sharded: bool) -> IntLike:
    return shard_elements(parameter_count, world_size) if sharded else parameter_count


def state_class_bytes(parameter_count: IntLike, world_size: IntLike, dtype: Dtype, sharded: bool) -> IntLike:
    """Bytes one GPU holds of one state class."""
    return tensor_bytes(held_elements(parameter_count, world_size, sharded), dtype)


# Not frozen: one is built for every plan, and a frozen dataclass's __init__ costs several times more.
@dataclass(slots=True)
class StateBytes:
    spec: StateSpec
    sharded: bool
    location: StateLocation
    bytes: IntLike  # of this class per GPU, wherever it lives
    degree: IntLike = 1  # GPUs sharing one copy when sharded


def model_state_breakdown(
    parameter_count: IntLike,
    world_size: IntLike,
    precision: PrecisionSpec,
    sharding: Sharding,
    gpus_per_node: IntLike | None = None,
    offload: Offload = NO_OFFLOAD,
) -> list[StateBytes]:
    """Bytes of every state class held for each GPU, and where each lives."""
    return resident_rows(
        resident_states(precision, sharding, offload), parameter_count, world_size, sharding, gpus_per_node
    )


def resident_rows(
    residents: tuple[Resident, ...],
    parameter_count: IntLike,
    world_size: IntLike,
    sharding: Sharding,
    gpus_per_node: IntLike | None = None,
) -> list[StateBytes]:
    """model_state_breakdown's rows of the resident states ``residents`` (resident_states of its precision, sharding
    and offload, when the caller holds them)."""
    degree = shard_degree(world_size, gpus_per_node, sharding)
    # one copy's bytes of classes alike in GPUs, sharding and dtype (the fp32 master weights and both Adam moments)
    alike: dict[tuple[bool, bool, Dtype], IntLike] = {}
    rows = []
    for r in residents:
        held_by = node_degree(world_size, gpus_per_node) if r.node_sharded else degree
        spec = r.spec
        key = (r.node_sharded, r.sharded, spec.dtype)
        one = alike.get(key)
        if one is None:
            one = alike[key] = state_class_bytes(parameter_count, held_by, spec.dtype, r.sharded)
        rows.append(StateBytes(spec, r.sharded, r.location, spec.copies * one, held_by))
    return rows


def node_degree(world_size: IntLike, gpus_per_node: IntLike | None) -> IntLike:
    """GPUs of a node a job uses: min(N, G) (N without G)."""
    return world_size if gpus_per_node is None else minimum(world_size, gpus_per_node)


def bytes_at(rows: list[StateBytes], location: StateLocation) -> IntLike:
    """Sum of the breakdown's rows that live at ``location`` (gpu or host)."""
    total: IntLike = 0
    for row in rows:  # a loop, not a generator: asked twice by every plan
        if row.location is location:
            total = total + row.bytes
    return total


def gpu_and_host_bytes(rows: list[StateBytes]) -> tuple[IntLike, IntLike]:
    """bytes_at the GPU and at the host, in one pass over the breakdown's rows."""
    gpu: IntLike = 0
    host: IntLike = 0
    for row in rows:
        if row.location is StateLocation.gpu:
            gpu = gpu + row.bytes
        else:
            host = host + row.bytes
    return gpu, host


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
    parameter_count: IntLike,
    precision: PrecisionSpec,
    sharding: Sharding,
    offload: Offload = NO_OFFLOAD,
    gpus_per_node: IntLike | None = None,
) -> IntLike:
    """Bytes of the replicated state classes on the GPU: what no GPU count lowers (with G known, a
    class sharded over a node's GPUs too: it stops shrinking at G)."""
    return floor_states_bytes(floor_states(precision, sharding, offload), parameter_count, gpus_per_node)


def floor_states_bytes(
    floor: tuple[Resident, ...], parameter_count: IntLike, gpus_per_node: IntLike | None = None
) -> IntLike:
    """replicated_floor_bytes of its resident states ``floor`` (floor_states, when the caller holds them)."""
    total: IntLike = 0
    for r in floor:
        if not r.sharded:
            total = total + r.spec.copies * tensor_bytes(parameter_count, r.spec.dtype)
        elif gpus_per_node is not None:
            total = total + r.spec.copies * state_class_bytes(parameter_count, gpus_per_node, r.spec.dtype, True)
    return total


@lru_cache(maxsize=1024)  # a pure function of frozen values, asked by every plan
def floor_states(precision: PrecisionSpec, sharding: Sharding, offload: Offload) -> tuple[Resident, ...]:
    """The resident states on the GPU that the replicated floor counts: the replicated ones, and those sharded over
    a node's GPUs (no GPU count shrinks them below a node's share)."""
    return tuple(
        r
        for r in resident_states(precision, sharding, offload)
        if r.location is StateLocation.gpu and (not r.sharded or r.node_sharded)
    )


@lru_cache(maxsize=1024)  # a pure function of frozen values, asked by every plan
def bytes_per_weight_split(
    precision: PrecisionSpec, sharding: Sharding, offload: Offload = NO_OFFLOAD
) -> tuple[float, float]:
    """(r, s): replicated and sharded GPU bytes per weight, so that per-weight bytes at N = r + s/N."""
    replicated = sharded = 0.0
    for r in resident_states(precision, sharding, offload):
        if r.location is StateLocation.host or r.node_sharded:  # a node-sharded class is neither r nor s/N
            continue
        if r.sharded:
            sharded += r.spec.copies * bytes_per_element(r.spec.dtype)
        else:
            replicated += r.spec.copies * bytes_per_element(r.spec.dtype)
    return replicated, sharded


def state_arithmetic(
    parameter_count: int, world_size: int, dtype: Dtype, sharded: bool, copies: int = 1, held_bytes: int | None = None
) -> str:
    """'4 B x 30,000,000,000 weights / 8 GPUs = 15,000,000,000 B' for one state class; ``held_bytes``: its bytes on
    each GPU, every copy (a breakdown row's), when the caller has them."""
    if held_bytes is None:
        held_bytes = copies * int(state_class_bytes(parameter_count, world_size, dtype, sharded))
    if copies > 1:
        one = state_arithmetic(parameter_count, world_size, dtype, sharded, 1, held_bytes // copies)
        return f"{copies} copies x ({one}) = {group_digits(held_bytes)} B"
    per_value = _per_value_words(dtype)
    weights = f"{group_digits(parameter_count)} weights"
    result = group_digits(held_bytes)
    if not sharded:
        return f"{per_value} x {weights} = {result} B (replicated on every GPU)"
    elements = int(shard_elements(parameter_count, world_size))
    if elements * world_size == parameter_count and not _block_scaled(dtype):
        return f"{per_value} x {weights} / {gpus(world_size)} = {result} B"
    return (
        f"{per_value} x ceil({weights} / {gpus(world_size)}) = {per_value} x {group_digits(elements)} "
        f"= {result} B (shards padded to a multiple of {world_size})"
    )


# Pure functions of a dtype (a closed enum), asked for every row of every plan's breakdown.
@lru_cache(maxsize=64)
def _block_scaled(dtype: Dtype) -> bool:
    return bytes_per_element(dtype) != int(bytes_per_element(dtype))


@lru_cache(maxsize=64)
def _per_value_words(dtype: Dtype) -> str:
    if _block_scaled(dtype):
        return f"({bytes_per_element(dtype):g} B incl. one shared scale per block)"
    return f"{int(bytes_per_element(dtype))} B"
