"""What the core predicts for one simulated run, per rank (no torch).

The simulated model shards each layer separately (one unit per layer, as FSDP wraps layers), so
every prediction is the core formula applied to one unit of P_unit elements and summed over the
units: ``model_state_breakdown(P_unit, N, ...)`` for memory, ``collective_bytes_sent(P_unit, N, c)``
for traffic. Each unit's flat buffer is padded to a multiple of N on its own; the sums therefore
equal the whole-model formulas whenever N divides P_unit and exceed them by the padding otherwise.

ZeRO-3 keeping the forward gather for the backward pass (``keep_gather``) runs the same step
without the backward re-gather: the forward all-gather and the gradient reduce-scatter, 2P
instead of 3P (Rajbhandari et al. 2020, section 7.2.2, counts the re-gather as the third P).
"""

from dataclasses import dataclass

from models.enums import CollectiveName, StateClass
from models.presets import PrecisionSpec
from service.inputs.arrangements import Sharding
from service.memory.model_states import model_state_breakdown
from service.time.traffic import StepCollective, collective_bytes_sent, step_collectives

# The sim's name for each collective of step_collectives(), in the same order.
DDP_KEYS = ("gradients",)
ZERO12_KEYS = ("gradients", "parameters")
ZERO3_KEYS = ("forward", "backward", "gradients")
KEPT_GATHER_SKIPS = "backward"  # the re-gather a kept forward gather makes unnecessary


def collective_keys(sharding: Sharding) -> tuple[str, ...]:
    if not sharding.shard_optimizer:
        return DDP_KEYS
    return ZERO3_KEYS if sharding.shard_parameters else ZERO12_KEYS


@dataclass(frozen=True)
class PredictedCollective:
    key: str
    collective: StepCollective
    bytes_per_step: int  # per rank, summed over units and calls per step

    @property
    def name(self) -> CollectiveName:
        return self.collective.name


def predicted_collectives(
    unit_elements: int,
    units: int,
    world_size: int,
    precision: PrecisionSpec,
    sharding: Sharding,
    keep_gather: bool = False,
) -> list[PredictedCollective]:
    out = []
    for key, c in zip(collective_keys(sharding), step_collectives(precision, sharding), strict=True):
        if keep_gather and key == KEPT_GATHER_SKIPS:
            continue
        per_unit = int(collective_bytes_sent(unit_elements, world_size, c))
        out.append(PredictedCollective(key, c, units * per_unit * c.count_per_step))
    return out


def predicted_memory(
    unit_elements: int, units: int, world_size: int, precision: PrecisionSpec, sharding: Sharding
) -> dict[StateClass, int]:
    """Persistent bytes per state class on each rank, summed over the units."""
    rows = model_state_breakdown(unit_elements, world_size, precision, sharding)
    return {row.spec.state: units * int(row.bytes) for row in rows}
