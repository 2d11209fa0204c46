"""One entry per planning subcommand: its HTTP operation, request model, core function and table.

A subcommand for a new endpoint is one more entry in OPERATIONS. ``poll`` marks an operation
that answers 202 with a job to poll until it ends (simulations).
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from api.settings import Settings
from cli.plan_view import plan_rows, render_plan
from cli.render import (
    Rows,
    fit_rows,
    limits_rows,
    presets_rows,
    recommend_rows,
    render_fit,
    render_limits,
    render_presets,
    render_recommend,
    render_simulation,
    render_sweep,
    simulation_rows,
    sweep_rows,
)
from cli.search_view import render_search, search_rows
from models.fit import FitRequest, FitResponse
from models.limits import LimitsRequest, LimitsResponse
from models.plan import PlanRequest, PlanResponse
from models.presets import PresetsResponse
from models.recommend import RecommendRequest, RecommendResponse
from models.search import SearchRequest, SearchResponse
from models.simulation import SimulationJob, SimulationRequest
from models.sweep import SweepRequest, SweepResponse
from service.answers import fit as fitting
from service.answers import limits as fit_limits
from service.answers import plan as planner
from service.answers import recommend
from service.answers.search import search
from service.answers.sweep import sweep_answer


@dataclass(frozen=True)
class Operation:
    method: str
    path: str
    summary: str
    request_model: type[BaseModel] | None
    response_model: type[BaseModel]
    core: Callable[[Any, Settings], BaseModel | dict[str, Any]]
    render: Callable[..., str]
    rows: Callable[..., Rows]
    poll: bool = False
    # the renderer also reads the request (the arrangement as asked) and the --components flag
    wants_request: bool = False


def simulate_here(request: SimulationRequest, settings: Settings) -> dict[str, Any]:
    """Run the simulation in this process's children (needs the `sim` extra), as a finished job."""
    from service.errors import InvalidSimulation
    from service.sim import require_sim
    from service.sim.request import sim_config
    from service.sim.request_limits import simulation_problems
    from service.sim.run import simulate

    config = sim_config(request, settings.sim_collective_timeout_s)
    problems = simulation_problems(request, config, settings.sim_size_limits)
    if problems:
        raise InvalidSimulation(problems)
    require_sim()
    report = simulate(config, settings.sim_timeout_s)
    status = "succeeded" if report["succeeded"] else "failed"
    return {"id": "local", "status": status, "request": request.model_dump(mode="json"), "report": report}


OPERATIONS: dict[str, Operation] = {
    "plan": Operation(
        "POST",
        "/v1/plan",
        "per-GPU memory and traffic of one arrangement",
        PlanRequest,
        PlanResponse,
        lambda request, settings: planner.plan(request),
        render_plan,
        plan_rows,
        wants_request=True,
    ),
    "fit": Operation(
        "POST",
        "/v1/fit",
        "which arrangements fit the card, and from how many GPUs",
        FitRequest,
        FitResponse,
        lambda request, settings: fitting.fit(request, max_points=settings.max_fit_grid_points),
        render_fit,
        fit_rows,
    ),
    "recommend": Operation(
        "POST",
        "/v1/recommend",
        "the levers to reach for, cheapest first, and the first that fits",
        RecommendRequest,
        RecommendResponse,
        lambda request, settings: recommend.recommend(request),
        render_recommend,
        recommend_rows,
    ),
    "limits": Operation(
        "POST",
        "/v1/limits",
        "the largest model, micro-batch and sequence that fit at a world size",
        LimitsRequest,
        LimitsResponse,
        lambda request, settings: fit_limits.limits(request),
        render_limits,
        limits_rows,
    ),
    "sweep": Operation(
        "POST",
        "/v1/sweep",
        "a plan over a grid of models, GPU counts, arrangements, shapes and levers",
        SweepRequest,
        SweepResponse,
        lambda request, settings: sweep_answer(request, settings.max_sweep_cells),
        render_sweep,
        sweep_rows,
    ),
    "search": Operation(
        "POST",
        "/v1/search",
        "the best layouts of a model on a cluster by an objective, each with its plan and why",
        SearchRequest,
        SearchResponse,
        lambda request, settings: search(request, settings.max_search_layouts),
        render_search,
        search_rows,
    ),
    "simulate": Operation(
        "POST",
        "/v1/simulations",
        "run the gloo simulation and compare measured bytes with the formulas",
        SimulationRequest,
        SimulationJob,
        simulate_here,
        render_simulation,
        simulation_rows,
        poll=True,
    ),
    "presets": Operation(
        "GET",
        "/v1/presets",
        "GPU, precision and model presets with their sources",
        None,
        PresetsResponse,
        lambda request, settings: planner.presets(),
        render_presets,
        presets_rows,
    ),
}
