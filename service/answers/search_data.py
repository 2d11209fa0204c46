"""/v1/search for a model without an architecture: data parallelism is its only layout.

A bare parameter count (or a model whose shape is not given) has no layers to split, no heads to divide and no
activations to count, so the layouts of service.answers.search do not exist for it; /v1/plan still plans it over
data parallelism. Its space is the world sizes, the arrangements, the micro-batch sizes and the levers
(recompute, optimizer offload), each combination planned as /v1/plan plans it (service.answers.plan: the
data-parallel evaluation, the one a plan, a fit and a sweep read) and ranked by the objective as the layout search
ranks its rows. A combination /v1/plan refuses (a global batch that does not split into whole micro-batches,
hybrid sharding off whole nodes) is skipped with its reason; a lever that changes no byte and no second is
dominated (recompute without activations counted only adds a forward pass). A combination whose run never finishes
training.total_tokens under cluster.failures (/v1/plan refuses it at /cluster/failures) is counted, as the layout
search counts it: planned without the token budget for its bytes, in ``fitting`` and ``never_finishing`` when it
fits, and never ranked.
"""

import itertools
from collections import Counter
from typing import Any

from models.enums import ArrangementName, Recompute
from models.plan import PlanResponse
from models.search import SearchObjective, SearchRequest, SearchResponse
from service.answers.search_rows import (
    asked_body,
    asked_row,
    changes,
    front_reason,
    plan_asked,
    plan_of,
    ranked_rows,
    row,
)
from service.answers.search_space import (
    _axis,
    data_parallel_restrict,
    default_micro_batches,
    lever_arrangements,
    restricted_arrangements,
    search_too_large,
)
from service.engine.layout_grid import RECOMPUTES
from service.errors import DomainError, MissingArchitecture, NeverFinishes
from service.work_budget import WorkBudget

# A /v1/plan body's layout over data parallelism alone, as every row of the layout search states its own.
TRIVIAL_LAYOUT: dict[str, Any] = {
    "tensor": 1,
    "pipeline": 1,
    "context": 1,
    "expert": 1,
    "virtual_stages": 1,
    "pipeline_schedule": "1f1b",
    "sequence_parallel": False,
}
RECOMPUTE_DOMINATED = "recomputation without activations counted: no byte saved, no second gained (dominated)"


def objective_key(objective: SearchObjective, answer: PlanResponse) -> tuple[float, ...]:
    """What the objective ranks by, smaller first, ties to fewer GPUs (as the layout search ranks)."""
    time, n = answer.time, answer.world_size
    figure = {
        SearchObjective.step_s: time.step_s,
        SearchObjective.tokens_per_s_per_gpu: -time.tokens_per_s_per_gpu,
        SearchObjective.gpus: float(n),
        SearchObjective.training_days: time.training_days,
        SearchObjective.gpu_hours: time.gpu_hours,
        SearchObjective.cost: time.cost,
    }[objective]
    assert figure is not None  # check_objective refused an objective whose figure needs a missing field
    return (float(figure), float(n), time.step_s) if objective is SearchObjective.gpus else (float(figure), float(n))


def data_parallel_space(request: SearchRequest, batch: int) -> dict[str, list[Any]]:
    """The values searched on each axis: the request's world sizes, every arrangement, the micro-batch sizes up to
    64 (and the batch) and both levers, each as restrict narrows it; a model-parallel degree other than 1 is a 422."""
    restrict = data_parallel_restrict(
        request.restrict,
        "a model without an architecture runs over data parallelism alone (no layers, heads or experts to split)",
        MissingArchitecture,
    )
    arrangements = lever_arrangements(restricted_arrangements(restrict), request.levers)
    return {
        "world_size": _axis("world_size", restrict.world_size, request.cluster.world_sizes),
        "arrangement": arrangements,
        "micro_batch_size": _axis("micro_batch_size", restrict.micro_batch_size, default_micro_batches(batch)),
        "recompute": list(dict.fromkeys(restrict.recompute or RECOMPUTES)),
        "offload_optimizer": sorted(set(restrict.offload_optimizer or [False, True])),
    }


def combination_body(
    base: dict[str, Any], n: int, arrangement: ArrangementName, b: int, recompute: Any, offload: bool
) -> dict[str, Any]:
    return base | {
        "cluster": base["cluster"] | {"world_size": n},
        "arrangement": arrangement.value,
        "training": base["training"] | {"micro_batch_size": b},
        "levers": base["levers"] | {"recompute": recompute.value, "offload_optimizer": offload},
    }


def without_token_budget(body: dict[str, Any]) -> dict[str, Any]:
    """The body less training.total_tokens: the same job's bytes and step, with no run to finish."""
    return body | {"training": {k: v for k, v in body["training"].items() if k != "total_tokens"}}


def refusal(error: DomainError) -> str:
    """A skipped combination's reason: the field /v1/plan names, without the job's own numbers."""
    return f"/v1/plan refuses it ({error.pointer or '/'})"


def search_without_architecture(
    request: SearchRequest, base: dict[str, Any], batch: int, max_layouts: int, budget: WorkBudget | None = None
) -> SearchResponse:
    """The search of a model without an architecture (see the module's docstring); ``base``: the /v1/plan body
    every combination shares (service.answers.search.prepare's), ``batch``: the global batch."""
    budget = budget or WorkBudget()
    axes = data_parallel_space(request, batch)
    combinations = list(itertools.product(*axes.values()))
    if len(combinations) > max_layouts:
        raise search_too_large(
            f"{len(combinations):,} combinations (world sizes x arrangements x micro-batch sizes x levers)",
            max_layouts,
            request.restrict,
        )
    base = base | {"parallelism": TRIVIAL_LAYOUT | base.get("parallelism", {})}
    skipped: Counter[str] = Counter()
    pruned: Counter[str] = Counter()
    outcome: dict[tuple[Any, ...], str | None] = {}  # each combination without recomputation: None, or its refusal
    planned: list[tuple[dict[str, Any], PlanResponse]] = []
    unfinished: list[PlanResponse] = []  # planned without the token budget: their runs never finish it
    for i, (n, arrangement, b, recompute, offload) in enumerate(combinations):
        if i % 64 == 0:
            budget.check()
        plain = (n, arrangement, b, offload)
        if recompute is not Recompute.none and plain in outcome:
            # no activations are counted without an architecture: recomputation saves no byte and full adds a
            # forward pass, so the same combination without it (planned just before) is as fast with the same bytes
            refused = outcome[plain]
            if refused is None:  # its run, if it never finishes, never finishes with a step as long or longer
                pruned[RECOMPUTE_DOMINATED] += 1
            else:
                skipped[refused] += 1  # what /v1/plan refuses it refuses at any recomputation
            continue
        body = combination_body(base, n, arrangement, b, recompute, offload)
        reason = None
        try:
            planned.append((body, plan_of(body)))
        except NeverFinishes:
            unfinished.append(plan_of(without_token_budget(body)))
        except DomainError as error:
            reason = refusal(error)
            skipped[reason] += 1
        if recompute is Recompute.none:
            outcome[plain] = reason
    fitting = [(body, answer) for body, answer in planned if answer.memory.fits]
    never_finishing = sum(answer.memory.fits for answer in unfinished)
    kept, dominated = undominated(fitting)
    kept.sort(key=lambda row: objective_key(request.objective, row[1]))
    shown: list[tuple[dict[str, Any], PlanResponse, list[dict[str, Any]]]] = []
    seen: dict[tuple[int, float, int], int] = {}
    for body, answer in kept:
        figures = (answer.world_size, answer.time.step_s, answer.memory.per_gpu_bytes)
        if figures in seen:  # identical figures: an equivalent of the row shown
            lead = shown[seen[figures]]
            lead[2].append(changes(lead[0], body))
            continue
        if len(shown) > request.top_k:
            break
        seen[figures] = len(shown)
        shown.append((body, answer, []))
    asked_body_ = asked_body(request, base)
    asked = (asked_body_, plan_asked(asked_body_)) if asked_body_ is not None else None
    rows = ranked_rows(request.objective, shown, request.top_k, asked)
    note = None
    if not rows and never_finishing:
        note = (
            f"no layout's run finishes: {never_finishing:,} fit the card, but each is interrupted faster than a "
            "restart and a checkpoint interval absorb (/cluster/failures); try fewer GPUs, faster restarts or more "
            "frequent checkpoints"
        )
    elif not rows:
        note = (
            f"no layout fits: of {len(planned) + len(unfinished):,} data-parallel combinations none fits the card's "
            "usable bytes per GPU; try more GPUs, a larger card, or allow optimizer offload"
            if planned or unfinished
            else "no layout fits: no combination of the candidates is one /v1/plan takes (see skipped)"
        )
    ranks = {id(body): position + 1 for position, (body, _, _) in enumerate(shown[: request.top_k])}
    return SearchResponse(
        objective=request.objective,
        asked=asked_row(request.objective, asked, (shown[0][0], shown[0][1]) if shown else None) if asked else None,
        layouts=rows,
        pareto=front(request.objective, kept, ranks),
        considered=len(planned) + len(unfinished) + sum(pruned.values()),
        pruned=dict(pruned),
        evaluated=len(planned) + len(unfinished),
        fitting=len(fitting) + never_finishing,
        never_finishing=never_finishing,
        dominated=dominated,
        skipped=dict(skipped),
        candidates={name: [getattr(v, "value", v) for v in values] for name, values in axes.items()},
        note=note,
    )


def undominated(
    rows: list[tuple[dict[str, Any], PlanResponse]],
) -> tuple[list[tuple[dict[str, Any], PlanResponse]], int]:
    """The rows no other row of the same world size, arrangement and micro-batch beats with other levers (as fast or
    faster with no more bytes; of equal rows the first is kept), and how many were left out."""

    def group(body: dict[str, Any], answer: PlanResponse) -> tuple[Any, ...]:
        return (answer.world_size, body["arrangement"], body["training"]["micro_batch_size"])

    def figures(answer: PlanResponse) -> tuple[float, int]:
        return (answer.time.step_s, answer.memory.per_gpu_bytes)

    kept = []
    for i, (body, answer) in enumerate(rows):
        mine = figures(answer)
        beaten = any(
            group(other_body, other) == group(body, answer)
            and figures(other)[0] <= mine[0]
            and figures(other)[1] <= mine[1]
            and (figures(other) != mine or j < i)
            for j, (other_body, other) in enumerate(rows)
            if j != i
        )
        if not beaten:
            kept.append((body, answer))
    return kept, len(rows) - len(kept)


def front(
    objective: SearchObjective, rows: list[tuple[dict[str, Any], PlanResponse]], ranks: dict[int, int]
) -> list[Any]:
    """For each world size its fastest row, kept when faster than every row on fewer GPUs (the layout search's
    front)."""
    out = []
    previous: tuple[int, float] | None = None
    for n in sorted({answer.world_size for _, answer in rows}):
        body, answer = min(((b, a) for b, a in rows if a.world_size == n), key=lambda row: row[1].time.step_s)
        s = answer.time.step_s
        if previous is not None and s >= previous[1]:
            continue
        out.append(row(objective, ranks.get(id(body), 0), body, answer, front_reason(n, s, previous)))
        previous = (n, s)
    return out
