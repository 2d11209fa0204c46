"""The answer to /v1/limits: the inverse questions, each an integer boundary found by bisection.

- With a model: the largest member of its family (its width, heads, MLP, experts and vocabulary
  kept, its layers varied in steps of the pipeline degree) whose per-GPU bytes fit, each member
  planned by the same evaluation as /v1/plan (service.answers.plan) at the request's sequence,
  micro-batch, recompute, levers and layout: model states, working set and activations counted.
- Beside it, an upper bound that ignores activations and the working set: the largest parameter
  count whose model states alone fit the usable bytes at this world size (Rajbhandari et al.
  2020, ZeRO, table 2: the largest model per data-parallel degree).
- With a model: the largest micro-batch (at the request's sequence length) and the longest
  sequence (at its micro-batch size) whose per-GPU bytes (model states, working set and
  activations) fit.
With training.global_batch_size the job's batch is fixed, as /v1/plan fixes it: the micro-batch
boundary is sought among the micro-batch sizes that divide the batch's sequences per data-parallel
replica (b x m x d = the global batch, m the micro-batches /v1/plan derives), the others held.
Per-GPU bytes never fall as any of the three grows, so bisection over exact integers finds each
boundary to the byte; each costs at most log2 of its range in evaluations of the memory formulas
(about 50 for the parameter count, 17 and 24 for the others), a few hundred for a whole answer:
bounded by construction, so no cost is counted up front; the budget (a deadline, the caller still
there) is checked between arrangements.
"""

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from pydantic import ValidationError

from models.common import MAX_PARAMETER_COUNT, ModelSpec
from models.enums import ActivationModel, ArrangementName
from models.limits import ArrangementLimits, LimitsRequest, LimitsResponse
from models.parallelism import Parallelism
from models.plan import Memory, PlanRequest
from models.training import MAX_MICRO_BATCH_SIZE, MAX_SEQUENCE_LENGTH, Training
from service.answers import plan as planner
from service.answers.bisection import first_true, largest_fitting
from service.answers.refusals import left_out_words, plan_refusals
from service.engine.data_parallel import evaluate, gpu_bytes
from service.engine.setup import Setup
from service.errors import DomainError, validation_message
from service.inputs import resolve
from service.inputs.arrangements import CANONICAL, Sharding, canonical_name
from service.memory.model_states import model_state_bytes
from service.mesh.degrees import ModelLimits, layout_problem_masks, model_chunks, requested_mesh, sequence_granule
from service.mesh.pipeline import schedule_code
from service.numeric import GIB_BYTES, divisors, gpus, group_digits
from service.work_budget import WorkBudget

STAND_IN_MODEL = ModelSpec(parameter_count=1)  # the scenario needs one; without a model only P is asked
MAX_LAYERS = 10_000  # ModelSpec.layers' own bound
NO_MODEL_WARNING = (
    "no model given: largest_parameter_count needs a model's shape (a preset, hf_config or architecture) to "
    "count activations and the working set; largest_parameter_count_model_states_only counts model states only, "
    "and a real model of that size does not fit"
)


def limits(request: LimitsRequest, budget: WorkBudget | None = None) -> LimitsResponse:
    budget = budget or WorkBudget()
    training = request.training or resolve.DEFAULT_TRAINING
    # a shape is always given here, so a model with an architecture counts its activations by default; the
    # scenario holds one micro-batch's shape (a global batch sets how many micro-batches, which each plan derives)
    scene = resolve.scenario(
        request.model or STAND_IN_MODEL,
        request.precision,
        training.model_copy(update={"global_batch_size": None}),
        request.activations,
        request.levers,
        request.cluster,
    )
    arrangements, left_out = _arrangements(request)
    n, g = request.cluster.world_size, request.cluster.gpus_per_node
    if request.parallelism != Parallelism() or training.global_batch_size is not None:
        # the layout and the batch checked as /v1/plan checks them (degrees that multiply out, a batch of whole
        # micro-batches, ...): a 422 naming each field
        planner.plan(_plan_request(request, next(iter(arrangements)), request.model or STAND_IN_MODEL))
    answers = []
    for name, sharding in arrangements.items():
        budget.check()
        answers.append(_arrangement_limits(scene, name, sharding, n, g, request, budget))
    return LimitsResponse(
        parameter_count=scene.model.parameter_count if request.model is not None else None,
        world_size=n,
        gpus_per_node=g,
        card_bytes=scene.card_bytes,
        usable_bytes=scene.usable_bytes,
        micro_batch_size=training.micro_batch_size,
        sequence_length=training.sequence_length,
        arrangements=answers,
        warnings=(list(scene.warnings) if request.model is not None else [NO_MODEL_WARNING])
        + left_out_words(left_out, "arrangements"),
    )


def _arrangements(request: LimitsRequest) -> tuple[dict[ArrangementName, Sharding], dict[str, list[str]]]:
    """The arrangement asked for, else each canonical one /v1/plan takes for this request, and why the others were
    left out (service.answers.refusals); when it takes none, every one, and the first plan names the problem."""
    if request.arrangement is not None:
        return {canonical_name(resolve.sharding(request.arrangement)): resolve.sharding(request.arrangement)}, {}
    taken: dict[ArrangementName, Sharding] = {}
    left_out: dict[str, list[str]] = {}
    for name, sharding in CANONICAL.items():
        refused = plan_refusals(name, request.levers, request.precision, request.parallelism)
        if refused:
            left_out.setdefault(refused[0], []).append(name.value)
        else:
            taken[name] = sharding
    return (taken, left_out) if taken else (dict(CANONICAL), {})


def _arrangement_limits(
    scene: resolve.Scenario,
    name: ArrangementName,
    sharding: Sharding,
    n: int,
    g: int,
    request: LimitsRequest,
    budget: WorkBudget,
) -> ArrangementLimits:
    has_model = request.model is not None
    setup = resolve.setup_for(scene, sharding)
    usable = scene.usable_bytes

    layout = request.parallelism
    split = layout.tensor * layout.pipeline  # a GPU holds P / (t x p) weights, sharded over the data group d
    d = n // (split * layout.context)

    def state_bytes_at(p: int) -> int:
        return int(model_state_bytes(-(-p // split), d, setup.precision, sharding, g, setup.offload))

    largest_p = largest_fitting(state_bytes_at, usable, 1, MAX_PARAMETER_COUNT)
    p_words = _boundary_words("P", largest_p, state_bytes_at, usable, MAX_PARAMETER_COUNT, "model states at")
    if split > 1 or d != n:
        p_words += f"; P / (t x p = {split}) weights a GPU, sharded over the data group of {d} (embeddings even)"
    p_words += "; model states only: activations and the working set come on top"
    batch = sequence = layers = family_p = None
    batch_words = sequence_words = None
    family_words = "not answered: no model given, so no shape to count activations and the working set of"
    if has_model:
        plan_request = _plan_request(request, name)
        planner.plan(plan_request)  # the request as a plan: a layout it cannot take is the caller's error, named
        layers, family_p, family_words = _largest_member(plan_request, scene.usable_bytes)
        batches = batch_sizes(request.training, d, MAX_MICRO_BATCH_SIZE)
        if batches.values:  # the batch's divisors, kept to those /v1/plan's rules take (the schedule's among them)
            taken = plan_takes(plan_request, batches.values)
            if taken != batches.values:
                batches = replace(batches, values=taken, words=f"{batches.words} that /v1/plan takes on this layout")
        if request.parallelism != Parallelism():
            batch, batch_words = _planned_limit(plan_request, scene.usable_bytes, "micro_batch_size", batches, budget)
            sequence, sequence_words = _planned_limit(
                plan_request,
                scene.usable_bytes,
                "sequence_length",
                sequence_lengths(layout, MAX_SEQUENCE_LENGTH),
                budget,
            )
        else:
            batch, batch_words = _shape_limit(scene, setup, n, g, "micro_batch_size", batches)
            sequence, sequence_words = _shape_limit(
                scene, setup, n, g, "sequence_length", Candidates(MAX_SEQUENCE_LENGTH)
            )
    return ArrangementLimits(
        arrangement=name,
        largest_parameter_count=family_p,
        largest_layers=layers,
        largest_parameter_count_arithmetic=family_words,
        largest_parameter_count_model_states_only=largest_p,
        largest_parameter_count_model_states_only_arithmetic=p_words,
        largest_micro_batch_size=batch,
        largest_micro_batch_size_arithmetic=batch_words,
        longest_sequence_length=sequence,
        longest_sequence_length_arithmetic=sequence_words,
    )


@dataclass(frozen=True)
class Candidates:
    """The values a boundary is sought among, ascending: the multiples of ``step`` up to ``top``, or ``values``."""

    top: int
    step: int = 1
    values: tuple[int, ...] | None = None
    words: str = ""  # what the values are, for the arithmetic

    def at(self, i: int) -> int:
        """The i-th candidate, from 1."""
        return self.step * i if self.values is None else self.values[i - 1]

    @property
    def count(self) -> int:
        return self.top // self.step if self.values is None else len(self.values)

    def largest_fitting(self, bytes_at: Callable[[int], int], usable: int) -> int | None:
        """The largest candidate whose bytes fit (bisection: bytes never fall along the candidates)."""
        if not self.count:
            return None
        found = largest_fitting(lambda i: bytes_at(self.at(i)), usable, 1, self.count)
        return None if found is None else self.at(found)

    def after(self, value: int) -> int | None:
        """The next candidate above ``value`` (None past the last)."""
        if self.values is None:
            return value + self.step if value + self.step <= self.top else None
        return next((v for v in self.values if v > value), None)


def sequence_lengths(parallelism: Parallelism, top: int) -> Candidates:
    """The sequence lengths a layout can take: multiples of what it splits the sequence by (context, x tensor
    with sequence parallelism: service.mesh.degrees.sequence_split, /v1/plan's rule)."""
    step = sequence_granule(parallelism.tensor, parallelism.context, parallelism.sequence_parallel)
    words = f"the multiples of {step}, the lengths the layout can split" if step > 1 else ""
    return Candidates(top, step, None, words)


def batch_sizes(training: Training | None, data: int, top: int) -> Candidates:
    """The micro-batch sizes a boundary may take: any up to ``top``; with training.global_batch_size, those that
    divide its sequences per data-parallel replica (global / d, over the d replicas of the layout), as /v1/plan
    derives the micro-batches m = global / (b x d) (service.mesh.degrees.micro_batches)."""
    if training is None or training.global_batch_size is None:
        return Candidates(top)
    gbs = training.global_batch_size
    per_replica = gbs // data if gbs % data == 0 else 0
    values = tuple(b for b in divisors(per_replica) if b <= top) if per_replica else ()
    return Candidates(
        top,
        1,
        values,
        f"the micro-batch sizes dividing the global batch's {group_digits(gbs)} sequences over {data} data-parallel "
        f"replicas ({group_digits(per_replica)} each)",
    )


def plan_takes(request: PlanRequest, micro_batch_sizes: tuple[int, ...]) -> tuple[int, ...]:
    """The micro-batch sizes /v1/plan's rules take for the request's layout and batch: the mesh's rules
    (service.mesh.degrees.layout_problem_masks) evaluated over the sizes at once."""
    training = request.training or resolve.DEFAULT_TRAINING
    mesh = requested_mesh(request.parallelism, request.cluster.world_size, request.cluster.gpus_per_node)
    sizes: Any = np.asarray(micro_batch_sizes, dtype=np.int64)
    codes = np.full(len(sizes), schedule_code(mesh.schedule))
    sequence_parallel = np.full(len(sizes), mesh.sequence_parallel)
    limits = ModelLimits.of(resolve.model(request.model).architecture)
    k, s, gbs = training.gradient_accumulation_steps, training.sequence_length, training.global_batch_size
    refused = np.zeros(len(sizes), dtype=bool)
    for rule in layout_problem_masks(limits, mesh, codes, sequence_parallel, sizes, s, gbs, k):
        refused |= rule.failing
    return tuple(b for b, out in zip(micro_batch_sizes, refused.tolist(), strict=True) if not out)


def _shape_limit(
    scene: resolve.Scenario, setup: Setup, n: int, g: int, axis: str, candidates: Candidates
) -> tuple[int | None, str]:
    if setup.activations.model is ActivationModel.none:
        return None, (
            f"not answered: activations are not counted (the model has no architecture, or activations.model is "
            f"none), so {axis} does not change the per-GPU bytes"
        )
    base = resolve.inputs_for(scene, n, g)
    if not evaluate(base, setup).host_fits:  # the offloaded states do not change with the shape: no value fits
        return None, (
            f"none: the host memory of a node ({group_digits(setup.host_memory_bytes or 0)} B) does not hold its GPUs' "
            f"offloaded states at {gpus(n)}, whatever the {axis}"
        )

    def bytes_at(value: int) -> int:
        return int(gpu_bytes(replace(base, **{axis: value}), setup))

    largest = candidates.largest_fitting(bytes_at, scene.usable_bytes)
    symbol = {"micro_batch_size": "b", "sequence_length": "s"}[axis]
    return largest, _boundary_words(symbol, largest, bytes_at, scene.usable_bytes, candidates, "per-GPU bytes at")


def _boundary_words(
    symbol: str,
    largest: int | None,
    bytes_at: Callable[[int], int],
    usable: int,
    candidates: Candidates | int,
    what: str,
    refused: Callable[[int], str | None] = lambda _: None,
) -> str:
    """The boundary's arithmetic: its bytes, and the next candidate's (or why it does not fit for another reason:
    the plan refuses it, or the host does not hold its offloaded states)."""
    if isinstance(candidates, int):
        candidates = Candidates(candidates)
    room = f"{group_digits(usable)} B usable ({usable / GIB_BYTES:.1f} GiB)"
    among = f" (among {candidates.words})" if candidates.words else ""
    smallest = candidates.at(1) if candidates.count else None
    if smallest is None:
        return f"not answered: no micro-batch size divides the batch{among}"
    if largest is None:
        why = refused(smallest)
        if why is not None:
            return f"{what} {symbol} = {group_digits(smallest)}{among}: {why}"
        first = f"{what} {symbol} = {group_digits(smallest)}{among}: {group_digits(bytes_at(smallest))} B > {room}"
        return f"{first}: not even the smallest fits"
    fit = f"{what} {symbol} = {group_digits(largest)}{among}: {group_digits(bytes_at(largest))} B <= {room}"
    above = candidates.after(largest)
    if above is None:
        last = "the largest value the service takes" if candidates.values is None else "the largest of them"
        return f"{fit}; {group_digits(largest)} is {last}"
    why = refused(above)
    if why is not None:
        return f"{fit}; at {symbol} = {group_digits(above)}: {why}"
    return f"{fit}; at {symbol} = {group_digits(above)}: {group_digits(bytes_at(above))} B > usable"


def _plan_request(request: LimitsRequest, arrangement: ArrangementName, model: ModelSpec | None = None) -> PlanRequest:
    """The /v1/plan request the limits request stands for, under one arrangement (and a stand-in model).

    Built from the already validated fields (a LimitsRequest is a PlanRequest with the model and the
    arrangement optional), not validated again: a resolved precision does not read back as its request."""
    fields = {name: getattr(request, name) for name in PlanRequest.model_fields}
    fields |= {"model": model or request.model, "arrangement": arrangement, "sharding": None}
    return PlanRequest.model_construct(**fields)


def _has_shape(model: ModelSpec) -> bool:
    return model.preset is not None or model.hf_config is not None or model.layers is not None


def _with_model(request: PlanRequest, **fields: int) -> PlanRequest:
    model = ModelSpec.model_validate({**request.model.model_dump(exclude_unset=True), **fields})
    return request.model_copy(update={"model": model})


@dataclass(frozen=True)
class LayerFamily:
    """The depths a model's layer family takes, member k = 1, 2, ... in order, and each member's request.

    Without parallelism.pipeline_layers: k layers, split over the stages as the plan splits them (the last L mod p
    stages a layer more: every stage's layers, so the busiest stage's bytes, never fall as L grows); the shallowest
    depths the pipeline cannot take (fewer layers than its stages or chunks) are refused by the plan.
    With a split: the split's own depth plus or minus whole steps, each step one layer more (or fewer) in every
    chunk the split fills (a stage's chunks' worth in every stage, for p entries: v, or ZB-V's 2), its empty chunks
    kept empty: the request's own model is the member of its own split."""

    request: PlanRequest
    step: int
    first_depth: int  # member 1's layers
    split: tuple[int, ...] = ()  # the request's pipeline_layers; () without
    per_step: int = 0  # layers a filled entry of the split gains a step
    shift: int = 0  # steps from the request's own split to member 1 (0 or less)

    @classmethod
    def of(cls, request: PlanRequest) -> "LayerFamily":
        par = request.parallelism
        if par.pipeline_layers is None:  # any depth the pipeline takes, split as the plan splits it
            return cls(request, 1, 1)
        split = tuple(par.pipeline_layers)
        chunks = int(model_chunks(par.pipeline_schedule, par.virtual_stages))
        per_step = chunks if len(split) == par.pipeline else 1  # a stage's layers split evenly over its chunks
        filled = [x for x in split if x > 0]
        shift = -((min(filled) - 1) // per_step)  # the shallowest member keeps every filled entry at a layer or more
        step = per_step * len(filled)
        return cls(request, step, sum(split) + shift * step, split, per_step, shift)

    def depth(self, k: int) -> int:
        return self.first_depth + (k - 1) * self.step

    def member(self, k: int) -> PlanRequest:
        """The request of member k: the model at that depth, and the split grown or shrunk to it."""
        with_layers = _with_model(self.request, layers=self.depth(k))
        if not self.split:
            return with_layers
        j = k - 1 + self.shift
        split = [x + j * self.per_step if x > 0 else 0 for x in self.split]
        parallelism = with_layers.parallelism.model_copy(update={"pipeline_layers": split})
        return with_layers.model_copy(update={"parallelism": parallelism})

    @property
    def rule(self) -> str:
        rule = "family: this model's width, heads, MLP and vocabulary, layers varied"
        if self.split:
            rule += (
                f" ({self.per_step} more in each filled entry of parallelism.pipeline_layers a step, its empty "
                "entries kept empty)"
            )
        return rule


def _largest_member(request: PlanRequest, usable: int) -> tuple[int | None, int | None, str]:
    """(layers, parameter count, arithmetic) of the largest member of the model's layer family that fits."""
    if not _has_shape(request.model):
        return None, None, "not answered: the model is a bare parameter count, with no shape to grow or count"
    family = LayerFamily.of(request)
    plans: dict[int, tuple[int, int, int, str | None]] = {}

    def planned(k: int) -> tuple[int, int, int, str | None]:
        """(parameter count, per-GPU bytes, activations, why the plan does not fit or take it) of member k: the
        bytes are usable + 1 where the plan refuses the depth or its host does not hold the offloaded states, the
        parameter count 0 where it refuses the depth."""
        if k not in plans:
            try:
                member = family.member(k)
            except ValidationError as error:  # a depth the model's own fields refuse (fewer than its dense layers)
                words = "; ".join(validation_message(e) for e in error.errors())
                plans[k] = (0, usable + 1, 0, f"the model refuses it: {words}")
            else:
                plans[k] = _member(member, usable)
        return plans[k]

    def too_much(k: int, bytes_words: str) -> str:
        _, per_gpu, _, why = planned(k)
        return why or bytes_words.format(group_digits(per_gpu))

    def at(k: int) -> str:
        return f"at L = {group_digits(family.depth(k))}"

    deepest = (MAX_LAYERS - family.first_depth) // family.step + 1
    # The plan refuses the shallowest depths of some models (fewer layers than their dense ones, than the pipeline's
    # chunks): the family starts at the first depth it takes.
    first = _first_taken(lambda k: planned(k)[0] > 0, deepest)
    rule = family.rule
    if first is None:
        return None, None, f"{rule}; {at(1)}: {planned(1)[3]}: no depth up to {MAX_LAYERS:,} layers is taken"
    bare_count = first < deepest and planned(first)[0] == planned(first + 1)[0]  # a seed preset: layers change nothing
    if bare_count:
        return None, None, "not answered: the model has no architecture whose layers could grow"
    largest_k = largest_fitting(lambda k: planned(k)[1], usable, first, deepest)
    room = f"{group_digits(usable)} B usable ({usable / GIB_BYTES:.1f} GiB)"
    shallowest = at(first)
    if first > 1:
        shallowest += f" (the fewest layers the plan takes: {at(first - 1)} {planned(first - 1)[3]})"
    if largest_k is None:
        return None, None, f"{rule}; {shallowest}: {too_much(first, '{} B per GPU > ' + room)}: not even that fits"
    p, per_gpu, activations, _ = planned(largest_k)
    words = (
        f"{rule}; {at(largest_k)}: P = {group_digits(p)}, per GPU {group_digits(per_gpu)} B "
        f"(activations {group_digits(activations)} B) <= {room}"
    )
    if largest_k < deepest:
        words += f"; {at(largest_k + 1)}: {too_much(largest_k + 1, '{} B > usable')}"
    return family.depth(largest_k), p, words


def _member(request: PlanRequest, usable: int) -> tuple[int, int, int, str | None]:
    """A family member's request as /v1/plan plans it: (parameter count, per-GPU bytes, activations, why it does
    not fit or is not taken), its bytes usable + 1 where it does not fit for another reason than its bytes, its
    parameter count 0 where the plan refuses it."""
    try:
        answer = planner.plan(request)
    except DomainError as refused:  # a depth the model cannot take (fewer layers than its dense ones, ...)
        return 0, usable + 1, 0, f"the plan refuses it: {refused}"
    memory = answer.memory
    if not memory.host_fits:  # the plan's fits: the host's too
        return answer.parameter_count, usable + 1, memory.activations_bytes, _host_overflow(memory)
    return answer.parameter_count, memory.per_gpu_bytes, memory.activations_bytes, None


def _host_overflow(memory: Memory) -> str:
    """Why a plan whose GPU bytes may fit does not: its node's host does not hold the offloaded states."""
    return (
        f"the host memory of a node ({group_digits(memory.host_memory_bytes or 0)} B) does not hold its GPUs' "
        f"offloaded states ({group_digits(memory.host_bytes)} B)"
    )


def _first_taken(taken: Callable[[int], bool], deepest: int) -> int | None:
    """The first k in [1, deepest] the plan takes, for refusals of the shallowest depths alone (a model's dense
    layers, a pipeline's chunks: every depth past one it takes is taken): doubling, then bisection."""
    if taken(1):
        return 1
    high = 2
    while high < deepest and not taken(high):
        high *= 2
    high = min(high, deepest)
    if not taken(high):
        return None
    return first_true(taken, high // 2 + 1, high)  # not taken at high // 2: the doubling passed it


def _planned_limit(
    request: PlanRequest, usable: int, axis: str, candidates: Candidates, budget: WorkBudget
) -> tuple[int | None, str]:
    """The largest micro-batch or sequence under a layout: each value planned as /v1/plan plans it. A value the
    plan refuses (a sequence the context degree does not divide, fewer micro-batches of a global batch than the
    pipeline's stages) counts as not fitting."""
    training = request.training.model_dump(exclude_unset=True) if request.training is not None else {}
    refusals: dict[int, str] = {}

    def bytes_at(value: int) -> int:
        budget.check()  # each value is a plan: a deadline or a departed caller stops the search between them
        changed = request.model_copy(
            update={"training": type(resolve.DEFAULT_TRAINING).model_validate({**training, axis: value})}
        )
        try:
            memory = planner.plan(changed).memory
        except DomainError as refused:
            refusals[value] = f"the plan refuses it: {refused}"
            return usable + 1
        if not memory.host_fits:  # the plan's fits: the host's too
            refusals[value] = _host_overflow(memory)
            return usable + 1
        return memory.per_gpu_bytes

    def refused(value: int) -> str | None:
        bytes_at(value)
        return refusals.get(value)

    if candidates.values is None:
        largest = candidates.largest_fitting(bytes_at, usable)
    else:  # a batch's divisors: the schedule refuses some between others it takes, so each is planned, largest first
        largest = next((v for v in reversed(candidates.values) if bytes_at(v) <= usable), None)
    symbol = {"micro_batch_size": "b", "sequence_length": "s"}[axis]
    words = _boundary_words(symbol, largest, bytes_at, usable, candidates, "per-GPU bytes (planned) at", refused)
    return largest, words
