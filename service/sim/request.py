"""A simulation request of the contract, turned into the runner's configuration (no torch here)."""

from typing import Any

from models.enums import ArrangementName
from models.simulation import DroppedRankFault, PartialCheckpointFault, SimulationRequest, SlowRankFault
from service.resolve import sharding as resolve_sharding
from service.sim.config import DroppedRank, PartialCheckpoint, RunSpec, SimConfig, SlowRank


def sim_config(body: SimulationRequest, collective_timeout_s: float) -> SimConfig:
    runs = [RunSpec.of(resolve_sharding(a)) for a in body.arrangements]
    if body.keep_gather:
        runs.append(RunSpec.of(resolve_sharding(ArrangementName.zero3), keep_gather=True))
    faults: dict[str, Any] = {}
    for fault in body.faults:
        if isinstance(fault, SlowRankFault):
            faults["slow_rank"] = SlowRank(fault.rank, fault.delay_s)
        elif isinstance(fault, DroppedRankFault):
            faults["dropped_rank"] = DroppedRank(fault.rank, fault.step, fault.mode)
        elif isinstance(fault, PartialCheckpointFault):
            faults["partial_checkpoint"] = PartialCheckpoint(fault.step, fault.writer_rank)
    return SimConfig(
        world_size=body.world_size,
        runs=tuple(runs),
        steps=body.steps,
        parameter_count=body.parameter_count,
        precision=body.precision.value,
        collective_timeout_s=collective_timeout_s,
        **faults,
    )
