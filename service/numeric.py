"""Integer helpers that work the same on Python ints and numpy integer arrays."""

from typing import TypeAlias

import numpy as np
import numpy.typing as npt

IntLike: TypeAlias = int | np.integer | npt.NDArray[np.int64]

GIB_BYTES = 2**30
GB_BYTES = 10**9


def ceil_div(numerator: IntLike, denominator: IntLike) -> IntLike:
    """Ceiling of numerator / denominator in integer arithmetic (no float rounding)."""
    return -((-numerator) // denominator)


def group_digits(value: int) -> str:
    """30000000000 -> '30,000,000,000'."""
    return f"{value:,}"
