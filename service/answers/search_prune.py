"""Branch and bound over a search's space: evaluate only the layouts that can fit and can rank.

A shape is one row of the space (world size, degrees, schedule, sequence parallelism, micro-batch size),
evaluated under every categorical choice (arrangement, recompute, offload). Three true bounds, each read
from the one evaluation (service.engine.layout_grid.evaluate_grid), decide what is never evaluated whole:

1. **Model states and working set per structure.** For each (world size, t, p, c, e, v), one of its
   shapes is evaluated with activations not counted: the busiest stage's model states and working set under
   each arrangement and offload. Activations only add bytes, so a structure none of whose choices fits
   the card without activations cannot fit with them, at any micro-batch size, schedule or recompute;
   an arrangement and offload that does not fit it is left out of its shapes' evaluation.
2. **Activations per shape and recompute.** Each shape is evaluated once under one arrangement and offload
   (a*, o*) and every recompute mode. The busiest stage k* there holds per_gpu* = X_k*(a*, o*) + A_k*(r)
   (model states and working set X, activations A), so A_k*(r) >= per_gpu* - X*(a*, o*) where X* is the
   structure's largest X over its stages (step 1). Under any other arrangement and offload the GPU
   holds at least A_k*(r) and at least the structure's least X: a recompute mode whose bound exceeds
   the card is left out of the shape's evaluation.
3. **Step time per shape.** The same evaluation gives each shape's compute, pipeline bubble and exposed
   tensor, context, pipeline and expert communication, per recompute: the terms of the step that do not
   depend on the arrangement or offload. The step adds the data-parallel groups, offload, optimizer step
   and overlap slowdown, all >= 0, so their sum is a lower bound on every layout of the shape. Shapes are
   evaluated in order of that bound; one whose bound cannot beat the (top_k + 1)-th distinct row found
   (by the objective), nor the fastest layout found on as few GPUs (the Pareto front), is never evaluated.

Of a layout's levers (recompute, offload) only the fastest that fits is ranked: the same layout and
arrangement with other levers is as fast or slower (``dominated``); levers giving identical figures are
listed as its equivalents. The objectives of the whole run (training_days, gpu_hours, cost) are bounded by
their ideal figures (goodput <= 1) and ranked by the plan's own, checkpoints and failures included.
"""

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from models.search import SearchObjective
from service.answers.search_space import Space
from service.engine.layout_grid import STRUCTURE_COLUMN, Case, Choices, Layouts, StructureTable, evaluate_grid
from service.time.budget import token_budget, training_steps
from service.time.goodput import Resilience, checkpoint_bytes, run_finishes, run_of
from service.work_budget import WorkBudget

STATES_EXCEED = "model states and working set alone exceed the card (every arrangement and offload allowed)"
CELL_STATES_EXCEED = "model states and working set exceed the card under that arrangement and offload"
ACTIVATIONS_EXCEED = "activations exceed the card at that recompute, whatever the arrangement"
CANNOT_RANK = "cannot beat the top_k found, nor the fastest found on as few GPUs (lower bound on the step)"
FIRST_CHUNK_SHAPES = 256
MAX_CHUNK_SHAPES = 2048
SEED_SHAPES = 32
BOUND_CHUNK_SHAPES = 16384
SECONDS_PER_DAY = 86_400
SECONDS_PER_HOUR = 3600


@dataclass(frozen=True)
class Goal:
    """The objective's ranking key, exact for an evaluated layout and a lower bound for a shape: (k1, k2) pairs
    compared in that order, smaller first (ties: fewer GPUs, then the order of enumeration)."""

    objective: SearchObjective
    tokens_per_step: int
    total_tokens: int | None = None
    gpu_hour_price: float | None = None
    resilience: Resilience | None = None
    gpus_per_node: int = 8
    host_bytes_per_s: float = 0.0
    checkpoint_bytes: tuple[int, ...] = ()  # per arrangement index of the case

    @property
    def whole_run(self) -> bool:
        return self.objective in (SearchObjective.training_days, SearchObjective.gpu_hours, SearchObjective.cost)

    @property
    def reads_staged_bytes(self) -> bool:
        """Whether the key reads each layout's staged bytes: an asynchronous save stalls training while each GPU
        copies its checkpointed states to the host (service.time.goodput.run_of), the stage holding the most last."""
        return self.whole_run and self.resilience is not None and self.resilience.asynchronous

    @property
    def checks_finishing(self) -> bool:
        """Whether a layout's run may never finish: with training.total_tokens /v1/plan refuses a run that
        interruptions outpace (service.time.run_report), whatever the objective."""
        return self.total_tokens is not None and self.resilience is not None

    @property
    def finishing_reads_staged_bytes(self) -> bool:
        return self.checks_finishing and self.resilience is not None and self.resilience.asynchronous

    def finishes(
        self, step_s: np.ndarray, n: np.ndarray, arrangement: np.ndarray, staged: np.ndarray | None = None
    ) -> np.ndarray:
        """Whether each layout's run ends (service.time.goodput.run_finishes, as /v1/plan checks it)."""
        if not self.checks_finishing:
            return np.ones(len(n), dtype=bool)
        goodput, days = self._run(step_s, n, arrangement, staged)[:2]
        return np.asarray(run_finishes(goodput, days), dtype=bool)

    def exact(
        self, step_s: np.ndarray, n: np.ndarray, arrangement: np.ndarray, staged: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """``staged``: each layout's staged bytes (Figures.staged_bytes), read when reads_staged_bytes."""
        o = self.objective
        if o is SearchObjective.step_s:
            return step_s, n.astype(np.float64)
        if o is SearchObjective.tokens_per_s_per_gpu:
            return -(self.tokens_per_step / step_s / n), n.astype(np.float64)
        if o is SearchObjective.gpus:
            return n.astype(np.float64), step_s
        days, hours, cost = self.run_figures(step_s, n, arrangement, staged)
        value = {SearchObjective.training_days: days, SearchObjective.gpu_hours: hours}.get(o, cost)
        return np.asarray(value, dtype=np.float64), n.astype(np.float64)

    def bound(self, step_s: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """A lower bound on the key of every layout whose step is at least ``step_s``."""
        o = self.objective
        if not self.whole_run:
            return self.exact(step_s, n, np.zeros(len(n), dtype=np.int64))
        assert self.total_tokens is not None
        ideal_s = training_steps(self.total_tokens, self.tokens_per_step) * step_s  # goodput <= 1: wall >= ideal
        if o is SearchObjective.training_days:
            return ideal_s / SECONDS_PER_DAY, n.astype(np.float64)
        hours = ideal_s * n / SECONDS_PER_HOUR
        return (hours if o is SearchObjective.gpu_hours else hours * (self.gpu_hour_price or 0.0)), n.astype(np.float64)

    def run_figures(
        self, step_s: np.ndarray, n: np.ndarray, arrangement: np.ndarray, staged: np.ndarray | None = None
    ) -> tuple[Any, Any, Any]:
        """training_days, gpu_hours and cost as the plan of each layout reports them (service.time.run_report):
        the ideal steps over the goodput of the run's checkpoints and interruptions. A synchronous save's stall is
        the checkpoint's write, the same for every layout of an arrangement; an asynchronous one's reads
        ``staged``."""
        assert staged is not None or not self.reads_staged_bytes
        _, days, hours, cost = self._run(step_s, n, arrangement, staged)
        return days, hours, cost

    def _run(
        self, step_s: np.ndarray, n: np.ndarray, arrangement: np.ndarray, staged: np.ndarray | None
    ) -> tuple[Any, Any, Any, Any]:
        """The goodput, training_days, gpu_hours and cost of each layout's run."""
        assert self.total_tokens is not None and self.resilience is not None
        saved = np.array(self.checkpoint_bytes, dtype=np.int64)[arrangement]
        staged = np.zeros(len(n), np.int64) if staged is None else staged
        run = run_of(self.resilience, step_s, n, self.gpus_per_node, saved, staged, self.host_bytes_per_s)
        budget = token_budget(self.total_tokens, self.tokens_per_step, step_s, n, self.gpu_hour_price, run)
        cost = budget.cost if budget.cost is not None else np.full(len(n), np.nan)
        return run.goodput, budget.training_days, budget.gpu_hours, cost


def goal_for(case: Case, objective: SearchObjective, total_tokens: int | None, price: float | None, run: Any) -> Goal:
    """The objective's key for this case; ``run``: (Resilience, host bytes/s) of the request's cluster."""
    tokens = case.global_batch_size * case.sequence_length
    if total_tokens is None:  # neither a whole-run objective (check_objective) nor a run /v1/plan checks
        return Goal(objective, tokens)
    resilience, host = run
    saved = tuple(
        int(checkpoint_bytes(case.scene.model.parameter_count, case.setup(a).precision))
        for a in range(len(case.shardings))
    )
    return Goal(objective, tokens, total_tokens, price, resilience, case.gpus_per_node, host, saved)


def _first_of_each(group: np.ndarray, *keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows sorted by ``group``, then by ``keys`` (the last the most significant, as np.lexsort reads them), and
    whether each is the first of its group."""
    order = np.lexsort((*keys, group))
    first = np.ones(len(order), dtype=bool)
    first[1:] = group[order][1:] != group[order][:-1]
    return order, first


@dataclass
class Pool:
    """The fitting layouts kept so far (the best of each layout's levers): columns of equal length."""

    columns: dict[str, list[np.ndarray]] = field(default_factory=dict)

    def add(self, part: dict[str, np.ndarray]) -> None:
        for name, values in part.items():
            self.columns.setdefault(name, []).append(values)

    def merged(self) -> dict[str, np.ndarray]:
        return {name: np.concatenate(values) for name, values in self.columns.items()}

    def keep(self, mask: np.ndarray) -> None:
        merged = self.merged()
        self.columns = {name: [values[mask]] for name, values in merged.items()}


@dataclass(frozen=True)
class Bounds:
    """Per shape: which (arrangement, offload) cells can fit (shapes, A, O) and which recompute modes (shapes,
    R), by the memory bounds; the lower bound on the step of each recompute mode (shapes, R), in seconds (inf for
    a shape none of whose recompute modes can fit: it is never evaluated)."""

    cell_fits: np.ndarray
    recompute_ok: np.ndarray
    lower_s: np.ndarray


@dataclass
class Outcome:
    """What the branch and bound found: the fitting layouts that can rank (one per layout and arrangement, the
    best levers), with their keys; the counts of the answer."""

    rows: dict[str, np.ndarray]
    considered: int
    evaluated: int
    fitting: int
    dominated: int
    pruned: dict[str, int]
    never_finishing: int = 0  # fitting layouts whose run never finishes, left out of the ranking


def _structure_keys(shapes: dict[str, np.ndarray]) -> np.ndarray:
    """An id per (world size, t, p, c, e, v, split of the layers): what model states and the working set depend on."""
    code = np.zeros(len(shapes["world_size"]), dtype=np.int64)
    for name in ("world_size", "tensor", "pipeline", "context", "expert", "virtual_stages", "split"):
        if name not in shapes:
            continue
        values = shapes[name]
        code = code * (int(values.max()) + 1 if len(values) else 1) + values
    _, inverse = np.unique(code, return_inverse=True)
    return np.asarray(inverse).reshape(-1)


class BranchAndBound:
    """One search's branch and bound over a space: ``run`` answers the ranked pool and the counts; ``bounds``
    gives every shape's bounds (what a test checks against every layout); ``prune`` False evaluates every
    valid layout, the same answer for comparison."""

    def __init__(
        self, case: Case, found: Space, goal: Goal, top_k: int, budget: WorkBudget | None = None, prune: bool = True
    ) -> None:
        self.case, self.found, self.goal, self.top_k, self.budget = case, found, goal, top_k, budget
        self.prune = prune
        self.table = StructureTable(case)
        self.structure_ids: np.ndarray | None = None  # each shape's structure in the table, once asked (_layouts)
        self.shapes = found.shapes
        self.count = len(self.shapes["world_size"])
        self.choices = found.choices
        self.pruned: dict[str, int] = {}
        self.evaluated = 0
        self.fitting = 0
        self.dominated = 0
        self.never_finishing = 0
        self.pool = Pool()
        self.front: dict[int, tuple[float, int]] = {}  # world size -> (fastest step, its enumeration index)

    def _layouts(self, index: np.ndarray) -> Layouts:
        """These shapes as the grid evaluates them, with their structures' ids in the table: every shape's found at
        once, the first time (StructureTable.index, one pass rather than one per block)."""
        return Layouts(
            {name: values[index] for name, values in self.shapes.items()} | {STRUCTURE_COLUMN: self._ids()[index]}
        )

    def _ids(self) -> np.ndarray:
        """Every shape's structure in the table (found the first time)."""
        if self.structure_ids is None:
            self.structure_ids = self.table.index(Layouts(self.shapes))
        return self.structure_ids

    def _check(self) -> None:
        if self.budget is not None:
            self.budget.check()

    def _valid(self, index: np.ndarray) -> np.ndarray:
        """(shapes, arrangements, recomputes, offloads) validity of the found choices (hybrid where modelled)."""
        return self.found.valid({name: values[index] for name, values in self.shapes.items()})

    def _count(self, reason: str, layouts: int) -> None:
        if layouts:
            self.pruned[reason] = self.pruned.get(reason, 0) + int(layouts)

    # 1. model states and working set per structure
    def structure_fit(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per shape: (arrangement x offload) cells that can fit (shapes, A, O); the structure's least and
        largest-at-(a*, o*) bytes without activations; and (a*, o*) as positions in the choices."""
        structure = _structure_keys(self.shapes)
        _, first = np.unique(structure, return_index=True)
        c = self.choices
        quiet = replace(self.case, activations_counted=False)
        states = np.zeros((len(first), len(c.arrangement), len(c.offload_optimizer)), dtype=np.int64)
        # in blocks of structures with as many candidate stages (a grid is as wide as its widest)
        ids = self._ids()  # the table holds every shape's structure from here on
        by_width = np.argsort(self.table.arrays["candidates"][ids[first]], kind="stable")
        for start in range(0, len(first), BOUND_CHUNK_SHAPES):
            self._check()
            at = by_width[start : start + BOUND_CHUNK_SHAPES]
            rows = first[at]
            figures = evaluate_grid(
                quiet,
                self.table,
                self._layouts(rows),
                Choices(c.arrangement, [0], c.offload_optimizer),
                timed=False,  # the bytes alone
            )
            per_gpu = figures.per_gpu_bytes[:, :, 0, :]
            valid = self._valid(rows)[:, :, 0, :]
            states[at] = np.where(valid, per_gpu, np.iinfo(np.int64).max)
        usable = self.case.scene.usable_bytes
        fits = states <= usable  # (structures, A, O)
        total = states.reshape(len(first), -1)
        least = total.min(axis=1)
        star = int(np.argmax((total <= usable).sum(axis=0)))  # (a*, o*): the cell that fits most often
        a_star, o_star = divmod(star, len(c.offload_optimizer))
        return fits[structure], least[structure], states[structure, a_star, o_star], np.array([a_star, o_star])

    def run(self) -> Outcome:
        c, found = self.choices, self.found
        considered = found.size
        if self.count == 0:
            return Outcome({}, considered, 0, 0, 0, {})
        if not self.prune:
            everything = np.arange(self.count)
            self._evaluate(everything, np.ones((self.count, len(c.recompute)), bool), None)
            return self._outcome(considered)
        valid_cells = self._valid_counts()
        bounds = self.bounds()
        any_fit = bounds.cell_fits.any(axis=(1, 2))
        self._count(STATES_EXCEED, valid_cells[~any_fit].sum())
        no_recompute = any_fit & ~bounds.recompute_ok.any(axis=1)
        self._count(ACTIVATIONS_EXCEED, valid_cells[no_recompute].sum())
        alive = np.flatnonzero(any_fit & ~no_recompute)
        lower = np.where(bounds.recompute_ok, bounds.lower_s, np.inf)
        bound_s = lower.min(axis=1)
        self._branch(alive, bound_s, lower, bounds.recompute_ok, bounds.cell_fits, valid_cells)
        return self._outcome(considered)

    def bounds(self) -> "Bounds":
        """The memory and step bounds of every shape (1, 2 and 3 of the module's docstring)."""
        c = self.choices
        cell_fits, least, at_star, star = self.structure_fit()
        alive = np.flatnonzero(cell_fits.any(axis=(1, 2)))
        # evaluated in blocks of shapes whose structures have as many candidate stages (a grid is as wide as its
        # widest): each shape's bounds are its own, whatever the block
        candidates = self.table.arrays["candidates"][self._ids()[alive]]
        alive = alive[np.argsort(candidates, kind="stable")]
        a_star, o_star = int(star[0]), int(star[1])
        lower = np.full((self.count, len(c.recompute)), np.inf)
        recompute_ok = np.zeros((self.count, len(c.recompute)), dtype=bool)
        usable = self.case.scene.usable_bytes
        at_star_cell = Choices([c.arrangement[a_star]], c.recompute, [c.offload_optimizer[o_star]])
        for start in range(0, len(alive), BOUND_CHUNK_SHAPES):
            self._check()
            rows = alive[start : start + BOUND_CHUNK_SHAPES]
            sized = evaluate_grid(self.case, self.table, self._layouts(rows), at_star_cell, timed=False)
            per_gpu = sized.per_gpu_bytes[:, 0, :, 0]
            activations_lb = per_gpu - at_star[rows, None]
            memory_lb = np.maximum(least[rows, None], activations_lb)
            recompute_ok[rows] = memory_lb <= usable
        # The step's bound of the shapes some recompute mode of which can fit (the others are never branched on):
        # the compute, the bubble and the model-parallel groups, which read no bytes.
        timed = alive[recompute_ok[alive].any(axis=1)]
        for start in range(0, len(timed), BOUND_CHUNK_SHAPES):
            self._check()
            rows = timed[start : start + BOUND_CHUNK_SHAPES]
            layouts = self._layouts(rows)
            figures = evaluate_grid(self.case, self.table, layouts, at_star_cell, data_parallel=False, sized=False)
            lower[rows] = (
                figures.compute_s
                + figures.pipeline_bubble_s
                + figures.tensor_parallel_s
                + figures.context_parallel_s
                + figures.pipeline_p2p_s
                + figures.expert_parallel_s
            )
        return Bounds(cell_fits, recompute_ok, lower)

    def _valid_counts(self) -> np.ndarray:
        """Valid layouts of each shape (every choice, less hybrid where it is not modelled)."""
        out = np.zeros(self.count, dtype=np.int64)
        for start in range(0, self.count, BOUND_CHUNK_SHAPES * 4):
            index = np.arange(start, min(self.count, start + BOUND_CHUNK_SHAPES * 4))
            out[index] = self._valid(index).reshape(len(index), -1).sum(axis=1)
        return out

    def _branch(
        self,
        alive: np.ndarray,
        bound_s: np.ndarray,
        lower: np.ndarray,
        recompute_ok: np.ndarray,
        cell_fits: np.ndarray,
        valid_cells: np.ndarray,
    ) -> None:
        n = self.shapes["world_size"]
        k1, k2 = self.goal.bound(bound_s, n)
        order = alive[np.lexsort((alive, bound_s[alive]))]
        pending = np.ones(len(order), dtype=bool)
        chunk = FIRST_CHUNK_SHAPES
        sizes = np.unique(n)
        # the shapes' bounds and world sizes in that order, gathered once for every round
        k1_order, k2_order, bound_order, n_order = k1[order], k2[order], bound_s[order], n[order]
        position = np.searchsorted(sizes, n_order)
        while True:
            self._check()
            limit, best = self._threshold(), self._front_steps(sizes)
            needed = pending & self._needed(order, k1_order, k2_order, bound_order, sizes, limit, best, position)
            left = np.flatnonzero(needed)
            if not len(left):
                break
            take = left[:chunk]
            # A world size with nothing found yet bounds nothing on the front: seed it with its best bounds.
            sizes_now = n_order[left]
            for size in sizes.tolist():
                if int(size) not in self.front:
                    take = np.union1d(take, left[sizes_now == size][:SEED_SHAPES])
            pending[take] = False
            # Of a shape's recompute modes, those whose own bound can rank (or reach the front).
            shapes = order[take]
            chosen = np.zeros((len(shapes), lower.shape[1]), dtype=bool)
            for j in range(lower.shape[1]):
                r1, r2 = self.goal.bound(lower[shapes, j], n[shapes])
                chosen[:, j] = self._needed(shapes, r1, r2, lower[shapes, j], sizes, limit, best)
            chosen &= recompute_ok[shapes]
            self._evaluate(shapes, chosen, recompute_ok[shapes], cell_fits[shapes])
            chunk = min(MAX_CHUNK_SHAPES, chunk * 2)
        skipped = order[pending]
        # Of the shapes never evaluated, the cells the memory bounds leave out are counted as such.
        known = self._left_out_cells(skipped, recompute_ok[skipped], cell_fits[skipped])
        self._count(CANNOT_RANK, valid_cells[skipped].sum() - known)

    def _left_out_cells(
        self, index: np.ndarray, recompute_ok: np.ndarray, cell_fits: np.ndarray, chosen: np.ndarray | None = None
    ) -> int:
        """Count, by reason, the valid cells of these shapes that the memory bounds leave out (``recompute_ok``
        (shapes, R) and ``cell_fits`` (shapes, A, O) of these shapes) and, of the rest, the recompute modes not
        ``chosen`` (their step bound cannot rank); return how many cells the memory bounds leave out."""
        if not len(index):
            return 0
        valid = self._valid(index)  # (shapes, A, R, O)
        kept = valid & cell_fits[:, :, None, :]  # the valid cells the structure bound leaves in
        states_out = int(np.count_nonzero(valid)) - int(np.count_nonzero(kept))
        activations_out = int(np.count_nonzero(kept & ~recompute_ok[:, None, :, None]))
        self._count(CELL_STATES_EXCEED, states_out)
        self._count(ACTIVATIONS_EXCEED, activations_out)
        if chosen is not None:
            rank_out = kept & (recompute_ok & ~chosen)[:, None, :, None]
            self._count(CANNOT_RANK, int(np.count_nonzero(rank_out)))
        return states_out + activations_out

    def _needed(
        self,
        shapes: np.ndarray,
        k1: np.ndarray,
        k2: np.ndarray,
        bound_s: np.ndarray,
        sizes: np.ndarray,
        threshold: tuple[float, float] | None,
        best: np.ndarray,
        position: np.ndarray | None = None,
    ) -> np.ndarray:
        """Whether each of these shapes, with these bounds (aligned with ``shapes``: the objective's key, the
        step), can still enter the top_k + 1 (``threshold``) or the front (``best``: the fastest step found on
        each world size or fewer GPUs); ``position``: each shape's world size as an index into ``sizes``, where
        known."""
        if threshold is None:
            rank_ok = np.ones(len(shapes), dtype=bool)
        elif self.goal.objective is SearchObjective.gpus:
            rank_ok = (k1 < threshold[0]) | ((k1 == threshold[0]) & (k2 <= threshold[1]))
        else:
            rank_ok = k1 <= threshold[0]
        if position is None:
            position = np.searchsorted(sizes, self.shapes["world_size"][shapes])
        front_ok = bound_s <= best[position]
        needed: np.ndarray = rank_ok | front_ok
        return needed

    def _front_steps(self, sizes: np.ndarray) -> np.ndarray:
        """The fastest step found on each world size or on fewer GPUs."""
        best = np.full(len(sizes), np.inf)
        for j, size in enumerate(sizes.tolist()):
            if size in self.front:
                best[j] = self.front[size][0]
        out: np.ndarray = np.minimum.accumulate(best)
        return out

    def _threshold(self) -> tuple[float, float] | None:
        """The key of the (top_k + 1)-th distinct row found (rows with identical figures are one); None before
        there are that many."""
        if not self.pool.columns:
            return None
        rows = self.pool.merged()
        if len(rows["k1"]) <= self.top_k:
            return None
        figures = np.stack([rows["world_size"], rows["step_s"].view(np.int64), rows["per_gpu_bytes"]], axis=1)
        _, first = np.unique(figures, axis=0, return_index=True)
        if len(first) <= self.top_k:
            return None
        k1, k2 = rows["k1"][first], rows["k2"][first]
        pick = np.lexsort((k2, k1))[self.top_k]
        limit = (float(k1[pick]), float(k2[pick]))
        # Rows past the threshold can never rank: keep the pool small (and the fastest of each world size).
        if self.goal.objective is SearchObjective.gpus:
            keep = (rows["k1"] < limit[0]) | ((rows["k1"] == limit[0]) & (rows["k2"] <= limit[1]))
        else:
            keep = rows["k1"] <= limit[0]
        fastest = {enumeration for _, enumeration in self.front.values()}
        keep |= np.isin(rows["enumeration"], list(fastest))
        if not keep.all():
            self.pool.keep(keep)
        return limit

    def _evaluate(
        self,
        index: np.ndarray,
        chosen: np.ndarray,
        recompute_ok: np.ndarray | None = None,
        cell_fits: np.ndarray | None = None,
    ) -> None:
        """Evaluate these shapes under the choices their bounds leave (grouped by the recompute modes chosen)."""
        c = self.choices
        weights = 1 << np.arange(chosen.shape[1])
        codes = (chosen * weights).sum(axis=1)
        for code in np.unique(codes).tolist():
            group = index[codes == code]
            r_pos = [j for j in range(len(c.recompute)) if code >> j & 1]
            fits_here = cell_fits[codes == code] if cell_fits is not None else None
            memory_here = recompute_ok[codes == code] if recompute_ok is not None else None
            if not r_pos:  # no recompute mode can rank (never with the bounds as computed): nothing to evaluate
                if fits_here is not None and memory_here is not None:
                    known = self._left_out_cells(group, memory_here, fits_here)
                    self._count(CANNOT_RANK, self._valid(group).sum() - known)
                continue
            a_pos = list(range(len(c.arrangement)))
            o_pos = list(range(len(c.offload_optimizer)))
            if fits_here is not None:
                a_pos = [a for a in a_pos if fits_here[:, a, :].any()]
                o_pos = [o for o in o_pos if fits_here[:, :, o].any()]
            for start in range(0, len(group), MAX_CHUNK_SHAPES):
                self._check()
                part = group[start : start + MAX_CHUNK_SHAPES]
                part_fits = fits_here[start : start + MAX_CHUNK_SHAPES] if fits_here is not None else None
                part_memory = memory_here[start : start + MAX_CHUNK_SHAPES] if memory_here is not None else None
                self._evaluate_part(part, a_pos, r_pos, o_pos, part_fits, part_memory)

    def _evaluate_part(
        self,
        index: np.ndarray,
        a_pos: list[int],
        r_pos: list[int],
        o_pos: list[int],
        cell_fits: np.ndarray | None,
        recompute_ok: np.ndarray | None = None,
    ) -> None:
        c = self.choices
        sub = Choices(
            [c.arrangement[a] for a in a_pos], [c.recompute[r] for r in r_pos], [c.offload_optimizer[o] for o in o_pos]
        )
        async_saves = self.goal.reads_staged_bytes
        staged_needed = async_saves or self.goal.finishing_reads_staged_bytes
        figures = evaluate_grid(self.case, self.table, self._layouts(index), sub, async_saves=staged_needed)
        valid_all = self._valid(index)
        at_a, at_r, at_o = np.array(a_pos), np.array(r_pos), np.array(o_pos)
        valid = valid_all[np.ix_(np.arange(len(index)), at_a, at_r, at_o)]
        evaluated = valid
        if cell_fits is not None:  # cells the structure bound leaves out are not counted as evaluated
            evaluated = valid & cell_fits[np.ix_(np.arange(len(index)), at_a, at_o)][:, :, None, :]
            chosen = np.zeros((len(index), len(c.recompute)), dtype=bool)
            chosen[:, r_pos] = True
            assert recompute_ok is not None
            self._left_out_cells(index, recompute_ok, cell_fits, chosen)
        self.evaluated += int(evaluated.sum())
        fit = figures.fits & evaluated
        self.fitting += int(fit.sum())
        if self.goal.checks_finishing:
            fit = self._finishing(fit, figures, index, a_pos)
        shape, a, r, o = np.nonzero(fit)
        if not len(shape):
            return
        step = figures.step_s[shape, a, r, o]
        per_gpu = figures.per_gpu_bytes[shape, a, r, o]
        global_a = np.array(a_pos)[a]
        global_r = np.array(r_pos)[r]
        global_o = np.array(o_pos)[o]
        shape_index = index[shape]
        cells = len(c.recompute) * len(c.offload_optimizer)
        enumeration = (shape_index * len(c.arrangement) + global_a) * cells + global_r * len(c.offload_optimizer)
        enumeration = enumeration + global_o
        # The best levers of each (shape, arrangement): least step, then least bytes, then the cheapest levers. Under
        # asynchronous saves the objective reads the staged bytes too, which a lever may lower as it slows the step
        # (optimizer offload): the least key first there.
        group = shape_index * len(c.arrangement) + global_a
        n_all = self.shapes["world_size"][shape_index]
        staged = keys = None
        if async_saves:
            assert figures.staged_bytes is not None
            staged = figures.staged_bytes[shape, a, r, o]
            keys = self.goal.exact(step, n_all, np.array(c.arrangement)[global_a], staged)
        best, head = _first_of_each(group, enumeration, per_gpu, step, *(keys[::-1] if keys is not None else ()))
        keep = best[head]
        leader = np.repeat(np.flatnonzero(head), np.diff(np.append(np.flatnonzero(head), len(best))))
        lead_step, lead_bytes = step[best][leader], per_gpu[best][leader]
        same = ~head & (step[best] == lead_step) & (per_gpu[best] == lead_bytes)
        if staged is not None:  # identical figures: the same stall too
            same &= staged[best] == staged[best][leader]
        self.dominated += int((~head).sum() - same.sum())
        # Equivalent levers: the recompute and offload codes of identical figures, as bit masks per kept row.
        lever_bits = 1 << (global_r * len(c.offload_optimizer) + global_o)
        equivalent = np.zeros(len(best), dtype=np.int64)
        np.add.at(equivalent, leader[same], lever_bits[best][same])
        if keys is None:
            k1, k2 = self.goal.exact(step[keep], n_all[keep], np.array(c.arrangement)[global_a[keep]])
        else:
            k1, k2 = keys[0][keep], keys[1][keep]
        ranks = np.ones(len(keep), dtype=bool)
        equivalent = equivalent[np.flatnonzero(head)]
        if keys is not None:
            # Each layout's fastest levers stay in the pool for the front (the fastest of each world size), never
            # ranked, where the objective kept others.
            fastest, first = _first_of_each(group, enumeration, per_gpu, step)
            extra = np.setdiff1d(fastest[first], keep)
            keep = np.concatenate([keep, extra])
            k1, k2 = np.append(k1, np.full(len(extra), np.inf)), np.append(k2, np.full(len(extra), np.inf))
            ranks = np.append(ranks, np.zeros(len(extra), dtype=bool))
            equivalent = np.append(equivalent, np.zeros(len(extra), dtype=np.int64))
        n = n_all[keep]
        self.pool.add(
            {
                "shape": shape_index[keep],
                "arrangement": global_a[keep],
                "recompute": global_r[keep],
                "offload": global_o[keep],
                "step_s": step[keep],
                "per_gpu_bytes": per_gpu[keep],
                "world_size": n,
                "enumeration": enumeration[keep],
                "equivalent_levers": equivalent,
                "k1": k1,
                "k2": k2,
                "ranks": ranks,
            }
        )
        for size in np.unique(n).tolist():
            where = np.flatnonzero(n == size)
            j = where[np.lexsort((enumeration[keep][where], step[keep][where]))[0]]
            candidate = (float(step[keep][j]), int(enumeration[keep][j]))
            if size not in self.front or candidate < self.front[size]:
                self.front[size] = candidate

    def _finishing(self, fit: np.ndarray, figures: Any, index: np.ndarray, a_pos: list[int]) -> np.ndarray:
        """The fitting cells whose run ends: /v1/plan refuses the others (the run never finishes, at
        /cluster/failures), which are counted and never ranked."""
        shape, a, r, o = np.nonzero(fit)
        if not len(shape):
            return fit
        staged = figures.staged_bytes[shape, a, r, o] if self.goal.finishing_reads_staged_bytes else None
        arrangement = np.array(self.choices.arrangement)[np.array(a_pos)[a]]
        n = self.shapes["world_size"][index[shape]]
        ends = self.goal.finishes(figures.step_s[shape, a, r, o], n, arrangement, staged)
        if ends.all():
            return fit
        self.never_finishing += int((~ends).sum())
        kept = fit.copy()
        kept[shape[~ends], a[~ends], r[~ends], o[~ends]] = False
        return kept

    def _outcome(self, considered: int) -> Outcome:
        rows = self.pool.merged() if self.pool.columns else {}
        return Outcome(
            rows, considered, self.evaluated, self.fitting, self.dominated, self.pruned, self.never_finishing
        )
