"""The sizes a simulation may run at (the service's settings), checked before any rank starts: one rule for the
API's POST /v1/simulations and the command line's `zeroplan simulate` in process (no torch here)."""

from models.simulation import SimulationEngine, SimulationRequest
from service.inputs.resolve import sharding as resolve_sharding
from service.sim.config import SimConfig
from service.sim.engines.torch_config import TorchSimConfig, config_errors
from service.sim.job_limits import SizeLimits
from service.sim.request import layout_request_errors

Problem = tuple[str, str]  # (detail, JSON pointer)


def simulation_problems(
    body: SimulationRequest, config: SimConfig | TorchSimConfig, limits: SizeLimits
) -> list[Problem]:
    """What keeps the request from running: the sizes past the limits first, then what the torch engine cannot
    run exactly; empty when it may run."""
    problems = _size_problems(body, limits)
    if problems or not isinstance(config, TorchSimConfig):
        return problems
    return _torch_problems(body, config, limits)


def _size_problems(body: SimulationRequest, limits: SizeLimits) -> list[Problem]:
    sizes = (
        ("world_size", body.world_size, limits.world_size),
        ("parameter_count", body.parameter_count, limits.weights),
        ("steps", body.steps, limits.steps),
    )
    problems = [
        (f"{name}: {value} is over the limit of {limit} (a setting of this service)", f"/{name}")
        for name, value, limit in sizes
        if value > limit
    ]
    for i, arrangement in enumerate(body.arrangements):
        if body.engine is SimulationEngine.rings and resolve_sharding(arrangement).hybrid:
            problems.append(
                (f"arrangements.{i}: hybrid sharding needs nodes; the simulation runs one", f"/arrangements/{i}")
            )
    return problems


def _torch_problems(body: SimulationRequest, config: TorchSimConfig, limits: SizeLimits) -> list[Problem]:
    from service.inputs.architecture import parameter_count

    problems = [
        (f"{field}: {message}", "/" + field.replace(".", "/"))
        for field, message in layout_request_errors(body) + config_errors(config)
    ]
    weights = parameter_count(config.model.architecture())
    if weights > limits.weights:
        problems.append(
            (
                f"model: {weights:,} weights is over the limit of {limits.weights:,} (a setting of this service)",
                "/model",
            )
        )
    return problems
