"""The recommended order of levers for one case, cheapest first: free levers before costly ones.

Every candidate is evaluated with the formulas of the core at the smallest GPU count where it
fits (or at the most GPUs allowed when it never does) and priced against data parallel at the
same count: extra wire volume, extra FLOPs, PCIe bytes, and the step time they add. Steps are
ordered by what they need (hardware the card lacks goes last) and then by the time they add;
the recommendation is the first step that fits. The candidate set is fixed; its order is not.
Compute and communication are priced by the same model as /v1/plan: the efficiency model unless
the request gives ``training.utilisation``.

A lever that changes nothing the case needs is not a step: when its per-GPU bytes equal those of
the same arrangement without it and its step is no shorter (selective recomputation with flash
attention, which stores no attention scores to drop; recomputation when activations are not
counted), it is listed under ``omitted`` with the reason.
"""

from dataclasses import dataclass

from models.enums import ActivationModel, ArrangementName, Dtype, Recompute
from models.recommend import (
    OmittedStep,
    OpenQuestion,
    RecommendRequest,
    RecommendResponse,
    RecommendStep,
    StepCost,
    StepLevers,
)
from models.training import Levers
from service import resolve
from service.arrangements import DDP, sharding_for
from service.dtypes import bytes_per_element
from service.evaluate import Evaluation, Setup, evaluate
from service.fit import min_gpus_exact, min_valid_job
from service.fitting import per_gpu_bytes_function
from service.numeric import GIB_BYTES, gpus
from service.traffic import volume_in_p

A, R = ArrangementName, Recompute


@dataclass(frozen=True)
class Candidate:
    lever: str
    arrangement: ArrangementName
    recompute: Recompute = R.none
    offload_optimizer: bool = False
    mxfp8: bool = False

    @property
    def has_levers(self) -> bool:
        return self.recompute is not R.none or self.offload_optimizer or self.mxfp8

    @property
    def step_levers(self) -> StepLevers:
        return StepLevers(recompute=self.recompute, offload_optimizer=self.offload_optimizer, mxfp8=self.mxfp8)


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


def recommend(request: RecommendRequest) -> RecommendResponse:
    base_levers = Levers(overlap=request.overlap, bucket_bytes=request.bucket_bytes)
    scene = resolve.scenario(
        request.model, request.precision, request.training, request.activations, base_levers, request.cluster
    )
    g, max_gpus = request.cluster.gpus_per_node, request.max_gpus
    evaluated = [e for c in CANDIDATES if (e := _evaluate_candidate(scene, c, base_levers, g, max_gpus)) is not None]
    evaluated, omitted = _without_idle_levers(scene, evaluated)
    evaluated.sort(key=lambda e: (e.cost.hardware is not None, round(e.cost.added_step_s, 9), e.rank_gpus))
    steps = [e.to_step(rank) for rank, e in enumerate(evaluated, start=1)]
    recommendation = next((s for s in steps if s.fits), None)
    return RecommendResponse(
        parameter_count=scene.model.parameter_count,
        active_parameter_count=scene.model.active,
        card_bytes=scene.card_bytes,
        usable_bytes=scene.usable_bytes,
        steps=steps,
        recommendation=recommendation,
        omitted=omitted,
        summary=_summary(recommendation, max_gpus),
        questions=_questions(steps, recommendation, g),
        warnings=list(scene.warnings),
    )


def _without_idle_levers(
    scene: resolve.Scenario, evaluated: list["Evaluated"]
) -> tuple[list["Evaluated"], list[OmittedStep]]:
    """The steps whose lever changes something, and those whose lever does not: the same per-GPU bytes
    as the same arrangement without it (so the same GPU count) and a step no shorter."""
    plain = {e.candidate.arrangement: e for e in evaluated if not e.candidate.has_levers}
    kept: list[Evaluated] = []
    omitted: list[OmittedStep] = []
    for e in evaluated:
        base = plain.get(e.candidate.arrangement)
        if base is None or e is base or not _changes_nothing(e, base):
            kept.append(e)
            continue
        omitted.append(
            OmittedStep(
                lever=e.candidate.lever,
                arrangement=e.candidate.arrangement,
                levers=e.candidate.step_levers,
                same_as=base.candidate.lever,
                why=_idle_why(scene, e, base),
            )
        )
    return kept, omitted


def _changes_nothing(e: "Evaluated", base: "Evaluated") -> bool:
    same_memory = e.world_size == base.world_size and int(e.result.per_gpu_bytes) == int(base.result.per_gpu_bytes)
    return same_memory and float(e.result.step_s) >= float(base.result.step_s)


def _idle_why(scene: resolve.Scenario, e: "Evaluated", base: "Evaluated") -> str:
    c = e.candidate
    same = (
        f"the same {int(e.result.per_gpu_bytes) / GIB_BYTES:.1f} GiB per GPU as {base.candidate.lever} "
        f"on {gpus(e.world_size)}"
    )
    added_ms = (float(e.result.step_s) - float(base.result.step_s)) * 1e3
    time = "and the same step time" if added_ms == 0 else f"and a step {added_ms:+,.1f} ms longer"
    if c.recompute is not R.none and scene.activations.model is ActivationModel.none:
        reason = "recomputation trades activation memory for compute, and activations are not counted here"
    elif c.recompute is R.selective and scene.activations.flash_attention:
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
    world_size: int
    result: Evaluation
    cost: StepCost

    @property
    def rank_gpus(self) -> int:
        return self.min_gpus if self.min_gpus is not None else 10**9

    def to_step(self, rank: int) -> RecommendStep:
        c = self.candidate
        return RecommendStep(
            rank=rank,
            lever=c.lever,
            arrangement=c.arrangement,
            levers=c.step_levers,
            per_gpu_bytes=int(self.result.per_gpu_bytes),
            fits=self.min_gpus is not None,
            min_gpus=self.min_gpus,
            world_size=self.world_size,
            step_s=float(self.result.step_s),
            cost=self.cost,
            why=_why(self),
        )


def _largest_valid_job(max_gpus: int, g: int) -> int:
    return max_gpus if max_gpus <= g else max_gpus - max_gpus % g


def _evaluate_candidate(scene: resolve.Scenario, c: Candidate, base: Levers, g: int, max_gpus: int) -> Evaluated | None:
    sharding = sharding_for(c.arrangement)
    if sharding.hybrid and max_gpus < g:
        return None  # hybrid needs whole nodes
    levers = base.model_copy(
        update={"recompute": c.recompute, "offload_optimizer": c.offload_optimizer, "mxfp8": c.mxfp8}
    )
    setup = resolve.setup_for(scene, sharding, levers)

    per_gpu_bytes_at = per_gpu_bytes_function(scene, setup, g)
    if sharding.hybrid:
        exact = g if per_gpu_bytes_at(g) <= scene.usable_bytes else None
    else:
        exact = min_valid_job(min_gpus_exact(per_gpu_bytes_at, scene.usable_bytes, scene.model.parameter_count), g)
    min_gpus = exact if exact is not None and exact <= max_gpus else None
    world_size = min_gpus if min_gpus is not None else _largest_valid_job(max_gpus, g)
    if sharding.hybrid:
        world_size = max(g, world_size - world_size % g)
    inputs = resolve.inputs_for(scene, world_size, g)
    result = evaluate(inputs, setup)
    baseline = evaluate(inputs, resolve.setup_for(scene, DDP, base))
    cost = StepCost(
        extra_traffic_fraction=_extra_traffic(result, baseline, setup),
        extra_compute_fraction=float(result.compute_flops) / float(result.model_flops) - 1,
        pcie_bytes_per_gpu=int(result.pcie_bytes_per_gpu),
        hardware="Blackwell-class GPUs (native MXFP8)" if c.mxfp8 and not scene.blackwell_class else None,
        added_step_s=float(result.step_s) - float(baseline.step_s),
    )
    return Evaluated(c, min_gpus, world_size, result, cost)


def _extra_traffic(result: Evaluation, baseline: Evaluation, setup: Setup) -> float:
    """Bytes on the wire over data parallel's at the same GPU count and accumulation, minus 1.

    On one GPU nothing is sent; the ratio of model-sized buffers moved (volume in P) stands in.
    """
    if int(baseline.bytes_sent_per_gpu) > 0:
        return int(result.bytes_sent_per_gpu) / int(baseline.bytes_sent_per_gpu) - 1
    k = setup.micro_batches
    return volume_in_p(setup.precision, setup.sharding, k) / volume_in_p(setup.precision, DDP, k) - 1


def _why(e: Evaluated) -> str:
    c, cost = e.candidate, e.cost
    parts = []
    if cost.extra_traffic_fraction == 0:
        parts.append("no extra traffic over data parallel's")
    else:
        parts.append(f"{cost.extra_traffic_fraction:+.0%} wire volume over data parallel's")
    if c.mxfp8:
        mx, bf = bytes_per_element(Dtype.mxfp8), bytes_per_element(Dtype.bf16)
        parts.append(f"MXFP8 about halves the bytes on the wire ({mx:g} B instead of {bf:g} per value)")
    if cost.extra_compute_fraction:
        hardware, model = float(e.result.compute_flops), float(e.result.model_flops)
        parts.append(
            f"{cost.extra_compute_fraction:+.0%} compute ({hardware:.3g} hardware FLOPs per step for {model:.3g} "
            "model FLOPs)"
        )
    if cost.pcie_bytes_per_gpu:
        parts.append(f"{cost.pcie_bytes_per_gpu / 1e9:,.1f} GB over PCIe per GPU per step")
    if cost.hardware:
        parts.append(f"needs {cost.hardware}")
    parts.append(f"step time {cost.added_step_s * 1e3:+,.1f} ms against data parallel on {gpus(e.world_size)}")
    where = (
        f"fits from {gpus(e.min_gpus)} ({int(e.result.per_gpu_bytes) / GIB_BYTES:.1f} GiB per GPU)"
        if e.min_gpus is not None
        else f"does not fit within the GPUs allowed ({int(e.result.per_gpu_bytes) / GIB_BYTES:.1f} GiB per GPU "
        f"at {e.world_size}; floor {int(e.result.replicated_floor_bytes) / GIB_BYTES:.1f} GiB)"
    )
    return f"{c.lever}: {where}; " + "; ".join(parts)


def _summary(recommendation: RecommendStep | None, max_gpus: int) -> str:
    if recommendation is None:
        return f"nothing fits within {gpus(max_gpus)}: reduce activations (micro-batch, recomputation) or the model"
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
