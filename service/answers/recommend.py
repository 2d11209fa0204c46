"""The recommended order of levers for one case, cheapest first: free levers before costly ones.

Every candidate (an arrangement with recomputation, optimizer offload or MXFP8; under a Transformer Engine FP8
recipe that keeps a 16-bit copy, ZeRO-1 with the weights in FP8 alone) is the /v1/plan of the
same job: its smallest GPU count is the one /v1/fit finds for it (service.answers.fit, on the request's layout
when it gives one), and its figures are service.answers.plan.plan's at one count: the request's
cluster.world_size when given, else that smallest count (or the largest job allowed when it does not fit
there). Each is priced against data parallel at the same count: extra wire volume, extra FLOPs, PCIe
bytes, and the step time they add. Steps that fit come first; among them those needing hardware the card
lacks go last, the rest by the GPU-seconds each token costs (world size x step time / tokens per step),
then by GPU count; steps that do not fit follow, each saying what it would need. The recommendation is the
first step that fits. A given ``training.utilisation`` holds for the request's own recomputation: a
recomputation step keeps its hardware efficiency (service.inputs.resolve.setup_for). Each step is planned from its
own /v1/plan body (``Job.request_at``: the request as its client wrote it, at the step's count, arrangement and
levers), which the step carries as ``request``.

A step /v1/plan would refuse is left out, and a warning says which and why: an arrangement that cannot take a
lever of the request (levers.offload_parameters without sharded parameters, levers.zeropp outside ZeRO-3), one
the job's framework cannot pipeline (service.answers.refusals, the rules /v1/plan validates with), or one whose plan
/v1/plan refuses (a run that never finishes under the cluster's failures). Data parallel, the steps' baseline, is
planned without the token budget: the costs are per step.

A lever that changes nothing the case needs is not a step: when its per-GPU bytes equal those of
the same arrangement without it and its step is no shorter (selective recomputation with flash
attention, which stores no attention scores to drop; recomputation when activations are not
counted), it is listed under ``omitted`` with the reason.
"""

from dataclasses import dataclass
from typing import Any

from models.common import as_request_json
from models.enums import ArrangementName, Dtype, Mxfp8Recipe, Recompute
from models.fit import ArrangementFit, FitRequest
from models.plan import PlanRequest, PlanResponse
from models.recommend import (
    OmittedStep,
    OpenQuestion,
    RecommendRequest,
    RecommendResponse,
    RecommendStep,
    StepCost,
    StepLevers,
)
from models.training import TRANSFORMER_ENGINE_FP8, Levers, Training, ZeroPlusPlus, levers_conflict
from service.answers.bisection import valid_job
from service.answers.fit import DataBatch, fit
from service.answers.layout_fit import largest_layout_job
from service.answers.plan import plan
from service.answers.refusals import left_out_words, plan_refusals
from service.errors import InvalidLayout, OutOfRange
from service.inputs import resolve
from service.inputs.arrangements import canonical_name
from service.memory.dtypes import bytes_per_element
from service.numeric import GIB_BYTES, gpus, outside_int64
from service.work_budget import WorkBudget

A, R = ArrangementName, Recompute


@dataclass(frozen=True)
class Candidate:
    lever: str
    arrangement: ArrangementName
    recompute: Recompute = R.none
    offload_optimizer: bool = False
    mxfp8: bool = False
    mxfp8_recipe: Mxfp8Recipe = Mxfp8Recipe.seed  # the request's: what an MXFP8 step's words say
    fp8_param_gather: bool = False

    @property
    def has_levers(self) -> bool:
        return self.recompute is not R.none or self.offload_optimizer or self.mxfp8 or self.fp8_param_gather

    def arrangement_label(self) -> str:
        """'ZeRO-2' of 'ZeRO-2 with ...'."""
        return self.lever.split(" with ", 1)[0]


CANDIDATES = (
    Candidate("data parallel", A.ddp),
    Candidate("ZeRO-1: shard optimizer state", A.zero1),
    Candidate("ZeRO-2: shard gradients too", A.zero2),
    Candidate("ZeRO-3: shard parameters too", A.zero3),
    Candidate("FSDP SHARD_GRAD_OP: parameters sharded at rest, gathered for every micro-batch", A.shard_grad_op),
    Candidate("hybrid sharding: ZeRO-3 inside a node, replicas across nodes", A.hybrid),
    Candidate("ZeRO-2 with optimizer state offloaded to host memory", A.zero2, offload_optimizer=True),
    Candidate("ZeRO-3 with optimizer state offloaded to host memory", A.zero3, offload_optimizer=True),
    Candidate("ZeRO-2 with selective recomputation", A.zero2, recompute=R.selective),
    Candidate("ZeRO-3 with selective recomputation", A.zero3, recompute=R.selective),
    Candidate("ZeRO-3 with full recomputation", A.zero3, recompute=R.full),
    Candidate("ZeRO-2 with MXFP8 parameters and gradients", A.zero2, mxfp8=True),
    Candidate("ZeRO-3 with MXFP8 parameters and gradients", A.zero3, mxfp8=True),
)
PAST_INT64 = (
    "its plan holds an integer past what a 64-bit client reads (2^63 - 1), which /v1/plan refuses as too large to "
    "answer"
)
# What an MXFP8 step is under each recipe (models.training.Levers.mxfp8_recipe): seed stores and sends parameters
# and gradients in MXFP8; Transformer Engine keeps the state and gradients in 16/32 bits and gathers the weights in
# 8 bits; torchao's MX linear stores and sends nothing in 8 bits (service/time/fp8.py, "MXFP8").
MXFP8_STEP_WORDS = {
    Mxfp8Recipe.seed: "MXFP8 parameters and gradients",
    Mxfp8Recipe.fp8_weights: "MXFP8 GEMMs and 8-bit parameter gathers (Transformer Engine)",
    Mxfp8Recipe.torchao: "MXFP8 GEMMs (torchao's MX linear)",
}


# Under a Transformer Engine FP8 recipe that keeps a 16-bit copy of the weights: the distributed optimizer with the
# weights in FP8 alone (levers.fp8_param_gather, Megatron-LM's --fp8-param-gather; service/memory/fp8.py).
FP8_WEIGHTS_STEP = Candidate(
    "ZeRO-1 with FP8 weights alone (Megatron-LM's --fp8-param-gather)", A.zero1, fp8_param_gather=True
)


def candidates(levers: Levers, master_weights: bool) -> tuple[Candidate, ...]:
    """The steps, the MXFP8 ones named for the request's recipe; the FP8-weights step where the request's FP8 recipe
    and precision (its master weights) can take it and the request does not already."""
    words = MXFP8_STEP_WORDS[levers.mxfp8_recipe]
    steps = tuple(
        Candidate(f"{c.arrangement_label()} with {words}", c.arrangement, mxfp8=True, mxfp8_recipe=levers.mxfp8_recipe)
        if c.mxfp8
        else c
        for c in CANDIDATES
    )
    fp8_weights = levers.fp8 in TRANSFORMER_ENGINE_FP8 and not levers.fp8_param_gather and master_weights
    return (*steps, FP8_WEIGHTS_STEP) if fp8_weights else steps


ARRANGEMENT_WORDS = {
    A.ddp: "data parallel",
    A.zero1: "ZeRO-1",
    A.zero2: "ZeRO-2",
    A.zero3: "ZeRO-3",
    A.shard_grad_op: "FSDP SHARD_GRAD_OP",
    A.hybrid: "hybrid sharding",
}


def asked_candidate(request: RecommendRequest) -> Candidate | None:
    """The request's own job (its arrangement and levers) as a step, where it names an arrangement."""
    if request.arrangement is None:
        return None
    levers = request.levers
    arrangement = canonical_name(resolve.sharding(request.arrangement))
    words = [
        f"{levers.recompute.value} recomputation" if levers.recompute is not R.none else "",
        "optimizer state offloaded to host memory" if levers.offload_optimizer else "",
        MXFP8_STEP_WORDS[levers.mxfp8_recipe] if levers.mxfp8 else "",
        "FP8 weights alone" if levers.fp8_param_gather else "",
    ]
    named = " and ".join(w for w in words if w)
    return Candidate(
        f"the job as asked: {ARRANGEMENT_WORDS[arrangement]}" + (f" with {named}" if named else ""),
        arrangement,
        recompute=levers.recompute,
        offload_optimizer=levers.offload_optimizer,
        mxfp8=levers.mxfp8,
        mxfp8_recipe=levers.mxfp8_recipe,
        fp8_param_gather=levers.fp8_param_gather,
    )


def recommend(request: RecommendRequest, budget: WorkBudget | None = None) -> RecommendResponse:
    job = Job(request, budget)
    zero1 = resolve.precision_spec(request.precision, resolve.sharding(A.zero1))
    offered = candidates(request.levers, zero1.master_dtype is not None)
    own = asked_candidate(request)
    if own is not None and not any(job.is_asked(c) for c in offered):  # the request's job is a step of its own
        offered = (*offered, own)
    evaluated = [e for c in offered if (e := job.evaluate(c)) is not None]
    evaluated, omitted = _without_idle_levers(request, evaluated)
    evaluated.sort(key=_rank_key)
    steps = [e.to_step(rank) for rank, e in enumerate(evaluated, start=1)]
    recommendation = next((s for s in steps if s.fits), None)
    first = job.baseline(job.largest_job)
    return RecommendResponse(
        parameter_count=first.parameter_count,
        active_parameter_count=first.active_parameter_count,
        card_bytes=first.memory.card_bytes,
        usable_bytes=first.memory.usable_bytes,
        steps=steps,
        world_size=request.cluster.world_size,
        recommendation=recommendation,
        omitted=omitted,
        summary=_summary(recommendation, request.max_gpus, request.cluster.world_size),
        questions=_questions(steps, recommendation, request.cluster.gpus_per_node),
        warnings=[w for w in first.warnings if "mxfp8" not in w] + left_out_words(job.left_out, "steps"),
    )


def _rank_key(e: "Evaluated") -> tuple[bool, bool, float, int]:
    """Fitting steps first; hardware the card lacks last among them; then GPU-seconds per token and GPUs."""
    planned = e.planned
    per_token_s = e.world_size * planned.time.step_s / planned.time.tokens_per_step
    return (not e.fits, e.cost.hardware is not None, round(per_token_s, 15), e.world_size)


def measured_training(training: Training | None, levers: Levers) -> Training | None:
    """The request's training, a given utilisation stated with the recomputation it was measured with (the
    request's own unless it says otherwise): every step keeps the request's hardware efficiency, whatever
    recomputation it turns on, as the /v1/plan of the step's body prices it (service.inputs.resolve.setup_for)."""
    if training is None or training.utilisation is None or training.utilisation_recompute is not None:
        return training
    return training.model_copy(update={"utilisation_recompute": levers.recompute})


class Job:
    """The request's job, planned as /v1/plan plans it under each candidate's arrangement and levers."""

    def __init__(self, request: RecommendRequest, budget: WorkBudget | None) -> None:
        self.request, self.budget = request, budget
        self.g = request.cluster.gpus_per_node
        self.layout = request.parallelism.model_parallel
        self._training = measured_training(request.training, request.levers)
        # the request as its client wrote it, less what only /v1/recommend reads: each step's /v1/plan body starts here
        self._body = as_request_json(request, exclude={"max_gpus"}, exclude_unset=True)
        for asked in ("arrangement", "sharding"):  # each step names its own
            self._body.pop(asked, None)
        self.largest_job = self._largest_job()
        self._baselines: dict[int, PlanResponse] = {}
        self.left_out: dict[str, list[str]] = {}  # why steps the job's framework cannot take were left out: whose

    def _largest_job(self) -> int:
        asked = self.request.cluster.world_size
        if asked is not None:
            return asked
        if not self.layout:
            return self._largest_data_parallel_job()
        largest = largest_layout_job(self._fit_request(ArrangementName.ddp, self.request.levers), self.request.max_gpus)
        if largest is None:
            raise InvalidLayout(
                [
                    (
                        f"the layout runs on no GPU count up to max_gpus {self.request.max_gpus:,}: tensor x pipeline "
                        "x context x d, part of a node or whole nodes, the batch in whole micro-batches",
                        "/max_gpus",
                    )
                ]
            )
        return largest

    def _largest_data_parallel_job(self) -> int:
        """The largest count up to max_gpus /v1/plan takes over data parallelism: part of a node or whole nodes,
        and with a global batch one it splits over (service.answers.fit.DataBatch)."""
        top = self.request.max_gpus
        batch = DataBatch(self.request.training, self.g)
        if batch.global_batch_size is None:
            return _largest_valid_job(top, self.g)
        counts = [n for n in batch.counts_from(1) if n <= top and valid_job(n, self.g)]
        if not counts:
            raise InvalidLayout(
                [
                    (
                        f"training.global_batch_size {batch.global_batch_size:,} splits over no GPU count up to "
                        f"max_gpus {top:,} (part of a node or whole nodes, whole micro-batches on each)",
                        "/training/global_batch_size",
                    )
                ]
            )
        return counts[-1]

    def levers(self, c: "Candidate") -> Levers:
        asked = self.request.levers
        return asked.model_copy(
            update={
                "recompute": c.recompute,
                "offload_optimizer": c.offload_optimizer,
                "mxfp8": c.mxfp8,
                "fp8_param_gather": c.fp8_param_gather or asked.fp8_param_gather,
            }
        )

    def _job_body(self, arrangement: ArrangementName, levers: Levers) -> dict[str, Any]:
        """The body of this job under an arrangement and levers, as a client writes it, that a /v1/plan body and a
        /v1/fit body share: the request's own fields, the arrangement, the levers the step sets beside the
        request's, and a given utilisation with the recomputation it was measured with (measured_training)."""
        body = self._body | {
            "cluster": {k: v for k, v in self._body["cluster"].items() if k != "world_size"},
            "arrangement": arrangement.value,
            "levers": self._body.get("levers", {}) | levers.model_dump(mode="json", exclude_unset=True),
        }
        if self._training is not None:
            body["training"] = self._training.model_dump(mode="json", exclude_unset=True)
        return body

    def _fit_request(self, arrangement: ArrangementName, levers: Levers) -> FitRequest:
        return FitRequest.model_validate(
            self._job_body(arrangement, levers) | {"gpu_count_grid": [1], "max_gpus": self.request.max_gpus}
        )

    def request_at(self, world_size: int, arrangement: ArrangementName, levers: Levers) -> PlanRequest:
        """The /v1/plan body of this job under an arrangement and levers at a GPU count."""
        body = self._job_body(arrangement, levers)
        return PlanRequest.model_validate(body | {"cluster": body["cluster"] | {"world_size": world_size}})

    def plan_at(
        self, world_size: int, arrangement: ArrangementName, levers: Levers
    ) -> tuple[PlanRequest, PlanResponse]:
        """The step's /v1/plan body and its answer."""
        body = self.request_at(world_size, arrangement, levers)
        return body, self._plan(body)

    def _plan(self, request: PlanRequest) -> PlanResponse:
        if self.budget is not None:
            self.budget.check()
        return plan(request)

    def baseline(self, world_size: int) -> PlanResponse:
        """Data parallel (the request's own levers, none of a step's) at ``world_size``."""
        if world_size not in self._baselines:
            # ZeRO++ and FP8 weights too: data parallel cannot take them
            off = {"offload_optimizer": False, "offload_parameters": False, "zeropp": ZeroPlusPlus()}
            levers = self.request.levers.model_copy(update=off | {"fp8_param_gather": False})
            request = self.request_at(world_size, ArrangementName.ddp, levers)
            if request.training is not None and request.training.total_tokens is not None:
                # a step's costs are per step: without the budget, whose run figures they never read, data parallel
                # is a baseline even where its run would never finish
                training = request.training.model_copy(update={"total_tokens": None})
                request = request.model_copy(update={"training": training})
            self._baselines[world_size] = self._plan(request)
        return self._baselines[world_size]

    def fit_entry(self, c: "Candidate", levers: Levers) -> ArrangementFit:
        """/v1/fit's answer for the candidate: the smallest count /v1/plan accepts at which it fits, and why."""
        (entry,) = fit(self._fit_request(c.arrangement, levers), max_points=1, budget=self.budget).arrangements
        return entry

    def evaluate(self, c: "Candidate") -> "Evaluated | None":
        asked = self.request.cluster.world_size
        # a lever of the request the step's arrangement cannot take, an arrangement not modelled on the layout, or a
        # framework that cannot pipeline it (/v1/plan's rules), or hybrid sharding on less than whole nodes: no job to
        # plan
        refused = plan_refusals(c.arrangement, self.request.levers, self.request.precision, self.request.parallelism)
        if not refused and resolve.sharding(c.arrangement).hybrid:
            refused = self._hybrid_refusals(asked)
        if refused:
            names = self.left_out.setdefault(refused[0], [])
            if c.arrangement.value not in names:
                names.append(c.arrangement.value)
            return None  # a step /v1/plan refuses, or the job's framework cannot pipeline
        levers = self.levers(c)
        conflict = levers_conflict(levers)
        if conflict is not None:  # the request's levers.fp8 with the step's MXFP8: /v1/plan refuses the pair
            names = self.left_out.setdefault(conflict, [])
            names.append(c.lever)
            return None
        entry = self.fit_entry(c, levers)
        needs = entry.min_gpus
        # no count: the replicated floor alone is too much, or (with a global batch) no count it splits over fits
        floor = "a node's job, which every hybrid job holds, does not" if c.arrangement is A.hybrid else None
        floor = floor or "its replicated floor alone does not"
        no_count = floor if entry.never_fits else entry.reason
        min_gpus = needs if needs is not None and needs <= self.request.max_gpus else None
        world_size = asked if asked is not None else (min_gpus if min_gpus is not None else self.largest_job)
        try:
            body, planned = self.plan_at(world_size, c.arrangement, levers)
        except OutOfRange as never:  # /v1/plan refuses the step's job (a run at this count that never finishes)
            self.left_out.setdefault(f"/v1/plan refuses its job: {never.detail}", []).append(c.lever)
            return None
        if outside_int64(planned.model_dump()) is not None:  # /v1/plan answers it answer_out_of_range
            self.left_out.setdefault(PAST_INT64, []).append(c.lever)
            return None
        baseline = self.baseline(world_size)
        cost = StepCost(
            extra_traffic_fraction=_extra_traffic(planned, baseline),
            extra_compute_fraction=planned.time.compute_flops / planned.time.model_flops_per_step - 1,
            pcie_bytes_per_gpu=planned.traffic.pcie_bytes_per_gpu,
            hardware="Blackwell-class GPUs (native MXFP8)"
            if c.mxfp8 and any("Blackwell-class" in w for w in planned.warnings)
            else None,
            added_step_s=planned.time.step_s - baseline.time.step_s,
        )
        return Evaluated(c, min_gpus, needs, world_size, body, planned, cost, self.is_asked(c), levers, no_count)

    def _hybrid_refusals(self, asked: int | None) -> list[str]:
        """Hybrid sharding replicates over whole nodes: no step where the job is less than whole nodes."""
        if asked is not None and asked % self.g:
            return [
                f"hybrid sharding needs whole nodes: cluster.world_size {asked:,} is not a multiple of gpus_per_node "
                f"{self.g}"
            ]
        if asked is None and self.largest_job < self.g:
            return [f"hybrid sharding needs whole nodes: no job up to max_gpus is a node of {self.g} GPUs"]
        return []

    def is_asked(self, c: "Candidate") -> bool:
        """Whether the step is the request's own job: its arrangement and levers."""
        requested, asked = self.request.arrangement, self.request.levers
        return (
            requested is not None
            and resolve.sharding(requested) == resolve.sharding(c.arrangement)
            and (asked.recompute, asked.offload_optimizer, asked.mxfp8, asked.fp8_param_gather)
            == (c.recompute, c.offload_optimizer, c.mxfp8, c.fp8_param_gather or asked.fp8_param_gather)
        )


def _without_idle_levers(
    request: RecommendRequest, evaluated: list["Evaluated"]
) -> tuple[list["Evaluated"], list[OmittedStep]]:
    """The steps whose lever changes something, and those whose lever does not: the same per-GPU bytes
    as the same arrangement without it (so the same GPU count) and a step no shorter."""
    plain = {e.candidate.arrangement: e for e in evaluated if not e.candidate.has_levers}
    kept: list[Evaluated] = []
    omitted: list[OmittedStep] = []
    for e in evaluated:
        base = plain.get(e.candidate.arrangement)
        # the request's own job stays a step even when its lever changes nothing: the answer marks it (asked)
        if base is None or e is base or e.asked or not _changes_nothing(e, base):
            kept.append(e)
            continue
        omitted.append(
            OmittedStep(
                lever=e.candidate.lever,
                arrangement=e.candidate.arrangement,
                levers=e.step_levers,
                same_as=base.candidate.lever,
                why=_idle_why(request, e, base),
            )
        )
    return kept, omitted


def _changes_nothing(e: "Evaluated", base: "Evaluated") -> bool:
    same_memory = e.world_size == base.world_size and e.per_gpu_bytes == base.per_gpu_bytes
    return same_memory and e.planned.time.step_s >= base.planned.time.step_s


def _idle_why(request: RecommendRequest, e: "Evaluated", base: "Evaluated") -> str:
    c = e.candidate
    same = f"the same {e.per_gpu_bytes / GIB_BYTES:.1f} GiB per GPU as {base.candidate.lever} on {gpus(e.world_size)}"
    added_ms = (e.planned.time.step_s - base.planned.time.step_s) * 1e3
    time = "and the same step time" if added_ms == 0 else f"and a step {added_ms:+,.1f} ms longer"
    if c.recompute is not R.none and not e.planned.memory.activations_counted:
        reason = "recomputation trades activation memory for compute, and activations are not counted here"
    elif c.recompute is R.selective and request.activations.flash_attention:
        reason = (
            "it drops the attention scores, softmax and dropout outputs to recompute them (Korthikanti et al. "
            "2022, section 4.2), and flash attention never stores them"
        )
    else:
        reason = "the lever changes nothing this case needs"
    return f"{c.lever}: {reason}; {same} {time}"


@dataclass(frozen=True)
class Evaluated:
    candidate: Candidate
    min_gpus: int | None
    needs_gpus: int | None
    world_size: int
    request: PlanRequest  # the step's /v1/plan body
    planned: PlanResponse
    cost: StepCost
    asked: bool
    levers: Levers  # as the step's job was planned: the candidate's on the request's own
    no_count_why: str = ""  # why no GPU count fits, when none does

    @property
    def step_levers(self) -> StepLevers:
        levers = self.levers
        return StepLevers(
            recompute=levers.recompute,
            offload_optimizer=levers.offload_optimizer,
            mxfp8=levers.mxfp8,
            fp8_param_gather=levers.fp8_param_gather,
        )

    @property
    def per_gpu_bytes(self) -> int:
        return self.planned.memory.per_gpu_bytes

    @property
    def fits(self) -> bool:
        return self.planned.memory.fits

    def to_step(self, rank: int) -> RecommendStep:
        c = self.candidate
        return RecommendStep(
            rank=rank,
            lever=c.lever,
            arrangement=c.arrangement,
            levers=self.step_levers,
            per_gpu_bytes=self.per_gpu_bytes,
            fits=self.fits,
            min_gpus=self.min_gpus,
            needs_gpus=self.needs_gpus,
            world_size=self.world_size,
            asked=self.asked,
            step_s=self.planned.time.step_s,
            cost=self.cost,
            why=_why(self),
            request=self.request,
        )


def _largest_valid_job(max_gpus: int, g: int) -> int:
    return max_gpus if max_gpus <= g else max_gpus - max_gpus % g


def _extra_traffic(planned: PlanResponse, baseline: PlanResponse) -> float:
    """Bytes on the wire over data parallel's at the same GPU count and accumulation, minus 1.

    On one GPU nothing is sent; the ratio of model-sized buffers moved (volume in P) stands in.
    """
    if baseline.traffic.bytes_sent_per_gpu > 0:
        return planned.traffic.bytes_sent_per_gpu / baseline.traffic.bytes_sent_per_gpu - 1
    return planned.traffic.volume_in_p / baseline.traffic.volume_in_p - 1


def _mxfp8_words(recipe: Mxfp8Recipe) -> str:
    """What the MXFP8 step changes, as its recipe runs it (MXFP8_STEP_WORDS)."""
    mx, bf = bytes_per_element(Dtype.mxfp8), bytes_per_element(Dtype.bf16)
    if recipe is Mxfp8Recipe.seed:
        return f"MXFP8 about halves the bytes on the wire ({mx:g} B instead of {bf:g} per value)"
    if recipe is Mxfp8Recipe.fp8_weights:
        return (
            f"parameter all-gathers in MXFP8 ({mx:g} B instead of {bf:g} per value), gradients reduced in bf16; "
            "the GEMMs on the FP8 tensor cores of Blackwell-class GPUs"
        )
    return "nothing stored or sent in 8 bits; the GEMMs on the FP8 tensor cores of Blackwell-class GPUs"


def _why(e: Evaluated) -> str:
    c, cost = e.candidate, e.cost
    parts = []
    if cost.extra_traffic_fraction == 0:
        parts.append("no extra traffic over data parallel's")
    else:
        parts.append(f"{cost.extra_traffic_fraction:+.0%} wire volume over data parallel's")
    if c.mxfp8:
        parts.append(_mxfp8_words(c.mxfp8_recipe))
    if c.fp8_param_gather:
        parts.append(
            "the weights kept in FP8 alone, no 16-bit copy (on Hopper beside their FP8 transpose), the updated "
            "parameters all-gathered in FP8"
        )
    if cost.extra_compute_fraction:
        hardware, model = e.planned.time.compute_flops, e.planned.time.model_flops_per_step
        parts.append(
            f"{cost.extra_compute_fraction:+.0%} compute ({hardware:.3g} hardware FLOPs per step for {model:.3g} "
            "model FLOPs)"
        )
    if cost.pcie_bytes_per_gpu:
        parts.append(f"{cost.pcie_bytes_per_gpu / 1e9:,.1f} GB over PCIe per GPU per step")
    if cost.hardware:
        parts.append(f"needs {cost.hardware}")
    parts.append(f"step time {cost.added_step_s * 1e3:+,.1f} ms against data parallel on {gpus(e.world_size)}")
    held = f"{e.per_gpu_bytes / GIB_BYTES:.1f} GiB per GPU"
    if e.fits:
        where = f"fits on {gpus(e.world_size)} ({held})"
        if e.min_gpus is not None and e.min_gpus != e.world_size:
            where += f", from {gpus(e.min_gpus)}"
    else:
        floor = e.planned.memory.replicated_floor_bytes / GIB_BYTES
        needs = (
            f"needs {gpus(e.needs_gpus)}" if e.needs_gpus is not None else f"fits at no GPU count ({e.no_count_why})"
        )
        where = f"does not fit on {gpus(e.world_size)} ({held}; floor {floor:.1f} GiB): {needs}"
    return f"{c.lever}: {where}; " + "; ".join(parts)


def _summary(recommendation: RecommendStep | None, max_gpus: int, asked: int | None) -> str:
    if recommendation is None:
        where = f"on {gpus(asked)}" if asked is not None else f"within {gpus(max_gpus)}"
        return f"nothing fits {where}: reduce activations (micro-batch, recomputation) or the model"
    if asked is not None:
        return f"{recommendation.lever}, on {gpus(asked)}: the cheapest step that fits"
    return f"{recommendation.lever}, from {gpus(recommendation.min_gpus)}: the cheapest step that fits"


def _questions(steps: list[RecommendStep], recommendation: RecommendStep | None, g: int) -> list[OpenQuestion]:
    fitting = {
        s.arrangement: s
        for s in steps
        if s.fits and s.levers == StepLevers(recompute=R.none, offload_optimizer=False, mxfp8=False)
    }
    zero2, zero3 = fitting.get(A.zero2), fitting.get(A.zero3)
    both = zero2 is not None and zero3 is not None and zero2.min_gpus != zero3.min_gpus
    crosses_nodes = recommendation is not None and (recommendation.min_gpus or 0) > g
    order = steps.index(recommendation) if recommendation else len(steps)
    eight_bit = any(s.levers.mxfp8 for s in steps[: order + 1])
    offload = any(s.levers.offload_optimizer for s in steps[: order + 1])
    return [
        OpenQuestion(
            question="ZeRO-2 on more GPUs, or ZeRO-3 on fewer?",
            what_settles_it="A measured step time for both on the real architecture, with activation memory included.",
            relevant=both,
            why=(
                f"ZeRO-2 fits from {gpus(zero2.min_gpus)} and ZeRO-3 from {zero3.min_gpus}"
                if both and zero2 and zero3
                else "only one of them fits here"
            ),
        ),
        OpenQuestion(
            question="How many GPUs per node, and how many nodes?",
            what_settles_it="Measured intra- and inter-node bandwidth: the answer follows from how much traffic can "
            "be kept inside a node (compare the hierarchical schedule and hybrid sharding).",
            relevant=crosses_nodes,
            why="the recommendation spans nodes" if crosses_nodes else "the recommendation fits inside one node",
        ),
        OpenQuestion(
            question="Is 8-bit arithmetic committed from the start?",
            what_settles_it="A short run in bf16 and in MXFP8 on the same architecture, comparing loss and step time.",
            relevant=eight_bit,
            why="an MXFP8 step comes at or before the recommendation"
            if eight_bit
            else "no MXFP8 step is needed to fit",
        ),
        OpenQuestion(
            question="Does any state go to host memory?",
            what_settles_it="Whether the run is memory-bound or communication-bound once the stage is chosen.",
            relevant=offload,
            why="an offload step comes at or before the recommendation"
            if offload
            else "the recommendation keeps all state on the GPU",
        ),
    ]
