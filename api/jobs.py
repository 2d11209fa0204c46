"""The app's simulation jobs: opened at start-up, closed at shutdown (the app's lifespan).

At start-up the job store is opened and, when this process runs simulations (``sim_runner=api``
and torch installed), a runner starts: it takes over what an earlier process left (adopting
running simulations, finishing those whose report is on disk) and claims queued jobs. At
shutdown the runner stops claiming, lets running jobs end for ``sim_shutdown_grace_s`` and hands
the rest back to the queue. An app served without its lifespan opens the store on first use.

Reads for /readyz and /metrics go through ``probe``: off the event loop, one at a time, and
bounded by ``store_timeout_s``, so a locked or unreachable store answers "not ready" instead of
stalling the service.
"""

import asyncio
import logging
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from fastapi import FastAPI

import service.sim
from api.settings import Settings
from service.sim.db import DatabaseUnavailable
from service.sim.jobs import JobLimits, Jobs
from service.sim.store import JobStore

T = TypeVar("T")
log = logging.getLogger("zeroplan.jobs")
_open_lock = threading.Lock()


def job_limits(settings: Settings) -> JobLimits:
    return JobLimits(
        max_concurrent=settings.sim_max_concurrent_jobs,
        max_queued=settings.sim_max_queued_jobs,
        timeout_s=settings.sim_timeout_s,
        lease_ttl_s=settings.sim_lease_s,
        shutdown_grace_s=settings.sim_shutdown_grace_s,
        request_timeout_s=settings.store_timeout_s,  # a locked store is a 503 within it, as for /readyz
    )


def runs_here(settings: Settings) -> bool:
    return settings.sim_runner == "api" and service.sim.sim_available()


def open_jobs(settings: Settings, run: bool) -> Jobs:
    """The job store and, when ``run``, a started runner."""
    from service.sim.runner import JobRunner

    store = JobStore(settings.job_store_url)
    limits = job_limits(settings)
    runner = JobRunner(store, limits) if run else None
    if runner is not None:
        runner.start()
    return Jobs(store, limits, runner)


def jobs_of(app: FastAPI) -> Jobs:
    """This app's jobs, opened on first use when the lifespan did not open them."""
    with _open_lock:
        jobs: Jobs | None = getattr(app.state, "sim_jobs", None)
        if jobs is None:
            settings: Settings = app.state.settings
            jobs = open_jobs(settings, runs_here(settings))
            app.state.sim_jobs = jobs
        return jobs


def start_jobs(app: FastAPI) -> None:
    """Lifespan start: open the store when simulations can run here or by workers."""
    settings: Settings = app.state.settings
    app.state.store_probe = StoreProbe(settings.store_timeout_s)
    if runs_here(settings) or settings.sim_runner == "worker":
        try:
            jobs_of(app)
        except DatabaseUnavailable:
            pass  # /readyz says why; the first simulation request tries again


def stop_jobs(app: FastAPI) -> None:
    jobs: Jobs | None = getattr(app.state, "sim_jobs", None)
    app.state.sim_jobs = None
    if jobs is not None:
        jobs.close()


class StoreProbe:
    """Store reads in a thread, one of each kind at a time, each waited for at most ``timeout_s``.
    A read that outlives its wait keeps its thread until the store's own timeout (the same
    ``timeout_s``) ends it; callers meanwhile share it instead of starting more."""

    def __init__(self, timeout_s: float) -> None:
        self.timeout_s = timeout_s
        self._running: dict[str, asyncio.Future[Any]] = {}

    async def run(self, kind: str, read: Callable[[], T]) -> T:
        loop = asyncio.get_running_loop()
        running = self._running.get(kind)
        if running is None or running.done() or running.get_loop() is not loop:
            running = self._running[kind] = asyncio.ensure_future(asyncio.to_thread(read))
            running.add_done_callback(_retrieved)
        try:
            result: T = await asyncio.wait_for(asyncio.shield(running), self.timeout_s)
        except TimeoutError as exc:
            raise DatabaseUnavailable(f"the job store did not answer within {self.timeout_s:g} s") from exc
        return result


def _retrieved(future: "asyncio.Future[Any]") -> None:
    """Its caller may have stopped waiting: its error is read here so that asyncio does not log it."""
    if not future.cancelled():
        future.exception()


def public_store_reason(exc: DatabaseUnavailable) -> str:
    """Why the store failed, for any caller: the kind of failure, never a file path or database coordinates
    (the log line keeps the whole error for the operator)."""
    text = str(exc)
    log.warning("job store unavailable", extra={"fields": {"error": text}})
    lowered = text.lower()
    if "did not answer within" in lowered:
        return text  # the probe's own words: a duration, nothing of the store's location
    if "locked" in lowered or ("lock" in lowered and "timeout" in lowered):
        return "the job store is locked by another process"
    if "full" in lowered or "read-only" in lowered or "readonly" in lowered:
        return "the job store cannot be written (its disk is full or read-only)"
    if "not a database" in lowered or "malformed" in lowered or "corrupt" in lowered:
        return "the job store is corrupt"
    return "the job store cannot be reached; the service's log has the error"


def store_probe(app: FastAPI) -> StoreProbe:
    probe: StoreProbe | None = getattr(app.state, "store_probe", None)
    if probe is None:
        settings: Settings = app.state.settings
        probe = app.state.store_probe = StoreProbe(settings.store_timeout_s)
    return probe
