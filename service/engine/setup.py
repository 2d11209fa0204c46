"""What an evaluation is given: the setup fixed for a group of cells (categorical choices and scalar
settings) and the numeric inputs, Python numbers for one plan or numpy arrays for a sweep. Read by the
data-parallel evaluation (service.engine.data_parallel), the steps it shares with layouts
(service.engine.step) and the layout engines alike."""

from dataclasses import dataclass, field
from functools import cached_property

from models.common import DEFAULT_HOST_MEMORY_BYTES_PER_S
from models.enums import ActivationModel, CrossEntropy, Recompute
from models.presets import LinkSpec, PrecisionSpec
from service.inputs.arrangements import Sharding
from service.memory.activations import TransformerShape
from service.memory.model_states import (
    NO_OFFLOAD,
    Offload,
    Resident,
    bytes_per_weight_split,
    floor_states,
    resident_states,
)
from service.memory.working_set import Units
from service.numeric import CountLike, IntLike
from service.time.assumptions import worded_assumptions
from service.time.compute import FlopShape
from service.time.efficiency import Efficiency
from service.time.goodput import checkpoint_bytes_of, whole_checkpoint_bytes_per_weight
from service.time.overlaps import DEFAULT_OVERLAPS, Overlaps, overlapped_calls
from service.time.traffic import StepCollective, step_collectives, volume_in_p


@dataclass(frozen=True)
class ActivationSetup:
    model: ActivationModel = ActivationModel.none
    fudge: float = 17.0
    bytes_per_value: int = 2
    flash_attention: bool = True
    shape: TransformerShape | None = None
    cross_entropy: CrossEntropy = CrossEntropy.unfused


# Not frozen: one is built for every plan, and a frozen dataclass's __init__ costs several times more.
@dataclass
class Setup:
    """What is fixed for a group of cells: categorical choices and scalar settings."""

    precision: PrecisionSpec
    sharding: Sharding
    usable_bytes: int  # the card less its reserve and fragmentation: what fit compares against
    host_memory_bytes: int | None = None  # per node; None: not checked
    host_memory_bytes_per_s: float = DEFAULT_HOST_MEMORY_BYTES_PER_S
    links: LinkSpec = field(default_factory=LinkSpec)
    peak_flops_per_s: float = 989.4e12
    utilisation: float | None = 0.4  # MFU; None: the efficiency model decides (service/time/efficiency.py)
    efficiency: Efficiency | None = None  # the efficiency model; required when utilisation is None
    micro_batches: CountLike = 1  # k: an int for one plan; a sweep may give an int64 array aligned with the inputs
    offload: Offload = NO_OFFLOAD
    recompute: Recompute = Recompute.none
    overlap: bool = True
    bucket_bytes: int = 25 * 2**20  # the gradient buckets the working set holds
    given_bucket_bytes: int | None = None  # levers.bucket_bytes as given; None: each framework's default calls
    overlaps: Overlaps = DEFAULT_OVERLAPS  # which communication the frameworks' overlap levers hide
    activations: ActivationSetup = field(default_factory=ActivationSetup)
    flop_shape: FlopShape = field(default_factory=FlopShape)
    units: Units | None = None  # the model's FSDP units; the working set is not counted without them
    measured_recompute: Recompute | None = None  # what `utilisation` (MFU) was given for; None: `recompute`

    # What the settings alone decide, asked by every plan of a kept resolution (service.answers.layout_plan): worked
    # out once per setup, which is never changed once built, and shared by its plans (read, never written).

    @cached_property
    def data_calls(self) -> list[StepCollective]:
        """The data group's collectives of one step (service.time.traffic.step_collectives), with the windows the
        overlap levers give them (service.time.overlaps)."""
        return overlapped_calls(step_collectives(self.precision, self.sharding, self.micro_batches), self.overlaps)

    def step_data_calls(self, micro_batches: CountLike, pipelined: bool = False, runs: int = 1) -> list[StepCollective]:
        """The data group's collectives of a step of ``micro_batches``, FSDP's on a pipeline stage when ``pipelined``
        over ``runs`` runs of the schedule (service.time.traffic.step_collectives), with the overlap levers' windows;
        the setup's own (data_calls) at its micro-batches without pipelining."""
        own = micro_batches is self.micro_batches or (
            type(micro_batches) is int and type(self.micro_batches) is int and micro_batches == self.micro_batches
        )
        if own and not pipelined and runs == 1:
            return self.data_calls
        plain = step_collectives(self.precision, self.sharding, micro_batches, pipelined=pipelined, runs=runs)
        return overlapped_calls(plain, self.overlaps)

    @cached_property
    def residents(self) -> tuple[Resident, ...]:
        """The state classes each GPU holds (service.memory.model_states.resident_states)."""
        return resident_states(self.precision, self.sharding, self.offload)

    @cached_property
    def floor_residents(self) -> tuple[Resident, ...]:
        """Those of them the replicated floor counts (service.memory.model_states.floor_states)."""
        return floor_states(self.precision, self.sharding, self.offload)

    @cached_property
    def bytes_per_weight(self) -> tuple[float, float]:
        """The replicated and sharded GPU bytes per weight (service.memory.model_states.bytes_per_weight_split)."""
        return bytes_per_weight_split(self.precision, self.sharding, self.offload)

    @cached_property
    def volume_in_p(self) -> float:
        """Model-sized buffers the data group moves per step without pipelining (service.time.traffic.volume_in_p)."""
        return float(volume_in_p(self.precision, self.sharding, self.micro_batches))

    def step_volume_in_p(self, micro_batches: CountLike, pipelined: bool = False) -> float:
        """Model-sized buffers the data group moves a step of ``micro_batches`` (service.time.traffic.volume_in_p),
        FSDP's on a pipeline stage when ``pipelined``; the setup's own (volume_in_p) at its micro-batches without."""
        if not pipelined and micro_batches is self.micro_batches:
            return self.volume_in_p
        return float(volume_in_p(self.precision, self.sharding, micro_batches, pipelined=pipelined))

    @cached_property
    def checkpoint_bytes_per_weight(self) -> int | None:
        """A checkpoint's bytes per weight, None when some dtype is packed or block-scaled
        (service.time.goodput.whole_checkpoint_bytes_per_weight)."""
        return whole_checkpoint_bytes_per_weight(self.precision)

    def checkpoint_bytes(self, parameter_count: int) -> int:
        """Bytes of one checkpoint of ``parameter_count`` weights (service.time.goodput.checkpoint_bytes)."""
        return int(checkpoint_bytes_of(parameter_count, self.precision, self.checkpoint_bytes_per_weight))

    @cached_property
    def time_assumptions(self) -> tuple[str, ...]:
        """The time model's assumptions in words (service.time.assumptions.worded_assumptions)."""
        eff, links = self.efficiency, self.links
        return worded_assumptions(
            (
                self.utilisation,
                self.peak_flops_per_s,
                eff.calibration.ceiling(eff.device.generation) if eff is not None else 0.0,
                eff is not None and eff.kernels is not None,
            ),
            (self.flop_shape, self.recompute, self.measured_recompute or self.recompute),
            (links.intra_node_bytes_per_s, links.inter_node_bytes_per_s, links.host_bytes_per_s),
            self.overlap,
            self.bucket_bytes,
            self.host_memory_bytes_per_s,
        )


# Not frozen: one is built for every plan, and a frozen dataclass's __init__ costs several times more.
@dataclass
class Inputs:
    """Numeric inputs: Python ints for one plan, equal-length int64 arrays for a sweep."""

    parameter_count: IntLike
    world_size: IntLike
    gpus_per_node: IntLike = 8
    # Parameters one token uses (a mixture of experts uses top_k of its experts); None: all of them.
    active_parameter_count: IntLike | None = None
    micro_batch_size: IntLike = 1
    sequence_length: IntLike = 2048
