"""The answer to /v1/search: every valid layout evaluated at once, the best ranked, each row its plan.

The layouts are enumerated by service.answers.search_space and evaluated in blocks by service.engine.layout_grid
(numpy through the core's formulas, with the calibrated efficiency model for time, as /v1/plan
prices a step by default). The best ``top_k`` by the objective and the Pareto front of GPUs
against step time are then written as /v1/plan requests and answered by service.answers.plan.plan, so
every row is exactly the plan of its ``request``; a property test checks that the vectorised
figures the ranking used equal those answers.
"""

from dataclasses import dataclass
from typing import Any

import numpy as np
from pydantic import ValidationError

from models.common import as_request_json
from models.enums import ActivationModel, ArrangementName
from models.parallelism import ContextAttention, PipelineSchedule
from models.plan import PlanRequest, PlanResponse
from models.search import SearchLayout, SearchObjective, SearchRequest, SearchResponse
from models.training import Training
from service.answers.search_space import Candidates, Space, candidates, space
from service.engine.layout_grid import ARRANGEMENTS, RECOMPUTES, SCHEDULES, Case, Layouts, StructureTable, evaluate_grid
from service.errors import InvalidLayout, MissingArchitecture, SearchTooLarge
from service.inputs import resolve
from service.numeric import group_digits
from service.work_budget import WorkBudget

CHOICE_COLUMNS = ("arrangement", "recompute", "offload_optimizer")


@dataclass(frozen=True)
class Prepared:
    case: Case
    candidates: Candidates
    base: dict[str, Any]  # the /v1/plan body every row's request starts from


def prepare(request: SearchRequest) -> Prepared:
    """The model resolved once, the scenario every layout shares, the candidates per axis."""
    body = as_request_json(request)
    cluster = {k: v for k, v in body["cluster"].items() if k != "world_size"}
    sizes = request.cluster.world_sizes
    batch, s = global_batch(request), request.training.sequence_length
    kept = request.kept_expert_tensor
    training = {"global_batch_size": batch, "sequence_length": s, "micro_batch_size": 1}
    for name in ("utilisation", "total_tokens"):
        if name in body.get("training", {}):
            training[name] = body["training"][name]
    levers = body.get("levers", {})
    kept_parallelism: dict[str, Any] = {} if kept is None else {"expert_tensor": kept}
    if request.parallelism.context_attention is not ContextAttention.ring:  # every row's plan exchanges K/V so
        kept_parallelism["context_attention"] = request.parallelism.context_attention.value
    if request.parallelism.optimizer_post_validation:  # every row's zero-bubble schedule validates after
        kept_parallelism["optimizer_post_validation"] = True
    base = {
        "model": body["model"],
        "parallelism": kept_parallelism,
        "cluster": cluster | {"world_size": sizes[0]},
        "training": training,
        "levers": levers,
    } | {name: body[name] for name in ("precision", "precision_spec", "activations", "estimator") if name in body}
    try:
        plan_request = PlanRequest.model_validate(base | {"arrangement": ArrangementName.ddp.value})
    except ValidationError as error:  # a combination of the request's fields no plan takes
        raise InvalidLayout(
            [(str(e["msg"]), "/" + "/".join(str(part) for part in e["loc"])) for e in error.errors()]
        ) from None
    arch = resolve.model(plan_request.model).architecture
    if arch is None:
        raise MissingArchitecture(
            "a search over layouts needs the model's architecture (layers, hidden_size, attention_heads, "
            "ffn_hidden_size, vocab_size) or a model.preset that has one",
            pointer="/model",
        )
    scene = resolve.scenario(
        plan_request.model,
        plan_request.precision,
        Training(sequence_length=s, utilisation=request.training.utilisation),
        plan_request.activations,
        plan_request.levers,
        plan_request.cluster,
    )
    g = request.cluster.gpus_per_node
    if kept is not None and kept > 1 and arch.moe is None:
        pointer = "/expert_tensor" if request.expert_tensor is not None else "/parallelism/expert_tensor"
        raise InvalidLayout([(f"expert_tensor {kept} needs a mixture-of-experts model (model.moe)", pointer)])
    counted = scene.activations.model is not ActivationModel.none
    case = Case(
        arch,
        scene,
        g,
        batch,
        s,
        levers=plan_request.levers,
        activations_counted=counted,
        expert_tensor=kept,
        context_attention=request.parallelism.context_attention,
        post_validation=request.parallelism.optimizer_post_validation,
    )
    return Prepared(case, candidates(arch, sizes, g, batch, request.restrict), base)


def global_batch(request: SearchRequest) -> int:
    """training.global_batch_size, or the job's own: micro-batch x accumulation x its data-parallel degree at its
    (first) world size, as a /v1/plan body states it."""
    training = request.training
    if training.global_batch_size is not None:
        return training.global_batch_size
    par = request.parallelism
    replica = par.tensor * par.pipeline * par.context
    n = request.cluster.world_sizes[0]
    if n % replica:
        raise InvalidLayout(
            [
                (
                    f"training.global_batch_size is omitted and the job's layout does not size it: world_size {n:,} "
                    f"is not a multiple of tensor x pipeline x context = {replica}; give training.global_batch_size",
                    "/training/global_batch_size",
                )
            ]
        )
    return (training.micro_batch_size or 1) * (training.gradient_accumulation_steps or 1) * (n // replica)


def check_search_cost(cand: Candidates, max_layouts: int) -> None:
    if cand.combinations > max_layouts:
        raise SearchTooLarge(
            f"the search space holds up to {cand.combinations:,} combinations of layouts (world sizes x degrees x "
            f"schedules x micro-batch sizes x arrangements x levers), more than the limit of {max_layouts:,} "
            "(ZEROPLAN_MAX_SEARCH_LAYOUTS); restrict some axes with `restrict` or search fewer world sizes",
            pointer="/restrict",
        )


@dataclass(frozen=True)
class Ranked:
    """The fitting layouts, with the figures the ranking and the front need."""

    layouts: Layouts
    step_s: np.ndarray
    tokens_per_s_per_gpu: np.ndarray
    evaluated: int


def evaluate_space(case: Case, found: Space, budget: WorkBudget | None = None) -> Ranked:
    """Every valid layout, block by block; the fitting ones kept with their step and rate."""
    table = StructureTable(case)
    choices = found.choices
    kept: dict[str, list[np.ndarray]] = {name: [] for name in (*found.shapes, *CHOICE_COLUMNS)}
    steps: list[np.ndarray] = []
    rates: list[np.ndarray] = []
    evaluated = 0
    for _, block in found.blocks():
        if budget is not None:
            budget.check()
        figures = evaluate_grid(case, table, block, choices)
        valid = found.valid(block.columns)
        evaluated += int(valid.sum())
        fit = figures.fits & valid
        shape, a, r, o = np.nonzero(fit)
        for name, values in block.columns.items():
            kept[name].append(values[shape])
        kept["arrangement"].append(np.array(choices.arrangement)[a])
        kept["recompute"].append(np.array(choices.recompute)[r])
        kept["offload_optimizer"].append(np.array(choices.offload_optimizer, dtype=bool)[o])
        step = figures.step_s[fit]
        steps.append(step)
        rates.append(figures.tokens_per_step[shape] / step / block["world_size"][shape])
    if not steps:
        empty = Layouts({name: np.zeros(0, dtype=np.int64) for name in kept})
        return Ranked(empty, np.zeros(0), np.zeros(0), 0)
    columns = {name: np.concatenate(values) for name, values in kept.items()}
    return Ranked(Layouts(columns), np.concatenate(steps), np.concatenate(rates), evaluated)


def order(ranked: Ranked, objective: SearchObjective) -> np.ndarray:
    """Indices of the fitting layouts, best first (ties: fewer GPUs, then the order of enumeration)."""
    n = ranked.layouts["world_size"]
    index = np.arange(len(n))
    if objective is SearchObjective.step_s:
        return np.lexsort((index, n, ranked.step_s))
    if objective is SearchObjective.tokens_per_s_per_gpu:
        return np.lexsort((index, n, -ranked.tokens_per_s_per_gpu))
    return np.lexsort((index, ranked.step_s, n))


def pareto(ranked: Ranked) -> list[int]:
    """For each world size the fastest fitting layout, kept when faster than all on fewer GPUs."""
    n, step = ranked.layouts["world_size"], ranked.step_s
    front: list[int] = []
    best = np.inf
    for size in np.unique(n).tolist():
        where = np.flatnonzero(n == size)
        fastest = int(where[np.argmin(step[where])])
        if step[fastest] < best:
            front.append(fastest)
            best = float(step[fastest])
    return front


def layout_body(base: dict[str, Any], layouts: Layouts, i: int) -> dict[str, Any]:
    """The /v1/plan request of layout i."""
    schedule = SCHEDULES[int(layouts["schedule"][i])]
    parallelism: dict[str, Any] = {
        "tensor": int(layouts["tensor"][i]),
        "pipeline": int(layouts["pipeline"][i]),
        "context": int(layouts["context"][i]),
        "expert": int(layouts["expert"][i]),
        "sequence_parallel": bool(layouts["sequence_parallel"][i]),
        "pipeline_schedule": schedule.value,
        "virtual_stages": int(layouts["virtual_stages"][i]),
    }
    return base | {
        "cluster": base["cluster"] | {"world_size": int(layouts["world_size"][i])},
        "training": base["training"] | {"micro_batch_size": int(layouts["micro_batch_size"][i])},
        "arrangement": ARRANGEMENTS[int(layouts["arrangement"][i])].value,
        "parallelism": base.get("parallelism", {}) | parallelism,
        "levers": base.get("levers", {})
        | {
            "recompute": RECOMPUTES[int(layouts["recompute"][i])].value,
            "offload_optimizer": bool(layouts["offload_optimizer"][i]),
        },
    }


def asked_body(request: SearchRequest, base: dict[str, Any]) -> dict[str, Any] | None:
    """The /v1/plan request of the job as the search request states it; None without an arrangement."""
    if request.arrangement is None:
        return None
    body = as_request_json(request)
    parallelism = body.get("parallelism", {}) | base.get("parallelism", {})
    levers = base.get("levers", {}) | {
        "recompute": request.levers.recompute.value,
        "offload_optimizer": request.levers.offload_optimizer,
    }
    micro = request.training.micro_batch_size or 1
    stated = {name: body[name] for name in ("arrangement", "sharding") if name in body}
    return (
        base
        | {
            "training": base["training"] | {"micro_batch_size": micro},
            "parallelism": parallelism,
            "levers": levers,
        }
        | stated
    )


def describe(body: dict[str, Any]) -> str:
    """'t 8 x p 16 x c 1 x d 16 on 2,048 GPUs, zero1, b 1, recompute selective' for a row's why."""
    par, levers = body["parallelism"], body["levers"]
    schedule = par["pipeline_schedule"]
    if schedule == PipelineSchedule.interleaved.value:
        schedule += f" v {par['virtual_stages']}"
    words = [
        f"tensor {par['tensor']}{' with sequence parallelism' if par['sequence_parallel'] else ''}",
        f"pipeline {par['pipeline']}" + (f" ({schedule})" if par["pipeline"] > 1 else ""),
        f"context {par['context']}"
        + (" (K/V all-gather)" if par["context"] > 1 and par.get("context_attention") == "all_gather" else ""),
    ]
    if par["expert"] > 1:
        words.append(f"expert {par['expert']}")
    words += [
        f"{body['arrangement']}",
        f"micro-batch {body['training']['micro_batch_size']}",
        f"recompute {levers['recompute']}",
    ]
    if levers["offload_optimizer"]:
        words.append("optimizer offloaded")
    return ", ".join(words)


def _differences(mine: dict[str, Any], other: dict[str, Any]) -> str:
    a, b = describe(mine).split(", "), describe(other).split(", ")
    changed = [f"{x} (not {y})" for x, y in zip(a, b, strict=False) if x != y]
    if mine["cluster"]["world_size"] != other["cluster"]["world_size"]:
        changed.insert(
            0,
            f"{group_digits(mine['cluster']['world_size'])} GPUs (not {group_digits(other['cluster']['world_size'])})",
        )
    return "; ".join(changed) or "the same choices"


def _percent(fraction: float) -> str:
    """0.0123 -> '1.23%'; small gaps keep three significant digits ('0.000412%')."""
    return f"{fraction:.2%}" if abs(fraction) >= 1e-3 else f"{fraction * 100:.3g}%"


def why(objective: SearchObjective, rank: int, answer: PlanResponse, body: dict[str, Any], runner_up: Any) -> str:
    """The reason a row ranks where it does: the objective's figure against the next layout's."""
    time = answer.time
    if objective is SearchObjective.gpus:
        mine = f"{group_digits(answer.world_size)} GPUs, step {time.step_s:.4g} s"
    elif objective is SearchObjective.tokens_per_s_per_gpu:
        mine = f"{time.tokens_per_s_per_gpu:,.1f} tokens/s per GPU (step {time.step_s:.4g} s)"
    else:
        mine = f"step {time.step_s:.4g} s"
    head = (
        f"#{rank} by {objective.value}: {mine}, {answer.memory.per_gpu_gib:.1f} GiB per GPU (fits), MFU {time.mfu:.3f}"
    )
    if runner_up is None:
        return head + "; no other layout fits"
    other_body, other_step, other_rate = runner_up
    differences = _differences(body, other_body)
    if objective is SearchObjective.gpus and other_body["cluster"]["world_size"] != answer.world_size:
        edge = f"needs fewer GPUs than the next layout ({group_digits(other_body['cluster']['world_size'])})"
        return f"{head}; {edge}, which differs in: {differences}"
    if objective is SearchObjective.tokens_per_s_per_gpu:
        gain = time.tokens_per_s_per_gpu / other_rate - 1 if other_rate else 0.0
        edge = f"{_percent(gain)} more tokens/s per GPU than the next layout"
    else:
        gain = other_step / time.step_s - 1 if time.step_s else 0.0
        edge = f"a {_percent(gain)} shorter step than the next layout ({other_step:.4g} s)"
    if gain == 0:
        return f"{head}; level with the next layout, which differs in {differences}: a choice that changes nothing here"
    return f"{head}; {edge}, which differs in: {differences}"


def _row(
    objective: SearchObjective, rank: int, body: dict[str, Any], runner_up: Any, reason: str | None = None
) -> SearchLayout:
    from service.answers.plan import plan

    planned = PlanRequest.model_validate(body)
    answer = plan(planned)
    time = answer.time
    return SearchLayout(
        rank=rank,
        world_size=answer.world_size,
        parallelism=answer.parallelism,
        arrangement=answer.arrangement.name,
        micro_batch_size=body["training"]["micro_batch_size"],
        recompute=body["levers"]["recompute"],
        offload_optimizer=body["levers"]["offload_optimizer"],
        per_gpu_bytes=answer.memory.per_gpu_bytes,
        fits=answer.memory.fits,
        step_s=time.step_s,
        tokens_per_s_per_gpu=time.tokens_per_s_per_gpu,
        mfu=time.mfu,
        why=reason or why(objective, rank, answer, body, runner_up),
        memory=answer.memory,
        time=time,
        request=planned,
    )


def search(request: SearchRequest, max_layouts: int, budget: WorkBudget | None = None) -> SearchResponse:
    prepared = prepare(request)
    check_search_cost(prepared.candidates, max_layouts)
    case, cand = prepared.case, prepared.candidates
    found = space(case.arch, cand, case.sequence_length, case.global_batch_size, case.gpus_per_node, case.expert_tensor)
    ranked = evaluate_space(case, found, budget)
    best = order(ranked, request.objective)
    top = best[: request.top_k + 1].tolist()
    bodies = {i: layout_body(prepared.base, ranked.layouts, i) for i in top}
    rows = []
    for position, i in enumerate(top[: request.top_k]):
        nxt = top[position + 1] if position + 1 < len(top) else None
        runner = (
            (bodies[nxt], float(ranked.step_s[nxt]), float(ranked.tokens_per_s_per_gpu[nxt]))
            if nxt is not None
            else None
        )
        rows.append(_row(request.objective, position + 1, bodies[i], runner))
    ranks = {i: position + 1 for position, i in enumerate(top[: request.top_k])}
    front = []
    previous: tuple[int, float] | None = None
    for i in pareto(ranked):
        body = layout_body(prepared.base, ranked.layouts, i)
        n, step = int(ranked.layouts["world_size"][i]), float(ranked.step_s[i])
        reason = f"the fastest layout that fits on {group_digits(n)} GPUs (step {step:.4g} s)" + (
            f"; its step is {1 - step / previous[1]:.2%} shorter than the best on {group_digits(previous[0])} "
            f"GPUs ({previous[1]:.4g} s)"
            if previous
            else "; no fitting layout needs fewer GPUs"
        )
        front.append(_row(request.objective, ranks.get(i, 0), body, None, reason))
        previous = (n, step)
    note = None
    if not rows:
        note = (
            f"no layout fits: {found.size:,} valid layouts were evaluated and none fits the card's "
            f"{group_digits(case.scene.usable_bytes)} usable bytes per GPU"
            + (" (or the host memory)" if case.scene.host_memory_bytes is not None else "")
            + "; try more GPUs, a larger card, or allow recompute full and optimizer offload"
            if found.size
            else "no layout fits: no combination of the candidates is a valid layout (see skipped)"
        )
    asked = asked_body(request, prepared.base)
    return SearchResponse(
        objective=request.objective,
        asked=_row(request.objective, 0, asked, None, "the job as the request states it") if asked else None,
        layouts=rows,
        pareto=front,
        evaluated=ranked.evaluated,
        fitting=len(ranked.step_s),
        skipped=found.skipped,
        candidates=cand.as_json(),
        note=note,
    )
