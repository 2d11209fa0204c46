"""service.numeric.ceil_div: the ceiling of integer division, on Python ints and int64 arrays alike."""

import numpy as np

from service.numeric import ceil_div

NUMERATORS = [-9, -8, -7, -1, 0, 1, 7, 8, 9, 2**62 + 1]


def test_scalars() -> None:
    # ceil(7 / 4) = 2, ceil(8 / 4) = 2, ceil(9 / 4) = 3, ceil(-7 / 4) = -1, ceil(-9 / 4) = -2
    assert [ceil_div(n, 4) for n in (7, 8, 9, -7, -9, 0)] == [2, 2, 3, -1, -2, 0]


def test_array_over_scalar_divisor() -> None:
    values = np.array(NUMERATORS, dtype=np.int64)
    expected = [-2, -2, -1, 0, 0, 1, 2, 2, 3, 2**60 + 1]  # ceil(n / 4), by hand
    out = ceil_div(values, 4)
    assert out.dtype == np.int64
    assert out.tolist() == expected
    assert values.tolist() == NUMERATORS  # the numerator is left as it was


def test_array_over_array_divisor() -> None:
    values = np.array([[7, 8, -7], [9, 1, 0]], dtype=np.int64)
    divisors = np.array([[4, 3, 2], [2, 5, 7]], dtype=np.int64)
    # ceil(7/4)=2, ceil(8/3)=3, ceil(-7/2)=-3, ceil(9/2)=5, ceil(1/5)=1, ceil(0/7)=0
    assert ceil_div(values, divisors).tolist() == [[2, 3, -3], [5, 1, 0]]


def test_broadcast_divisor_widens_the_answer() -> None:
    values = np.array([7, 9], dtype=np.int64)
    divisors = np.array([[2], [4]], dtype=np.int64)
    # a divisor of another shape broadcasts as numpy does: ceil(7/2)=4, ceil(9/2)=5, ceil(7/4)=2, ceil(9/4)=3
    assert ceil_div(values, divisors).tolist() == [[4, 5], [2, 3]]


def test_zero_dimensional_array_answers_a_scalar() -> None:
    out = ceil_div(np.array(7, dtype=np.int64), 4)
    assert not isinstance(out, np.ndarray)
    assert out == 2
