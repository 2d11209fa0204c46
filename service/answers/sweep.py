"""A plan request evaluated over the cartesian product of its axes, vectorised.

The numeric axes (N, G, micro-batch size, sequence length, accumulation steps k) become numpy
int64 arrays pushed through ``service.engine.data_parallel.evaluate``, the very function a single plan calls
with Python ints; the categorical axes (model, arrangement, recomputation, offload, MXFP8) pick
the model and the formulas' branches, so each combination of them is one vectorised evaluation
over all the numeric cells; the cells with a model-parallel layout are evaluated at once per model
by ``service.answers.sweep_layouts`` (through ``service.engine.layout_grid``). No formula lives here: throughput
and the token budget come from ``service.time.budget``, as for a single plan.

The work is bounded before it starts: the cells (the cartesian product) and the evaluations (one
vectorised call per categorical combination, plus the overflow checks below) are counted from
the request and refused over their limits; between evaluations the work checks its budget (a
deadline, and whether the caller is still there).

Integer overflow is impossible by construction: before any array is computed, each combination
is evaluated in Python's exact integers at every corner of the numeric box (every quantity is
monotone in each input, so its maximum lies at a corner) and refused if a count reaches 2**63.
"""

import itertools
from collections.abc import Callable
from dataclasses import dataclass, replace
from math import prod
from typing import Any

import numpy as np
import orjson
from pydantic import BaseModel

from models.common import ModelSpec
from models.enums import ArrangementName, StateClass
from models.plan import PlanRequest, lever_refusals
from models.sweep import SweepRequest
from models.training import Levers, levers_conflict
from service.answers.bisection import valid_job
from service.answers.sweep_columns import RESULT_COLUMNS
from service.answers.sweep_layouts import LAYOUT_AXES, STAGED_KEY, LayoutCells, data_only, unfit_reason
from service.engine.data_parallel import evaluate
from service.engine.evaluation import counts
from service.engine.setup import Inputs, Setup
from service.errors import DomainError, InvalidHfConfig, SweepOverflow, SweepTooLarge, UnknownSortKey, repointed
from service.inputs import resolve
from service.inputs.arrangements import Sharding, canonical_name
from service.time.budget import token_budget, tokens_per_second_per_gpu
from service.time.compute import tokens_per_second
from service.time.goodput import CHECKPOINT_STATES, Run, checkpoint_bytes, resilience_of, run_finishes, run_of
from service.work_budget import WorkBudget

# Fields of Inputs; then k, which the evaluation takes through its setup.
INPUT_AXES = ("world_size", "gpus_per_node", "micro_batch_size", "sequence_length")
NUMERIC_AXES = (*INPUT_AXES, "gradient_accumulation_steps")
GROUP_AXES = ("arrangement", "recompute", "offload_optimizer", "mxfp8")
DEFAULT_MAX_EVALUATIONS = 4096
INT64_LIMIT = 2**63
STATE_COLUMNS = tuple(f"{state.value}_bytes" for state in StateClass)
MODEL_COLUMNS = ("model", "parameter_count")
THROUGHPUT_COLUMNS = ("tokens_per_s", "tokens_per_s_per_gpu")
BUDGET_COLUMNS = ("training_steps", "training_days", "gpu_hours", "goodput", "ideal_training_days", "ideal_gpu_hours")
COST_COLUMN = "cost"
AXIS_COLUMNS = (*INPUT_AXES, "arrangement", "gradient_accumulation_steps", *GROUP_AXES[1:], *LAYOUT_AXES)
COLUMNS = MODEL_COLUMNS + AXIS_COLUMNS + STATE_COLUMNS + RESULT_COLUMNS + THROUGHPUT_COLUMNS


@dataclass
class SweepTable:
    columns: dict[str, np.ndarray]
    cells: int
    skipped: dict[str, int]

    @property
    def rows(self) -> int:
        return len(self.columns["world_size"])


def axis_values(request: SweepRequest) -> dict[str, list[Any]]:
    """Every axis with its values: the request's list, or the base request's single value."""
    base = request.base
    training = base.training or resolve.DEFAULT_TRAINING
    defaults: dict[str, list[Any]] = {
        "world_size": [base.cluster.world_size],
        "gpus_per_node": [base.cluster.gpus_per_node],
        "micro_batch_size": [training.micro_batch_size],
        "sequence_length": [training.sequence_length],
        "arrangement": [base.arrangement],
        "gradient_accumulation_steps": [training.gradient_accumulation_steps],
        "recompute": [base.levers.recompute],
        "offload_optimizer": [base.levers.offload_optimizer],
        "mxfp8": [base.levers.mxfp8],
    }
    for axis in LAYOUT_AXES:
        defaults[axis] = [getattr(base.parallelism, axis)]
    return {name: getattr(request.axes, name) or default for name, default in defaults.items()}


def models_of(request: SweepRequest) -> list[ModelSpec]:
    """The model axis: axes.model, bare counts from axes.parameter_count, or the base request's model."""
    if request.axes.model is not None:
        return list(request.axes.model)
    if request.axes.parameter_count is not None:
        return [ModelSpec(parameter_count=count) for count in request.axes.parameter_count]
    return [request.base.model]


SOURCE_FIELDS = frozenset({"preset", "hf_config"})


def model_label(spec: ModelSpec) -> str:
    """The model column: the preset's name or the Hugging Face config's model_type, with the architecture fields
    given beside it (which override its own, so two such models differ in the label too); else the architecture's
    shape; else the count."""
    if spec.preset is not None or spec.hf_config is not None:
        source = spec.preset.value if spec.preset is not None else f"hf_config {_config_kind(spec.hf_config)}"
        overrides = [name for name in sorted(spec.model_fields_set - SOURCE_FIELDS) if getattr(spec, name) is not None]
        if not overrides:
            return source
        return f"{source} ({', '.join(f'{name} {_value_words(getattr(spec, name))}' for name in overrides)})"
    if spec.layers is not None:
        return f"{spec.layers} layers x {spec.hidden_size} wide"
    return f"{spec.parameter_count:,} parameters"


def _value_words(value: Any) -> str:
    """An override as a label shows it: a number or name as it is, a block (moe, mla) as its given fields."""
    if isinstance(value, BaseModel):
        return orjson.dumps(value.model_dump(mode="json", exclude_unset=True)).decode()
    return str(getattr(value, "value", value))


def _config_kind(config: dict[str, Any] | None) -> str:
    kind = (config or {}).get("model_type")
    return kind if isinstance(kind, str) else "config"


def budget_columns(request: SweepRequest) -> tuple[str, ...]:
    training = request.base.training
    if training is None or training.total_tokens is None:
        return ()
    return BUDGET_COLUMNS + ((COST_COLUMN,) if request.base.cluster.gpu_hour_price is not None else ())


@dataclass(frozen=True)
class SweepCost:
    """The work a sweep asks for, counted from the request alone."""

    cells: int
    groups: int  # models x categorical combinations: one vectorised evaluation each
    corners: int  # exact overflow checks per group: 2 ** (numeric axes with more than one value)
    shape: str

    @property
    def evaluations(self) -> int:
        return self.groups * (1 + self.corners)


def sweep_cost(request: SweepRequest) -> SweepCost:
    values = axis_values(request)
    models = len(models_of(request))
    sizes = {name: len(v) for name, v in values.items()}
    return SweepCost(
        cells=models * prod(sizes.values()),
        groups=models * prod(sizes[a] for a in (*GROUP_AXES, *LAYOUT_AXES)),
        corners=2 ** sum(1 for a in NUMERIC_AXES if sizes[a] > 1),
        shape=" x ".join(str(n) for n in (models, *(sizes[a] for a in (*NUMERIC_AXES, *GROUP_AXES, *LAYOUT_AXES)))),
    )


def _layout(combo: tuple[int, ...]) -> dict[str, int]:
    return dict(zip(LAYOUT_AXES, combo, strict=True))


def check_cost(cost: SweepCost, max_cells: int, max_evaluations: int) -> None:
    if cost.cells > max_cells:
        raise SweepTooLarge(
            f"the axes ask for {cost.cells:,} cells ({cost.shape}), more than the limit of {max_cells:,}",
            pointer="/axes",
        )
    if cost.evaluations > max_evaluations:
        raise SweepTooLarge(
            f"the axes ask for {cost.evaluations:,} evaluations ({cost.groups:,} combinations of model, arrangement, "
            f"recompute, offload_optimizer, mxfp8 and the layout's degrees, each evaluated once over the numeric "
            f"axes and checked at "
            f"{cost.corners} corners), more than the limit of {max_evaluations:,}; sweep fewer categorical values",
            pointer="/axes",
        )


def without_global_batch(request: SweepRequest) -> tuple[SweepRequest, int | None]:
    """The request with its base's global batch taken out, and that batch: each cell keeps it, its micro-batches per
    step m = B / (b x d) at the cell's own micro-batch size and data degree, as /v1/plan resolves them
    (service.mesh.degrees.micro_batches; sweep_layouts.LayoutCells.micro_batches_of), and a cell whose batch they do
    not divide is skipped with the plan's reason. The request's validation keeps the accumulation steps unswept."""
    training = request.base.training
    if training is None or training.global_batch_size is None:
        return request, None
    batchless = training.model_copy(update={"global_batch_size": None, "gradient_accumulation_steps": 1})
    base = request.base.model_copy(update={"training": batchless})
    return request.model_copy(update={"base": base}), training.global_batch_size


def model_pointers(request: SweepRequest, index: int | None) -> Callable[[str], str]:
    """Where a plan's pointer lies in the sweep: a model's fields under the axis that gave it (``index``: its place
    there; None: the base's model), the rest under /base; the sweep's own (/axes, /base) as they are."""
    if request.axes.model is not None and index is not None:
        model = f"/axes/model/{index}"
    elif request.axes.parameter_count is not None and index is not None:
        model = f"/axes/parameter_count/{index}"
    else:
        model = "/base/model"

    def where(pointer: str) -> str:
        if pointer.startswith(("/axes", "/base")):
            return pointer
        if pointer == "/model" or pointer.startswith("/model/"):
            rest = pointer.removeprefix("/model")
            return model if model.startswith("/axes/parameter_count") else model + rest
        return "/base" + pointer

    return where


def sweep(
    request: SweepRequest,
    max_cells: int,
    max_evaluations: int = DEFAULT_MAX_EVALUATIONS,
    budget: WorkBudget | None = None,
) -> SweepTable:
    """The table; a refusal of the base or of a model comes back pointed within the sweep (model_pointers)."""
    model: list[int | None] = [None]  # the model being swept, for the pointers of an error that stops the sweep
    try:
        return _sweep(request, max_cells, max_evaluations, budget or WorkBudget(), model)
    except DomainError as error:
        raise repointed(error, model_pointers(request, model[0])) from None


def _sweep(
    request: SweepRequest, max_cells: int, max_evaluations: int, budget: WorkBudget, model: list[int | None]
) -> SweepTable:
    request, global_batch = without_global_batch(request)
    cost = sweep_cost(request)
    check_cost(cost, max_cells, max_evaluations)
    values = axis_values(request)
    base = request.base
    grid = np.meshgrid(*(np.asarray(values[a], dtype=np.int64) for a in NUMERIC_AXES), indexing="ij")
    numeric = {a: g.ravel() for a, g in zip(NUMERIC_AXES, grid, strict=True)}
    parts: list[dict[str, np.ndarray]] = []
    skipped: dict[str, int] = {}
    models = models_of(request)
    refused: list[DomainError] = []
    for index, spec in enumerate(models):
        budget.check()
        model[0] = index
        try:
            scene = resolve.scenario(spec, base.precision, base.training, base.activations, base.levers, base.cluster)
        except InvalidHfConfig:
            raise  # a config.json that does not read is the request's error, not a job the plan refuses
        except DomainError as error:  # a model /v1/plan refuses with the base's fields: its cells are no jobs
            refused.append(error)
            reason = unfit_reason({pointer for _, pointer in error.field_errors()} or {error.code})
            skipped[reason] = skipped.get(reason, 0) + cost.cells // len(models)
            continue
        layouts = LayoutCells(base, spec, values, numeric, budget, global_batch)
        architecture = scene.model.architecture is not None
        data_problems: dict[tuple[int, ...], list[tuple[str, np.ndarray]]] = {}  # by data-only layout
        for combo in itertools.product(*(values[a] for a in GROUP_AXES)):
            group = dict(zip(GROUP_AXES, combo, strict=True))
            for layout in map(_layout, itertools.product(*(values[a] for a in LAYOUT_AXES))):
                budget.check()
                if data_only(layout, base, architecture):
                    key = tuple(layout.values())
                    if key not in data_problems:
                        data_problems[key] = layouts.data_cell_problems(layout)
                    cells = layouts.numeric_of(layout)
                    part = _evaluate_group(scene, base, group, cells, skipped, data_problems[key])
                else:
                    part = layouts.part(group, layout, skipped)
                if part is not None:
                    rows = len(part["world_size"])
                    part["model"] = np.full(rows, model_label(spec))
                    if data_only(layout, base, architecture):
                        part["parameter_count"] = np.full(rows, scene.model.parameter_count, dtype=np.int64)
                        for axis in LAYOUT_AXES:
                            part[axis] = np.full(rows, layout[axis], dtype=np.int64)
                    part |= _throughput(part, base, scene)
                    part = _finishing(part, skipped)
                    if part is not None:
                        parts.append(part)
    if len(refused) == len(models):
        model[0] = 0
        raise refused[0]  # no model the plan takes: the plan's own refusal, as for a base alone
    budget.check()
    names = COLUMNS + budget_columns(request)
    columns = {name: np.concatenate([p[name] for p in parts]) if parts else np.array([]) for name in names}
    return SweepTable(columns, cost.cells, skipped)


def _throughput(part: dict[str, np.ndarray], base: PlanRequest, scene: resolve.Scenario) -> dict[str, np.ndarray]:
    tokens, step_s, n = part["tokens_per_step"], part["step_s"], part["world_size"]
    out = {
        "tokens_per_s": tokens_per_second(tokens, step_s),
        "tokens_per_s_per_gpu": tokens_per_second_per_gpu(tokens, step_s, n),
    }
    training = base.training
    if training is not None and training.total_tokens is not None:
        failures = _failures(part, base, scene)
        run = token_budget(training.total_tokens, tokens, step_s, n, base.cluster.gpu_hour_price, failures)
        out |= {
            "training_steps": run.steps,
            "training_days": run.training_days,
            "gpu_hours": run.gpu_hours,
            "goodput": np.broadcast_to(failures.goodput, np.shape(step_s)).copy(),
            "ideal_training_days": run.ideal_training_days,
            "ideal_gpu_hours": run.ideal_gpu_hours,
        }
        if run.cost is not None:
            out[COST_COLUMN] = run.cost
    return out


NEVER_FINISHES = (
    "the run never finishes: interruptions come faster than a restart and a checkpoint interval absorb "
    "(/cluster/failures)"
)


def _finishing(part: dict[str, np.ndarray], skipped: dict[str, int]) -> dict[str, np.ndarray] | None:
    """The part's rows whose run ends (/v1/plan refuses the rest at /cluster/failures, service.time.run_report);
    the others counted as skipped. None: no row left."""
    if "training_days" not in part:
        return part
    finishes = run_finishes(part["goodput"], part["training_days"])
    if finishes.all():
        return part
    skipped[NEVER_FINISHES] = skipped.get(NEVER_FINISHES, 0) + int((~finishes).sum())
    if not finishes.any():
        return None
    return {name: column[finishes] for name, column in part.items()}


def _failures(part: dict[str, np.ndarray], base: PlanRequest, scene: resolve.Scenario) -> Run:
    """The part's checkpoints and interruptions, as the plan of each cell prices them (service.time.run_report):
    the precision of the part's arrangement and levers, MXFP8 as the part has it (resolve.setup_precision)."""
    g = part["gpus_per_node"]
    training = base.training
    spec = resilience_of(training.checkpoint if training else None, base.cluster.failures, g)
    sharding = resolve.sharding(ArrangementName(str(part["arrangement"][0])))
    levers = base.levers.model_copy(update={"mxfp8": bool(part["mxfp8"][0])})
    saved = checkpoint_bytes(part["parameter_count"], resolve.setup_precision(scene, sharding, levers))
    if STAGED_KEY in part:  # a layout's cells: the stage that holds the most (service.engine.layout_grid)
        staged = part[STAGED_KEY]
    else:  # data parallelism's one stage
        staged = sum((part[f"{state.value}_bytes"] for state in CHECKPOINT_STATES), start=np.zeros_like(g))
    host = resolve.links(base.cluster).host_bytes_per_s
    return run_of(spec, part["step_s"], part["world_size"], g, saved, staged, host)


def _evaluate_group(
    scene: resolve.Scenario,
    base: PlanRequest,
    group: dict[str, Any],
    numeric: dict[str, np.ndarray],
    skipped: dict[str, int],
    mesh_problems: list[tuple[str, np.ndarray]],
) -> dict[str, np.ndarray] | None:
    """The data-parallel cells of one categorical choice; ``mesh_problems``: the cells the mesh's rules refuse,
    by reason (service.answers.sweep_layouts.LayoutCells.data_cell_problems)."""
    sharding = resolve.sharding(group["arrangement"])
    levers = base.levers.model_copy(
        update={
            "recompute": group["recompute"],
            "offload_optimizer": group["offload_optimizer"],
            "mxfp8": group["mxfp8"],
        }
    )
    # each cell is the plan of its own levers: the utilisation holds for the cell's recomputation
    setup = resolve.setup_for(scene, sharding, levers)
    n, g = numeric["world_size"], numeric["gpus_per_node"]
    valid = _count_invalid(n, g, sharding, group["arrangement"], levers, skipped, mesh_problems)
    if not valid.any():
        return None
    every = bool(valid.all())
    cells = {a: numeric[a] if every else numeric[a][valid] for a in NUMERIC_AXES}
    _check_overflow(scene, cells, setup)
    result = evaluate(cell_inputs(scene, cells), replace(setup, micro_batches=cells["gradient_accumulation_steps"]))
    rows = len(cells["world_size"])
    part = dict(cells)
    # fixed-width strings, not objects: they concatenate many times faster
    part["arrangement"] = np.full(rows, canonical_name(sharding).value)
    for axis in GROUP_AXES[1:]:
        value = group[axis]
        part[axis] = np.full(rows, value.value) if hasattr(value, "value") else np.full(rows, value)
    for state, column in zip(StateClass, STATE_COLUMNS, strict=True):
        part[column] = _full(result.state_bytes.get(state, 0), rows)
    for column in RESULT_COLUMNS:
        part[column] = _full(getattr(result, column, 0.0), rows)
    return part


def _full(value: object, rows: int) -> np.ndarray:
    """A column of rows values: an array the evaluation already gave per cell as it is (columns are
    never written to, and the final concatenation copies them), a scalar repeated."""
    array = np.asarray(value)
    if array.shape == (rows,):
        return array
    return np.broadcast_to(array, (rows,)).copy()


def _count_invalid(
    n: np.ndarray,
    g: np.ndarray,
    sharding: Sharding,
    arrangement: ArrangementName,
    levers: Levers,
    skipped: dict[str, int],
    mesh_problems: list[tuple[str, np.ndarray]] | None = None,
) -> np.ndarray:
    """The cells that are valid jobs; the rest are counted by reason, in the order /v1/plan checks them (the
    request's fields: the levers the arrangement cannot take by models.plan.lever_refusals; then the mesh)."""
    whole_nodes = valid_job(n, g)
    reasons = [("world_size is not part of one node nor a whole number of nodes", ~whole_nodes)]
    if sharding.hybrid:
        reasons.append(("hybrid needs world_size a multiple of gpus_per_node", whole_nodes & (n % g != 0)))
    refusals = lever_refusals(arrangement, levers)
    conflict = levers_conflict(levers)  # the cell's MXFP8 beside the base's levers.fp8: /v1/plan refuses the pair
    reasons += [(refusal, np.ones_like(n, bool)) for refusal in ([conflict] if conflict else []) + refusals]
    reasons += mesh_problems or []
    invalid = np.zeros_like(n, dtype=bool)
    for reason, mask in reasons:
        fresh = mask & ~invalid
        if fresh.any():
            skipped[reason] = skipped.get(reason, 0) + int(fresh.sum())
        invalid |= mask
    return ~invalid


def cell_inputs(scene: resolve.Scenario, cells: dict[str, Any]) -> Inputs:
    """The evaluation's inputs for cells given by their numeric axes (ints or aligned arrays)."""
    return Inputs(
        parameter_count=scene.model.parameter_count,
        active_parameter_count=scene.model.active,
        **{axis: cells[axis] for axis in INPUT_AXES},
    )


def _check_overflow(scene: resolve.Scenario, cells: dict[str, np.ndarray], setup: Setup) -> None:
    """The valid cells' box, evaluated in exact integers at each corner (its counts are largest there)."""
    ends = (sorted({int(cells[a].min()), int(cells[a].max())}) for a in NUMERIC_AXES)
    for corner in itertools.product(*ends):
        point = dict(zip(NUMERIC_AXES, corner, strict=True))
        result = evaluate(cell_inputs(scene, point), replace(setup, micro_batches=point["gradient_accumulation_steps"]))
        for name, value in counts(result):
            if isinstance(value, int) and abs(value) >= INT64_LIMIT:
                raise SweepOverflow(
                    f"the cell {point} gives {name} = {value:,}, beyond 64-bit integers; narrow the axes",
                    pointer="/axes",
                )


def select_rows(table: SweepTable, request: SweepRequest) -> tuple[dict[str, np.ndarray], int]:
    """Filter, sort, then offset and limit; returns the columns and the matched row count."""
    columns = table.columns
    order = np.arange(table.rows)
    if request.fits_only and table.rows:
        order = order[columns["fits"].astype(bool)]
    matched = len(order)
    if request.sort_by is not None and request.sort_by.value not in columns:
        raise UnknownSortKey(
            f"sort_by {request.sort_by.value}: this sweep has no such column (training_days and gpu_hours need "
            "base.training.total_tokens, cost also base.cluster.gpu_hour_price)",
            pointer="/sort_by",
        )
    if request.sort_by is not None and matched:
        keys = columns[request.sort_by.value][order]
        order = order[np.argsort(-keys if request.descending else keys, kind="stable")]
    end = None if request.limit is None else request.offset + request.limit
    order = order[request.offset : end]
    return {name: column[order] for name, column in columns.items()}, matched


def sweep_answer(
    request: SweepRequest,
    max_cells: int,
    max_evaluations: int = DEFAULT_MAX_EVALUATIONS,
    budget: WorkBudget | None = None,
) -> dict[str, Any]:
    """The /v1/sweep answer as plain values and numpy columns (the transport serialises it)."""
    table = sweep(request, max_cells, max_evaluations, budget)
    columns, matched = select_rows(table, request)
    return {
        "rows": len(columns["world_size"]),
        "matched_rows": matched,
        "cells": table.cells,
        "skipped_cells": sum(table.skipped.values()),
        "skipped_reasons": [f"{count} cells: {reason}" for reason, count in table.skipped.items()],
        "columns": columns,
    }
