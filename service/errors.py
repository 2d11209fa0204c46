"""Domain errors. They know no HTTP status: api/ maps each class to one."""

import copy
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

ECHO_CHARS = 200  # at most this much of a caller's own input is repeated in an error
FIELD_NAME = re.compile(r"[a-z][a-z0-9_]*")  # the contract's field names (snake case)
POINTER_PART_CHARS = 64  # of a key the caller invented, what an error repeats (a field's own name is shorter)


def echo(value: object, limit: int = ECHO_CHARS) -> str:
    """A caller's input as an error repeats it: whole when short, else its start and its length."""
    text = value if isinstance(value, str) else repr(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text):,} characters)"


def body_pointer(loc: Sequence[Any], body: Any) -> str:
    """The JSON pointer of a validation error's location (pydantic's ``loc``) in the body as sent: the parts that are
    keys and indices of the body, and a missing key's name, never a validator's internal name
    (``list[function-before[whole_float_as_int(), constrained-int]]``); a long invented key by its start."""
    parts: list[str] = []
    node, present = body, True
    for part in loc:
        if present and isinstance(node, dict) and isinstance(part, str) and part in node:
            parts.append(part)
            node = node[part]
        elif present and isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            parts.append(str(part))
            node = node[part]
        elif present and isinstance(node, dict) and isinstance(part, str) and FIELD_NAME.fullmatch(part):
            parts.append(part)  # a missing field: named, and nothing below it is the body's
            present = False
        # else: a validator's name (a union member, a function, a tag) or a part below a missing field
    return "".join("/" + _pointer_part(p).replace("~", "~0").replace("/", "~1") for p in parts)


def _pointer_part(part: str) -> str:
    return part if len(part) <= POINTER_PART_CHARS else echo(part, POINTER_PART_CHARS)


def validation_message(error: Mapping[str, Any]) -> str:
    """Pydantic's message for one error, in the contract's words: a model is "an object", never its class name
    ("a valid dictionary or instance of ModelSpec")."""
    if error.get("type") in ("model_type", "model_attributes_type", "dataclass_type"):
        return "Input should be an object"
    return str(error.get("msg", "invalid")).removeprefix("Value error, ")


def field_name(pointer: str) -> str:
    """'/cluster/world_size' -> 'cluster.world_size' (the body itself: 'body')."""
    return pointer.lstrip("/").replace("/", ".") or "body"


def validation_field_errors(errors: Sequence[Mapping[str, Any]], body: Any) -> list[tuple[str, str]]:
    """(pointer, "field.name: message") of each of pydantic's errors, located in ``body`` (body_pointer)."""
    out = []
    for error in errors:
        pointer = body_pointer(tuple(error.get("loc", ())), body)
        out.append((pointer, f"{field_name(pointer)}: {validation_message(error)}"))
    return out


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


class NeverFinishes(OutOfRange):
    """A run of training.total_tokens that never ends: interruptions under cluster.failures come faster than a
    restart and a checkpoint interval absorb (service.time.run_report); a search counts such a job, not skips it."""


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
