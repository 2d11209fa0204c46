"""What the report says about the three failure modes (DESIGN.md, last section); no torch.

- slow rank: every rank's mean step time before and after the delay starts (step steps // 2);
  everyone waits at the next collective, so every rank's time rises by about the delay. The
  slow rank is named as the one with the most time outside collectives (busy_s): the others
  spend the delay waiting.
- dropped rank: the ranks that left no result (exit code, or killed after hanging) and, for
  every survivor, the run and step where its collective failed and how long it took.
- checkpoint: the shards a partial checkpoint was refused for, and whether resuming from the
  complete one reproduced the uninterrupted run exactly.
"""

from statistics import mean
from typing import Any

from service.sim.config import SimConfig


def slow_report(cfg: SimConfig, results: list[dict[str, Any]]) -> dict[str, Any]:
    assert cfg.slow_rank is not None
    cut = cfg.steps // 2
    baseline, slowed, busy = [], [], []
    for r in results:
        steps = [s for run in r["runs"] for s in run["steps"]]
        per_run = [run["steps"] for run in r["runs"]]
        before = [s["step_s"] for steps_ in per_run for s in steps_[1:cut]]
        after = [s for steps_ in per_run for s in steps_[cut:]]
        baseline.append(mean(before) if before else min(s["step_s"] for s in steps))
        slowed.append(mean(s["step_s"] for s in after))
        busy.append(mean(s["step_s"] - s["wait_s"] for s in after))
    named = max(range(len(busy)), key=busy.__getitem__)
    return {
        "delay_s": cfg.slow_rank.delay_s,
        "from_step": cut,
        "baseline_step_s": baseline,
        "slowed_step_s": slowed,
        "rise_s": [b - a for a, b in zip(baseline, slowed, strict=True)],
        "busy_s": busy,
        "slow_rank": named,
        "configured_rank": cfg.slow_rank.rank,
    }


def dropped_report(launched: dict[str, Any]) -> dict[str, Any] | None:
    results, ranks = launched["results"], launched["ranks"]
    missing = [ranks[r] for r, res in enumerate(results) if res is None]
    failures = [
        {"rank": res["rank"], **{k: res["failure"][k] for k in ("run", "step", "error", "after_s")}}
        for res in results
        if res is not None and res["failure"] is not None
    ]
    if not missing and not failures and not launched["timed_out"]:
        return None
    steps = sorted({f["step"] for f in failures if f["step"] is not None})
    return {
        "ranks_without_result": missing,
        "failed_ranks": failures,
        "failed_at_steps": steps,
        "timed_out": launched["timed_out"],
        "summary": _timeout_summary(launched, missing, steps) if launched["timed_out"] else _summary(missing, steps),
    }


def _summary(missing: list[dict[str, Any]], steps: list[int]) -> str:
    gone = ", ".join(f"rank {m['rank']} ({_how(m)})" for m in missing) or "no rank"
    at = ", ".join(map(str, steps)) or "unknown"
    return f"lost {gone}; the others failed at step {at}"


def _timeout_summary(launched: dict[str, Any], missing: list[dict[str, Any]], steps: list[int]) -> str:
    """The job's wall-clock limit ended it: every rank still running then was killed, none was lost."""
    limit_s = launched.get("deadline_s")
    limit = f" of {limit_s:g} s" if limit_s is not None else ""
    killed = ", ".join(str(m["rank"]) for m in missing if m["killed"]) or "none"
    text = f"timed out: the simulation ran past its wall-clock limit{limit}; ranks still running were killed: {killed}"
    if steps:
        text += f"; ranks had failed at step {', '.join(map(str, steps))} before that"
    return text


def _how(rank_facts: dict[str, Any]) -> str:
    return "killed after hanging" if rank_facts["killed"] else f"exit code {rank_facts['exit_code']}"


def checkpoint_report(results: list[dict[str, Any]]) -> dict[str, Any]:
    refused = sorted({m for r in results for m in r["checkpoint"]["refused_missing"]})
    return {
        "saved_at_step": results[0]["checkpoint"]["saved_at_step"],
        "partial_refused": bool(refused),
        "missing": refused,
        "resumed_equal": all(r["checkpoint"]["resumed_equal"] for r in results),
    }
