"""Issue 14, item 7: a failure message says what happened, a wall-clock timeout or a lost rank."""

from service.sim.faults import dropped_report


def rank(r: int, killed: bool, exit_code: int | None) -> dict:
    return {"rank": r, "pid": 100 + r, "exit_code": exit_code, "killed": killed}


def test_a_wall_clock_timeout_is_not_called_a_lost_rank() -> None:
    launched = {
        "results": [None, None],
        "ranks": [rank(0, True, -9), rank(1, True, -9)],
        "timed_out": True,
        "deadline_s": 120.0,
    }
    report = dropped_report(launched)
    assert report is not None
    assert report["summary"] == (
        "timed out: the simulation ran past its wall-clock limit of 120 s; ranks still running were killed: 0, 1"
    )


def test_a_lost_rank_is_named_with_how_it_went() -> None:
    survivor = {"rank": 0, "failure": {"run": 0, "step": 3, "error": "Connection closed by peer", "after_s": 2.1}}
    launched = {"results": [survivor, None], "ranks": [rank(0, False, 0), rank(1, False, 3)], "timed_out": False}
    report = dropped_report(launched)
    assert report is not None
    assert report["summary"] == "lost rank 1 (exit code 3); the others failed at step 3"
    hung = {**launched, "ranks": [rank(0, False, 0), rank(1, True, -9)]}
    assert dropped_report(hung)["summary"] == "lost rank 1 (killed after hanging); the others failed at step 3"  # type: ignore[index]
