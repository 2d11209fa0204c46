"""The limits a job runs under, read by the API's admission (jobs.py) and by the runner (runner.py), and the sizes a
request may ask for (service.sim.request_limits)."""

from dataclasses import dataclass

START_MARGIN_S = 15.0  # interpreter start, torch import and the report, beyond the ranks' own limit


@dataclass(frozen=True)
class JobLimits:
    max_concurrent: int = 2  # running at once, across every process sharing the store; 0: none
    max_queued: int = 16  # waiting beyond those
    timeout_s: float = 120.0  # the simulation's own wall-clock limit
    lease_ttl_s: float = 30.0
    shutdown_grace_s: float = 10.0
    request_timeout_s: float | None = None  # a submission's wait for the store's write lock; None: the store's

    @property
    def hard_limit_s(self) -> float:
        return self.timeout_s + START_MARGIN_S


@dataclass(frozen=True)
class SizeLimits:
    """ZEROPLAN_SIM_MAX_WORLD_SIZE, ZEROPLAN_SIM_MAX_WEIGHTS and ZEROPLAN_SIM_MAX_STEPS."""

    world_size: int
    weights: int
    steps: int
