"""Domain errors. They know no HTTP status: api/ maps each class to one."""

import copy
from collections.abc import Callable

ECHO_CHARS = 200  # at most this much of a caller's own input is repeated in an error


def echo(value: object, limit: int = ECHO_CHARS) -> str:
    """A caller's input as an error repeats it: whole when short, else its start and its length."""
    text = value if isinstance(value, str) else repr(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text):,} characters)"


class DomainError(Exception):
    """A request the core cannot answer, with a stable code and the field it concerns."""

    code = "domain_error"

    def __init__(self, detail: str, pointer: str | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.pointer = pointer

    def field_errors(self) -> list[tuple[str, str]]:
        """(detail, JSON pointer) of each field the error concerns."""
        return [(self.detail, self.pointer)] if self.pointer else []

    def __reduce__(self) -> tuple[object, ...]:
        # Pickled whole (heavy work runs in worker processes): Exception's default rebuilds the error
        # from its message alone, which the subclasses that take a list of problems cannot take.
        return _rebuild, (type(self), self.args, self.__dict__)


def repointed(error: DomainError, where: Callable[[str], str]) -> DomainError:
    """The same error, each pointer moved by ``where``: a plan's refusal inside a request that holds the plan (a
    sweep's ``/base``, one of its ``/axes/model/<i>``)."""
    moved = copy.copy(error)
    moved.pointer = where(error.pointer) if error.pointer else None
    problems = getattr(moved, "problems", None)  # the classes that name several fields, each with its detail
    if problems is not None:
        moved.__dict__["problems"] = [(detail, where(pointer)) for detail, pointer in problems]
    pointers = getattr(moved, "pointers", None)  # AnswerOutOfRange's fields, under one detail
    if pointers is not None:
        moved.__dict__["pointers"] = [where(pointer) for pointer in pointers]
    return moved


def _rebuild(cls: type[DomainError], args: tuple[object, ...], state: dict[str, object]) -> DomainError:
    error = cls.__new__(cls)
    Exception.__init__(error, *args)
    error.__dict__.update(state)
    return error


class NonMonotoneSharding(DomainError):
    code = "non_monotone_sharding"


class InvalidClusterShape(DomainError):
    code = "invalid_cluster_shape"


class InvalidModel(DomainError):
    code = "validation_error"


class EmptyGrid(DomainError):
    code = "empty_grid"


class GridTooLarge(DomainError):
    code = "grid_too_large"


class MissingArchitecture(DomainError):
    code = "missing_architecture"


class SweepTooLarge(DomainError):
    code = "sweep_too_large"


class UnknownSortKey(DomainError):
    code = "validation_error"


class SearchTooLarge(DomainError):
    code = "search_too_large"


class SweepOverflow(DomainError):
    code = "sweep_overflow"


class InvalidHfConfig(DomainError):
    """A config.json the importer cannot read: every problem with its own pointer."""

    code = "invalid_hf_config"

    def __init__(self, detail: str, problems: list[tuple[str, str]]) -> None:
        super().__init__(detail, pointer=problems[0][1] if problems else None)
        self.problems = problems

    def field_errors(self) -> list[tuple[str, str]]:
        return list(self.problems)


class OutOfRange(DomainError):
    """A field whose bound depends on another resolved value (a layer larger than the model)."""

    code = "validation_error"


class ProblemList(DomainError):
    """A refusal of several fields, each (detail, pointer): the detail is theirs joined."""

    code = "validation_error"

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        super().__init__("; ".join(detail for detail, _ in problems), pointer=problems[0][1] if problems else None)
        self.problems = problems

    def field_errors(self) -> list[tuple[str, str]]:
        return list(self.problems)


class InvalidLayout(ProblemList):
    """Degrees of a mesh that do not fit the cluster, the model or the batch: every factor named."""


class InvalidSimulation(ProblemList):
    """A simulation past the service's sizes, or one its engine cannot run exactly: every problem named."""


class AnswerOutOfRange(DomainError):
    """An answer holding an integer past what a signed 64-bit client reads (2^63 - 1); ``pointers``: the request's
    fields its size grows with (the transport names them: api.encoding.sizes_named)."""

    code = "answer_out_of_range"

    def __init__(self, detail: str, pointers: list[str] | None = None) -> None:
        super().__init__(detail, pointer=pointers[0] if pointers else None)
        self.pointers = list(pointers or [])

    def field_errors(self) -> list[tuple[str, str]]:
        return [(self.detail, pointer) for pointer in self.pointers]


class ResponseTooLarge(DomainError):
    code = "response_too_large"


class DeadlineExceeded(DomainError):
    code = "deadline_exceeded"


class WorkOutOfMemory(DomainError):
    """Heavy work that needed more memory than a worker process may take."""

    code = "work_out_of_memory"


class WorkCancelled(DomainError):
    code = "work_cancelled"
