"""bench.plan_opcodes counts each function's calls and bytecode instructions, by itself and with its callees."""

import sys

from bench.plan_opcodes import Counts


def inner(x: int) -> int:
    return x + 1


def outer() -> int:
    return inner(inner(1))


def test_calls_and_instructions_are_counted_by_function_and_with_callees():
    counts = Counts()
    sys.settrace(counts.trace)
    try:
        outer()
    finally:
        sys.settrace(None)
    name_outer = next(name for name in counts.calls if name.endswith(":outer"))
    name_inner = next(name for name in counts.calls if name.endswith(":inner"))
    assert counts.calls[name_outer] == 1 and counts.calls[name_inner] == 2
    assert counts.own[name_inner] > 0 and counts.own[name_outer] > 0
    # the outer function's inclusive count is its own instructions and both calls of the inner one, no more
    assert counts.inclusive[name_outer] == counts.own[name_outer] + counts.own[name_inner]
    assert counts.inclusive[name_inner] == counts.own[name_inner]
    assert name_outer.startswith("benchmarks/test_plan_opcodes.py")
