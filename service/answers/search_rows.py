"""The rows of /v1/search: each row's /v1/plan body and answer, what separates it from the next row and the best
(its why, in the row's own terms), and the framework that runs it; read by the layout search
(service.answers.search) and by the search of a model without an architecture (service.answers.search_data)."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from models.common import as_request_json
from models.enums import ArrangementName
from models.parallelism import PipelineSchedule
from models.plan import PlanRequest, PlanResponse, Time
from models.presets import PrecisionPresetName
from models.search import SearchLayout, SearchObjective, SearchRequest
from service.errors import DomainError, InvalidLayout
from service.inputs import resolve
from service.numeric import group_digits


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
    fields["pipeline_layers"] = par.get("pipeline_layers")  # null: the plan's own split
    for name in ("pipeline_embedding_layers", "pipeline_loss_layers"):
        fields[name] = par.get(name, 0)  # a body leaves out a default; an equivalent names its value
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


def differences(mine: dict[str, Any], other: dict[str, Any]) -> str:
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


def percent(fraction: float) -> str:
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
# A precision preset that names a framework (its convention) names that framework's form of each arrangement; an
# arrangement the framework has no form of keeps the generic words above (shard_grad_op, whose parameters are
# resharded after each backward and gathered again, is FSDP's alone: ZeRO-2 and Megatron-FSDP's optim_grads keep them
# whole; FSDP2 has no form that never shards the parameters, zero2). DeepSpeed: the zero_optimization stages
# (deepspeed.readthedocs.io, "ZeRO"), and MiCS (mics_shard_size) for sharding within a node and replicating across
# nodes. Megatron-LM: --use-distributed-optimizer, and Megatron-FSDP's --data-parallel-sharding-strategy
# (docs.nvidia.com/megatron-core/developer-guide/latest/user-guide/features/megatron_fsdp.html). PyTorch FSDP2:
# fully_shard's reshard_after_forward, and HSDP over a 2-D device mesh.
CONVENTION_FRAMEWORKS: dict[str, dict[str, str]] = {
    PrecisionPresetName.deepspeed.value: {
        ArrangementName.ddp.value: "DeepSpeed without ZeRO (stage 0)",
        ArrangementName.zero1.value: "DeepSpeed ZeRO-1",
        ArrangementName.zero2.value: "DeepSpeed ZeRO-2",
        ArrangementName.zero3.value: "DeepSpeed ZeRO-3",
        ArrangementName.hybrid.value: "DeepSpeed ZeRO-3 with MiCS (mics_shard_size: the GPUs of a node)",
    },
    PrecisionPresetName.megatron.value: {
        ArrangementName.ddp.value: "Megatron-LM without the distributed optimizer",
        ArrangementName.zero1.value: "Megatron-LM's distributed optimizer",
        ArrangementName.zero2.value: "Megatron-FSDP, --data-parallel-sharding-strategy optim_grads",
        ArrangementName.zero3.value: "Megatron-FSDP, --data-parallel-sharding-strategy optim_grads_params",
    },
    PrecisionPresetName.fsdp2.value: {
        ArrangementName.ddp.value: "PyTorch DDP",
        ArrangementName.shard_grad_op.value: "PyTorch FSDP2 with reshard_after_forward=False",
        ArrangementName.zero3.value: "PyTorch FSDP2 FULL_SHARD",
        ArrangementName.hybrid.value: "PyTorch FSDP2 HSDP (replicated across nodes, sharded within one)",
    },
}


def time_terms(time: Time) -> dict[str, float]:
    """The step's terms, in seconds; the data-parallel groups' exposed part is what the others leave."""
    terms = {name: float(getattr(time, attr)) for name, attr in TIME_TERMS}
    model_parallel = time.tensor_parallel_s + time.context_parallel_s + time.pipeline_p2p_s + time.expert_parallel_s
    terms["data-parallel (exposed)"] = max(0.0, time.exposed_communication_s - model_parallel)
    return terms


@dataclass(frozen=True)
class RankedFigure:
    """What an objective other than the step ranks by: the figure, its unit, and whether more is better."""

    of: Callable[[PlanResponse], float | None]
    unit: str
    more_is_better: bool = False


OBJECTIVE_FIGURES = {
    SearchObjective.gpus: RankedFigure(lambda a: float(a.world_size), "GPUs"),
    SearchObjective.tokens_per_s_per_gpu: RankedFigure(
        lambda a: a.time.tokens_per_s_per_gpu, "tokens/s per GPU", more_is_better=True
    ),
    SearchObjective.training_days: RankedFigure(lambda a: a.time.training_days, "days"),
    SearchObjective.gpu_hours: RankedFigure(lambda a: a.time.gpu_hours, "GPU-hours"),
    SearchObjective.cost: RankedFigure(lambda a: a.time.cost, "cost"),
}


def amount_words(amount: float) -> str:
    """A gap's size: whole units from 100 up ('1,066'), else three significant digits ('2.6', '0.0213'), so a small
    gap never reads as 0."""
    return f"{amount:,.0f}" if amount >= 100 else f"{amount:.3g}"


def objective_gap(objective: SearchObjective, mine: PlanResponse, other: PlanResponse) -> str | None:
    """'1,066 GPU-hours fewer (0.25%, better by gpu_hours)': this row's figure of the objective against
    another's, when the objective is not the step (the step's gap opens every contrast)."""
    ranked = OBJECTIVE_FIGURES.get(objective)
    a, b = (ranked.of(mine), ranked.of(other)) if ranked is not None else (None, None)
    if ranked is None or a is None or b is None:
        return None
    if abs(a - b) <= 1e-12 * max(abs(b), 1.0):
        return f"level by {objective.value}"
    amount = amount_words(abs(a - b))
    if objective is SearchObjective.cost:  # '1,234 USD less in cost'
        gap = " ".join(filter(None, [amount, mine.time.currency, "more" if a > b else "less", "in cost"]))
    else:
        gap = f"{amount} {ranked.unit} {'more' if a > b else 'fewer'}"
    verdict = "better" if (a > b) == ranked.more_is_better else "worse"
    share = percent(abs(a - b) / abs(b)) if b else "against 0"
    return f"{gap} ({share}, {verdict} by {objective.value})"


def contrast(mine: PlanResponse, other: PlanResponse, objective: SearchObjective = SearchObjective.step_s) -> str:
    """'0.120 s shorter: pipeline bubble 0.200 s less, tensor-parallel 0.080 s more; 3.1 GiB more: activations
    +3.1 GiB': this row's step and bytes against another's, by term, this row's sign; by an objective other than
    the step, its own gap first ('1,066 GPU-hours fewer (0.25%, better by gpu_hours); step 25.1 s longer ...')."""
    ranked = objective_gap(objective, mine, other)
    step = _step_and_bytes(mine, other)
    if ranked is None:
        return step
    return f"{ranked}; " + (step if step.startswith("the same step") else f"step {step}")


def _step_and_bytes(mine: PlanResponse, other: PlanResponse) -> str:
    gap = mine.time.step_s - other.time.step_s
    a, b = time_terms(mine.time), time_terms(other.time)
    moved = sorted(
        ((a[k] - b[k], k) for k in a if abs(a[k] - b[k]) > 5e-4 * max(other.time.step_s, 1e-9)), key=lambda x: abs(x[0])
    )
    terms = [f"{k} {abs(d):.3g} s {'more' if d > 0 else 'less'}" for d, k in reversed(moved)][:4]
    if abs(gap) <= 1e-12:
        head = "the same step"
    else:
        head = f"{abs(gap):.3g} s {'longer' if gap > 0 else 'shorter'} ({percent(abs(gap) / other.time.step_s)})"
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
    words = [FSDP2_FULL_SHARD if fsdp2 else sharding_framework(body["arrangement"], body.get("precision"))]
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


def sharding_framework(arrangement: str, precision: object) -> str:
    """The framework that runs the arrangement: the precision preset's own where it names one (its convention), else
    the frameworks the arrangement's figures describe."""
    convention = CONVENTION_FRAMEWORKS.get(precision, {}) if isinstance(precision, str) else {}
    return convention.get(arrangement) or FRAMEWORKS.get(arrangement, arrangement)


def objective_figure(objective: SearchObjective, answer: PlanResponse) -> str:
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
        f"#{rank} by {objective.value}: {objective_figure(objective, answer)}, {memory.per_gpu_gib:.1f} GiB per GPU "
        f"of {memory.usable_bytes / 2**30:.1f} usable (fits), MFU {time.mfu:.3f}; run by {framework(answer, body)}"
    )
    parts = [head]
    if runner_up is None:
        parts.append("no other distinct layout fits" if rank == 1 else "the last row asked for")
    else:
        other_body, other = runner_up
        parts.append(f"against the next row ({differences(body, other_body)}): {contrast(answer, other, objective)}")
    if best is not None and rank > 1:
        best_body, best_answer = best
        parts.append(
            f"against the best row ({differences(body, best_body)}): {contrast(answer, best_answer, objective)}"
        )
    return ". ".join(parts)


def row(
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


def plan_of(body: dict[str, Any]) -> PlanResponse:
    """A row's /v1/plan answer; a body /v1/plan refuses is a 422 with the plan's own fields and words (a row of a
    search is always one it takes: the job as asked may not be)."""
    from service.answers.plan import plan

    try:
        request = PlanRequest.model_validate(body)
    except ValidationError as error:
        raise InvalidLayout(
            [
                (str(e["msg"]).removeprefix("Value error, "), "/" + "/".join(str(part) for part in e["loc"]))
                for e in error.errors()
            ]
        ) from None
    return plan(request)


def plan_asked(body: dict[str, Any]) -> PlanResponse:
    """The job as the request states it (asked_body), planned; one /v1/plan refuses is the search's 422, said so."""
    try:
        return plan_of(body)
    except DomainError as refused:
        n = body["cluster"]["world_size"]
        raise InvalidLayout(
            [(f"the job as asked, on {n:,} GPUs (the first world size): {d}", p) for d, p in refused.field_errors()]
            or [(f"the job as asked, on {n:,} GPUs (the first world size): {refused.detail}", "/")]
        ) from None


Shown = tuple[dict[str, Any], PlanResponse, list[dict[str, Any]]]  # a row's body, answer and equivalent levers


def ranked_rows(
    objective: SearchObjective, shown: list[Shown], top_k: int, asked: tuple[dict[str, Any], PlanResponse] | None
) -> list[SearchLayout]:
    """The first top_k of ``shown`` (in order; one more is the last row's runner-up), each with its why against the
    next row and the best; the best row's also against the job as asked."""
    best = (shown[0][0], shown[0][1]) if shown else None
    out = []
    for position, (body, answer, equivalents) in enumerate(shown[:top_k]):
        runner = (shown[position + 1][0], shown[position + 1][1]) if position + 1 < len(shown) else None
        reason = why(objective, position + 1, answer, body, runner, best)
        if position == 0 and asked is not None:
            reason += (
                f". against the job as asked ({differences(body, asked[0])}): {contrast(answer, asked[1], objective)}"
            )
        out.append(row(objective, position + 1, body, answer, reason, equivalents))
    return out


def asked_row(
    objective: SearchObjective,
    asked: tuple[dict[str, Any], PlanResponse],
    best: tuple[dict[str, Any], PlanResponse] | None,
) -> SearchLayout:
    """The job as the request states it, answered as /v1/plan answers it, against the best row."""
    body, answer = asked
    reason = "the job as the request states it" + ("" if answer.memory.fits else " (it does not fit)")
    if best is not None:
        reason += f"; against the best row ({differences(body, best[0])}): {contrast(answer, best[1], objective)}"
    return row(objective, 0, body, answer, reason)


def front_reason(n: int, step_s: float, previous: tuple[int, float] | None) -> str:
    """Why a layout stands on the front of GPUs against step time: the fastest on its world size, and how much
    shorter its step is than the best on fewer GPUs."""
    words = f"the fastest layout that fits on {group_digits(n)} GPUs (step {step_s:.4g} s)"
    if previous is None:
        return words + "; no fitting layout needs fewer GPUs"
    return (
        f"{words}; its step is {1 - step_s / previous[1]:.2%} shorter than the best on {group_digits(previous[0])} "
        f"GPUs ({previous[1]:.4g} s)"
    )
