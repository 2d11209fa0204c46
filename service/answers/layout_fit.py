"""The smallest GPU count at which a layout fits: /v1/fit with a parallelism block.

A layout fixes the tensor, pipeline and context degrees t, p, c (and the expert degree e); the
world size is n = t x p x c x d. The data-parallel degrees d a job can run (service.mesh.degrees) are those
where n is part of one node or whole nodes, e divides d x c (the expert group is carved out of the
data x context ranks), and, with a global batch of B sequences, micro_batch_size x d divides B into
m micro-batches, m >= p for 1F1B and interleaved (a multiple of p for interleaved, Megatron-LM's
requirement), m >= 2p - 1 for zero bubble (its warm-up). Without a global batch m is the
accumulation steps and the valid d are, past one node, the multiples of lcm(G / gcd(G, t p c), e / gcd(e, c)).

The busiest GPU's bytes never rise with d: ZeRO shards over d x c ranks, and with a global batch m,
so the micro-batches a stage holds in flight, only fall. The smallest fitting d is then found by
bisection over the valid ones, each boundary decided in integers, as service.answers.bisection does for data
parallelism.
"""

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import overload

from models.enums import ActivationModel, ArrangementName
from models.fit import ArrangementFit, FitCell, FitRequest
from models.parallelism import Parallelism
from models.training import Training
from service.answers.bisection import HostBounds, first_true, first_with_host, host_words, last_in_node, valid_job
from service.answers.layout_plan import echo
from service.answers.refusals import plan_refusals
from service.engine.evaluation import StageEvaluation
from service.engine.layout import evaluate_layout, stage_memory
from service.errors import InvalidLayout
from service.inputs import resolve
from service.inputs.arrangements import Sharding
from service.memory.model_states import bytes_per_weight_split
from service.memory.offload import stages_host_bytes_per_node
from service.mesh.degrees import Mesh, ModelLimits, layout_problems, layout_warnings, micro_batches, requested_mesh
from service.mesh.pipeline import ZEROPP_ON_A_MESH
from service.numeric import GIB_BYTES, divisors, gpus, group_digits
from service.work_budget import WorkBudget

MAX_LAYOUT_WORLD_SIZE = 1_000_000  # models.common.MAX_WORLD_SIZE: the largest job a request may name


@dataclass(frozen=True)
class LayoutCase:
    """What stays fixed while d varies: the layout, the batch and the scene."""

    parallelism: Parallelism
    gpus_per_node: int
    global_batch_size: int | None
    accumulation_steps: int
    micro_batch_size: int
    sequence_length: int
    limits: ModelLimits

    @property
    def model_parallel(self) -> int:
        return self.parallelism.tensor * self.parallelism.pipeline * self.parallelism.context

    def mesh(self, data: int) -> Mesh:
        return requested_mesh(self.parallelism, self.model_parallel * data, self.gpus_per_node)

    def problems(self, data: int) -> list[tuple[str, str]]:
        return layout_problems(
            self.mesh(data),
            self.limits,
            self.micro_batch_size,
            self.sequence_length,
            self.global_batch_size,
            self.accumulation_steps,
        )

    def valid(self, data: int) -> bool:
        return bool(valid_job(self.model_parallel * data, self.gpus_per_node)) and not self.problems(data)

    def micro_batches(self, data: int) -> int:
        return micro_batches(self.global_batch_size, self.accumulation_steps, self.micro_batch_size, data)


class DataDegrees(Sequence[int]):
    """The valid d in increasing order: a list of small ones, then an arithmetic run (a range)."""

    def __init__(self, head: list[int], tail: range) -> None:
        self.head, self.tail = head, tail

    def __len__(self) -> int:
        return len(self.head) + len(self.tail)

    @overload
    def __getitem__(self, index: int) -> int: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[int]: ...
    def __getitem__(self, index: int | slice) -> int | Sequence[int]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        return self.head[index] if index < len(self.head) else self.tail[index - len(self.head)]


def data_degrees(case: LayoutCase) -> DataDegrees:
    """Every d whose world size t x p x c x d (up to 1,000,000 GPUs) the layout can run."""
    mp, g = case.model_parallel, case.gpus_per_node
    top = MAX_LAYOUT_WORLD_SIZE // mp
    if case.global_batch_size is not None:
        sequences = case.global_batch_size // case.micro_batch_size
        found = divisors(sequences) if case.global_batch_size % case.micro_batch_size == 0 else []
        return DataDegrees([d for d in found if d <= top and case.valid(d)], range(0))
    # Past one node the valid d repeat with a period: whole nodes and expert_tensor x e dividing t x c x d
    # (e dividing d x c when expert_tensor is t).
    par = case.parallelism
    experts = (par.tensor if par.expert_tensor is None else par.expert_tensor) * par.expert
    step = math.lcm(g // math.gcd(g, mp), experts // math.gcd(experts, par.tensor * par.context))
    within_node = [d for d in range(1, min(g // mp, top) + 1) if case.valid(d)]
    first = (g // mp // step + 1) * step
    run = range(first, top + 1, step)
    if len(run) and not case.valid(run[0]):
        return DataDegrees(within_node, range(0))  # a problem no d lifts (the model, the sequence)
    return DataDegrees(within_node, run)


def first_fitting(degrees: Sequence[int], fits_at: Callable[[int], bool]) -> int | None:
    """Index of the first d whose GPU bytes fit, by bisection (fits_at never turns false as d grows); None if
    none."""
    if not degrees or not fits_at(degrees[-1]):
        return None
    return first_true(lambda i: fits_at(degrees[i]), 0, len(degrees) - 1)


def layout_case(request: FitRequest, training: Training) -> LayoutCase:
    arch = resolve.model(request.model).architecture
    limits = ModelLimits.of(arch)
    return LayoutCase(
        parallelism=request.parallelism,
        gpus_per_node=request.cluster.gpus_per_node,
        global_batch_size=training.global_batch_size,
        accumulation_steps=training.gradient_accumulation_steps,
        micro_batch_size=training.micro_batch_size,
        sequence_length=training.sequence_length,
        limits=limits,
    )


def largest_layout_job(request: FitRequest, max_gpus: int) -> int | None:
    """The largest GPU count up to ``max_gpus`` the request's layout runs; None when it runs on none."""
    case = layout_case(request, request.training or Training())
    degrees = data_degrees(case)
    index = first_fitting(degrees, lambda d: case.model_parallel * d > max_gpus)
    last = (len(degrees) if index is None else index) - 1
    return case.model_parallel * degrees[last] if last >= 0 else None


def layout_fits(
    request: FitRequest, grid: list[int], budget: WorkBudget | None = None
) -> tuple[resolve.Scenario, list[ArrangementFit], list[str]]:
    """The scene, each compared arrangement's fit on the request's layout, and the layout's warnings."""
    training = request.training or Training()
    if request.levers.zeropp.asked:
        raise InvalidLayout([(ZEROPP_ON_A_MESH, "/levers/zeropp")])
    case = layout_case(request, training)
    degrees = data_degrees(case)
    if not degrees:
        problems = case.problems(1) or [
            (
                f"no world size tensor x pipeline x context x d = {case.model_parallel} x d up to "
                f"{MAX_LAYOUT_WORLD_SIZE:,} GPUs is part of a node of {case.gpus_per_node} or whole nodes with the "
                "expert degree dividing d x context and the batch in whole micro-batches",
                "/parallelism",
            )
        ]
        raise InvalidLayout(problems)
    scene = resolve.scenario(
        request.model,
        request.precision,
        training.model_copy(update={"global_batch_size": None}) if request.training is not None else None,
        request.activations,
        request.levers,
        request.cluster,
    )
    asked = request.cluster.world_size
    if asked is not None and (asked % case.model_parallel or not case.valid(asked // case.model_parallel)):
        mp = case.model_parallel
        problems = case.problems(max(1, asked // mp)) if asked % mp == 0 else []
        raise InvalidLayout(
            problems
            or [
                (
                    f"cluster.world_size {asked:,} is not a job this layout runs: tensor x pipeline x context = {mp} "
                    f"GPUs a replica, the data-parallel degree d = world_size / {mp} a whole number whose job is part "
                    "of a node or whole nodes, the expert degree dividing d x context",
                    "/cluster/world_size",
                )
            ]
        )
    fits = [
        _refused_fit(scene, case, degrees, name, sharding, refused[0])
        if (refused := plan_refusals(name, request.levers, request.precision, case.parallelism))
        else _arrangement_fit(scene, case, degrees, name, sharding, grid, budget, asked)
        for name, sharding in resolve.compared(request.arrangement)
    ]
    return scene, fits, layout_warnings(case.mesh(degrees[0]))


def _arrangement_fit(
    scene: resolve.Scenario,
    case: LayoutCase,
    degrees: DataDegrees,
    name: ArrangementName,
    sharding: Sharding,
    grid: list[int],
    budget: WorkBudget | None,
    asked: int | None = None,
) -> ArrangementFit:
    arch = scene.model.architecture
    assert arch is not None  # a layout needs the architecture (service.mesh.degrees refuses it otherwise)
    base = resolve.setup_for(scene, sharding)
    counted = base.activations.model is not ActivationModel.none
    b, s, usable = case.micro_batch_size, case.sequence_length, scene.usable_bytes

    stages_of: dict[int, list[StageEvaluation]] = {}

    def stages_at(d: int) -> list[StageEvaluation]:
        if d not in stages_of:
            if budget is not None:
                budget.check()
            m = case.micro_batches(d)
            setup = replace(base, micro_batches=m)
            stages_of[d] = stage_memory(arch, case.mesh(d), setup, m, b, s, counted)
        return stages_of[d]

    def per_gpu_bytes_at(d: int) -> int:
        return int(max(stage.per_gpu_bytes for stage in stages_at(d)))

    def host_fits_at(d: int) -> bool:
        """Whether the node's host memory holds the offloaded states of the stage that offloads the most, as the
        plan asks it (service.engine.layout.evaluate_layout)."""
        if base.host_memory_bytes is None:
            return True
        host = stages_host_bytes_per_node((stage.host_bytes for stage in stages_at(d)), case.mesh(d).world_size, g)
        return bool(host <= base.host_memory_bytes)

    g, mp = case.gpus_per_node, case.model_parallel

    def within_node(i: int) -> bool:
        return mp * degrees[i] < g

    def host_fits(i: int) -> bool:
        return host_fits_at(degrees[i])

    found = gpu_found = first_fitting(degrees, lambda d: per_gpu_bytes_at(d) <= usable)
    if base.host_memory_bytes is not None:  # and where the host holds the offloaded states, as plan's fits
        found = first_with_host(len(degrees), gpu_found, within_node, host_fits)
    exact = mp * degrees[found] if found is not None else None
    first_whole = (
        next((i for i in range(found, len(degrees)) if mp * degrees[i] % g == 0), None) if found is not None else None
    )
    bounds = None
    if base.host_memory_bytes is not None:  # past one node every count is whole nodes, the host's fit monotone
        first_whole = first_with_host(len(degrees), first_whole, lambda i: False, host_fits)
        stops = None
        if found is not None and within_node(found):
            stops = last_in_node(found, len(degrees), within_node, host_fits)
        bounds = HostBounds(
            base.host_memory_bytes,
            mp * degrees[gpu_found] if gpu_found is not None else None,
            exact,
            mp * degrees[stops] if stops is not None else None,
            mp * degrees[first_whole] if first_whole is not None else None,
        )
    whole = mp * degrees[first_whole] if first_whole is not None else None

    def cell(n: int) -> FitCell:
        bytes_ = per_gpu_bytes_at(n // mp)
        return FitCell(world_size=n, per_gpu_bytes=bytes_, fits=bytes_ <= usable and host_fits_at(n // mp))

    table = [cell(n) for n in grid if n % mp == 0 and case.valid(n // mp)]
    on_grid = next((c.world_size for c in table if c.fits), None)
    at = degrees[found] if found is not None else degrees[-1]
    m = case.micro_batches(at)
    setup = replace(base, micro_batches=m)
    floor = evaluate_layout(arch, case.mesh(at), setup, m, b, s, counted).replicated_floor_bytes
    replicated, sharded = bytes_per_weight_split(base.precision, sharding, base.offload)

    def gpu_reason() -> str:
        return _reason(case, exact, on_grid, grid, floor, usable, degrees)

    return ArrangementFit(
        arrangement=name,
        replicated_bytes_per_weight=replicated,
        sharded_bytes_per_weight=sharded,
        replicated_floor_bytes=floor,
        never_fits=exact is None,
        reason=host_words(bounds, exact, MAX_LAYOUT_WORLD_SIZE, gpu_reason) if bounds is not None else gpu_reason(),
        min_gpus=exact,
        min_gpus_exact=exact,
        min_gpus_whole_nodes=whole,
        min_gpus_on_grid=on_grid,
        table=table,
        at_world_size=cell(asked) if asked is not None else None,
        parallelism=echo(case.mesh(at), m, b, case.limits.layers or 0) if exact is not None else None,
    )


def _refused_fit(
    scene: resolve.Scenario, case: LayoutCase, degrees: DataDegrees, name: ArrangementName, sharding: Sharding, why: str
) -> ArrangementFit:
    """An arrangement the framework of the request's convention does not run on this layout (as /v1/plan refuses
    it): never fits, with the framework's reason."""
    arch = scene.model.architecture
    assert arch is not None
    base = resolve.setup_for(scene, sharding)
    at = degrees[0]
    m = case.micro_batches(at)
    setup = replace(base, micro_batches=m)
    counted = base.activations.model is not ActivationModel.none
    b, s = case.micro_batch_size, case.sequence_length
    floor = evaluate_layout(arch, case.mesh(at), setup, m, b, s, counted).replicated_floor_bytes
    replicated, sharded = bytes_per_weight_split(base.precision, sharding, base.offload)
    return ArrangementFit(
        arrangement=name,
        replicated_bytes_per_weight=replicated,
        sharded_bytes_per_weight=sharded,
        replicated_floor_bytes=floor,
        never_fits=True,
        reason=f"not run on this layout: {why}",
        min_gpus=None,
        min_gpus_exact=None,
        min_gpus_whole_nodes=None,
        min_gpus_on_grid=None,
        table=[],
    )


def _reason(
    case: LayoutCase,
    exact: int | None,
    on_grid: int | None,
    grid: list[int],
    floor: int,
    usable: int,
    degrees: DataDegrees,
) -> str:
    mp = case.model_parallel
    layout = f"tensor {case.parallelism.tensor} x pipeline {case.parallelism.pipeline} x context " + (
        f"{case.parallelism.context} = {mp} GPUs a replica"
    )
    usable_words = f"{group_digits(usable)} B ({usable / GIB_BYTES:.1f} GiB) usable"
    if exact is None:
        largest = mp * degrees[-1]
        bound = "the batch's" if case.global_batch_size is not None else "the service's"
        return (
            f"never on this layout ({layout}), at any GPU count it runs (the largest, {gpus(largest)}, is "
            f"{bound} bound, not max_gpus, which bounds the table alone): the busiest GPU keeps "
            f"at least {group_digits(floor)} B ({floor / GIB_BYTES:.1f} GiB) of replicated states, working set and "
            f"activations against {usable_words}"
        )
    grid_words = f"from {gpus(on_grid)} on the grid" if on_grid else f"not on the grid up to {gpus(grid[-1])}"
    return (
        f"fits {grid_words}; the smallest job this layout ({layout}) runs and fits is {gpus(exact)}, "
        f"data-parallel degree {exact // mp} (busiest GPU's floor {group_digits(floor)} B of {usable_words})"
    )
