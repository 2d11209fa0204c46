"""The plan core's speed: microseconds per computed plan, in process, without HTTP.

    python -m bench.plan_core              # prints the figures
    python -m bench.plan_core --plans 500  # plans per timed batch

For each representative request, batches of distinct requests (a different parameter count or
token budget each, so nothing a whole request could key is reused; every batch new, so neither is
anything keyed by a part of one, such as an NCCL call of a bucket size no earlier plan had) are
validated, then what the API's direct path computes is timed over each batch: ``service.answers.plan.plan_fields`` (the
answer's fields, a layout's as a data-parallel plan's), then the JSON the API writes of them
(api.encoding); beside them ``service.answers.plan.plan``, the validated PlanResponse that the sweep,
figures and CLI read. CPU time of this process (``time.process_time``: time spent waiting for a
core on a shared machine is left out). Each figure is the best of ``--repeats`` batches (other load
only ever adds time). The benchmark request of ``bench.load`` (30B parameters, mixed_bf16_adam,
8 GPUs, zero3) is the first row; the second is that request as ``bench.load``'s distinct plans send
it, the parameter count a running count from 1 (bench.client's "__N__"), whose buffers and buckets
differ in size from plan to plan. All figures come from one run on this machine.
"""

import argparse
import time
from collections.abc import Callable
from typing import Any

from api.encoding import fields_json, model_json
from models.plan import LAYOUT_EXAMPLE, LEVER_RICH_EXAMPLE, PlanRequest, PlanResponse
from service.answers.plan import plan, plan_fields

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


def running_counts(body: dict[str, Any], i: int) -> dict[str, Any]:
    """The body with the parameter count bench.client gives its i-th distinct plan: 1, 2, 3, ..."""
    return body | {"model": {"parameter_count": i + 1}}


def distinct_budgets(body: dict[str, Any], i: int) -> dict[str, Any]:
    """The body with a token budget of its own: a preset keeps its shape, the request still differs."""
    return body | {"training": (body.get("training") or {}) | {"total_tokens": 10**12 + i}}


CASES: list[tuple[str, dict[str, Any], Callable[[dict[str, Any], int], dict[str, Any]]]] = [
    ("30B zero3, 8 GPUs (bench.load)", LOAD_BODY, distinct_counts),
    ("bench.load's distinct plans (counts 1, 2, ...)", LOAD_BODY, running_counts),
    ("llama-3.1-70b zero3, 64 GPUs, activations", PRESET_BODY, distinct_budgets),
    ("llama-3-70b levers (offload, selective)", LEVER_RICH_EXAMPLE, distinct_budgets),
    ("mixtral-8x7b hybrid, 256 GPUs", HYBRID_BODY, distinct_budgets),
    ("llama-3-70b tensor 8 x pipeline 4 (layout)", LAYOUT_EXAMPLE, distinct_budgets),
]


def best_us(work: Callable[[Any], object], batches: list[list[Any]]) -> float:
    """The least process time of ``work`` over one of the batches, per item."""
    best = float("inf")
    for batch in batches:
        start = time.process_time()
        work(batch)
        best = min(best, (time.process_time() - start) / len(batch))
    return best * 1e6


def answer_json(answer: PlanResponse | dict[str, Any]) -> bytes:
    """The body api.routes.planning.computed_plan writes."""
    return model_json(answer) if isinstance(answer, PlanResponse) else fields_json(answer, PlanResponse)


def measure(
    body: dict[str, Any], vary: Callable[[dict[str, Any], int], dict[str, Any]], plans: int, repeats: int
) -> tuple[float, float, float]:
    """Every timed batch of ``plans`` requests is new; the first batch warms imports, presets and what every plan
    shares, untimed, and its answers are the ones encoded (JSON keeps nothing between bodies)."""

    def batch(number: int) -> list[PlanRequest]:
        return [PlanRequest.model_validate(vary(body, number * plans + i)) for i in range(plans)]

    answers = [plan_fields(r) for r in batch(0)]
    fields_us = best_us(lambda requests: [plan_fields(r) for r in requests], [batch(b) for b in range(1, 1 + repeats)])
    json_us = best_us(lambda encoded: [answer_json(a) for a in encoded], [answers] * repeats)
    model_us = best_us(
        lambda requests: [plan(r) for r in requests], [batch(b) for b in range(1 + repeats, 1 + 2 * repeats)]
    )
    return fields_us, json_us, model_us


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plans", type=int, default=400, help="distinct requests per timed batch")
    parser.add_argument("--repeats", type=int, default=7, help="batches timed; the best is printed")
    args = parser.parse_args()
    print(f"{'request':46} {'fields us':>9} {'json us':>8} {'total us':>9} {'plan() us':>9}")
    for label, body, vary in CASES:
        fields_us, json_us, model_us = measure(body, vary, args.plans, args.repeats)
        print(f"{label:46} {fields_us:9.1f} {json_us:8.1f} {fields_us + json_us:9.1f} {model_us:9.1f}")


if __name__ == "__main__":
    main()
