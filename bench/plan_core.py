"""The plan core's speed: microseconds per computed plan, in process, without HTTP.

    python -m bench.plan_core              # prints the figures
    python -m bench.plan_core --plans 500  # plans per timed batch

For each representative request, a batch of distinct requests (a different parameter count or
token budget each, so nothing a whole request could key is reused) is validated once, then
``service.planner.plan`` is timed over the batch, then ``model_dump_json`` over its answers, in CPU
time of this process (``time.process_time``: time spent waiting for a core on a shared machine is
left out). Each figure is the best of ``--repeats`` batches (other load only ever adds time).
The benchmark request of ``bench.load`` (30B parameters, mixed_bf16_adam, 8 GPUs, zero3) is the
first row. All figures come from one run on this machine.
"""

import argparse
import time
from collections.abc import Callable
from typing import Any

from models.plan import LAYOUT_EXAMPLE, LEVER_RICH_EXAMPLE, PlanRequest, PlanResponse
from service.planner import plan

LOAD_BODY: dict[str, Any] = {
    "model": {"parameter_count": 30_000_000_000},
    "precision": "mixed_bf16_adam",
    "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "seed-80gb"},
    "arrangement": "zero3",
}
PRESET_BODY: dict[str, Any] = {
    "model": {"preset": "llama-3.1-70b"},
    "precision": "mixed_bf16_adam",
    "training": {"micro_batch_size": 1, "sequence_length": 8192},
    "activations": {"model": "transformer"},
    "cluster": {"world_size": 64, "gpus_per_node": 8, "gpu": "h100-80gb", "links": "nvlink4-ib400"},
    "arrangement": "zero3",
}
HYBRID_BODY: dict[str, Any] = {
    "model": {"preset": "mixtral-8x7b"},
    "precision": "fsdp2",
    "training": {"utilisation": 0.4},
    "cluster": {"world_size": 256, "gpus_per_node": 8, "gpu": "h100-80gb", "links": "nvlink4-ib400"},
    "arrangement": "hybrid",
}


def distinct_counts(body: dict[str, Any], i: int) -> dict[str, Any]:
    """The body with a parameter count of its own (bench.load's distinct plans)."""
    return body | {"model": {"parameter_count": 30_000_000_000 + i}}


def distinct_budgets(body: dict[str, Any], i: int) -> dict[str, Any]:
    """The body with a token budget of its own: a preset keeps its shape, the request still differs."""
    return body | {"training": (body.get("training") or {}) | {"total_tokens": 10**12 + i}}


CASES: list[tuple[str, dict[str, Any], Callable[[dict[str, Any], int], dict[str, Any]]]] = [
    ("30B zero3, 8 GPUs (bench.load)", LOAD_BODY, distinct_counts),
    ("llama-3.1-70b zero3, 64 GPUs, activations", PRESET_BODY, distinct_budgets),
    ("llama-3-70b levers (offload, selective)", LEVER_RICH_EXAMPLE, distinct_budgets),
    ("mixtral-8x7b hybrid, 256 GPUs", HYBRID_BODY, distinct_budgets),
    ("llama-3-70b tensor 8 x pipeline 4 (layout)", LAYOUT_EXAMPLE, distinct_budgets),
]


def best_us(work: Callable[[], object], count: int, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best / count * 1e6


def measure(body: dict[str, Any], vary: Callable[[dict[str, Any], int], dict[str, Any]], plans: int, repeats: int):
    requests = [PlanRequest.model_validate(vary(body, i)) for i in range(plans)]
    answers: list[PlanResponse] = [plan(r) for r in requests]  # warm: imports, presets, small caches
    plan_us = best_us(lambda: [plan(r) for r in requests], plans, repeats)
    json_us = best_us(lambda: [a.model_dump_json() for a in answers], plans, repeats)
    return plan_us, json_us


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plans", type=int, default=400, help="distinct requests per timed batch")
    parser.add_argument("--repeats", type=int, default=7, help="batches timed; the best is printed")
    args = parser.parse_args()
    print(f"{'request':46} {'plan us':>8} {'json us':>8} {'total us':>9}")
    for label, body, vary in CASES:
        plan_us, json_us = measure(body, vary, args.plans, args.repeats)
        print(f"{label:46} {plan_us:8.1f} {json_us:8.1f} {plan_us + json_us:9.1f}")


if __name__ == "__main__":
    main()
