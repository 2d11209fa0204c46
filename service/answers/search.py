"""The answer to /v1/search: every valid layout evaluated at once, the best ranked, each row its plan.

The layouts are enumerated by service.answers.search_space and evaluated in blocks by service.engine.layout_grid
(numpy through the core's formulas, with the calibrated efficiency model for time, as /v1/plan
prices a step by default). The best ``top_k`` by the objective and the Pareto front of GPUs
against step time are then written as /v1/plan requests and answered by service.answers.plan.plan, so
every row is exactly the plan of its ``request``; a property test checks that the vectorised
figures the ranking used equal those answers.
"""

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from pydantic import ValidationError

from models.common import as_request_json
from models.enums import ActivationModel, ArrangementName
from models.parallelism import ContextAttention
from models.plan import PlanRequest
from models.search import NEEDS, SearchLayout, SearchObjective, SearchRequest, SearchResponse, SearchRestrict
from models.training import MAX_GLOBAL_BATCH_SIZE, Levers, Training
from service.answers.search_data import search_without_architecture
from service.answers.search_prune import BranchAndBound, goal_for
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
from service.answers.search_space import Candidates, Space, candidates, lever_arrangements, search_too_large, space
from service.engine.layout_grid import (
    ARRANGEMENTS,
    RECOMPUTES,
    SCHEDULES,
    Case,
    LayerSplit,
    Layouts,
    StructureTable,
    evaluate_grid,
)
from service.errors import InvalidLayout, MissingArchitecture
from service.inputs import resolve
from service.inputs.arrangements import sharding_for
from service.mesh.degrees import layer_chunks
from service.mesh.pipeline import deepspeed_convention
from service.numeric import group_digits
from service.time.goodput import resilience_of
from service.work_budget import WorkBudget

CHOICE_COLUMNS = ("arrangement", "recompute", "offload_optimizer")


@dataclass(frozen=True)
class Prepared:
    case: Case
    candidates: Candidates
    base: dict[str, Any]  # the /v1/plan body every row's request starts from
    unpipelined: tuple[int, ...] = ()  # arrangements (ARRANGEMENTS codes) the request's framework refuses to pipeline

    def space(self) -> Space:
        """Every valid layout of the candidates (service.answers.search_space.space)."""
        case = self.case
        return space(
            case.arch,
            self.candidates,
            case.sequence_length,
            case.global_batch_size,
            case.gpus_per_node,
            case.expert_tensor,
            self.unpipelined,
            case.pipeline_runs,
        )


def shared_arrangement(levers: Levers) -> ArrangementName:
    """An arrangement the levers keep (search_space.lever_arrangements), for the fields every row shares: each row
    then sets its own."""
    return lever_arrangements(list(ARRANGEMENTS), levers)[0]


def plan_base(request: SearchRequest) -> tuple[dict[str, Any], PlanRequest, int]:
    """The /v1/plan body every searched layout shares (its layout, arrangement and levers then set per row), that
    body as a plan request under data parallelism, and the global batch."""
    body = as_request_json(request)
    cluster = {k: v for k, v in body["cluster"].items() if k != "world_size"}
    sizes = request.cluster.world_sizes
    batch, s = global_batch(request), request.training.sequence_length
    kept = request.kept_expert_tensor
    training = {"global_batch_size": batch, "sequence_length": s, "micro_batch_size": 1}
    for name in ("utilisation", "utilisation_recompute", "total_tokens", "checkpoint"):
        if name in body.get("training", {}):
            training[name] = body["training"][name]
    levers = body.get("levers", {})
    kept_parallelism: dict[str, Any] = {} if kept is None else {"expert_tensor": kept}
    if request.parallelism.context_attention is not ContextAttention.ring:  # every row's plan exchanges K/V so
        kept_parallelism["context_attention"] = request.parallelism.context_attention.value
    if request.parallelism.optimizer_post_validation:  # every row's zero-bubble schedule validates after
        kept_parallelism["optimizer_post_validation"] = True
    if request.parallelism.pipeline_runs > 1:  # every pipelined row runs its schedule so many times a step
        kept_parallelism["pipeline_runs"] = request.parallelism.pipeline_runs
    base = {
        "model": body["model"],
        "parallelism": kept_parallelism,
        "cluster": cluster | {"world_size": sizes[0]},
        "training": training,
        "levers": levers,
    } | {name: body[name] for name in ("precision", "precision_spec", "activations", "estimator") if name in body}
    try:
        plan_request = PlanRequest.model_validate(base | {"arrangement": shared_arrangement(request.levers).value})
    except ValidationError as error:  # a combination of the request's fields no plan takes
        raise InvalidLayout(
            [(str(e["msg"]), "/" + "/".join(str(part) for part in e["loc"])) for e in error.errors()]
        ) from None
    return base, plan_request, batch


def prepare(request: SearchRequest, planned: tuple[dict[str, Any], PlanRequest, int] | None = None) -> Prepared:
    """The model resolved once, the scenario every layout shares, the candidates per axis; ``planned``: plan_base's
    answer when the caller has it."""
    base, plan_request, batch = planned or plan_base(request)
    sizes, s, kept = request.cluster.world_sizes, request.training.sequence_length, request.kept_expert_tensor
    arch = resolve.model(plan_request.model).architecture
    if arch is None:
        raise MissingArchitecture(
            "a search over layouts needs the model's architecture (layers, hidden_size, attention_heads, "
            "ffn_hidden_size, vocab_size) or a model.preset that has one; /v1/search answers such a model over data "
            "parallelism alone (service.answers.search_data)",
            pointer="/model",
        )
    scene = resolve.scenario(
        plan_request.model,
        plan_request.precision,
        Training(
            sequence_length=s,
            utilisation=request.training.utilisation,
            utilisation_recompute=request.training.utilisation_recompute,
        ),
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
        pipeline_runs=request.parallelism.pipeline_runs,
    )
    own = own_split(request, arch.layers)
    cand = candidates(arch, sizes, g, batch, request.restrict, own, plan_request.levers)
    # DeepSpeed's pipeline engine runs ZeRO-1 at most (service.mesh.pipeline.framework_pipeline_problems)
    deepspeed = deepspeed_convention(plan_request.precision)
    unpipelined = tuple(i for i, a in enumerate(ARRANGEMENTS) if deepspeed and sharding_for(a).shard_gradients)
    return Prepared(replace(case, layer_splits=cand.layer_splits), cand, base, unpipelined)


def own_split(request: SearchRequest, layers: int) -> LayerSplit | None:
    """The request's split of the layers (parallelism.pipeline_layers, or the embedding and loss counted as layers),
    kept by every pipelined layout unless restrict.pipeline_split names others; None without one. A split that
    cannot split the model's layers (its sum) is a 422 naming the field; one that fits no layout of the space
    leaves those layouts skipped."""
    par = request.parallelism
    if par.pipeline_layers is not None:
        total = sum(par.pipeline_layers)
        if total != layers:
            raise InvalidLayout(
                [
                    (
                        f"parallelism.pipeline_layers sums to {total:,}, not the model's {layers:,} layers",
                        "/parallelism/pipeline_layers",
                    )
                ]
            )
        if par.pipeline_embedding_layers or par.pipeline_loss_layers:  # as /v1/plan refuses it
            raise InvalidLayout(
                [
                    (
                        "parallelism.pipeline_layers fixes the split: pipeline_embedding_layers and "
                        "pipeline_loss_layers apply only to the even split",
                        "/parallelism/pipeline_layers",
                    )
                ]
            )
        return LayerSplit(pipeline_layers=tuple(par.pipeline_layers))
    if par.pipeline_embedding_layers or par.pipeline_loss_layers:
        return LayerSplit(embedding_layers=par.pipeline_embedding_layers, loss_layers=par.pipeline_loss_layers)
    return None


def global_batch(request: SearchRequest) -> int:
    """training.global_batch_size, or the job's own: micro-batch x accumulation x its data-parallel degree at its
    (first) world size, as a /v1/plan body states it. Every row's request states the batch as
    training.global_batch_size, so a derived batch past that field's bound is refused at the fields that set it."""
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
                    "/cluster/world_size",
                )
            ]
        )
    b, m, d = training.micro_batch_size or 1, training.gradient_accumulation_steps or 1, n // replica
    batch = b * m * d
    if batch > MAX_GLOBAL_BATCH_SIZE:
        given = (
            ("training.micro_batch_size", "/training/micro_batch_size", training.micro_batch_size),
            (
                "training.gradient_accumulation_steps",
                "/training/gradient_accumulation_steps",
                training.gradient_accumulation_steps,
            ),
            ("cluster.world_size", "/cluster/world_size", n),
        )
        sent = [(name, pointer, value) for name, pointer, value in given if value is not None]
        whole = (
            f"the job's global batch, micro_batch_size {b:,} x gradient_accumulation_steps {m:,} x data-parallel "
            f"degree {d:,} = {group_digits(batch)} sequences, is more than the {group_digits(MAX_GLOBAL_BATCH_SIZE)} "
            "a row's request can state as training.global_batch_size: give training.global_batch_size, or smaller "
            "factors"
        )
        raise InvalidLayout(
            [
                (whole if i == 0 else f"{name} {value:,} is a factor of that batch", pointer)
                for i, (name, pointer, value) in enumerate(sent)
            ]
        )
    return batch


def check_search_cost(cand: Candidates, max_layouts: int, restrict: SearchRestrict) -> None:
    """The combinations a search considers (before validity) are bounded up front; the valid ones are then
    bounded and pruned (service.answers.search_prune) rather than all evaluated."""
    if cand.combinations > max_layouts:
        raise search_too_large(
            f"up to {cand.combinations:,} combinations of layouts (world sizes x degrees that divide them x "
            "schedules x micro-batch sizes x arrangements x levers)",
            max_layouts,
            restrict,
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


def split_fields(case: Case, layouts: Layouts, i: int) -> dict[str, Any]:
    """Layout i's split of the layers as its request's parallelism writes it: pipeline_layers per model chunk (or as
    the request gave them), or pipeline_embedding_layers and pipeline_loss_layers; nothing for the even split."""
    if not case.layer_splits or "split" not in layouts.columns:
        return {}
    p, v = int(layouts["pipeline"][i]), int(layouts["virtual_stages"][i])
    chunks = layer_chunks(SCHEDULES[int(layouts["schedule"][i])], p, v)
    split = case.split_at(int(layouts["split"][i]), p, chunks)
    out: dict[str, Any] = {}
    if split["pipeline_layers"] is not None:
        out["pipeline_layers"] = list(split["pipeline_layers"])
    if split["embedding_layers"]:
        out["pipeline_embedding_layers"] = split["embedding_layers"]
    if split["loss_layers"]:
        out["pipeline_loss_layers"] = split["loss_layers"]
    return out


def layout_body(base: dict[str, Any], layouts: Layouts, i: int, case: Case | None = None) -> dict[str, Any]:
    """The /v1/plan request of layout i (``case``: the search's, whose splits its ``split`` column indexes)."""
    schedule = SCHEDULES[int(layouts["schedule"][i])]
    parallelism: dict[str, Any] = split_fields(case, layouts, i) if case is not None else {}
    parallelism |= {
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


def _pool_layouts(found: Space, rows: dict[str, np.ndarray]) -> Layouts:
    """The pool's rows as Layouts (their shapes' columns and their choices)."""
    columns = {name: values[rows["shape"]] for name, values in found.shapes.items()}
    c = found.choices
    columns["arrangement"] = np.array(c.arrangement)[rows["arrangement"]]
    columns["recompute"] = np.array(c.recompute)[rows["recompute"]]
    columns["offload_optimizer"] = np.array(c.offload_optimizer, dtype=bool)[rows["offload"]]
    return Layouts(columns)


def check_objective(request: SearchRequest) -> None:
    """An objective of the whole run needs the token budget (and cost a price): a 422 naming each field."""
    problems = []
    for name in NEEDS.get(request.objective, ()):
        section, field = name.split(".")
        holder = request.training if section == "training" else request.cluster
        if getattr(holder, field) is None:
            problems.append((f"objective {request.objective.value} needs {name}", f"/{section}/{field}"))
    if problems:
        raise InvalidLayout(problems)


def _lever_equivalents(found: Space, bits: int, recompute: int, offload: int) -> list[dict[str, Any]]:
    """The levers (recompute, offload) with identical figures to the row's, from the pool's bit mask."""
    c = found.choices
    out = []
    for code in range(len(c.recompute) * len(c.offload_optimizer)):
        if bits >> code & 1:
            r, o = divmod(code, len(c.offload_optimizer))
            change: dict[str, Any] = {}
            if r != recompute:
                change["recompute"] = RECOMPUTES[c.recompute[r]].value
            if o != offload:
                change["offload_optimizer"] = bool(c.offload_optimizer[o])
            if change:
                out.append(change)
    return out


def nothing_left(names: list[str], skipped: dict[str, int]) -> InvalidLayout:
    """The 422 of restrictions that leave no valid layout together: each is named, none singled out."""
    reasons = "; ".join(f"{reason}: {count:,}" for reason, count in skipped.items())
    fields = ", ".join(f"restrict.{name}" for name in names)
    return InvalidLayout(
        [(f"the restrictions ({fields}) leave no valid layout ({reasons})", f"/restrict/{names[0]}")]
        + [(f"restrict.{name} is one of them", f"/restrict/{name}") for name in names[1:]]
    )


def search(
    request: SearchRequest, max_layouts: int, budget: WorkBudget | None = None, prune: bool = True
) -> SearchResponse:
    """The best layouts by the objective, found by branch and bound (service.answers.search_prune); ``prune``
    False evaluates every valid layout (the same answer, for comparison)."""
    check_objective(request)
    planned = plan_base(request)
    if resolve.model(planned[1].model).architecture is None:  # data parallelism is its only layout
        return search_without_architecture(request, planned[0], planned[2], max_layouts, budget)
    prepared = prepare(request, planned)
    check_search_cost(prepared.candidates, max_layouts, request.restrict)
    case, cand = prepared.case, prepared.candidates
    found = prepared.space()
    restrict = request.restrict
    names = [name for name in type(restrict).model_fields if getattr(restrict, name) is not None]  # those given
    if not len(found.shapes["world_size"]) and names:
        raise nothing_left(names, found.skipped)
    plan_request = PlanRequest.model_validate(prepared.base | {"arrangement": shared_arrangement(request.levers).value})
    run = (
        resilience_of(request.training.checkpoint, plan_request.cluster.failures, case.gpus_per_node),
        resolve.links(plan_request.cluster).host_bytes_per_s,
    )
    goal = goal_for(case, request.objective, request.training.total_tokens, request.cluster.gpu_hour_price, run)
    outcome = BranchAndBound(case, found, goal, request.top_k, budget, prune).run()
    if not outcome.considered and names:  # valid shapes, but a rule of the arrangement refuses each of them
        raise nothing_left(names, found.skipped)
    rows, bodies_of = outcome.rows, {}
    shown: list[tuple[int, list[dict[str, Any]]]] = []  # (pool index, equivalents)
    if rows:
        layouts = _pool_layouts(found, rows)
        ranking = np.lexsort((rows["enumeration"], rows["k2"], rows["k1"]))
        ranking = ranking[rows["ranks"][ranking]]  # the front's own rows rank not (search_prune: asynchronous saves)
        seen: dict[tuple[int, float, int], int] = {}
        for i in ranking.tolist():
            figures = (int(rows["world_size"][i]), float(rows["step_s"][i]), int(rows["per_gpu_bytes"][i]))
            body = layout_body(prepared.base, layouts, i, prepared.case)
            bodies_of[i] = body
            if figures in seen:  # identical figures: an equivalent of the row shown
                lead = seen[figures]
                shown[lead][1].append(changes(bodies_of[shown[lead][0]], body))
                continue
            if len(shown) > request.top_k:
                break
            seen[figures] = len(shown)
            equivalents = _lever_equivalents(
                found, int(rows["equivalent_levers"][i]), int(rows["recompute"][i]), int(rows["offload"][i])
            )
            shown.append((i, equivalents))
    answers = {i: plan_of(bodies_of[i]) for i, _ in shown}
    ordered = [(bodies_of[i], answers[i], equivalents) for i, equivalents in shown]
    best = (ordered[0][0], ordered[0][1]) if ordered else None
    asked_body_ = asked_body(request, prepared.base)
    asked = (asked_body_, plan_asked(asked_body_)) if asked_body_ is not None else None
    out = ranked_rows(request.objective, ordered, request.top_k, asked)
    front = _front(request, prepared, found, rows, {i: p + 1 for p, (i, _) in enumerate(shown[: request.top_k])})
    note = None
    if not out and outcome.never_finishing:
        note = (
            f"no layout's run finishes: {outcome.never_finishing:,} fit the card, but each is interrupted faster "
            "than a restart and a checkpoint interval absorb (/cluster/failures); try fewer GPUs, faster restarts or "
            "more frequent checkpoints"
        )
    elif not out:
        note = (
            f"no layout fits: of {outcome.considered:,} valid layouts none fits the card's "
            f"{group_digits(case.scene.usable_bytes)} usable bytes per GPU"
            + (" (or the host memory)" if case.scene.host_memory_bytes is not None else "")
            + "; try more GPUs, a larger card, or allow recompute full and optimizer offload"
            if outcome.considered
            else "no layout fits: no combination of the candidates is a valid layout (see skipped)"
        )
    return SearchResponse(
        objective=request.objective,
        asked=asked_row(request.objective, asked, best) if asked is not None else None,
        layouts=out,
        pareto=front,
        considered=outcome.considered,
        pruned=outcome.pruned,
        evaluated=outcome.evaluated,
        fitting=outcome.fitting,
        never_finishing=outcome.never_finishing,
        dominated=outcome.dominated,
        skipped=found.skipped,
        candidates=cand.as_json(),
        note=note,
    )


def _front(
    request: SearchRequest, prepared: Prepared, found: Space, rows: dict[str, np.ndarray], ranks: dict[int, int]
) -> list[SearchLayout]:
    """For each world size its fastest layout, kept when faster than every layout on fewer GPUs."""
    if not rows:
        return []
    layouts = _pool_layouts(found, rows)
    n, step = rows["world_size"], rows["step_s"]
    out: list[SearchLayout] = []
    previous: tuple[int, float] | None = None
    for size in np.unique(n).tolist():
        where = np.flatnonzero(n == size)
        i = int(where[np.lexsort((rows["enumeration"][where], step[where]))[0]])
        if previous is not None and step[i] >= previous[1]:
            continue
        body = layout_body(prepared.base, layouts, i, prepared.case)
        s = float(step[i])
        out.append(row(request.objective, ranks.get(i, 0), body, plan_of(body), front_reason(size, s, previous)))
        previous = (size, s)
    return out
