"""Operational routes: open even when a token protects /v1.

/readyz and /metrics read the job store through the app's store probe (api/jobs.py): off the
event loop and within ``store_timeout_s``, so a locked, corrupt or unreachable store makes the
service "not ready" (503) instead of freezing it.
"""

import hmac
from typing import Any, Literal

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field, SecretStr

from api.jobs import jobs_of, public_store_reason, runs_here, store_probe
from api.metrics import JOB_STORE_UP, SIMULATION_JOBS, exposition
from api.problems import problem_response
from api.settings import Settings
from models.problem import ProblemCode
from models.simulation import SimulationStatus
from service.sim.db import DatabaseUnavailable

router = APIRouter(tags=["health"])


class Health(BaseModel):
    status: Literal["ok"]


class Readiness(BaseModel):
    status: Literal["ready", "not_ready"]
    simulation_available: bool = Field(
        description="Whether this service takes simulation jobs: torch is installed here, "
        "or `zeroplan worker` processes run them, and ZEROPLAN_SIM_MAX_CONCURRENT_JOBS is above 0."
    )
    job_store: Literal["ok", "unavailable", "not_used"] = Field(
        description="The simulation job store: read within the store timeout (`ok`), failing or too slow "
        "(`unavailable`, with `detail`), or not needed because simulations are unavailable (`not_used`)."
    )
    detail: str | None = Field(default=None, description="Why the service is not ready.")


@router.get("/healthz", operation_id="healthz", summary="Liveness: the process answers", response_model=Health)
async def healthz() -> Health:
    return Health(status="ok")


@router.get(
    "/readyz",
    operation_id="readyz",
    summary="Readiness: the service takes requests and its job store answers",
    response_model=Readiness,
    responses={503: {"model": Readiness, "description": "Not ready: the job store is locked, corrupt or unreachable."}},
)
async def readyz(request: Request) -> Any:
    settings: Settings = request.app.state.settings
    available = (runs_here(settings) or settings.sim_runner == "worker") and settings.sim_max_concurrent_jobs > 0
    if not available:
        return Readiness(status="ready", simulation_available=False, job_store="not_used")
    app = request.app
    try:
        await store_probe(app).run("ping", lambda: jobs_of(app).store.ping(settings.store_timeout_s))
    except DatabaseUnavailable as exc:
        reason = public_store_reason(exc)
        body = Readiness(status="not_ready", simulation_available=True, job_store="unavailable", detail=reason)
        return JSONResponse(body.model_dump(), status_code=503)
    return Readiness(status="ready", simulation_available=True, job_store="ok")


@router.get("/metrics", include_in_schema=False)
async def metrics(request: Request) -> Response:
    settings: Settings = request.app.state.settings
    if settings.metrics_token is not None and not _metrics_token_presented(request, settings.metrics_token):
        refusal = problem_response(
            request, 401, ProblemCode.unauthorized, "/metrics needs `Authorization: Bearer <ZEROPLAN_METRICS_TOKEN>`"
        )
        refusal.headers["WWW-Authenticate"] = 'Bearer realm="zeroplan-metrics"'
        return refusal
    await refresh_simulation_jobs(request)
    body, media_type = exposition()
    return Response(body, media_type=media_type)


def _metrics_token_presented(request: Request, token: SecretStr) -> bool:
    scheme, _, presented = request.headers.get("authorization", "").strip().partition(" ")
    expected = token.get_secret_value().encode()
    return scheme.lower() == "bearer" and hmac.compare_digest(presented.strip().encode(), expected)


async def refresh_simulation_jobs(request: Request) -> None:
    """Set the jobs-by-state gauge from the job store, when this app has opened it; a store that
    does not answer in time leaves the gauge as it was and sets zeroplan_job_store_up to 0."""
    jobs = getattr(request.app.state, "sim_jobs", None)
    if jobs is None:
        return
    settings: Settings = request.app.state.settings
    try:
        probe = store_probe(request.app)
        counts = await probe.run("count", lambda: jobs.store.count_by_status(settings.store_timeout_s))
    except DatabaseUnavailable:
        JOB_STORE_UP.set(0)
        return
    JOB_STORE_UP.set(1)
    for status in SimulationStatus:
        SIMULATION_JOBS.labels(status.value).set(counts.get(status.value, 0))
