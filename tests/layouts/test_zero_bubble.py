"""The zero-bubble schedules as published, from their pass times.

- Qi et al. 2023 ("Zero Bubble Pipeline Parallelism", ICLR 2024), section 2 and table 2: with p stages
  and per-micro-batch pass times T_F (forward), T_B (input gradients) and T_W (weight gradients),
  1F1B idles (p - 1)(T_F + T_B + T_W), ZB-H1 (p - 1)(T_F + T_B - T_W) and ZB-H2 (p - 1)(T_F + T_B - 2 T_W);
  peak activations p M_B, p M_B and (2p - 1) M_B. With T_F = T_B = T_W, ZB-H1's bubble is a third of
  1F1B's and ZB-H2's is zero. Section 4: the optimizer step's synchronisation (global norm, inf/NaN)
  breaks ZB-H2's parallelogram; optimizer post-validation removes it. Without it the parallelogram's
  skew, one forward pass per stage boundary, (p - 1) T_F, is idle at every step (our derivation from
  the parallelogram: stage i starts i T_F after stage 0 and holds the same work).
- Qi et al. 2024 ("Pipeline Parallelism with Controllable Memory", NeurIPS 2024): V-ZB holds 1F1B's p
  micro-batches of activations on every device and is bubble-free when W + 2B >= 2F and W + 2F >= 2B.
- The F, B, W split of a backward (section 2, table 1): dW = x^T dy costs what dx = dy W^T costs, so W is
  half the backward; a recomputed forward belongs to B, which needs the activations first.
"""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.parallelism import PipelineSchedule
from service.mesh.pipeline import SCHEDULE_SOURCES, bubble_seconds, in_flight, pass_seconds

S = PipelineSchedule
ZB_H1, ZB_H2, ZB_V = S.zero_bubble_h1, S.zero_bubble, S.zero_bubble_v


def stage_totals(m: int, f: float, b: float, w: float) -> tuple[float, float, float]:
    """(forward_s, backward_s, recomputed_s) of m micro-batches whose passes take f, b and w (b >= w)."""
    return m * f, m * (b + w), m * (b - w)


def test_pass_times_split_the_backward_in_half_beyond_recomputation():
    # 2 s of forward and 4 s of backward: W = 4 / 2 = 2 = B; with the forward recomputed in the backward
    # (2 + 4 s), W is still the 2 s of weight gradients and B the 2 s of input gradients + 2 s recomputed.
    assert pass_seconds(2.0, 4.0) == (2.0, 2.0, 2.0)
    assert pass_seconds(2.0, 6.0, 2.0) == (2.0, 4.0, 2.0)


@pytest.mark.parametrize("p", [2, 4, 8])
def test_table_2_with_equal_pass_times(p):
    # T_F = T_B = T_W = 1 s, m = 3p: 1F1B 3 (p - 1), ZB-H1 (p - 1) (a third), ZB-H2 0 with post-validation
    m, t = 3 * p, 1.0
    forward_s, backward_s, recomputed_s = stage_totals(m, t, t, t)
    assert recomputed_s == 0

    def idle(schedule, validated=False):
        return bubble_seconds(schedule, p, 1, m, forward_s, backward_s, recomputed_s, validated)

    assert idle(S.one_f_one_b) == pytest.approx(3 * (p - 1) * t)
    assert idle(ZB_H1) == pytest.approx((p - 1) * t) == pytest.approx(idle(S.one_f_one_b) / 3)
    assert idle(ZB_H2, validated=True) == 0
    assert idle(ZB_V, validated=True) == 0
    # Without post-validation the step's barrier costs the warm-up skew: (p - 1) T_F for ZB-H2, whose
    # forward passes walk the p stages, and (p - 1) T_F / 2 for ZB-V, whose chunks are half a stage.
    assert idle(ZB_H2) == pytest.approx((p - 1) * t)
    assert idle(ZB_V) == pytest.approx((p - 1) * t / 2)
    # ZB-H1's trapezoid is 1F1B's: its bubble is the same with or without post-validation
    assert idle(ZB_H1, validated=True) == idle(ZB_H1)


def test_table_2_with_unequal_pass_times():
    # T_F = 2, T_B = 1.5, T_W = 1 (s), p = 4, m = 8: every formula of table 2 written out
    p, m = 4, 8
    totals = stage_totals(m, 2.0, 1.5, 1.0)
    assert bubble_seconds(S.one_f_one_b, p, 1, m, *totals) == pytest.approx(3 * (2 + 1.5 + 1))  # 13.5
    assert bubble_seconds(ZB_H1, p, 1, m, *totals) == pytest.approx(3 * (2 + 1.5 - 1))  # 7.5
    assert bubble_seconds(ZB_H2, p, 1, m, *totals, True) == pytest.approx(3 * (2 + 1.5 - 2))  # 4.5: not zero
    # without post-validation the skew 3 x T_F = 6 s comes back: 10.5 s, more than ZB-H1's 7.5 s, whose
    # schedule fits in ZB-H2's memory (the fork's scheduler, section 3, would run it)
    assert bubble_seconds(ZB_H2, p, 1, m, *totals) == pytest.approx(min(4.5 + 3 * 2, 7.5))
    # ZB-V: W + 2B = 4 >= 2F = 4 and W + 2F = 5 >= 2B = 3 hold, so only the skew without post-validation
    assert bubble_seconds(ZB_V, p, 1, m, *totals, True) == 0
    assert bubble_seconds(ZB_V, p, 1, m, *totals) == pytest.approx(3 * 2 / 2)
    # T_F = 3: W + 2B = 4 < 2F = 6 by 2, charged at chunk size on each of the 3 hops: 3 x 2 / 2
    assert bubble_seconds(ZB_V, p, 1, m, *stage_totals(m, 3.0, 1.5, 1.0), True) == pytest.approx(3.0)


def test_zb_h2_is_zero_where_the_weight_gradients_fill_it():
    # T_F + T_B <= 2 T_W: the formula is not positive, the bubble is 0 (never negative)
    p, m = 8, 32
    assert bubble_seconds(ZB_H2, p, 1, m, *stage_totals(m, 1.0, 1.0, 1.0), True) == 0
    assert bubble_seconds(ZB_H2, p, 1, m, *stage_totals(m, 0.5, 1.0, 1.0), True) == 0


pass_time = st.floats(0.01, 10.0)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(list(PipelineSchedule)),
    st.integers(1, 64),
    st.integers(1, 512),
    pass_time,
    pass_time,
    pass_time,
    st.booleans(),
)
def test_every_bubble_is_a_share_in_0_1_and_zero_only_where_the_source_says(schedule, p, m, f, x, y, validated):
    b, w = max(x, y), min(x, y)  # B >= W: B holds the input gradients (and any recomputation)
    v = 2 if schedule is S.interleaved else 1
    forward_s, backward_s, recomputed_s = stage_totals(m, f, b, w)
    compute_s = forward_s + backward_s
    idle = bubble_seconds(schedule, p, v, m, forward_s, backward_s, recomputed_s, validated)
    share = idle / (compute_s + idle)
    assert 0 <= share < 1
    if p == 1:
        assert idle == 0
        return
    one_f_one_b = (p - 1) * (f + b + w)
    if schedule in (S.one_f_one_b, S.gpipe):
        assert idle == pytest.approx(one_f_one_b)
    if schedule is S.interleaved:
        assert idle == pytest.approx(one_f_one_b / v)
    zb_h1 = (p - 1) * (f + b - w)
    if schedule is ZB_H1:
        assert idle == pytest.approx(zb_h1) and idle <= one_f_one_b  # deferring W never adds idle time
    if schedule is ZB_H2:
        assert idle <= zb_h1 * (1 + 1e-12)  # ZB-H1's schedule fits in ZB-H2's memory
    zero_allowed = {
        ZB_H2: validated and f + b <= 2 * w * (1 + 1e-9),
        ZB_V: validated and w + 2 * b >= 2 * f * (1 - 1e-9) and w + 2 * f >= 2 * b * (1 - 1e-9),
    }
    if idle == 0:
        assert zero_allowed.get(schedule, False), (schedule, f, b, w, validated)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(list(PipelineSchedule)), st.booleans(), st.randoms(use_true_random=False))
def test_the_array_path_is_the_scalar_path(schedule, validated, rng):
    # service.engine.layout_grid pushes arrays of layouts through the function one plan calls with numbers
    p = np.array([rng.randint(1, 32) for _ in range(16)])
    m = p * rng.randint(1, 8) + 1
    v = np.full(16, 2 if schedule is S.interleaved else 1)
    f = np.array([rng.uniform(0.1, 5.0) for _ in range(16)]) * m
    bw = f * np.array([rng.uniform(1.0, 4.0) for _ in range(16)])
    again = f * rng.choice([0.0, 1.0])
    many = bubble_seconds(schedule, p, v, m, f, bw + again, again, validated)
    one = [
        bubble_seconds(
            schedule, int(p[i]), int(v[i]), int(m[i]), float(f[i]), float(bw[i] + again[i]), float(again[i]), validated
        )
        for i in range(16)
    ]
    assert many.tolist() == one


def test_each_schedule_names_the_framework_that_runs_it():
    assert set(SCHEDULE_SOURCES) == set(PipelineSchedule)
    assert "ScheduleZBVZeroBubble" in SCHEDULE_SOURCES[ZB_V]
    assert "ScheduleInterleavedZeroBubble" in SCHEDULE_SOURCES[ZB_H1]
    assert "Megatron-Core" in SCHEDULE_SOURCES[S.one_f_one_b]


def test_zb_h1_over_model_chunks_divides_its_bubble_by_v():
    # torch.distributed.pipelining's ScheduleInterleavedZeroBubble runs ZB1P over v stages per rank: each pass
    # a chunk of 1/v of the stage's, so ZB-H1's (p - 1)(T_F + T_B - T_W) of chunk passes is the stage's over v
    p, m, v = 4, 8, 2
    totals = stage_totals(m, 2.0, 1.5, 1.0)
    assert bubble_seconds(ZB_H1, p, v, m, *totals) == pytest.approx(3 * (2 + 1.5 - 1) / 2)  # 3.75
    # its memory is interleaving's: Megatron's warm-up count, (p - i - 1) x 2 + (v - 1) x p + 1 chunks of 1/v
    assert in_flight(ZB_H1, 0, p, v, m) == in_flight(S.interleaved, 0, p, v, m) == Fraction(3 * 2 + 4 + 1, 2)
