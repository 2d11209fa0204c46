"""The mesh's rules and what they read are one expression each, over a plan's numbers or a grid's arrays.

Each function is evaluated on every schedule, pipeline degree and virtual stage count twice: on Python numbers
(what /v1/plan validates; the answer must stay a Python bool or int, never a numpy scalar) and on one array of
all the cases at once (what the search and layout sweeps mask). The expected values are written here from the
definitions: ZB-V's V is zb_v on more than one stage (Qi et al. 2024), the interleaved schedule always runs
chunks and ZB-H1 with v > 1 (torch.distributed.pipelining ScheduleInterleavedZeroBubble), d = n / (t p c),
m = B / (b d), the sequence split c (x t with sequence parallelism).
"""

import itertools

import numpy as np
import pytest

from models.parallelism import PipelineSchedule
from service.mesh.degrees import (
    SCHEDULES,
    Mesh,
    ModelLimits,
    chunked,
    data_degree,
    layer_chunks,
    layout_problem_masks,
    micro_batches,
    sequence_split,
    takes_chunks,
    tensor_sequence_split,
    trivial,
)
from service.mesh.pipeline import output_stage, schedule_in, split_chunks, v_shaped

S = PipelineSchedule
CASES = list(itertools.product(SCHEDULES, (1, 2, 3, 8), (1, 2, 4)))  # (schedule, pipeline, virtual stages)


def _expected(schedule: PipelineSchedule, p: int, v: int) -> dict[str, int | bool]:
    v_shape = schedule is S.zero_bubble_v and p > 1
    takes = schedule in (S.interleaved, S.zero_bubble_h1)
    return {
        "v_shaped": v_shape,
        "takes_chunks": takes,
        "chunked": schedule is S.interleaved or (schedule is S.zero_bubble_h1 and v > 1),
        "layer_chunks": 2 if v_shape else (v if takes else 1),
        "split_chunks": 2 if v_shape else v,
        "output_stage": 0 if v_shape else p - 1,
        "fills": schedule in (S.one_f_one_b, S.interleaved, S.zero_bubble_h1, S.zero_bubble_v),
    }


def _evaluated(schedule: object, p: object, v: object) -> dict[str, object]:
    fill = (S.one_f_one_b, S.interleaved, S.zero_bubble_h1, S.zero_bubble_v)
    return {
        "v_shaped": v_shaped(schedule, p),
        "takes_chunks": takes_chunks(schedule),
        "chunked": chunked(schedule, v),
        "layer_chunks": layer_chunks(schedule, p, v),
        "split_chunks": split_chunks(schedule, p, v),
        "output_stage": output_stage(v_shaped(schedule, p), p),
        "fills": schedule_in(schedule, fill),
    }


@pytest.mark.parametrize(("schedule", "p", "v"), CASES)
def test_on_a_plans_numbers_each_schedule_rule_is_its_definition_in_python_numbers(
    schedule: PipelineSchedule, p: int, v: int
) -> None:
    got = _evaluated(schedule, p, v)
    assert got == _expected(schedule, p, v)
    for name, value in got.items():
        assert type(value) in (bool, int), f"{name} gave {type(value).__name__}, not a Python number"


def test_on_arrays_the_same_functions_give_every_case_at_once() -> None:
    codes = np.array([SCHEDULES.index(schedule) for schedule, _, _ in CASES])
    p = np.array([case[1] for case in CASES])
    v = np.array([case[2] for case in CASES])
    got = _evaluated(codes, p, v)
    for name, values in got.items():
        expected = [_expected(*case)[name] for case in CASES]
        assert np.asarray(values).shape == (len(CASES),), name
        assert np.asarray(values).tolist() == expected, name


def test_the_degrees_formulas_on_numbers_and_arrays() -> None:
    n, t, p, c, e, etp = 96, 2, 4, 3, 1, 2
    assert data_degree(n, t, p, c) == 4  # 96 / (2 x 4 x 3)
    assert micro_batches(512, 7, 2, 4) == 64  # 512 / (2 x 4); the accumulation steps ignored
    assert micro_batches(None, 7, 2, 4) == 7
    assert sequence_split(t, c, True) == 6 and sequence_split(t, c, False) == 3
    assert tensor_sequence_split(t, True) == 2 and tensor_sequence_split(t, False) == 1
    assert trivial(1, 1, 1, 1, 1) is True and trivial(1, 1, 1, 1, etp) is False
    worlds, tensors = np.array([96, 64, 8]), np.array([2, 1, 1])
    assert data_degree(worlds, tensors, 4, np.array([3, 2, 1])).tolist() == [4, 8, 2]
    assert micro_batches(512, 1, np.array([1, 2, 4]), np.array([4, 8, 2])).tolist() == [128, 32, 64]
    assert sequence_split(tensors, 2, np.array([True, True, False])).tolist() == [4, 2, 2]
    assert tensor_sequence_split(tensors, np.array([True, False, True])).tolist() == [2, 1, 1]
    assert trivial(tensors, 1, 1, e, np.array([1, 1, 2])).tolist() == [False, True, False]


def test_the_rules_on_a_plans_numbers_stay_python_bools() -> None:
    """layout_problem_masks on one layout's numbers: each rule's result a Python bool (what layout_problems reads
    with ``if``), never a numpy scalar or a 0-d array."""
    limits = ModelLimits(80, 64, 8, experts=8)
    for schedule, p, v in CASES:
        mesh = Mesh(64 * p, 8, tensor=2, pipeline=p, expert=2, schedule=schedule, virtual_stages=v)
        rules = layout_problem_masks(limits, mesh, schedule, True, 1, 4096, 512, 1)
        assert rules, "every layout is checked by some rule"
        for rule in rules:
            assert type(rule.failing) is bool, (schedule, p, v, rule.name, type(rule.failing))
