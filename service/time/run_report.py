"""The run's budget as the answer's time reports it: the ideal steps, then checkpoints, interruptions and
restarts (service.time.goodput) on top, for the data-parallel plan (service.answers.plan) and the layout plan
(service.answers.layout_plan) alike."""

from dataclasses import dataclass
from typing import Any

from service.errors import NeverFinishes
from service.numeric import IntLike, ceil_div
from service.time.budget import Budget, TokenBudget, token_budget
from service.time.goodput import Resilience, run_finishes, run_of


# Not frozen: one is built for every plan, and a frozen dataclass's __init__ costs several times more.
@dataclass
class RunInputs:
    """What a plan's time needs beyond its step: the token budget (None without one) and the run's
    checkpoints and failures."""

    budget: TokenBudget | None
    resilience: Resilience


def run_fields(
    inputs: RunInputs,
    saved: int,
    staged: IntLike,
    host_bytes_per_s: float,
    step_s: float,
    tokens_per_step: int,
    world_size: int,
    gpus_per_node: int,
) -> dict[str, Any]:
    """The time's fields from total_tokens to checkpoint, in the order Time declares them; ``saved``: the bytes of one
    checkpoint (service.time.goodput.checkpoint_bytes, as a setup keeps it: Setup.checkpoint_bytes)."""
    spec, budget = inputs.resilience, inputs.budget
    run = run_of(spec, step_s, world_size, gpus_per_node, saved, staged, host_bytes_per_s)
    whole = (
        token_budget(budget.total_tokens, tokens_per_step, step_s, world_size, budget.price, run)
        if budget is not None
        else None
    )
    if whole is not None and not run_finishes(run.goodput, float(whole.training_days)):
        raise NeverFinishes(
            f"the run never finishes: at {spec.interruptions_per_gpu_hour:g} interruptions per GPU-hour the job of "
            f"{world_size:,} GPUs is interrupted every {float(run.mtbf_s):.3g} s, less than a restart of "
            f"{float(run.restart_s):.3g} s and a checkpoint interval can absorb",
            pointer="/cluster/failures",
        )
    totals = whole.failures if whole is not None else None
    failing = spec.interruptions_per_gpu_hour > 0
    checkpoints = run.interval_steps != float("inf")
    return {
        **(NO_BUDGET if budget is None or whole is None else budget_fields(budget, whole)),
        "goodput": float(run.goodput),
        **(NO_FAILURES if totals is None else failure_fields(totals)),
        "checkpoint": {
            "interval_steps": int(run.interval_steps) if checkpoints else None,
            "interval_s": float(run.interval_s) if checkpoints else None,
            "optimal_interval_s": float(run.optimal_interval_s) if failing else None,
            "young_interval_s": float(run.young_interval_s) if failing else None,
            "bytes": saved,
            "bytes_per_node": int(ceil_div(saved, ceil_div(world_size, gpus_per_node))),
            "staged_bytes_per_gpu": int(staged),
            "save": "asynchronous" if spec.asynchronous else "synchronous",
            "storage_bytes_per_s_per_node": float(spec.node_bytes_per_s),
            "write_s": float(run.write_s),
            "stall_s": float(run.stall_s),
            "restart_s": float(run.restart_s),
            "interruptions_per_gpu_hour": float(spec.interruptions_per_gpu_hour),
            "job_mtbf_hours": float(run.mtbf_s) / 3600 if failing else None,
            "sources": [f"storage: {spec.storage_source}", f"failures: {spec.failures_source}"],
        },
    }


# The time's fields of a run without a token budget (most plans): before the goodput, and after it.
NO_BUDGET: dict[str, Any] = dict.fromkeys(
    (
        "total_tokens",
        "training_steps",
        "training_days",
        "gpu_hours",
        "cost",
        "currency",
        "ideal_training_days",
        "ideal_gpu_hours",
    )
)
NO_FAILURES: dict[str, Any] = dict.fromkeys(
    ("expected_interruptions", "checkpoint_hours", "restart_hours", "lost_work_hours")
)


def budget_fields(budget: TokenBudget, whole: Budget) -> dict[str, Any]:
    """The time's fields from total_tokens to ideal_gpu_hours (NO_BUDGET's) for a token budget."""
    return {
        "total_tokens": budget.total_tokens,
        "training_steps": int(whole.steps),
        "training_days": float(whole.training_days),
        "gpu_hours": float(whole.gpu_hours),
        "cost": float(whole.cost) if whole.cost is not None else None,
        "currency": budget.currency if whole.cost is not None else None,
        "ideal_training_days": float(whole.ideal_training_days),
        "ideal_gpu_hours": float(whole.ideal_gpu_hours),
    }


def failure_fields(totals: dict[str, Any]) -> dict[str, Any]:
    """The time's fields from expected_interruptions to lost_work_hours (NO_FAILURES') from a run's totals."""
    return {
        "expected_interruptions": float(totals["expected_interruptions"]),
        "checkpoint_hours": float(totals["checkpoint_hours"]),
        "restart_hours": float(totals["restart_hours"]),
        "lost_work_hours": float(totals["lost_work_hours"]),
    }
