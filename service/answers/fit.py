"""The answer to /v1/fit: the four arrangements against one card."""

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from models.common import MAX_WORLD_SIZE
from models.enums import ActivationModel, ArrangementName
from models.fit import ArrangementFit, FitCell, FitRequest, FitResponse
from models.training import Training
from service.answers.bisection import (
    GridCell,
    HostBounds,
    estimate_min_gpus,
    first_fitting,
    first_with_host,
    fit_table,
    fits,
    gpu_count_grid,
    host_words,
    last_in_node,
    min_gpus_exact,
    min_gpus_whole_nodes,
    min_valid_job,
    valid_job,
)
from service.answers.layout_fit import layout_fits
from service.answers.refusals import plan_refusals
from service.engine.data_parallel import activation_bytes, evaluate, floor_bytes, gpu_bytes
from service.engine.setup import Setup
from service.inputs import resolve
from service.inputs.arrangements import DDP, HYBRID, Sharding
from service.memory.model_states import bytes_per_weight_split
from service.memory.reserve import CardMemory
from service.mesh.degrees import Mesh, ModelLimits, Rule, layout_problem_masks, validated_mesh
from service.numeric import GIB_BYTES, divisors, gpus, group_digits
from service.work_budget import WorkBudget


def fit(request: FitRequest, max_points: int, budget: WorkBudget | None = None) -> FitResponse:
    """Each compared arrangement against the card; on the request's layout when it gives one
    (service.answers.layout_fit), else over data parallelism alone."""
    g = request.cluster.gpus_per_node
    grid = gpu_count_grid(request.gpu_count_grid, g, request.max_gpus, max_points)
    par = request.parallelism
    asked = request.cluster.world_size
    if par.model_parallel:
        scene, fits, warnings = layout_fits(request, grid, budget)
    else:
        batch = DataBatch(request.training, g)
        if asked is not None:
            batch.check(asked)  # the count asked about as /v1/plan takes it: a batch it cannot split is a 422
        scene = resolve.scenario(
            request.model,
            request.precision,
            batch.per_micro_batch,
            request.activations,
            request.levers,
            request.cluster,
        )
        fits = [
            refused_fit(_arrangement_fit(scene, name, sharding, g, grid, asked, batch), refused[0])
            if (refused := plan_refusals(name, request.levers, request.precision, par))
            else _arrangement_fit(scene, name, sharding, g, grid, asked, batch)
            for name, sharding in resolve.compared(request.arrangement)
        ]
        warnings = []
    base = resolve.setup_for(scene, DDP)
    return FitResponse(
        parameter_count=scene.model.parameter_count,
        active_parameter_count=scene.model.active,
        activations_bytes=int(
            activation_bytes(
                base.activations, base.recompute, scene.training.micro_batch_size, scene.training.sequence_length
            )
        ),
        activations_counted=base.activations.model is not ActivationModel.none,
        card_bytes=scene.card_bytes,
        card_gib=scene.card_bytes / GIB_BYTES,
        reserve_bytes=scene.card.reserve_bytes,
        fragmentation_bytes=scene.card.fragmentation_bytes,
        usable_bytes=scene.usable_bytes,
        gpus_per_node=g,
        world_size=asked,
        grid=grid,
        arrangements=fits,
        warnings=list(scene.warnings) + warnings,
    )


@dataclass(frozen=True)
class DataBatch:
    """The request's batch over data parallelism alone: which GPU counts /v1/plan takes for it. Without a global
    batch every count; with one, those over which it splits into whole micro-batches (b x m x N = the batch:
    service.mesh.degrees' batch rules, the same code path as the plan's)."""

    training: Training | None
    gpus_per_node: int

    @property
    def global_batch_size(self) -> int | None:
        return self.training.global_batch_size if self.training is not None else None

    @property
    def per_micro_batch(self) -> Training | None:
        """The training a scenario resolves: one micro-batch's shape (the count sets m, which memory never reads)."""
        if self.training is None or self.training.global_batch_size is None:
            return self.training
        return self.training.model_copy(update={"global_batch_size": None})

    def _problems(self, counts: list[int]) -> list[Rule]:
        t = self.training or resolve.DEFAULT_TRAINING
        world_sizes: Any = np.asarray(counts, dtype=np.int64)  # many layouts' degrees: the mesh takes arrays
        mesh = Mesh(world_sizes, self.gpus_per_node)
        codes = np.zeros(len(counts), dtype=np.int64)
        b, s, k = t.micro_batch_size, t.sequence_length, t.gradient_accumulation_steps
        return layout_problem_masks(ModelLimits(), mesh, codes, False, b, s, self.global_batch_size, k)

    def allowed(self, counts: list[int]) -> list[int]:
        """The counts the batch splits over (all of them without a global batch)."""
        if self.global_batch_size is None or not counts:
            return counts
        refused = np.zeros(len(counts), dtype=bool)
        for rule in self._problems(counts):
            refused |= rule.failing
        return [n for n, out in zip(counts, refused.tolist(), strict=True) if not out]

    def check(self, world_size: int) -> None:
        """A 422 naming the batch's field when /v1/plan would refuse it at ``world_size``."""
        if self.global_batch_size is None:
            return
        t = self.training or resolve.DEFAULT_TRAINING
        b, s, k = t.micro_batch_size, t.sequence_length, t.gradient_accumulation_steps
        validated_mesh(Mesh(world_size, self.gpus_per_node), ModelLimits(), b, s, self.global_batch_size, k)

    def counts_from(self, exact: int) -> list[int]:
        """With a global batch of G sequences at micro-batch b: the counts it can split over, from ``exact`` up (the
        divisors of G / b: b x N divides G), ascending; the first is the smallest job the bytes allow."""
        assert self.training is not None and self.global_batch_size is not None
        b = self.training.micro_batch_size
        if self.global_batch_size % b:
            return []
        return self.allowed([n for n in divisors(self.global_batch_size // b) if n >= exact])


def smallest_job(
    exact: int | None, sharding: Sharding, gpus_per_node: int, batch: DataBatch | None = None
) -> int | None:
    """The smallest GPU count /v1/plan accepts at or above the boundary: part of one node or whole nodes
    (whole nodes alone for hybrid sharding, which replicates across nodes), and, with a global batch, one it
    splits over. Per-GPU bytes never rise with N, so every smaller accepted count does not fit."""
    if batch is not None and batch.global_batch_size is not None:
        if exact is None:
            return None

        def whole(n: int) -> bool:
            return n % gpus_per_node == 0 if sharding == HYBRID else bool(valid_job(n, gpus_per_node))

        return next((n for n in batch.counts_from(exact) if whole(n)), None)
    if sharding == HYBRID:
        return min_gpus_whole_nodes(exact, gpus_per_node)
    return min_valid_job(exact, gpus_per_node)


def _arrangement_fit(
    scene: resolve.Scenario,
    name: ArrangementName,
    sharding: Sharding,
    g: int,
    grid: list[int],
    asked: int | None = None,
    batch: DataBatch | None = None,
) -> ArrangementFit:
    setup = resolve.setup_for(scene, sharding)
    per_gpu_bytes_at = per_gpu_bytes_function(scene, setup, g)

    p = scene.model.parameter_count
    replicated, sharded = bytes_per_weight_split(setup.precision, sharding, setup.offload)
    floor = int(floor_bytes(resolve.inputs_for(scene, g, g), setup))
    usable = scene.usable_bytes
    host_fits_at = host_fits_function(scene, setup, g)
    if sharding == HYBRID:
        # the states sharded over one node's G GPUs whatever the count: every hybrid job holds what G GPUs hold
        exact = g if fits(per_gpu_bytes_at(g), usable) else None
        grid = [n for n in grid if n % g == 0]
    else:
        exact = min_gpus_exact(per_gpu_bytes_at, usable, upper=p, guesses=estimate_min_gpus(p, sharded, floor, usable))
    gpu_exact = exact
    if host_fits_at is not None:  # and where the host holds the offloaded states, as plan's fits
        exact = host_from(exact, host_fits_at, g)
    if batch is not None:
        grid = batch.allowed(grid)
    table = with_host(fit_table(per_gpu_bytes_at, usable, grid), host_fits_at)
    on_grid = first_fitting(table)
    smallest = smallest_job(exact, sharding, g, batch)
    whole_nodes = min_gpus_whole_nodes(exact, g)
    bounds = None
    if host_fits_at is not None and setup.host_memory_bytes is not None:
        # within a node the host may hold the states at the exact count and not at a larger job: from one node on
        # it holds them at every count past the first that does (bisection.first_with_host)
        while smallest is not None and not host_fits_at(smallest):
            smallest = smallest_job(host_from(smallest + 1, host_fits_at, g), sharding, g, batch)
        whole_nodes = min_gpus_whole_nodes(host_from(whole_nodes, host_fits_at, g), g)
        stops = None
        if smallest is not None and smallest < g:
            # from the smallest job, the counts within the node a plan takes (a global batch splits over some
            # alone), then the node
            within = list(range(smallest, g))
            counts = [*(batch.allowed(within) if batch is not None else within), g]
            last = last_in_node(0, len(counts), lambda i: counts[i] < g, lambda i: host_fits_at(counts[i]))
            stops = None if last is None else counts[last]
        bounds = HostBounds(setup.host_memory_bytes, gpu_exact, exact, stops, whole_nodes)
    at = with_host(fit_table(per_gpu_bytes_at, usable, [asked]), host_fits_at)[0] if asked is not None else None

    def gpu_reason() -> str:
        return _fit_reason(
            sharding, replicated, floor, scene.card, exact, smallest, on_grid, grid, g, batch, per_gpu_bytes_at(g)
        )

    return ArrangementFit(
        arrangement=name,
        replicated_bytes_per_weight=replicated,
        sharded_bytes_per_weight=sharded,
        replicated_floor_bytes=floor,
        never_fits=exact is None,
        reason=host_words(bounds, smallest, MAX_WORLD_SIZE, gpu_reason) if bounds is not None else gpu_reason(),
        min_gpus=smallest,
        min_gpus_exact=exact,
        min_gpus_whole_nodes=whole_nodes,
        min_gpus_on_grid=on_grid,
        table=[fit_cell(c) for c in table],
        at_world_size=fit_cell(at) if at is not None else None,
    )


def refused_fit(entry: ArrangementFit, why: str) -> ArrangementFit:
    """An arrangement /v1/plan refuses for this request (service.answers.refusals): its bytes per weight and
    floor as counted, but no GPU count, for at none is it a job the plan takes."""
    return entry.model_copy(
        update={
            "never_fits": True,
            "reason": f"not a job /v1/plan takes: {why}",
            "min_gpus": None,
            "min_gpus_exact": None,
            "min_gpus_whole_nodes": None,
            "min_gpus_on_grid": None,
            "table": [],
            "at_world_size": None,
        }
    )


def fit_cell(cell: GridCell) -> FitCell:
    return FitCell(world_size=cell.gpus, per_gpu_bytes=cell.per_gpu_bytes, fits=cell.fits)


def host_fits_function(scene: resolve.Scenario, setup: Setup, gpus_per_node: int) -> Callable[[int], bool] | None:
    """Whether a node's host memory holds its GPUs' offloaded states at a GPU count, as /v1/plan's ``fits`` asks
    (service.engine.data_parallel.evaluate's host_fits); None without cluster.host_memory_bytes (every count does).
    Where the counts that hold them lie: bisection.first_with_host."""
    if setup.host_memory_bytes is None:
        return None

    def host_fits_at(world_size: int) -> bool:
        return bool(evaluate(resolve.inputs_for(scene, world_size, gpus_per_node), setup).host_fits)

    return host_fits_at


def host_from(start: int | None, host_fits_at: Callable[[int], bool], g: int) -> int | None:
    """The first GPU count from ``start`` (where the GPU's bytes fit) at which the node's host holds the offloaded
    states too, up to the counts a plan takes (models.common.MAX_WORLD_SIZE; past it no count fits)."""
    if start is None:
        return None
    found = first_with_host(MAX_WORLD_SIZE, start - 1, lambda i: i + 1 < g, lambda i: host_fits_at(i + 1))
    return None if found is None else found + 1


def with_host(cells: list[GridCell], host_fits_at: Callable[[int], bool] | None) -> list[GridCell]:
    """The cells, fitting only where the host holds the offloaded states too."""
    if host_fits_at is None:
        return cells
    return [replace(cell, fits=cell.fits and host_fits_at(cell.gpus)) for cell in cells]


def per_gpu_bytes_function(scene: resolve.Scenario, setup: Setup, gpus_per_node: int) -> Callable[[int], int]:
    """Per-GPU bytes (model states plus activations) as a function of the GPU count."""

    def per_gpu_bytes_at(world_size: int) -> int:
        return int(gpu_bytes(resolve.inputs_for(scene, world_size, gpus_per_node), setup))

    return per_gpu_bytes_at


def nodes(count: int) -> str:
    return f"{count} node" if count == 1 else f"{count:,} nodes"


def _bytes_words(value: int) -> str:
    return f"{group_digits(value)} B ({value / GIB_BYTES:.1f} GiB)"


def _card_words(card: CardMemory) -> str:
    if card.usable_bytes == card.card_bytes:
        return f"a card of {_bytes_words(card.card_bytes)}"
    return f"the {_bytes_words(card.usable_bytes)} usable of a card of {_bytes_words(card.card_bytes)}"


def _fit_reason(
    sharding: Sharding,
    replicated: float,
    floor: int,
    card: CardMemory,
    exact: int | None,
    smallest: int | None,
    on_grid: int | None,
    grid: list[int],
    gpus_per_node: int,
    batch: DataBatch | None = None,
    node_job_bytes: int = 0,
) -> str:
    """Why the arrangement fits from where it does, or never; ``node_job_bytes``: the per-GPU bytes of a job of one
    node (every hybrid job's)."""
    if exact is not None and smallest is None:  # the bytes fit from ``exact``, but no job there splits the batch
        assert batch is not None and batch.training is not None
        return (
            f"no job the batch splits over fits: the bytes fit from {gpus(exact)}, but no count from there (part of "
            f"a node or whole nodes) divides training.global_batch_size {batch.global_batch_size:,} into micro-batches "
            f"of {batch.training.micro_batch_size} on each GPU"
        )
    if exact is None:
        if sharding == DDP:
            return (
                f"never, at any GPU count: data parallel replicates everything, "
                f"{_bytes_words(floor)} on every GPU against {_card_words(card)}"
            )
        if sharding == HYBRID:
            return (
                f"never, at any GPU count: hybrid sharding shards the states over one node's {gpus_per_node} GPUs and "
                f"replicates them across nodes, {_bytes_words(node_job_bytes)} on every GPU against {_card_words(card)}"
            )
        return (
            f"never: the replicated floor of {replicated:g} B/weight plus activations, {_bytes_words(floor)}, "
            f"is more than {_card_words(card)} leaves room for, at any GPU count"
        )
    assert smallest is not None
    batched = batch is not None and batch.training is not None and batch.global_batch_size is not None
    if smallest == exact:
        where = f"the exact minimum is {gpus(exact)}"
    elif batched:
        assert batch is not None and batch.training is not None
        where = (
            f"the smallest job that fits is {gpus(smallest)} (the bytes meet the card at {gpus(exact)}; the first "
            f"count from there that is part of a node or whole nodes and splits training.global_batch_size "
            f"{batch.global_batch_size:,} into micro-batches of {batch.training.micro_batch_size})"
        )
    else:
        where = (
            f"the smallest job that fits is {gpus(smallest)} ({nodes(smallest // gpus_per_node)} of {gpus_per_node}; "
            f"the bytes meet the card at {gpus(exact)}, not a whole number of nodes)"
        )
    if on_grid:
        grid_words = f"from {gpus(on_grid)} on the grid"
    elif grid:
        grid_words = f"not on the grid of {gpus(grid[0])} to {gpus(grid[-1])}"
    elif batched:
        grid_words = "on no count of the grid the global batch splits over"
    else:
        grid_words = "on no count of the grid (hybrid sharding runs on whole nodes alone)"
    return f"fits {grid_words}; {where} (replicated floor {_bytes_words(floor)} of {_card_words(card)})"
