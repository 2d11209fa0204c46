"""Throughput and a token budget: tokens per second per GPU, steps, days, GPU-hours and their cost.

tokens/s (``service.compute.tokens_per_second``) over N is the per-GPU figure. A budget of T
tokens takes ceil(T / tokens per step) optimizer steps; its wall time is steps x step time, its
GPU-hours that time x N / 3600, and its cost GPU-hours x the price of one GPU-hour. This is how
llm-analysis reports a training run (cchan/llm-analysis, ``llm_analysis/analysis.py``,
``training()``: total training latency from the number of steps, and ``gpu_hours``); schedulers
book GPU-hours the same way.
"""

from dataclasses import dataclass

from service.compute import tokens_per_second
from service.numeric import FloatLike, IntLike

SECONDS_PER_HOUR = 3600
SECONDS_PER_DAY = 86_400


@dataclass(frozen=True)
class TokenBudget:
    """What the request says about the whole run: its tokens and, optionally, the price of a GPU-hour."""

    total_tokens: int
    price: float | None = None


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


def token_budget(
    total_tokens: int, tokens_per_step: IntLike, step_s: FloatLike, world_size: IntLike, gpu_hour_price: float | None
) -> Budget:
    steps = training_steps(total_tokens, tokens_per_step)
    training_s = steps * step_s
    gpu_hours = training_s * world_size / SECONDS_PER_HOUR
    cost = gpu_hours * gpu_hour_price if gpu_hour_price is not None else None
    return Budget(steps, training_s, training_s / SECONDS_PER_DAY, gpu_hours, cost)
