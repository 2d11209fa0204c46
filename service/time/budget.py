"""Throughput and a token budget: tokens per second per GPU, steps, days, GPU-hours and their cost.

tokens/s (``service.time.compute.tokens_per_second``) over N is the per-GPU figure. A budget of T
tokens takes ceil(T / tokens per step) optimizer steps; its wall time is steps x step time, its
GPU-hours that time x N / 3600, and its cost GPU-hours x the price of one GPU-hour. This is how
llm-analysis reports a training run (cchan/llm-analysis, ``llm_analysis/analysis.py``,
``training()``: total training latency from the number of steps, and ``gpu_hours``); schedulers
book GPU-hours the same way.

Those are the ideal steps. The run as it really goes (``service.time.goodput``) also saves checkpoints,
is interrupted, restarts and redoes lost work: its wall time is the ideal time over the goodput, and
its days, GPU-hours and cost are counted on that wall time; the ideal figures stay beside them.
"""

from dataclasses import dataclass

from service.numeric import FloatLike, IntLike
from service.time.compute import tokens_per_second
from service.time.goodput import Run

SECONDS_PER_HOUR = 3600
SECONDS_PER_DAY = 86_400


@dataclass(frozen=True)
class TokenBudget:
    """What the request says about the whole run: its tokens and, optionally, the price of a GPU-hour."""

    total_tokens: int
    price: float | None = None
    currency: str = "USD"


def tokens_per_second_per_gpu(tokens_per_step: IntLike, step_s: FloatLike, world_size: IntLike) -> FloatLike:
    return tokens_per_second(tokens_per_step, step_s) / world_size


def training_steps(total_tokens: int, tokens_per_step: IntLike) -> IntLike:
    """Optimizer steps to see total_tokens: the last step is whole (ceiling division, exact in integers)."""
    return -(-total_tokens // tokens_per_step)


@dataclass(frozen=True)
class Budget:
    steps: IntLike
    training_s: FloatLike
    training_days: FloatLike
    gpu_hours: FloatLike
    cost: FloatLike | None
    ideal_training_days: FloatLike
    ideal_gpu_hours: FloatLike
    # service.time.goodput.Run.totals: expected interruptions and hours of checkpoints, restarts, lost work
    failures: dict[str, FloatLike] | None = None


def token_budget(
    total_tokens: int,
    tokens_per_step: IntLike,
    step_s: FloatLike,
    world_size: IntLike,
    gpu_hour_price: float | None,
    run: Run | None = None,
) -> Budget:
    """The budget of the ideal steps, or with ``run`` of the run as it really goes (wall time = ideal
    time / goodput)."""
    steps = training_steps(total_tokens, tokens_per_step)
    ideal_s = steps * step_s
    totals = run.totals(ideal_s) if run is not None else None
    training_s = totals["wall_s"] if totals is not None else ideal_s
    gpu_hours = training_s * world_size / SECONDS_PER_HOUR
    cost = gpu_hours * gpu_hour_price if gpu_hour_price is not None else None
    return Budget(
        steps,
        training_s,
        training_s / SECONDS_PER_DAY,
        gpu_hours,
        cost,
        ideal_s / SECONDS_PER_DAY,
        ideal_s * world_size / SECONDS_PER_HOUR,
        totals,
    )
