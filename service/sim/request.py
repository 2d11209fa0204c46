"""A simulation request of the contract, turned into the runner's configuration (no torch here)."""

from typing import Any

from models.enums import ArrangementName
from models.simulation import (
    TORCH_DEFAULT_ARRANGEMENTS,
    TORCH_DEFAULT_STEPS,
    TORCH_ENGINE_NAMES,
    DroppedRankFault,
    PartialCheckpointFault,
    SimulationEngine,
    SimulationRequest,
    SlowRankFault,
)
from service.inputs.resolve import sharding as resolve_sharding
from service.sim.config import DroppedRank, PartialCheckpoint, RunSpec, SimConfig, SlowRank
from service.sim.engines.torch_config import LAYOUT_ARRANGEMENTS, TinyArchitecture, TorchSimConfig


def sim_config(body: SimulationRequest, collective_timeout_s: float) -> SimConfig | TorchSimConfig:
    if body.engine is SimulationEngine.torch:
        return torch_sim_config(body, collective_timeout_s)
    return rings_config(body, collective_timeout_s)


def torch_sim_config(body: SimulationRequest, collective_timeout_s: float) -> TorchSimConfig:
    given = body.model_fields_set
    names = (
        tuple(dict.fromkeys(TORCH_ENGINE_NAMES[a] for a in body.arrangements if isinstance(a, ArrangementName)))
        if "arrangements" in given
        else (LAYOUT_ARRANGEMENTS if body.parallelism is not None else TORCH_DEFAULT_ARRANGEMENTS)
    )
    m, default = body.model, TinyArchitecture()
    model = (
        TinyArchitecture(
            layers=m.layers or default.layers,
            hidden_size=m.hidden_size or default.hidden_size,
            attention_heads=m.attention_heads or default.attention_heads,
            ffn_hidden_size=m.ffn_hidden_size or default.ffn_hidden_size,
            vocab_size=m.vocab_size or default.vocab_size,
        )
        if m is not None
        else default
    )
    faults = _faults(body)
    par = body.parallelism
    pipeline = par.pipeline if par is not None else 1
    return TorchSimConfig(
        world_size=body.world_size,
        arrangements=names,
        model=model,
        steps=body.steps if "steps" in given else TORCH_DEFAULT_STEPS,
        precision=body.precision.value,
        ranks_per_node=body.ranks_per_node or 2,
        collective_timeout_s=collective_timeout_s,
        slow_rank=faults.get("slow_rank"),
        dropped_rank=faults.get("dropped_rank"),
        tensor=par.tensor if par is not None else 1,
        pipeline=pipeline,
        micro_batches=body.micro_batches or pipeline,
        pipeline_schedule=par.pipeline_schedule.value if par is not None else "1f1b",
    )


def layout_request_errors(body: SimulationRequest) -> list[tuple[str, str]]:
    """(field, message) for the parts of /v1/plan's parallelism block the torch engine does not run."""
    par = body.parallelism
    if par is None:
        return []
    errors = [
        (f"parallelism.{name}", f"the torch engine runs tensor and pipeline degrees; {name} must be 1")
        for name in ("context", "expert", "virtual_stages")
        if getattr(par, name) != 1
    ]
    if par.expert_tensor is not None and par.expert_tensor != par.tensor:
        errors.append(("parallelism.expert_tensor", "the torch engine's transformer has no experts to split apart"))
    if par.sequence_parallel:
        errors.append(("parallelism.sequence_parallel", "the torch engine runs tensor parallelism without it"))
    return errors


def _faults(body: SimulationRequest) -> dict[str, Any]:
    faults: dict[str, Any] = {}
    for fault in body.faults:
        if isinstance(fault, SlowRankFault):
            faults["slow_rank"] = SlowRank(fault.rank, fault.delay_s)
        elif isinstance(fault, DroppedRankFault):
            faults["dropped_rank"] = DroppedRank(fault.rank, fault.step, fault.mode)
        elif isinstance(fault, PartialCheckpointFault):
            faults["partial_checkpoint"] = PartialCheckpoint(fault.step, fault.writer_rank)
    return faults


def rings_config(body: SimulationRequest, collective_timeout_s: float) -> SimConfig:
    runs = [RunSpec.of(resolve_sharding(a)) for a in body.arrangements]
    if body.keep_gather:
        runs.append(RunSpec.of(resolve_sharding(ArrangementName.zero3), keep_gather=True))
    faults = _faults(body)
    return SimConfig(
        world_size=body.world_size,
        runs=tuple(runs),
        steps=body.steps,
        parameter_count=body.parameter_count,
        precision=body.precision.value,
        collective_timeout_s=collective_timeout_s,
        **faults,
    )
