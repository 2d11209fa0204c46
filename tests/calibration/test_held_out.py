"""The committed constants meet the issue's held-out targets on the published corpus (no timing)."""

import statistics

from bench.calibration.__main__ import CORPUS, TARGET_MAX, TARGET_MEDIAN, split
from bench.calibration.model import relative_error


def test_held_out_rows_within_the_targets():
    evaluable = [r for r in CORPUS if not r.excluded]
    fit, held = split(evaluable)
    assert len(fit) >= 10 and len(held) >= 10
    assert not set(r.name for r in fit) & set(r.name for r in held)
    errors = [abs(relative_error(r)) for r in held]
    assert statistics.median(errors) <= TARGET_MEDIAN
    assert max(errors) <= TARGET_MAX
