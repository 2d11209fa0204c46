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
from models.parallelism import ContextAttention, PipelineSchedule
from models.plan import PlanRequest, PlanResponse, Time
from models.search import NEEDS, SearchLayout, SearchObjective, SearchRequest, SearchResponse
from models.training import Training
from service.answers.search_prune import BranchAndBound, goal_for
from service.answers.search_space import Candidates, Space, candidates, space
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
from service.errors import InvalidLayout, MissingArchitecture, SearchTooLarge
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
        plan_request = PlanRequest.model_validate(base | {"arrangement": ArrangementName.ddp.value})
    except ValidationError as error:  # a combination of the request's fields no plan takes
        raise InvalidLayout(
            [(str(e["msg"]), "/" + "/".join(str(part) for part in e["loc"])) for e in error.errors()]
        ) from None
    arch = resolve.model(plan_request.model).architecture
    if arch is None:
        raise MissingArchitecture(
            "a search over layouts needs the model's architecture (layers, hidden_size, attention_heads, "
            "ffn_hidden_size, vocab_size) or a model.preset that has one; without one data parallelism is the only "
            "layout: POST /v1/recommend ranks its arrangements and levers, POST /v1/sweep tabulates them",
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
        pipeline_runs=request.parallelism.pipeline_runs,
    )
    own = own_split(request, arch.layers)
    cand = candidates(arch, sizes, g, batch, request.restrict, own)
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
    """The combinations a search considers (before validity) are bounded up front; the valid ones are then
    bounded and pruned (service.answers.search_prune) rather than all evaluated."""
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
    # by name, as every row names its arrangement (sharding flags read as their canonical name, the same job)
    ((name, _),) = resolve.compared(request.arrangement)
    stated = {"arrangement": name.value}
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
    """'tensor 8, pipeline 16 (1f1b), context 1, zero1, micro-batch 1, recompute selective' for a row's why."""
    par, levers = body["parallelism"], body["levers"]
    schedule = par["pipeline_schedule"]
    if schedule == PipelineSchedule.interleaved.value or par.get("virtual_stages", 1) > 1:
        schedule += f" v {par['virtual_stages']}"
    schedule += split_words(par)
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


def split_words(par: dict[str, Any]) -> str:
    """' with the embedding as 1 layer and the loss as 1 layer' or ' with layers 6/8/.../6': a pipelined layout's
    split of the layers, where it is not the even one."""
    if par.get("pipeline_layers") is not None:
        return " with layers " + "/".join(str(x) for x in par["pipeline_layers"])
    counted = [
        f"the {name} as {par[field]} layer{'s' if par[field] > 1 else ''}"
        for name, field in (("embedding", "pipeline_embedding_layers"), ("loss", "pipeline_loss_layers"))
        if par.get(field)
    ]
    return " with " + " and ".join(counted) if counted else ""


def choice_fields(body: dict[str, Any]) -> dict[str, Any]:
    """The searched choices of a row's request, flat: world_size, the degrees, schedule, levers."""
    par = body["parallelism"]
    fields = {"world_size": body["cluster"]["world_size"]}
    for name in ("tensor", "pipeline", "context", "expert", "virtual_stages", "pipeline_schedule", "sequence_parallel"):
        fields[name] = par[name]
    for name in ("pipeline_layers", "pipeline_embedding_layers", "pipeline_loss_layers"):
        fields[name] = par.get(name)
    return fields | {
        "arrangement": body["arrangement"],
        "micro_batch_size": body["training"]["micro_batch_size"],
        "recompute": body["levers"]["recompute"],
        "offload_optimizer": body["levers"]["offload_optimizer"],
    }


def changes(body: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    """The choices in which ``other`` differs from ``body``, with other's values."""
    mine, theirs = choice_fields(body), choice_fields(other)
    return {name: value for name, value in theirs.items() if mine[name] != value}


def _differences(mine: dict[str, Any], other: dict[str, Any]) -> str:
    """'this row pipeline 16 (1f1b), that one pipeline 8 (1f1b)': what differs, this row's value first."""
    a, b = describe(mine).split(", "), describe(other).split(", ")
    changed = [f"{x} here, {y} there" for x, y in zip(a, b, strict=False) if x != y]
    if len(a) != len(b):
        extra = set(a) ^ set(b)
        changed += [f"{w} {'here' if w in a else 'there'}" for w in sorted(extra) if w not in " ".join(changed)]
    if mine["cluster"]["world_size"] != other["cluster"]["world_size"]:
        changed.insert(
            0,
            f"{group_digits(mine['cluster']['world_size'])} GPUs here, {group_digits(other['cluster']['world_size'])} "
            "there",
        )
    return "; ".join(changed) or "the same choices"


def _percent(fraction: float) -> str:
    """0.0123 -> '1.23%'; small gaps keep three significant digits ('0.000412%')."""
    return f"{fraction:.2%}" if abs(fraction) >= 1e-3 else f"{fraction * 100:.3g}%"


TIME_TERMS = (
    ("compute", "compute_s"),
    ("overlap slowdown", "overlap_slowdown_s"),
    ("pipeline bubble", "pipeline_bubble_s"),
    ("tensor-parallel", "tensor_parallel_s"),
    ("context-parallel", "context_parallel_s"),
    ("pipeline send/receive", "pipeline_p2p_s"),
    ("expert all-to-all", "expert_parallel_s"),
    ("optimizer step", "optimizer_s"),
    ("offload", "offload_s"),
)
MEMORY_TERMS = (
    ("model states", "model_state_bytes"),
    ("working set", "working_set_bytes"),
    ("activations", "activations_bytes"),
)
FRAMEWORKS = {
    ArrangementName.ddp.value: "PyTorch DDP or Megatron-LM without the distributed optimizer",
    ArrangementName.zero1.value: "DeepSpeed ZeRO-1 or Megatron-LM's distributed optimizer",
    ArrangementName.zero2.value: "DeepSpeed ZeRO-2",
    ArrangementName.zero3.value: "DeepSpeed ZeRO-3",
    ArrangementName.shard_grad_op.value: "PyTorch FSDP SHARD_GRAD_OP",
    ArrangementName.hybrid.value: "PyTorch FSDP HYBRID_SHARD",
}
FSDP2_FULL_SHARD = "PyTorch FSDP2 FULL_SHARD as torchtitan runs it"


def time_terms(time: Time) -> dict[str, float]:
    """The step's terms, in seconds; the data-parallel groups' exposed part is what the others leave."""
    terms = {name: float(getattr(time, attr)) for name, attr in TIME_TERMS}
    model_parallel = time.tensor_parallel_s + time.context_parallel_s + time.pipeline_p2p_s + time.expert_parallel_s
    terms["data-parallel (exposed)"] = max(0.0, time.exposed_communication_s - model_parallel)
    return terms


def contrast(mine: PlanResponse, other: PlanResponse) -> str:
    """'0.120 s shorter: pipeline bubble 0.200 s less, tensor-parallel 0.080 s more; 3.1 GiB more: activations
    +3.1 GiB': this row's step and bytes against another's, by term, this row's sign."""
    gap = mine.time.step_s - other.time.step_s
    a, b = time_terms(mine.time), time_terms(other.time)
    moved = sorted(
        ((a[k] - b[k], k) for k in a if abs(a[k] - b[k]) > 5e-4 * max(other.time.step_s, 1e-9)), key=lambda x: abs(x[0])
    )
    terms = [f"{k} {abs(d):.3g} s {'more' if d > 0 else 'less'}" for d, k in reversed(moved)][:4]
    if abs(gap) <= 1e-12:
        head = "the same step"
    else:
        head = f"{abs(gap):.3g} s {'longer' if gap > 0 else 'shorter'} ({_percent(abs(gap) / other.time.step_s)})"
    out = head + (": " + ", ".join(terms) if terms else "")
    memory = mine.memory.per_gpu_bytes - other.memory.per_gpu_bytes
    if memory:
        parts = []
        for name, attr in MEMORY_TERMS:
            d = getattr(mine.memory, attr) - getattr(other.memory, attr)
            if d:
                parts.append(f"{name} {'+' if d > 0 else '-'}{group_digits(abs(d))} B")
        out += f"; {abs(memory) / 2**30:.2f} GiB {'more' if memory > 0 else 'less'} per GPU ({', '.join(parts)})"
    else:
        out += "; the same bytes per GPU"
    return out


def framework(answer: PlanResponse, body: dict[str, Any]) -> str:
    """The framework conventions that run this layout: its pipeline schedule's and its sharding's."""
    par = body["parallelism"]
    model_parallel = par["tensor"] > 1 or par["pipeline"] > 1 or par["context"] > 1 or par["expert"] > 1
    # Parameters sharded beside model parallelism are priced as torchtitan runs FSDP2 (service.engine.layout's
    # torch_native); DeepSpeed's ZeRO-3 is not what the figures describe there.
    fsdp2 = model_parallel and body["arrangement"] == ArrangementName.zero3.value
    words = [FSDP2_FULL_SHARD if fsdp2 else FRAMEWORKS.get(body["arrangement"], body["arrangement"])]
    if answer.time.schedule_source:
        words.insert(0, answer.time.schedule_source)
    if par["pipeline"] > 1 and (par.get("pipeline_embedding_layers") or par.get("pipeline_loss_layers")):
        words.append(
            "the embedding and loss counted in the split as Megatron-LM's --account-for-embedding-in-pipeline-split "
            "and --account-for-loss-in-pipeline-split (torchtitan's pipeline_parallel_first/last_stage_less_layers)"
        )
    elif par["pipeline"] > 1 and par.get("pipeline_layers") is not None:
        words.append("layers per model chunk as Megatron-Core's --pipeline-model-parallel-layout places them")
    if par["tensor"] > 1 or par["context"] > 1 or par["expert"] > 1:
        fsdp = fsdp2 or body["arrangement"] in (ArrangementName.shard_grad_op.value, ArrangementName.hybrid.value)
        words.append(
            "tensor/context/expert groups as "
            + ("torchtitan forms them around FSDP2" if fsdp else "Megatron-Core forms them")
        )
    return "; ".join(words)


def _objective_figure(objective: SearchObjective, answer: PlanResponse) -> str:
    time = answer.time
    if objective is SearchObjective.gpus:
        return f"{group_digits(answer.world_size)} GPUs, step {time.step_s:.4g} s"
    if objective is SearchObjective.tokens_per_s_per_gpu:
        return f"{time.tokens_per_s_per_gpu:,.1f} tokens/s per GPU (step {time.step_s:.4g} s)"
    if objective is SearchObjective.training_days:
        return f"{time.training_days:,.2f} days (step {time.step_s:.4g} s, goodput {time.goodput:.3f})"
    if objective is SearchObjective.gpu_hours:
        return f"{time.gpu_hours:,.0f} GPU-hours (step {time.step_s:.4g} s)"
    if objective is SearchObjective.cost:
        return f"cost {time.cost:,.2f} {time.currency or ''}".rstrip() + f" (step {time.step_s:.4g} s)"
    return f"step {time.step_s:.4g} s"


def why(
    objective: SearchObjective,
    rank: int,
    answer: PlanResponse,
    body: dict[str, Any],
    runner_up: tuple[dict[str, Any], PlanResponse] | None,
    best: tuple[dict[str, Any], PlanResponse] | None = None,
) -> str:
    """The reason a row ranks where it does, in its own terms: the terms of time and memory that separate it
    from the next row and from the best, and the framework that runs it."""
    time, memory = answer.time, answer.memory
    head = (
        f"#{rank} by {objective.value}: {_objective_figure(objective, answer)}, {memory.per_gpu_gib:.1f} GiB per GPU "
        f"of {memory.usable_bytes / 2**30:.1f} usable (fits), MFU {time.mfu:.3f}; run by {framework(answer, body)}"
    )
    parts = [head]
    if runner_up is None:
        parts.append("no other distinct layout fits" if rank == 1 else "the last row asked for")
    else:
        other_body, other = runner_up
        parts.append(f"against the next row ({_differences(body, other_body)}): {contrast(answer, other)}")
    if best is not None and rank > 1:
        best_body, best_answer = best
        parts.append(f"against the best row ({_differences(body, best_body)}): {contrast(answer, best_answer)}")
    return ". ".join(parts)


def _row(
    objective: SearchObjective,
    rank: int,
    body: dict[str, Any],
    answer: PlanResponse,
    reason: str,
    equivalents: list[dict[str, Any]] | None = None,
) -> SearchLayout:
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
        why=reason,
        framework=framework(answer, body),
        equivalents=equivalents or [],
        memory=answer.memory,
        time=time,
        request=PlanRequest.model_validate(body),
    )


def _plan(body: dict[str, Any]) -> PlanResponse:
    from service.answers.plan import plan

    return plan(PlanRequest.model_validate(body))


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


def search(
    request: SearchRequest, max_layouts: int, budget: WorkBudget | None = None, prune: bool = True
) -> SearchResponse:
    """The best layouts by the objective, found by branch and bound (service.answers.search_prune); ``prune``
    False evaluates every valid layout (the same answer, for comparison)."""
    check_objective(request)
    prepared = prepare(request)
    check_search_cost(prepared.candidates, max_layouts)
    case, cand = prepared.case, prepared.candidates
    found = prepared.space()
    if not len(found.shapes["world_size"]) and request.restrict.model_fields_set:
        reasons = "; ".join(f"{reason}: {count:,}" for reason, count in found.skipped.items())
        raise InvalidLayout(
            [
                (
                    f"the restrictions leave no valid layout ({reasons})",
                    "/restrict/" + sorted(request.restrict.model_fields_set)[0],
                )
            ]
        )
    plan_request = PlanRequest.model_validate(prepared.base | {"arrangement": ArrangementName.ddp.value})
    run = (
        resilience_of(None, plan_request.cluster.failures, case.gpus_per_node),
        resolve.links(plan_request.cluster).host_bytes_per_s,
    )
    goal = goal_for(case, request.objective, request.training.total_tokens, request.cluster.gpu_hour_price, run)
    outcome = BranchAndBound(case, found, goal, request.top_k, budget, prune).run()
    rows, bodies_of = outcome.rows, {}
    shown: list[tuple[int, list[dict[str, Any]]]] = []  # (pool index, equivalents)
    if rows:
        layouts = _pool_layouts(found, rows)
        ranking = np.lexsort((rows["enumeration"], rows["k2"], rows["k1"]))
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
    answers = {i: _plan(bodies_of[i]) for i, _ in shown}
    out = []
    best = (bodies_of[shown[0][0]], answers[shown[0][0]]) if shown else None
    asked = asked_body(request, prepared.base)
    asked_answer = _plan(asked) if asked is not None else None
    for position, (i, equivalents) in enumerate(shown[: request.top_k]):
        nxt = shown[position + 1][0] if position + 1 < len(shown) else None
        runner = (bodies_of[nxt], answers[nxt]) if nxt is not None else None
        reason = why(request.objective, position + 1, answers[i], bodies_of[i], runner, best)
        if position == 0 and asked is not None and asked_answer is not None:
            versus = f"{_differences(bodies_of[i], asked)}): {contrast(answers[i], asked_answer)}"
            reason += f". against the job as asked ({versus}"
        out.append(_row(request.objective, position + 1, bodies_of[i], answers[i], reason, equivalents))
    front = _front(request, prepared, found, rows, {i: p + 1 for p, (i, _) in enumerate(shown[: request.top_k])})
    note = None
    if not out:
        note = (
            f"no layout fits: of {outcome.considered:,} valid layouts none fits the card's "
            f"{group_digits(case.scene.usable_bytes)} usable bytes per GPU"
            + (" (or the host memory)" if case.scene.host_memory_bytes is not None else "")
            + "; try more GPUs, a larger card, or allow recompute full and optimizer offload"
            if outcome.considered
            else "no layout fits: no combination of the candidates is a valid layout (see skipped)"
        )
    asked_row = None
    if asked is not None and asked_answer is not None:
        reason = "the job as the request states it" + ("" if asked_answer.memory.fits else " (it does not fit)")
        if best is not None:
            reason += f"; against the best row ({_differences(asked, best[0])}): {contrast(asked_answer, best[1])}"
        asked_row = _row(request.objective, 0, asked, asked_answer, reason)
    return SearchResponse(
        objective=request.objective,
        asked=asked_row,
        layouts=out,
        pareto=front,
        considered=outcome.considered,
        pruned=outcome.pruned,
        evaluated=outcome.evaluated,
        fitting=outcome.fitting,
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
        reason = f"the fastest layout that fits on {group_digits(size)} GPUs (step {s:.4g} s)" + (
            f"; its step is {1 - s / previous[1]:.2%} shorter than the best on {group_digits(previous[0])} "
            f"GPUs ({previous[1]:.4g} s)"
            if previous
            else "; no fitting layout needs fewer GPUs"
        )
        out.append(_row(request.objective, ranks.get(i, 0), body, _plan(body), reason))
        previous = (size, s)
    return out
