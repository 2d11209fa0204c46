"""Operational routes: open even when a token protects /v1."""

import importlib.util
from typing import Literal

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, Field

from api.metrics import SIMULATION_JOBS, exposition
from models.simulation import SimulationStatus

router = APIRouter(tags=["health"])


class Health(BaseModel):
    status: Literal["ok"]


class Readiness(BaseModel):
    status: Literal["ready"]
    simulation_available: bool = Field(
        description="Whether the simulation extra (torch) is installed, so that simulation jobs can run."
    )


def simulation_available() -> bool:
    """The simulation extra is present; checked without importing torch."""
    return importlib.util.find_spec("torch") is not None


@router.get("/healthz", operation_id="healthz", summary="Liveness: the process answers", response_model=Health)
async def healthz() -> Health:
    return Health(status="ok")


@router.get(
    "/readyz",
    operation_id="readyz",
    summary="Readiness: the service takes requests; says whether simulations can run",
    response_model=Readiness,
)
async def readyz() -> Readiness:
    return Readiness(status="ready", simulation_available=simulation_available())


@router.get("/metrics", include_in_schema=False)
async def metrics(request: Request) -> Response:
    refresh_simulation_jobs(request)
    body, media_type = exposition()
    return Response(body, media_type=media_type)


def refresh_simulation_jobs(request: Request) -> None:
    """Set the jobs-by-state gauge from the job store, when this app has started simulations."""
    manager = getattr(request.app.state, "sim_jobs", None)
    if manager is None:
        return
    counts = manager.store.count_by_status()
    for status in SimulationStatus:
        SIMULATION_JOBS.labels(status.value).set(counts.get(status.value, 0))
