"""Sweep cells with a model-parallel layout, evaluated at once through service.engine.layout_grid.

A layout changes which formulas apply stage by stage (the layers each stage holds, the groups that
exist, which of them cross nodes); service.engine.layout_grid evaluates many layouts side by side through
the very functions /v1/plan's layout path calls, so a sweep's layout cells are numpy arrays as its
data-parallel cells are. For one model they are grouped by what a ``layout_grid.Case`` fixes (GPUs
per node, sequence length, MXFP8) and evaluated once per group over every valid (layout, numeric cell)
under every arrangement, recomputation and offload choice; each row is then read off at its cell.

A cell is skipped when /v1/plan refuses its request, with the reason the plan gives: a request that
does not validate (its first error's field), a layout the arrangement or ZeRO++ cannot run, or the
mesh's problems (service.mesh.degrees.layout_problems, every pointer). The request checks run through the
request model itself, once per distinct (world size, GPUs per node, arrangement) and per layout; the
mesh's rules are evaluated over the cells by service.mesh.degrees.layout_problem_masks, the one list of
rules layout_problems words for /v1/plan and the search reads too (property tests check every cell
against /v1/plan). Before any array is formed, each layout group is evaluated in Python's exact
integers at the corners of its valid numeric box and refused if a count reaches 2**63.

A given utilisation (training.utilisation) is evaluated there too, as /v1/plan prices it. On a model
without an architecture every degree above 1 is refused, and a layout of virtual stages alone plans
as data parallelism (/v1/plan's mesh is then trivial): those cells take the sweep's data-parallel
path (``data_only``), their virtual_stages column as given. Nothing is planned one by one.
"""

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np
from pydantic import BaseModel, ValidationError

from models.common import ModelSpec, as_request_json
from models.enums import ActivationModel, ArrangementName
from models.parallelism import Parallelism, PipelineSchedule
from models.plan import PlanRequest
from models.training import Training, levers_conflict
from service.answers.bisection import valid_job
from service.answers.sweep_columns import RESULT_COLUMNS
from service.engine.evaluation import counts
from service.engine.layout import evaluate_layout
from service.engine.layout_grid import (
    RECOMPUTES,
    SCHEDULES,
    STATES,
    Case,
    Choices,
    Layouts,
    StructureTable,
    evaluate_grid,
)
from service.errors import DomainError, SweepOverflow
from service.inputs import resolve
from service.inputs.arrangements import canonical_name
from service.mesh.degrees import Mesh, ModelLimits, layout_problem_masks, micro_batches, trivial
from service.mesh.pipeline import deepspeed_convention, mesh_plan_problems
from service.work_budget import WorkBudget

LAYOUT_AXES = ("tensor", "pipeline", "context", "expert", "virtual_stages")
CHUNK_CELLS = 131_072  # cells (layouts x categorical choices) evaluated in one layout_grid call
INT64_LIMIT = 2**63
# The request model's refusals of a cell's world size, by the fields they name (models.common.Cluster,
# models.plan.PlanRequest).
NOT_WHOLE_NODES = "not a valid plan request (/cluster/world_size)"
HYBRID_PART_NODE = "not a valid plan request (/arrangement)"
VALID = -1
# Figures of layout_grid (detail) that are sweep columns as they are; the headroom is the card's less the bytes.
GRID_COLUMNS = tuple(name for name in RESULT_COLUMNS if name != "headroom_bytes")


def data_only(layout: dict[str, int], base: PlanRequest, architecture: bool) -> bool:
    """A cell /v1/plan plans as data parallelism alone, pushed through the data-parallel arrays: every degree
    1, the base's expert tensor degree too (service.mesh.degrees.trivial), and one virtual stage unless the model
    has no architecture (whose mesh rules, service.mesh.degrees.layout_problems, do not read the virtual stages)."""
    etp = layout["tensor"] if base.parallelism.expert_tensor is None else base.parallelism.expert_tensor
    alone = trivial(layout["tensor"], layout["pipeline"], layout["context"], layout["expert"], etp)
    return bool(alone) and (layout["virtual_stages"] == 1 or not architecture)


def cell_body(
    base: PlanRequest, spec: ModelSpec, group: dict[str, Any], layout: dict[str, int], cell: dict[str, int]
) -> dict[str, Any]:
    """The /v1/plan request of one sweep cell."""
    body = as_request_json(base)
    body["model"] = spec.model_dump(mode="json", exclude_none=True)
    arrangement = group["arrangement"]  # a name, or the base's sharding flags
    body.pop("sharding", None)
    body.pop("arrangement", None)
    if isinstance(arrangement, BaseModel):
        body["sharding"] = arrangement.model_dump(mode="json")
    else:
        body["arrangement"] = getattr(arrangement, "value", arrangement)
    body["cluster"] |= {"world_size": cell["world_size"], "gpus_per_node": cell["gpus_per_node"]}
    training = body.get("training", {})
    training |= {
        "micro_batch_size": cell["micro_batch_size"],
        "sequence_length": cell["sequence_length"],
        "gradient_accumulation_steps": cell["gradient_accumulation_steps"],
    }
    body["training"] = training
    body["levers"] = body.get("levers", {}) | {
        "recompute": group["recompute"].value,
        "offload_optimizer": group["offload_optimizer"],
        "mxfp8": group["mxfp8"],
    }
    body["parallelism"] = body.get("parallelism", {}) | layout
    return body


def _invalid_request(error: ValidationError) -> tuple[str, str]:
    """(the first error's top-level field, the sweep's reason): a lever the cell's arrangement cannot take in the
    plan's own words (models.plan.lever_refusals, as the data-parallel cells give them), else the field."""
    first = error.errors()[0]
    loc = first["loc"]
    if loc[:1] == ("levers",) and first["type"] == "value_error":
        return "levers", str(first["msg"]).removeprefix("Value error, ")
    where = "/".join(str(part) for part in loc[:2])
    return str(loc[0]) if loc else "", f"not a valid plan request (/{where})"


def unfit_reason(pointers: list[str] | set[str]) -> str:
    """A sweep's reason for cells /v1/plan refuses beyond its request's fields: the pointers the plan names."""
    return f"the layout does not fit the cell ({', '.join(sorted(pointers))})"


def mesh_reasons(masks: list[tuple[str, np.ndarray]]) -> list[tuple[str, np.ndarray]]:
    """Each set of failing pointers that occurs as one reason, with the cells that fail exactly that set."""
    bits = np.zeros(len(masks[0][1]), dtype=np.int64)
    for i, (_, mask) in enumerate(masks):
        bits |= mask.astype(np.int64) << i
    reasons = []
    for value in np.unique(bits[bits != 0]).tolist():
        pointers = {masks[i][0] for i in range(len(masks)) if value >> i & 1}
        reasons.append((unfit_reason(pointers), bits == value))
    return reasons


def mesh_problem_pointers(
    limits: ModelLimits,
    layout: dict[str, int],
    expert_tensor: int | None,
    sequence_parallel: bool,
    schedule: PipelineSchedule,
    world_size: np.ndarray,
    sequence_length: np.ndarray,
    micro_batches: np.ndarray,
    split: dict[str, Any] | None = None,
    runs: int = 1,
    micro_batch_size: np.ndarray | int = 1,
    global_batch: int | None = None,
) -> list[tuple[str, np.ndarray]]:
    """service.mesh.degrees.layout_problems over arrays of cells of one layout, for the micro-batches given or, with
    a global batch, those it makes of each cell's micro-batch size: each pointer it would report
    (service.mesh.degrees.layout_problem_masks), with the cells it reports it for. ``split``: the base's split of
    the layers (Mesh's pipeline_layers, embedding_layers, loss_layers)."""
    t, p, c, e, v = (layout[axis] for axis in LAYOUT_AXES)
    mesh = Mesh(world_size, 1, t, p, c, e, expert_tensor, virtual_stages=v, runs=runs, **(split or {}))  # type: ignore[arg-type]
    code = SCHEDULES.index(schedule)
    rules = layout_problem_masks(
        limits, mesh, code, sequence_parallel, micro_batch_size, sequence_length, global_batch, micro_batches
    )
    return [(rule.pointer, rule.failing) for rule in rules]


def _shards_gradients(arrangement: Any) -> bool:
    try:
        return resolve.sharding(arrangement).shard_gradients
    except DomainError:  # flags no framework runs: refused by the request's own check first
        return False


def split_of_parallelism(par: Parallelism) -> dict[str, Any]:
    """The request's split of the layers over the pipeline, as Mesh and layout_grid.Case hold it."""
    given = None if par.pipeline_layers is None else tuple(par.pipeline_layers)
    return {
        "pipeline_layers": given,
        "embedding_layers": par.pipeline_embedding_layers,
        "loss_layers": par.pipeline_loss_layers,
    }


@dataclass
class Reasons:
    """Reason strings by code; code -1 is a valid cell."""

    names: list[str]

    def code(self, reason: str) -> int:
        if reason not in self.names:
            self.names.append(reason)
        return self.names.index(reason)


class LayoutCells:
    """Every layout cell of one model: its validity by reason, and the rows of the valid ones, evaluated
    by service.engine.layout_grid at once."""

    def __init__(
        self,
        request: PlanRequest,
        spec: ModelSpec,
        values: dict[str, list[Any]],
        numeric: dict[str, np.ndarray],
        budget: WorkBudget,
        global_batch: int | None = None,
    ) -> None:
        self.base, self.spec, self.values, self.numeric = request, spec, values, numeric
        self.global_batch = global_batch
        self.resolved = resolve.model(spec)
        architecture = self.resolved.architecture is not None
        self.layouts = [
            layout
            for layout in (dict(zip(LAYOUT_AXES, combo, strict=True)) for combo in _product(values, LAYOUT_AXES))
            if not data_only(layout, request, architecture)
        ]
        self.index = {tuple(layout.values()): i for i, layout in enumerate(self.layouts)}
        # each (layout, cell)'s micro-batches per step: the accumulation steps, or m = B / (b x d) of a global batch
        self.micro_batches = np.array(
            [self.micro_batches_of(layout) for layout in self.layouts], dtype=np.int64
        ).reshape(len(self.layouts), len(numeric["world_size"]))
        self.arrangements = list(values["arrangement"])
        self.reasons = Reasons([])
        self.codes = self._validity()  # (layouts, cells, arrangements)
        self.tables: dict[bool, tuple[np.ndarray, dict[str, np.ndarray]]] = {}
        self.cases: dict[tuple[int, int, bool], Case] = {}
        if self.layouts:
            for mxfp8 in values["mxfp8"]:
                budget.check()
                self.tables[mxfp8] = self._evaluate(mxfp8, budget)

    def micro_batches_of(self, layout: dict[str, int]) -> np.ndarray:
        """The micro-batches per step of each cell under a layout: the accumulation steps, or with the base's
        global batch B the plan's m = B / (b x d) (service.mesh.degrees.micro_batches), d the cell's data degree;
        where b x d does not divide B the mesh's batch rule skips the cell (``mesh_masks``)."""
        numeric = self.numeric
        k = numeric["gradient_accumulation_steps"]
        if self.global_batch is None:
            return k
        model_parallel = layout["tensor"] * layout["pipeline"] * layout["context"]
        data = np.maximum(numeric["world_size"] // model_parallel, 1)  # a degree that does not fill: its own rule
        return np.asarray(micro_batches(self.global_batch, k, numeric["micro_batch_size"], data), dtype=np.int64)

    def numeric_of(self, layout: dict[str, int]) -> dict[str, np.ndarray]:
        """The numeric cells under a layout, their micro-batches per step as ``micro_batches_of`` gives them."""
        if self.global_batch is None:
            return self.numeric
        return self.numeric | {"gradient_accumulation_steps": self.micro_batches_of(layout)}

    # Validity -------------------------------------------------------------------------------------------------

    def _validity(self) -> np.ndarray:
        base, numeric = self.base, self.numeric
        n = numeric["world_size"]
        cells = len(n)
        codes = np.full((len(self.layouts), cells, len(self.arrangements)), VALID, dtype=np.int64)
        if not self.layouts:
            return codes
        requests = [self._request_codes(arrangement) for arrangement in self.arrangements]
        # The layout's degrees' bounds, once per layout (the request validates parallelism before levers).
        arch = self.resolved.architecture
        limits = ModelLimits.of(arch)
        par = base.parallelism
        zeropp = base.levers.zeropp.asked
        # service.mesh.pipeline.framework_pipeline_problems: DeepSpeed's pipeline engine runs ZeRO-1 at most
        deepspeed = deepspeed_convention(base.precision)
        for li, layout in enumerate(self.layouts):
            try:
                Parallelism.model_validate(par.model_dump() | layout)
                layout_code = VALID
            except ValidationError as error:
                layout_code = self.reasons.code(_invalid_request(error)[1].replace("(/", "(/parallelism/", 1))
            mesh_codes = self._mesh_codes(self.mesh_masks(limits, layout))
            etp = layout["tensor"] if par.expert_tensor is None else par.expert_tensor
            nontrivial = not trivial(layout["tensor"], layout["pipeline"], layout["context"], layout["expert"], etp)
            for a, arrangement in enumerate(self.arrangements):
                out, after = requests[a]
                for code in (layout_code, after):
                    if code != VALID:
                        out = np.where(out == VALID, code, out)
                # what the arrangement, ZeRO++ and the framework cannot run on a mesh, as /v1/plan refuses it
                shards = deepspeed and layout["pipeline"] > 1 and _shards_gradients(arrangement)
                rules = mesh_plan_problems(
                    nontrivial, arrangement == ArrangementName.hybrid, zeropp, deepspeed, shards, layout["pipeline"]
                )
                plan_problems = list(dict.fromkeys(pointer for _, pointer, refused in rules if refused))
                if plan_problems:
                    out = np.where(out == VALID, self.reasons.code(unfit_reason(plan_problems)), out)
                codes[li, :, a] = np.where(out == VALID, mesh_codes, out)
        return codes

    def _request_codes(self, arrangement: Any) -> tuple[np.ndarray, int]:
        """What /v1/plan's request model refuses in a cell under this arrangement: each cell's code from the
        fields it validates before parallelism (the cluster, the arrangement), and the code of a refusal of
        a field after it (the levers)."""
        numeric = self.numeric
        n, g = numeric["world_size"], numeric["gpus_per_node"]
        # The request at a cell every world-size rule allows (N = G): what no cell's numbers change.
        cell = {axis: int(values[0]) for axis, values in numeric.items()}
        cell["world_size"] = cell["gpus_per_node"]
        # MXFP8 as off: its conflict with levers.fp8 is each MXFP8 group's own (part), not every group's
        group = {axis: self.values[axis][0] for axis in ("recompute", "offload_optimizer")} | {"mxfp8": False}
        before = after = VALID
        try:
            PlanRequest.model_validate(cell_body(self.base, self.spec, group | {"arrangement": arrangement}, {}, cell))
        except ValidationError as error:
            field, reason = _invalid_request(error)
            if field in ("cluster", "sharding", "arrangement"):
                before = self.reasons.code(reason)
            else:
                after = self.reasons.code(reason)
        codes = np.full(len(n), before, dtype=np.int64)
        # The world-size rules, as the data-parallel cells apply them: part of a node or whole nodes (the
        # cluster's), and whole nodes for hybrid sharding (the request's arrangement check).
        whole = valid_job(n, g)
        if arrangement == ArrangementName.hybrid:
            codes = np.where(whole & (n % g != 0), self.reasons.code(HYBRID_PART_NODE), codes)
        return np.where(whole, codes, self.reasons.code(NOT_WHOLE_NODES)), after

    def mesh_masks(self, limits: ModelLimits, layout: dict[str, int]) -> list[tuple[str, np.ndarray]]:
        """/v1/plan's mesh rules over the cells of one layout: each pointer, with the cells it is reported for."""
        par, numeric = self.base.parallelism, self.numeric
        return mesh_problem_pointers(
            limits,
            layout,
            par.expert_tensor,
            par.sequence_parallel,
            par.pipeline_schedule,
            numeric["world_size"],
            numeric["sequence_length"],
            numeric["gradient_accumulation_steps"],
            split_of_parallelism(par),
            par.pipeline_runs,
            numeric["micro_batch_size"],
            self.global_batch,
        )

    def data_cell_problems(self, layout: dict[str, int]) -> list[tuple[str, np.ndarray]]:
        """The cells of a layout planned as data parallelism alone (``data_only``) that /v1/plan's mesh rules
        refuse, by reason: a mesh of degree 1 is validated as any other (a split of the layers over more stages
        than one, ...) before the data-parallel evaluation, so such a cell is no job."""
        return mesh_reasons(self.mesh_masks(ModelLimits.of(self.resolved.architecture), layout))

    def _mesh_codes(self, masks: list[tuple[str, np.ndarray]]) -> np.ndarray:
        """Each cell's reason code from its set of failing pointers."""
        out = np.full(len(self.numeric["world_size"]), VALID, dtype=np.int64)
        for reason, cells in mesh_reasons(masks):
            out[cells] = self.reasons.code(reason)
        return out

    # Evaluation -----------------------------------------------------------------------------------------------

    def case(self, gpus_per_node: int, sequence_length: int, mxfp8: bool) -> Case:
        key = (gpus_per_node, sequence_length, mxfp8)
        if key not in self.cases:
            base = self.base
            training = (base.training or Training()).model_copy(update={"sequence_length": sequence_length})
            cluster = base.cluster.model_copy(update={"gpus_per_node": gpus_per_node})
            levers = base.levers.model_copy(update={"mxfp8": mxfp8})
            scene = resolve.scenario(
                self.spec, base.precision, training, base.activations, levers, cluster, self.resolved
            )
            arch = self.resolved.architecture
            assert arch is not None
            shardings = tuple(resolve.sharding(a) for a in self.arrangements)
            counted = scene.activations.model is not ActivationModel.none
            self.cases[key] = Case(
                arch,
                scene,
                gpus_per_node,
                0,
                sequence_length,
                levers=levers,
                shardings=shardings,
                expert_tensor=base.parallelism.expert_tensor,
                context_attention=base.parallelism.context_attention,
                activations_counted=counted,
                post_validation=base.parallelism.optimizer_post_validation,
                pipeline_runs=base.parallelism.pipeline_runs,
                **split_of_parallelism(base.parallelism),
            )
        return self.cases[key]

    def _evaluate(self, mxfp8: bool, budget: WorkBudget) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """(row of each (layout, cell) in the columns or -1, the columns (rows, arrangements, recomputes,
        offloads)) of every valid cell under this MXFP8 choice, in blocks of about ``CHUNK_CELLS`` cells."""
        numeric, par = self.numeric, self.base.parallelism
        cells = len(numeric["world_size"])
        valid = (self.codes != VALID).sum(axis=2) < len(self.arrangements)  # valid under some arrangement
        layout_of, cell_of = np.nonzero(valid)
        degrees = {axis: np.array([layout[axis] for layout in self.layouts], dtype=np.int64) for axis in LAYOUT_AXES}
        g, s = numeric["gpus_per_node"][cell_of], numeric["sequence_length"][cell_of]
        choices = Choices(
            list(range(len(self.arrangements))),
            [RECOMPUTES.index(r) for r in self.values["recompute"]],
            list(self.values["offload_optimizer"]),
        )
        per_shape = len(choices.arrangement) * len(choices.recompute) * len(choices.offload_optimizer)
        row_of = np.full(len(self.layouts) * cells, -1, dtype=np.int64)
        parts: dict[str, list[np.ndarray]] = {}
        rows = 0
        for gs in np.unique(np.stack([g, s]), axis=1).T.tolist():
            budget.check()
            found = np.flatnonzero((g == gs[0]) & (s == gs[1]))
            case = self.case(gs[0], gs[1], mxfp8)
            self._check_overflow(case, layout_of[found], cell_of[found])
            table = StructureTable(case)
            step = max(1, CHUNK_CELLS // per_shape)
            for start in range(0, len(found), step):
                budget.check()
                where = found[start : start + step]
                columns = {axis: values[layout_of[where]] for axis, values in degrees.items()}
                columns |= {
                    "world_size": numeric["world_size"][cell_of[where]],
                    "micro_batch_size": numeric["micro_batch_size"][cell_of[where]],
                    "micro_batches": self.micro_batches[layout_of[where], cell_of[where]],
                    "schedule": np.full(len(where), SCHEDULES.index(par.pipeline_schedule)),
                    "sequence_parallel": np.full(len(where), par.sequence_parallel),
                }
                figures = evaluate_grid(case, table, Layouts(columns), choices, detail=True)
                for name, values in _columns(case, figures).items():
                    parts.setdefault(name, []).append(values)
                row_of[layout_of[where] * cells + cell_of[where]] = rows + np.arange(len(where))
                rows += len(where)
        return row_of, {name: np.concatenate(values) for name, values in parts.items()}

    def _check_overflow(self, case: Case, layouts: np.ndarray, cells: np.ndarray) -> None:
        """Each layout group evaluated in exact integers (service.engine.layout, as /v1/plan) where its counts are
        largest: every byte and token count grows with the micro-batch size and the micro-batches (activations
        in flight, tokens, the calls of each micro-batch) and is monotone in the world size (model states fall,
        tokens rise), so the largest micro-batch size and count at the smallest and largest world size."""
        numeric, par = self.numeric, self.base.parallelism
        recomputes = [RECOMPUTES.index(r) for r in self.values["recompute"]]
        for li in np.unique(layouts).tolist():
            layout = self.layouts[li]
            mine = cells[layouts == li]
            b = int(numeric["micro_batch_size"][mine].max())
            k = int(self.micro_batches[li, mine].max())
            sizes = numeric["world_size"][mine]
            for n in sorted({int(sizes.min()), int(sizes.max())}):
                mesh = Mesh(
                    n,
                    case.gpus_per_node,
                    **layout,
                    expert_tensor=par.expert_tensor,
                    sequence_parallel=par.sequence_parallel,
                    context_attention=par.context_attention,
                    schedule=par.pipeline_schedule,
                    runs=par.pipeline_runs,
                )
                for a, r, o in itertools.product(
                    range(len(self.arrangements)), recomputes, self.values["offload_optimizer"]
                ):
                    setup = case.setup(a, r, o)
                    result = evaluate_layout(
                        case.arch, mesh, setup, k, b, case.sequence_length, case.activations_counted
                    )
                    for name, count in counts(result):
                        if abs(int(count)) >= INT64_LIMIT:
                            point = {"world_size": n, "micro_batch_size": b, "gradient_accumulation_steps": k}
                            raise SweepOverflow(
                                f"the cell {point | layout} gives {name} = {int(count):,}, beyond 64-bit integers; "
                                "narrow the axes",
                                pointer="/axes",
                            )

    # Rows -----------------------------------------------------------------------------------------------------

    def part(
        self, group: dict[str, Any], layout: dict[str, int], skipped: dict[str, int]
    ) -> dict[str, np.ndarray] | None:
        """The rows of one layout under one categorical choice, in the numeric cells' order; the invalid cells
        counted by reason, in order of first appearance."""
        li = self.index[tuple(layout.values())]
        a = self.arrangements.index(group["arrangement"])
        codes = self.codes[li, :, a]
        conflict = levers_conflict(self.base.levers.model_copy(update={"mxfp8": group["mxfp8"]}))
        if conflict is not None:  # the cell's MXFP8 beside the base's levers.fp8: /v1/plan refuses the pair
            codes = np.where(codes == VALID, self.reasons.code(conflict), codes)
        bad = codes[codes != VALID]
        if len(bad):
            found, first, counts = np.unique(bad, return_index=True, return_counts=True)
            order = np.argsort(first, kind="stable")
            for code, count in zip(found[order].tolist(), counts[order].tolist(), strict=True):
                reason = self.reasons.names[code]
                skipped[reason] = skipped.get(reason, 0) + count
        cells = np.flatnonzero(codes == VALID)
        if not len(cells):
            return None
        row_of, columns = self.tables[group["mxfp8"]]
        rows = row_of[li * len(self.numeric["world_size"]) + cells]
        r = self.values["recompute"].index(group["recompute"])
        o = self.values["offload_optimizer"].index(group["offload_optimizer"])
        part = {axis: values[cells] for axis, values in self.numeric.items()}
        part["gradient_accumulation_steps"] = self.micro_batches[li, cells]
        for name, values in columns.items():
            part[name] = values[rows, a, r, o]
        count = len(cells)
        sharding = resolve.sharding(group["arrangement"])
        part["arrangement"] = np.full(count, canonical_name(sharding).value)
        for axis in ("recompute", "offload_optimizer", "mxfp8"):
            value = group[axis]
            part[axis] = np.full(count, value.value) if hasattr(value, "value") else np.full(count, value)
        for axis in LAYOUT_AXES:
            part[axis] = np.full(count, layout[axis], dtype=np.int64)
        part["parameter_count"] = np.full(count, self.resolved.parameter_count, dtype=np.int64)
        return part


def _product(values: dict[str, list[Any]], axes: tuple[str, ...]) -> Any:
    return itertools.product(*(values[axis] for axis in axes))


# The checkpointed states of a layout cell's stage that holds the most: an asynchronous save's stall, as the plan
# takes it (the largest over its stages), where the per-class columns are its busiest stage's.
STAGED_KEY = "staged_bytes"


def _columns(case: Case, figures: Any) -> dict[str, np.ndarray]:
    """The sweep's columns of a grid's figures, each (shapes, arrangements, recomputes, offloads)."""
    shape = np.shape(figures.per_gpu_bytes)

    def full(values: Any) -> np.ndarray:
        array = np.asarray(values)
        if array.ndim == 1:
            array = array[:, None, None, None]
        elif array.ndim == 2:  # (shapes, recomputes)
            array = array[:, None, :, None]
        return np.broadcast_to(array, shape)

    out = {name: full(getattr(figures, name)) for name in GRID_COLUMNS}
    out["headroom_bytes"] = case.scene.card.usable_bytes - out["per_gpu_bytes"]
    for i, state in enumerate(STATES):
        out[f"{state.value}_bytes"] = figures.state_bytes[i]
    out[STAGED_KEY] = figures.staged_bytes  # read by the run's goodput (service.answers.sweep), not a column
    return out
