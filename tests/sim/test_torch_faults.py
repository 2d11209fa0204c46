"""Issue 13: under the torch engine a slow rank slows every rank and is named, and a dropped rank
makes the others fail within the collective timeout and leaves no process behind, as with the
rings (tests/sim/test_faults.py)."""

import pytest

pytest.importorskip("torch")

from service.sim.config import DroppedRank, SlowRank  # noqa: E402
from service.sim.engines.torch_config import TorchSimConfig  # noqa: E402
from service.sim.engines.torch_run import simulate  # noqa: E402
from tests.sim.helpers import alive  # noqa: E402

pytestmark = [pytest.mark.sim, pytest.mark.sim_timeout(60)]

COLLECTIVE_TIMEOUT_S = 2.0


def config(**faults: object) -> TorchSimConfig:
    return TorchSimConfig(
        world_size=2, arrangements=("zero3",), steps=4, collective_timeout_s=COLLECTIVE_TIMEOUT_S, **faults
    )  # type: ignore[arg-type]


def test_slow_rank_is_named_and_its_delay_counted_as_its_own_time() -> None:
    # Load-proof: the delay is slept before the step's first collective, so the slow rank's busy
    # time is at least the delay on any machine. Every rank's rise is timing: bench/sim.py faults.
    delay_s = 0.3
    cfg = config(slow_rank=SlowRank(rank=1, delay_s=delay_s))
    report = simulate(cfg, deadline_s=50)
    slow = report["faults"]["slow_rank"]
    assert report["succeeded"]
    assert slow["slow_rank"] == slow["configured_rank"] == 1
    assert slow["from_step"] == cfg.steps // 2 and len(slow["rise_s"]) == cfg.world_size
    assert slow["busy_s"][1] >= delay_s


# "exit" only: a hanging rank is killed by the same launcher code, which tests/sim/test_faults.py covers.
@pytest.mark.parametrize("mode", ["exit"])
def test_dropped_rank_fails_the_others_within_the_timeout_and_leaves_no_process(mode: str) -> None:
    report = simulate(config(dropped_rank=DroppedRank(rank=1, step=3, mode=mode)), deadline_s=50)
    failure = report["faults"]["failure"]
    assert not report["succeeded"]
    assert [r["rank"] for r in failure["ranks_without_result"]] == [1]
    assert failure["ranks_without_result"][0]["killed"] == (mode == "hang")
    assert [f["rank"] for f in failure["failed_ranks"]] == [0]
    assert failure["failed_at_steps"] == [3]
    assert failure["timed_out"] is False  # ended by the collective timeout, not the run's deadline
    assert not any(alive(r["pid"]) for r in report["ranks"])


def test_a_hanging_rank_fails_a_pipeline_layout_within_the_timeout() -> None:
    """DeviceMesh's sub-groups (data, pipeline) take the job's collective timeout: with c10d's default
    (30 minutes for gloo) the peers of a hanging rank would wait until the job's deadline."""
    cfg = TorchSimConfig(
        world_size=4,
        pipeline=2,
        micro_batches=2,
        arrangements=("zero3",),
        collective_timeout_s=COLLECTIVE_TIMEOUT_S,
        dropped_rank=DroppedRank(rank=2, step=2, mode="hang"),
    )
    report = simulate(cfg, deadline_s=50)
    failure = report["faults"]["failure"]
    assert [r["rank"] for r in failure["ranks_without_result"]] == [2]
    assert failure["ranks_without_result"][0]["killed"]
    # the survivors fail on their collective timeout; one still waiting when the first is reported is killed
    assert {f["rank"] for f in failure["failed_ranks"]} <= {0, 1, 3} and failure["failed_ranks"]
    assert failure["timed_out"] is False  # ended by the collective timeout, not the run's deadline
    assert not any(alive(r["pid"]) for r in report["ranks"])
