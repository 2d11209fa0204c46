"""Integer helpers that work the same on Python ints and numpy integer arrays."""

import math
from itertools import repeat
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

IntLike: TypeAlias = int | np.integer | npt.NDArray[np.int64]
# Seconds, FLOPs and flags: a Python float/bool for one plan, a numpy array for a sweep.
FloatLike: TypeAlias = Any
# A call count per step (k or 1): an int for one plan, an int64 array when a sweep varies k. Typed
# like FloatLike so that the scalar callers (the plan's arithmetic, the simulation) read an int.
CountLike: TypeAlias = Any

# The exact types of one plan's numbers, which the helpers below handle without asking whether they are arrays
# (an exact type test costs a fraction of isinstance against numpy's array type)
_NUMBERS = (int, float)
# Types no figure of a sweep takes (a plan leaves some figures None): values of these alone hold no array
_SCALAR_TYPES = frozenset((int, float, bool, type(None)))

GIB_BYTES = 2**30
GB_BYTES = 10**9


def ceil_div(numerator: IntLike, denominator: IntLike) -> IntLike:
    """Ceiling of numerator / denominator in integer arithmetic (no float rounding)."""
    if type(numerator) is int and type(denominator) is int:  # one plan's numbers: no array tests
        return -((-numerator) // denominator)
    if (
        isinstance(numerator, np.ndarray)
        and numerator.ndim
        and numerator.dtype == np.int64
        and _fills(numerator, denominator)
    ):
        # the same -((-n) // d), written into one array rather than three
        out = np.negative(numerator)
        np.floor_divide(out, denominator, out=out)
        return np.negative(out, out=out)
    return -((-numerator) // denominator)


def _fills(numerator: np.ndarray, denominator: object) -> bool:
    """Whether numerator // denominator is an int64 array of the numerator's shape: a signed integer scalar
    divisor, or a signed integer array of that shape."""
    if isinstance(denominator, int | np.signedinteger):
        return True
    return (
        isinstance(denominator, np.ndarray) and denominator.dtype.kind == "i" and denominator.shape == numerator.shape
    )


def lcm(a: IntLike, b: IntLike) -> IntLike:
    """Least common multiple, element-wise for arrays; Python ints stay ints."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.lcm(a, b)
    return math.lcm(int(a), int(b))


def divisors(n: int) -> list[int]:
    """Every positive divisor of n, ascending."""
    small = [d for d in range(1, math.isqrt(n) + 1) if n % d == 0]
    return sorted(set(small + [n // d for d in small]))


def group_digits(value: int) -> str:
    """30000000000 -> '30,000,000,000'."""
    return f"{value:,}"


def any_array(*values: object) -> bool:
    """Whether any of the values is a numpy array (a sweep's), not a Python number (one plan)."""
    # one plan's numbers settled by their exact types, in C; else isinstance mapped in C, not any() over a generator
    if _SCALAR_TYPES.issuperset(map(type, values)):
        return False
    return any(map(isinstance, values, repeat(np.ndarray)))


def select(condition: FloatLike, if_true: FloatLike, if_false: FloatLike) -> FloatLike:
    """np.where for arrays, a plain conditional for scalars (so scalars stay Python numbers)."""
    if type(condition) is bool:  # one plan's flag (an exact type test costs less than isinstance of an array)
        return if_true if condition else if_false
    if isinstance(condition, np.ndarray):
        return np.where(condition, if_true, if_false)
    return if_true if condition else if_false


def nearest_int(value: FloatLike) -> IntLike:
    """The nearest whole number, ties to even (np.rint and round alike): int64 arrays for arrays, ints for numbers."""
    if isinstance(value, np.ndarray):
        whole: np.ndarray = np.rint(value).astype(np.int64)
        return whole
    return int(round(value))


def minimum(a: IntLike, b: IntLike) -> IntLike:
    """Element-wise minimum that keeps Python ints as ints."""
    if type(a) in _NUMBERS and type(b) in _NUMBERS:  # one plan's numbers: no array tests
        return min(a, b)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.minimum(a, b)
    return min(a, b)


def maximum(a: IntLike, b: IntLike) -> IntLike:
    """Element-wise maximum that keeps Python ints as ints."""
    if type(a) in _NUMBERS and type(b) in _NUMBERS:  # one plan's numbers: no array tests
        return max(a, b)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.maximum(a, b)
    return max(a, b)


def gpus(count: object) -> str:
    """'1 GPU', '8 GPUs': a GPU count with its noun in agreement."""
    return f"{count} GPU" if count == 1 else f"{count} GPUs"


# What a signed 64-bit client reads (JSON Schema's int64, Java's long, numpy's int64): an answer's integers stay within.
INT64_MAX = 2**63 - 1


def outside_int64(value: Any, pointer: str = "") -> tuple[str, int] | None:
    """The JSON pointer and value of the first integer of a JSON-like value (dicts, lists, numbers) past the signed
    64-bit range, or None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return (pointer, value) if not -INT64_MAX - 1 <= value <= INT64_MAX else None
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found = outside_int64(item, f"{pointer}/{key}")
        if found is not None:
            return found
    return None
