"""service.recent: a pure function's last answers, found again only by arguments equal bit for bit."""

import threading

import numpy as np

from service.recent import recent, same


def counted(kept: int):
    calls: list[tuple] = []

    @recent(kept)
    def double(values, scale=1):
        calls.append((values, scale))
        return values * 2 * scale

    return double, calls


def test_equal_arrays_get_the_kept_answer_itself():
    double, calls = counted(2)
    first = double(np.array([1, 2, 3]))
    again = double(np.array([1, 2, 3]))  # another array with the same shape, dtype and values
    assert again is first
    assert len(calls) == 1


def test_arrays_that_differ_in_a_bit_dtype_or_shape_are_asked_again():
    double, calls = counted(8)
    double(np.array([0.0, 1.0]))
    double(np.array([-0.0, 1.0]))  # == compares equal, the bits differ (and 1 / x does too)
    double(np.array([0, 1]))  # int64, not float64
    double(np.array([[0.0, 1.0]]))  # (1, 2), not (2,)
    double(0.0)  # a number, not an array
    assert len(calls) == 5


def test_only_the_last_kept_calls_are_kept():
    double, calls = counted(2)
    for value in (1, 2, 3):
        double(np.array([value]))
    double(np.array([3]))
    double(np.array([2]))
    assert len(calls) == 3  # 3 and 2 still kept
    double(np.array([1]))  # dropped when 3 came
    assert len(calls) == 4


def test_a_keyword_argument_is_its_own_call():
    double, calls = counted(4)
    assert double(np.array([1]), 3).tolist() == [6]
    assert double(np.array([1]), scale=3).tolist() == [6]
    assert double(np.array([1]), scale=3).tolist() == [6]
    assert len(calls) == 2


def test_threads_keep_their_own_answers():
    double, calls = counted(4)
    double(np.array([7]))
    worker = threading.Thread(target=double, args=(np.array([7]),))
    worker.start()
    worker.join(timeout=10)
    assert len(calls) == 2


def test_same_numbers_of_one_type():
    assert same(2, 2) and not same(2, 2.0) and not same(True, 1)
    assert same("all_reduce", "all_reduce")
