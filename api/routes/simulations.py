"""Simulation routes: start, read and cancel gloo mini-simulation jobs (service/sim).

Thin transport: limits come from settings; the job store (SQLite or PostgreSQL, api/jobs.py)
keeps every job, and a runner in this process or in ``zeroplan worker`` processes runs it out of
process with a hard wall-clock limit. No torch is imported here; when this process would run the
simulation itself and torch is absent, POST answers 503 naming the `sim` extra.
"""

from datetime import UTC, datetime
from typing import Any

from fastapi import Depends, Request, Response

from api.deps import get_settings
from api.jobs import jobs_of, public_store_reason
from api.problems import PROBLEM_RESPONSES, problem_response
from api.routing import v1_router
from api.settings import Settings
from models.problem import PROBLEM_MEDIA_TYPE, FieldError, Problem, ProblemCode
from models.simulation import SimulationJob, SimulationRequest
from service.sim import require_sim
from service.sim.db import DatabaseUnavailable
from service.sim.errors import SimulationNotFound, SimulationUnavailable, TooManySimulations
from service.sim.jobs import Jobs
from service.sim.request import sim_config
from service.sim.request_limits import simulation_problems

router = v1_router(["simulations"])


def _problem_content(description: str) -> dict[str, Any]:
    return {"description": description, "model": Problem, "content": {PROBLEM_MEDIA_TYPE: {}}}


NOT_FOUND = {404: _problem_content("No simulation with this id.")}
TOO_MANY = {429: _problem_content("Too many simulations running; retry after `Retry-After` seconds.")}
STORE_UNAVAILABLE = {
    503: _problem_content(
        "The simulation needs torch (install the `sim` extra, pip install 'zeroplan[sim]'), "
        "the job store does not answer, or this service runs no simulations (ZEROPLAN_SIM_MAX_CONCURRENT_JOBS 0)."
    )
}
POLL_AFTER_S = 2  # Retry-After on the 202: when a client may first ask for the job
ACCEPTED = {
    202: {
        "description": "The job, queued; poll its Location.",
        "headers": {
            "Location": {"description": "The job's URL, to GET until it has finished.", "schema": {"type": "string"}},
            "Retry-After": {"description": "Seconds to wait before the first poll.", "schema": {"type": "integer"}},
        },
    }
}


def get_jobs(request: Request) -> Jobs:
    return jobs_of(request.app)


def _job(job: dict[str, Any]) -> SimulationJob:
    """The stored job as the contract gives it: times in RFC 3339 (the store keeps Unix seconds)."""
    times = {name: datetime.fromtimestamp(job[name], tz=UTC) for name in ("created_at", "updated_at")}
    return SimulationJob.model_validate({**job, **times})


@router.post(
    "/simulations",
    operation_id="createSimulation",
    summary="Start a gloo simulation that measures the bytes the formulas predict",
    description="Runs DP and ZeRO-1/2/3 for real with torch.distributed (gloo, CPU) out of process and "
    "compares, per rank, measured payload and wire bytes and resident bytes with the core's formulas. "
    "With `engine: torch`, PyTorch's own DDP, ZeroRedundancyOptimizer, FSDP2 and HSDP train a small "
    "transformer and torch.distributed._tools' trackers measure each class against the plan. "
    "Answers 202 with the job (queued until a runner takes it), a Location to poll and a Retry-After "
    "saying when to first poll it.",
    status_code=202,
    response_model=SimulationJob,
    responses=ACCEPTED | PROBLEM_RESPONSES | TOO_MANY | STORE_UNAVAILABLE,
)
def create_simulation(
    body: SimulationRequest, request: Request, response: Response, settings: Settings = Depends(get_settings)
) -> Any:
    config = sim_config(body, settings.sim_collective_timeout_s)
    errors = [FieldError(detail=d, pointer=p) for d, p in simulation_problems(body, config, settings.sim_size_limits)]
    if errors:
        return problem_response(request, 422, ProblemCode.validation_error, "; ".join(e.detail for e in errors), errors)
    try:
        if settings.sim_runner == "api":
            require_sim()  # before the job store is opened: without torch nothing is written
        job = get_jobs(request).submit(body.model_dump(mode="json"), config)
    except SimulationUnavailable as exc:
        return problem_response(request, 503, ProblemCode.simulation_unavailable, exc.detail)
    except DatabaseUnavailable as exc:
        return _store_unavailable(request, exc)
    except TooManySimulations as exc:
        too_many = problem_response(request, 429, ProblemCode.too_many_requests, exc.detail)
        too_many.headers["Retry-After"] = str(exc.retry_after_s)
        return too_many
    response.headers["Location"] = str(request.url_for("getSimulation", job_id=job["id"]).path)
    response.headers["Retry-After"] = str(POLL_AFTER_S)
    return _job(job)


def _store_unavailable(request: Request, exc: DatabaseUnavailable) -> Any:
    reason = public_store_reason(exc)
    return problem_response(
        request, 503, ProblemCode.simulation_unavailable, f"the job store does not answer: {reason}"
    )


@router.get(
    "/simulations/{job_id}",
    name="getSimulation",
    operation_id="getSimulation",
    summary="Status of a simulation and, when done, its report",
    response_model=SimulationJob,
    responses={**NOT_FOUND, **STORE_UNAVAILABLE, 422: PROBLEM_RESPONSES[422], 500: PROBLEM_RESPONSES[500]},
)
def get_simulation(job_id: str, request: Request) -> Any:
    try:
        return _job(get_jobs(request).get(job_id))
    except SimulationNotFound as exc:
        return problem_response(request, 404, ProblemCode.not_found, exc.detail)
    except DatabaseUnavailable as exc:
        return _store_unavailable(request, exc)


@router.delete(
    "/simulations/{job_id}",
    operation_id="cancelSimulation",
    summary="Cancel a simulation and kill its processes",
    description="Marks the job cancelled; the process running it kills its process group (launcher and every "
    "rank) and removes its directory, on whichever replica or worker it runs. A finished job is returned unchanged.",
    response_model=SimulationJob,
    responses={**NOT_FOUND, **STORE_UNAVAILABLE, 422: PROBLEM_RESPONSES[422], 500: PROBLEM_RESPONSES[500]},
)
def cancel_simulation(job_id: str, request: Request) -> Any:
    try:
        return _job(get_jobs(request).cancel(job_id))
    except SimulationNotFound as exc:
        return problem_response(request, 404, ProblemCode.not_found, exc.detail)
    except DatabaseUnavailable as exc:
        return _store_unavailable(request, exc)
