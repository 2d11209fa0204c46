"""Domain errors of the simulation. Like service/errors.py they know no HTTP status; the
simulation routes map them (503, 404, 429) and api/problems.py may list them too."""

from service.errors import DomainError

SIM_EXTRA_HINT = "pip install 'zeroplan[sim]'"


class SimulationUnavailable(DomainError):
    """torch is not installed (the `sim` extra is missing), or the service is set to run no simulations."""

    code = "simulation_unavailable"


class SimulationNotFound(DomainError):
    code = "not_found"


class TooManySimulations(DomainError):
    """Over the concurrent-job limit; retry after ``retry_after_s``."""

    code = "too_many_requests"

    def __init__(self, detail: str, retry_after_s: int) -> None:
        super().__init__(detail)
        self.retry_after_s = retry_after_s


class IncompleteCheckpoint(DomainError):
    """A sharded checkpoint with missing or corrupt shards: refused, naming each one."""

    code = "incomplete_checkpoint"

    def __init__(self, missing: list[str]) -> None:
        super().__init__("checkpoint refused; missing or corrupt: " + ", ".join(missing))
        self.missing = missing
