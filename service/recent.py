"""The last few answers of a pure function over numbers and numpy arrays, kept per thread.

A grid (service.engine.layout_grid) asks some costly pure functions the same question several times over
arrays of many layouts: NCCL's pair terms of one group for each of its calls' buffers (service.time.nccl), a
layer's seconds for each recompute mode (service.time.efficiency). ``recent(kept)`` wraps such a function:
a call whose arguments equal those of one of the last ``kept`` calls (numbers by ==, arrays by shape, dtype and
every bit) returns that call's answer, the same object; the answers must be read, never written, by the
callers. Nothing is kept across threads, and at most ``kept`` answers per function and thread.
"""

import threading
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

import numpy as np

Result = TypeVar("Result")


def same(a: object, b: object) -> bool:
    """Whether two arguments are the same numbers: one object, equal arrays (shape, dtype, values), or equal
    values of one type."""
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
            return False
        return a.shape == b.shape and a.dtype == b.dtype and _same_bits(a, b)
    if type(a) is not type(b):
        return False
    try:
        return bool(a == b)
    except ValueError:  # a value holding arrays, whose == is elementwise: unknown, so not the same
        return False


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two arrays of one shape and dtype hold the same bits (0.0 and -0.0 differ, a NaN equals itself)."""
    if a.dtype.itemsize not in (1, 2, 4, 8):
        return a.tobytes() == b.tobytes()
    unsigned = np.dtype(f"u{a.dtype.itemsize}")
    return bool(np.array_equal(np.ascontiguousarray(a).view(unsigned), np.ascontiguousarray(b).view(unsigned)))


_KEYWORDS = object()  # between a call's positional arguments and its keyword ones


def _same_argument(a: object, b: object) -> bool:
    if isinstance(a, tuple) and isinstance(b, tuple):  # a keyword argument: (name, value)
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return same(a, b)


def recent(kept: int) -> Callable[[Callable[..., Result]], Callable[..., Result]]:
    """Keep the answers of the wrapped function's last ``kept`` distinct calls (a keyword argument is another
    call than the same value passed by position)."""

    def wrap(function: Callable[..., Result]) -> Callable[..., Result]:
        local = threading.local()

        @wraps(function)
        def wrapped(*given: Any, **named: Any) -> Result:
            args = (*given, _KEYWORDS, *sorted(named.items())) if named else given
            answers: list[tuple[tuple[Any, ...], Result]] = getattr(local, "answers", None) or []
            for position, (other, answer) in enumerate(answers):
                if len(other) == len(args) and all(_same_argument(a, b) for a, b in zip(other, args, strict=True)):
                    answers.insert(0, answers.pop(position))
                    return answer
            answer = function(*given, **named)
            answers.insert(0, (args, answer))
            del answers[kept:]
            local.answers = answers
            return answer

        return wrapped

    return wrap
