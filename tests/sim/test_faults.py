"""Acceptance 3 of issue 5: a slow rank is reported, a dropped rank makes the others fail within
the timeout and leaves no process behind, a partial checkpoint is refused and a complete one
resumes exactly."""

import tempfile

import pytest

pytest.importorskip("torch")

from service.inputs.arrangements import ZERO2, ZERO3  # noqa: E402
from service.sim.config import DroppedRank, PartialCheckpoint, RunSpec, SimConfig, SlowRank  # noqa: E402
from service.sim.run import simulate  # noqa: E402
from tests.sim.helpers import alive  # noqa: E402

pytestmark = [pytest.mark.sim, pytest.mark.sim_timeout(60)]

COLLECTIVE_TIMEOUT_S = 2.0


def config(**faults: object) -> SimConfig:
    return SimConfig(
        world_size=4,
        runs=(RunSpec.of(ZERO2),),
        steps=6,
        parameter_count=20_000,
        collective_timeout_s=COLLECTIVE_TIMEOUT_S,
        measure_builtin=False,
        **faults,
    )  # type: ignore[arg-type]


def test_slow_rank_is_named_and_its_delay_counted_as_its_own_time() -> None:
    """Nothing here depends on how busy the machine is: the slow rank sleeps ``delay_s`` at the start
    of each slowed step, outside any collective, so its own (busy) time is at least that whatever
    the load, and that makes it the rank named. How much every rank's step rises is timing:
    ``python bench/sim.py faults`` prints it."""
    delay_s = 0.3
    cfg = config(slow_rank=SlowRank(rank=2, delay_s=delay_s))
    report = simulate(cfg, deadline_s=50)
    slow = report["faults"]["slow_rank"]
    assert report["succeeded"]
    assert slow["slow_rank"] == slow["configured_rank"] == 2
    assert slow["from_step"] == cfg.steps // 2 and slow["delay_s"] == delay_s
    assert len(slow["rise_s"]) == len(slow["busy_s"]) == cfg.world_size
    assert slow["busy_s"][2] >= delay_s


@pytest.mark.parametrize("mode", ["exit", "hang"])
def test_dropped_rank_fails_the_others_within_the_timeout_and_leaves_no_process(mode: str) -> None:
    report = simulate(config(dropped_rank=DroppedRank(rank=1, step=3, mode=mode)), deadline_s=50)
    failure = report["faults"]["failure"]
    assert not report["succeeded"]
    assert [r["rank"] for r in failure["ranks_without_result"]] == [1]
    assert failure["ranks_without_result"][0]["killed"] == (mode == "hang")
    assert sorted(f["rank"] for f in failure["failed_ranks"]) == [0, 2, 3]
    assert failure["failed_at_steps"] == [3]
    # The survivors ended on their own collective timeout, not on the run's deadline (how soon is
    # timing: bench/sim.py faults).
    assert failure["timed_out"] is False
    assert not any(alive(r["pid"]) for r in report["ranks"])


def test_partial_checkpoint_is_refused_and_a_complete_one_resumes_exactly() -> None:
    with tempfile.TemporaryDirectory() as directory:
        cfg = SimConfig(
            world_size=4,
            runs=(RunSpec.of(ZERO3),),
            steps=5,
            parameter_count=20_000,
            measure_builtin=False,
            partial_checkpoint=PartialCheckpoint(step=2, writer_rank=0),
            checkpoint_dir=directory,
        )
        report = simulate(cfg, deadline_s=50)
    checkpoint = report["faults"]["checkpoint"]
    assert report["succeeded"]
    assert checkpoint["partial_refused"]
    assert checkpoint["missing"] == [f"shard-{r}.pt (rank {r}: missing)" for r in (1, 2, 3)]
    assert checkpoint["resumed_equal"]


def test_corrupt_shard_is_refused(tmp_path: object) -> None:
    from pathlib import Path

    from service.sim import checkpoint
    from service.sim.errors import IncompleteCheckpoint

    directory = Path(str(tmp_path))
    cfg = SimConfig(
        world_size=2,
        runs=(RunSpec.of(ZERO2),),
        steps=2,
        parameter_count=2_000,
        measure_builtin=False,
        partial_checkpoint=PartialCheckpoint(step=1, writer_rank=0),
        checkpoint_dir=str(directory),
    )
    assert simulate(cfg, deadline_s=50)["succeeded"]
    complete = directory / "complete"
    checkpoint.verify(str(complete), 2)
    shard = complete / checkpoint.shard_name(1)
    data = bytearray(shard.read_bytes())
    data[len(data) // 2] ^= 0xFF  # one flipped byte, same size
    shard.write_bytes(bytes(data))
    with pytest.raises(IncompleteCheckpoint) as refused:
        checkpoint.verify(str(complete), 2)
    assert refused.value.missing == ["shard-1.pt (rank 1: checksum mismatch)"]


def test_the_command_line_exits_1_when_the_simulation_fails(capsys):
    """`zeroplan simulate` printed "job failed" and exited 0 (README: a run that fails exits 1)."""
    from cli.main import run

    fault = '[{"kind": "dropped_rank", "rank": 1, "step": 0}]'
    argv = ["--world-size", "2", "--arrangements", "ddp", "--steps", "2", "--parameter-count", "1000"]
    code = run(["simulate", *argv, "--faults", fault])
    out = capsys.readouterr().out
    assert code == 1 and "failed" in out
    assert "verdict: incomplete (a rank failed, was dropped or the job ran out of time)" in out  # said "confirmed: ..."
    assert run(["simulate", *argv]) == 0
