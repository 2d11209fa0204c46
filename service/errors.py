"""Domain errors. They know no HTTP status: api/ maps each class to one."""


class DomainError(Exception):
    """A request the core cannot answer, with a stable code and the field it concerns."""

    code = "domain_error"

    def __init__(self, detail: str, pointer: str | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.pointer = pointer


class NonMonotoneSharding(DomainError):
    code = "non_monotone_sharding"


class InvalidClusterShape(DomainError):
    code = "invalid_cluster_shape"


class EmptyGrid(DomainError):
    code = "empty_grid"


class GridTooLarge(DomainError):
    code = "grid_too_large"


class MissingArchitecture(DomainError):
    code = "missing_architecture"


class SweepTooLarge(DomainError):
    code = "sweep_too_large"


class SweepOverflow(DomainError):
    code = "sweep_overflow"
