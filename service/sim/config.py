"""What one simulation job runs, as plain data (no torch): it travels as JSON to the ranks.

The model is an MLP of ``layers`` square layers of width h (weights h x h plus h biases), so
each layer is one sharding unit of h * (h + 1) elements; h is the largest width whose total
does not exceed the requested ``parameter_count`` (the report gives the exact count used).
"""

import math
from dataclasses import asdict, dataclass
from typing import Any

from models.enums import Dtype
from models.presets import PRECISION_PRESETS, PrecisionPresetName, PrecisionSpec
from service.inputs.arrangements import Sharding

# Precisions the simulation runs: the service's presets plus an all-fp64 one for bitwise checks.
FP64_ADAM = PrecisionSpec(
    parameter_dtype=Dtype.fp64, gradient_dtype=Dtype.fp64, master_dtype=None, optimizer_state_dtype=Dtype.fp64
)
SIM_PRECISIONS: dict[str, PrecisionSpec] = {
    PrecisionPresetName.mixed_bf16_adam.value: PRECISION_PRESETS[PrecisionPresetName.mixed_bf16_adam].spec,
    PrecisionPresetName.fp32_adam.value: PRECISION_PRESETS[PrecisionPresetName.fp32_adam].spec,
    "fp64_adam": FP64_ADAM,
}


@dataclass(frozen=True)
class SlowRank:
    rank: int
    delay_s: float


@dataclass(frozen=True)
class DroppedRank:
    rank: int
    step: int
    mode: str = "exit"  # "exit": the process dies; "hang": it stops answering


@dataclass(frozen=True)
class PartialCheckpoint:
    step: int  # save after this many steps; only ``writer_rank`` writes the first attempt
    writer_rank: int = 0


@dataclass(frozen=True)
class RunSpec:
    """One arrangement to run: the three flags and the ZeRO-3 kept-gather switch."""

    shard_optimizer: bool
    shard_gradients: bool
    shard_parameters: bool
    keep_gather: bool = False

    @property
    def sharding(self) -> Sharding:
        return Sharding(self.shard_optimizer, self.shard_gradients, self.shard_parameters)

    @classmethod
    def of(cls, sharding: Sharding, keep_gather: bool = False) -> "RunSpec":
        return cls(sharding.shard_optimizer, sharding.shard_gradients, sharding.shard_parameters, keep_gather)


@dataclass(frozen=True)
class SimConfig:
    world_size: int
    runs: tuple[RunSpec, ...]
    steps: int = 10
    parameter_count: int = 1_000_000
    layers: int = 4
    batch_per_rank: int = 4
    precision: str = PrecisionPresetName.mixed_bf16_adam.value
    seed: int = 0
    learning_rate: float = 1e-3
    collective_timeout_s: float = 10.0
    gradient_check_points: int = 12
    measure_builtin: bool = True
    slow_rank: SlowRank | None = None
    dropped_rank: DroppedRank | None = None
    partial_checkpoint: PartialCheckpoint | None = None
    checkpoint_dir: str | None = None

    @property
    def precision_spec(self) -> PrecisionSpec:
        return SIM_PRECISIONS[self.precision]

    @property
    def width(self) -> int:
        return width_for(self.parameter_count, self.layers)

    @property
    def unit_elements(self) -> int:
        return self.width * (self.width + 1)

    @property
    def exact_parameter_count(self) -> int:
        return self.layers * self.unit_elements

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "SimConfig":
        data = dict(data)
        data["runs"] = tuple(RunSpec(**r) for r in data["runs"])
        for name, kind in (
            ("slow_rank", SlowRank),
            ("dropped_rank", DroppedRank),
            ("partial_checkpoint", PartialCheckpoint),
        ):
            if data.get(name) is not None:
                data[name] = kind(**data[name])
        return cls(**data)


def width_for(parameter_count: int, layers: int) -> int:
    """Largest h with layers * h * (h + 1) <= parameter_count (at least 1)."""
    per_layer = max(1, parameter_count // layers)
    h = max(1, math.isqrt(per_layer))
    while h > 1 and h * (h + 1) > per_layer:
        h -= 1
    return h
