"""Simulation jobs as the API sees them: admit, read, cancel (store only, no torch).

Jobs live in the job store (store.py), shared by every process and replica; they are run by a
``JobRunner`` (runner.py) in the API process, or in ``zeroplan worker`` processes. Admission
counts the queued and running jobs in the store, so the limits hold across processes.
"""

import time
import uuid
from typing import TYPE_CHECKING, Any

from service.errors import echo
from service.sim.config import SimConfig
from service.sim.engines.torch_config import TorchSimConfig
from service.sim.errors import SimulationNotFound, SimulationUnavailable, TooManySimulations
from service.sim.job_limits import JobLimits
from service.sim.store import JobStore, StoreFull

if TYPE_CHECKING:
    from service.sim.runner import JobRunner

RETRY_AFTER_S = 5
CANCEL_REASON = "cancelled by DELETE"
CANCEL_WAIT_S = 5.0  # how long a DELETE waits for another process to end the job's processes
PUBLIC_FIELDS = ("id", "status", "created_at", "updated_at", "request", "report", "error")


class Jobs:
    """What the API asks of the job store; ``runner`` is set when this process runs jobs too."""

    def __init__(self, store: JobStore, limits: JobLimits, runner: "JobRunner | None" = None) -> None:
        self.store, self.limits, self.runner = store, limits, runner

    def submit(self, request: dict[str, Any], cfg: SimConfig | TorchSimConfig) -> dict[str, Any]:
        limits = self.limits
        if limits.max_concurrent <= 0:  # set off, not busy: no retry would be taken
            raise SimulationUnavailable("this service runs no simulations (ZEROPLAN_SIM_MAX_CONCURRENT_JOBS is 0)")
        try:
            row = self.store.insert(
                uuid.uuid4().hex,
                request,
                cfg.to_json(),
                limits.max_concurrent + limits.max_queued,
                timeout_s=limits.request_timeout_s,
            )
        except StoreFull as full:
            raise TooManySimulations(
                f"{full.active} simulations are queued or running; this service runs {limits.max_concurrent} "
                f"at once and queues {limits.max_queued} more; retry later",
                RETRY_AFTER_S,
            ) from full
        if self.runner is not None:
            self.runner.wake()
        return public(row)

    def get(self, job_id: str) -> dict[str, Any]:
        row = self.store.get(job_id)
        if row is None:
            raise SimulationNotFound(f"no simulation with id {echo(job_id)}")
        return public(row)

    def cancel(self, job_id: str) -> dict[str, Any]:
        """Cancel a queued or running job and answer once its processes are gone (this process ends
        its own at once; another runner within a lease renewal, waited for up to CANCEL_WAIT_S).
        A finished job is returned unchanged."""
        self.get(job_id)
        if self.store.cancel(job_id, CANCEL_REASON) and self.runner is not None:
            self.runner.end_if_local(job_id)
        deadline = time.monotonic() + CANCEL_WAIT_S
        while True:
            row = self.store.get(job_id)
            assert row is not None
            if row["owner"] is None or row["status"] != "cancelled" or time.monotonic() > deadline:
                return public(row)
            time.sleep(0.1)

    def close(self) -> None:
        if self.runner is not None:
            self.runner.shutdown()
        self.store.close()


def public(row: dict[str, Any]) -> dict[str, Any]:
    return {name: row.get(name) for name in PUBLIC_FIELDS}
