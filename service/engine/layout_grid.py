"""Many layouts at once: the one evaluation's figures (service.engine.evaluation) for arrays of layouts, through
the same formulas and steps.

A layout is a world size N, degrees t, p, c, e, a pipeline schedule with v virtual stages,
sequence parallelism, a micro-batch size b, an arrangement, a recomputation mode and optimizer
offload; d = N / (t p c) and m = global batch / (b d). It is evaluated as
service.engine.evaluation.evaluate_mesh evaluates one (and /v1/plan answers it), in two parts:

- What depends only on the structure (t, p, e, v) -- each stage's layers, its parameter share
  (service.mesh.stages), the FSDP units (service.engine.layout.layout_units), the working set per arrangement,
  the stages that may pace the pipeline (service.engine.layout.pacing_stages) -- is computed once per structure
  by the scalar functions.
- Everything else is numpy over the layouts: each formula of the core (model states, activations,
  micro-batches in flight, the compute, the bubble, the model-parallel and data-parallel
  collectives, offload, the optimizer step) is called once per value of the categorical choices it
  branches on (arrangement, offload, recompute, schedule, sequence parallelism), on the layouts
  that hold that value (boolean masks). No formula is written here, and no step of the evaluation: the
  grid takes evaluate_mesh's steps, in its order, on arrays -- the parts each candidate stage holds and
  their states (service.engine.step.held), the busiest stage (busiest_stage), each pacing stage's compute
  (mesh_stage_compute) and the slowest (slowest_stage), the model-parallel groups with the bubble
  (model_parallel_step), the busiest stage's data groups (data_groups_step), then the host link, the optimizer
  step and the step's totals (rank_totals). What is written here is which rows share a term, so that each is
  computed once.

Only a few stages can be the busiest: micro-batches in flight never rise with the stage index
(service.mesh.pipeline), so of the stages that hold the same layers and parameters the first holds the
most. Those first stages of each distinct signature are the candidates, evaluated side by side
(arrays of shape (candidates, layouts)); the busiest is the first largest, as in service.engine.evaluation.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from models.enums import ArrangementName, Recompute, StateClass
from models.parallelism import ContextAttention, PipelineSchedule
from models.training import Levers
from service.engine.evaluation import (
    busiest_stage,
    data_bytes_sent,
    floor_bytes,
    gpu_state_bytes,
    model_parallel_step,
    slowest_stage,
)
from service.engine.layout import layout_units, pacing_stages, torch_native
from service.engine.model_parallel import (
    MODEL_GROUPS,
    combined_pieces,
    combined_priced,
    group_call_seconds,
    model_exposed_s,
    stage_work,
)
from service.engine.setup import Setup
from service.engine.step import (
    DataGroupsStep,
    Part,
    data_groups_step,
    flops_per_token,
    held,
    mesh_stage_compute,
    micro_batch_seconds,
    rank_totals,
)
from service.inputs import resolve
from service.inputs.architecture import Architecture, active_parameter_count
from service.inputs.arrangements import Sharding, sharding_for
from service.memory.activations import (
    ArrayRatio,
    StageLayers,
    TensorSplit,
    recompute_kind,
    stage_activation_components,
    stage_pipelining_bytes,
    transformer_shape,
)
from service.memory.offload import stages_host_bytes_per_node
from service.memory.working_set import working_set_rows
from service.mesh.degrees import (
    CHUNKED,
    Group,
    Mesh,
    data_degree,
    micro_batches,
    run_micro_batches,
    tensor_sequence_split,
)
from service.mesh.degrees import SCHEDULES as SCHEDULES  # the schedule column's codes, re-exported
from service.mesh.pipeline import (
    chunk_in_flight,
    chunk_warmup,
    end_chunk_in_flight,
    in_flight_ratio,
    lighter_ends_layers,
    split_chunks,
    stage_chunks,
    v_shaped,
)
from service.mesh.stages import StageShare, stage_shares
from service.time.compute import tokens_per_step
from service.time.goodput import staged_rows
from service.time.mesh_traffic import (
    GroupCall,
    beside_data_seconds,
    links_alone,
    model_parallel_calls,
)
from service.time.traffic import calls_bytes_sent, step_collectives

ARRANGEMENTS: tuple[ArrangementName, ...] = (
    ArrangementName.ddp,
    ArrangementName.zero1,
    ArrangementName.zero2,
    ArrangementName.zero3,
    ArrangementName.shard_grad_op,
    ArrangementName.hybrid,
)
RECOMPUTES: tuple[Recompute, ...] = (Recompute.none, Recompute.selective, Recompute.full)
STATES: tuple[StateClass, ...] = tuple(StateClass)

COLUMNS = (
    "world_size",
    "tensor",
    "pipeline",
    "context",
    "expert",
    "virtual_stages",
    "schedule",  # index into SCHEDULES
    "sequence_parallel",  # bool
    "micro_batch_size",
    "arrangement",  # index into ARRANGEMENTS
    "recompute",  # index into RECOMPUTES
    "offload_optimizer",  # bool
)


@dataclass(frozen=True)
class Layouts:
    """Equal-length arrays, one entry per layout (int64, bools for the two flags)."""

    columns: dict[str, np.ndarray]

    def __len__(self) -> int:
        return len(self.columns["world_size"])

    def __getitem__(self, name: str) -> Any:
        return self.columns[name]

    def take(self, index: Any) -> "Layouts":
        return Layouts({name: values[index] for name, values in self.columns.items()})


NAMED_SHARDINGS: tuple[Sharding, ...] = tuple(sharding_for(name) for name in ARRANGEMENTS)


@dataclass(frozen=True)
class LayerSplit:
    """A split of the layers over a pipelined layout's model chunks, as a search tries it on every pipeline degree:
    as given (parallelism.pipeline_layers), the even split with the embedding and the loss counted as layers
    (pipeline_embedding_layers, pipeline_loss_layers), or the first and the last chunk ``lighter_ends`` layers
    lighter (service.mesh.pipeline.lighter_ends_layers); all left out: the even split."""

    pipeline_layers: tuple[int, ...] | None = None
    embedding_layers: int = 0
    loss_layers: int = 0
    lighter_ends: int = 0

    def of(self, layers: int, chunks: int) -> dict[str, Any]:
        """The split as Mesh and stage_shares take it, for a layout of ``chunks`` model chunks in all (p x v)."""
        given = lighter_ends_layers(layers, chunks, self.lighter_ends) if self.lighter_ends else self.pipeline_layers
        return {"pipeline_layers": given, "embedding_layers": self.embedding_layers, "loss_layers": self.loss_layers}


@dataclass(frozen=True)
class Case:
    """What every layout of a search (or of a sweep's model, sequence length and node size) shares: the
    model, the card and links, the training shape, the levers the layouts do not vary, and the arrangements
    a layout's ``arrangement`` indexes (the six names by default). ``global_batch_size`` gives each layout's
    micro-batches m = global / (b x d) unless the layouts carry a ``micro_batches`` column (a sweep's k)."""

    arch: Architecture
    scene: resolve.Scenario
    gpus_per_node: int
    global_batch_size: int
    sequence_length: int
    setups: dict[tuple[int, int, bool], Setup] = field(default_factory=dict)
    levers: Levers = field(default_factory=Levers)
    shardings: tuple[Sharding, ...] = NAMED_SHARDINGS
    activations_counted: bool = True  # /v1/plan counts none when the request's activations.model is none
    expert_tensor: int | None = None  # the experts' own tensor degree; None: t (the search's layouts)
    context_attention: ContextAttention = ContextAttention.ring  # how a context group exchanges K and V
    post_validation: bool = False  # the request's parallelism.optimizer_post_validation (zero-bubble schedules)
    pipeline_runs: int = 1  # the request's parallelism.pipeline_runs: runs of the schedule a step
    # The base's split of the layers (parallelism.pipeline_layers, pipeline_embedding_layers, pipeline_loss_layers):
    # every layout's stages split so (service.mesh.pipeline.chunk_layers); the mesh's rules refuse the layouts it
    # does not fit (service.mesh.degrees.pipeline_problems).
    pipeline_layers: tuple[int, ...] | None = None
    embedding_layers: int = 0
    loss_layers: int = 0
    # A search's splits instead (its layouts' ``split`` column indexes them), each on every pipeline degree.
    layer_splits: tuple[LayerSplit, ...] = ()

    @property
    def split(self) -> dict[str, Any]:
        return {
            "pipeline_layers": self.pipeline_layers,
            "embedding_layers": self.embedding_layers,
            "loss_layers": self.loss_layers,
        }

    def split_at(self, code: int, pipeline: int, chunks: int) -> dict[str, Any]:
        """The split of a layout whose ``split`` column holds ``code``, over its pipeline x chunks model chunks."""
        if not self.layer_splits:
            return self.split
        return self.layer_splits[code].of(self.arch.layers, pipeline * chunks)

    def setup(self, arrangement: int, recompute: int = 0, offload: bool = False) -> Setup:
        key = (arrangement, recompute, offload)
        if key not in self.setups:
            levers = self.levers.model_copy(update={"recompute": RECOMPUTES[recompute], "offload_optimizer": offload})
            # Each layout is the plan of its own levers (a given utilisation holds for its recomputation, unless
            # training.utilisation_recompute says otherwise: resolve.setup_for).
            self.setups[key] = resolve.setup_for(self.scene, self.shardings[arrangement], levers)
        return self.setups[key]


@dataclass(frozen=True)
class Structure:
    """The facts of one (t, p, e, v): candidate stages, working sets per arrangement, the stages that may pace it."""

    candidates: list[StageShare]
    working_set_bytes: list[list[int]]  # [arrangement][candidate]
    max_layers: int
    max_moe_layers: int
    working_states: list[list[dict[StateClass, int]]]  # [arrangement][candidate]: the working set by state class
    # the stages one of which sets the pace (service.engine.layout.pacing_stages): (layers, output layer, FLOPs share)
    pacing: tuple[tuple[int | None, bool, float], ...]


def candidate_stages(shares: list[StageShare]) -> list[StageShare]:
    """The first stage of each distinct signature: the only stages that can hold the most bytes."""
    seen: set[tuple[Any, ...]] = set()
    found = []
    for share in shares:
        key = (
            share.layers,
            share.moe_layers,
            share.dense_parameters,
            share.expert_parameters,
            share.first,
            share.last,
            share.chunk_layers if len(set(share.chunk_layers)) > 1 else (),  # unequal chunks weigh their flights
        )
        if key not in seen:
            seen.add(key)
            found.append(share)
    return found


def structure(
    case: Case,
    tensor: int,
    pipeline: int,
    expert: int,
    virtual_stages: int,
    v_shape: bool = False,
    split: int = 0,
    slowest_of: dict[tuple[int, int, bool, int], Any] | None = None,
    memo: dict[tuple[Any, ...], Any] | None = None,
) -> Structure:
    """The facts of one (t, p, e, v), with ZB-V's V placement of the chunks (``v_shape``) or without, its layers
    split as the case's split ``split`` says (Case.split_at). ``slowest_of``: pacing_stages' answers by (p, v,
    V placement, split), which neither t nor e changes, kept across structures. ``memo``: what other structures
    share, kept across them: the FSDP units by (t, p, e) and the working set's rows by what they read (the
    arrangement, the stage's parameters, the units, whether it pipelines)."""
    memo = {} if memo is None else memo
    arch, s = case.arch, case.sequence_length
    layer_split = case.split_at(split, pipeline, stage_chunks(v_shape, virtual_stages))
    shares = stage_shares(
        arch, tensor, pipeline, expert, virtual_stages, case.expert_tensor, **layer_split, v_shape=v_shape
    )
    candidates = candidate_stages(shares)
    units_key = ("units", tensor, pipeline, expert)
    if units_key not in memo:
        mesh = Mesh(world_size=tensor * pipeline, gpus_per_node=case.gpus_per_node, tensor=tensor, pipeline=pipeline)
        mesh = Mesh(**{**mesh.__dict__, "expert": expert, "expert_tensor": case.expert_tensor})
        memo[units_key] = layout_units(arch, mesh)
    units = memo[units_key]
    # the units in the working set's keys by a number of their own (equal units, one number): hashed once here,
    # not for every candidate stage and arrangement
    units_id = memo.setdefault(("units id", units), len(memo))
    working = []
    working_states = []
    for code in range(len(case.shardings)):
        setup = case.setup(code)
        used = units if setup.units is not None else None
        used_id = units_id if used is not None else None
        sums, by_state = [], []
        for candidate in candidates:
            rows_key = ("working", code, candidate.parameters, used_id, pipeline > 1)
            if rows_key not in memo:
                rows = working_set_rows(
                    candidate.parameters,
                    setup.precision,
                    setup.sharding,
                    used,
                    setup.bucket_bytes,
                    setup.overlap,
                    pipelined=pipeline > 1,  # FSDP with pipelining (service.memory.working_set.pipelined_rows)
                )
                memo[rows_key] = (sum(row.bytes for row in rows), {row.state: row.bytes for row in rows})
            total, states = memo[rows_key]  # the states' bytes are read, never written
            sums.append(total)
            by_state.append(states)
        working.append(sums)
        working_states.append(by_state)
    slowest_key = (pipeline, virtual_stages, v_shape, split)
    found = None if slowest_of is None else slowest_of.get(slowest_key)
    if found is None:
        found = pacing_stages(arch, pipeline, virtual_stages, s, **layer_split, v_shape=v_shape)
        if slowest_of is not None:
            slowest_of[slowest_key] = found
    return Structure(
        candidates,
        working,
        max(share.layers for share in shares),
        max(share.moe_layers for share in shares),
        working_states,
        tuple((stage.layers, stage.last, float(stage.share)) for stage in found),
    )


@dataclass(frozen=True)
class Choices:
    """The categorical choices every shape is evaluated under: indices into ARRANGEMENTS and RECOMPUTES."""

    arrangement: list[int]
    recompute: list[int]
    offload_optimizer: list[bool]


@dataclass(frozen=True)
class Figures:
    """The figures of each layout's /v1/plan answer the search ranks and reports. Arrays indexed
    (shape, arrangement, recompute, offload) where they depend on all four; (shape, recompute) for the
    compute and the model-parallel groups; (shape,) for d, m and tokens."""

    data: np.ndarray
    micro_batches: np.ndarray
    per_gpu_bytes: np.ndarray
    model_state_bytes: np.ndarray | None  # these four with detail only
    working_set_bytes: np.ndarray | None
    activations_bytes: np.ndarray | None
    host_bytes: np.ndarray | None
    busiest_stage: np.ndarray
    fits: np.ndarray
    tokens_per_step: np.ndarray
    compute_s: np.ndarray
    pipeline_bubble_s: np.ndarray
    tensor_parallel_s: np.ndarray
    context_parallel_s: np.ndarray
    pipeline_p2p_s: np.ndarray
    expert_parallel_s: np.ndarray
    data_parallel_s: np.ndarray
    data_parallel_exposed_s: np.ndarray
    offload_s: np.ndarray
    optimizer_s: np.ndarray
    overlap_slowdown_s: np.ndarray
    step_s: np.ndarray
    tokens_per_s: np.ndarray
    mfu: np.ndarray
    # With detail, what a sweep row reports besides, (shapes, arrangements, recomputes, offloads) each:
    state_bytes: np.ndarray | None = None  # (states, ...): bytes on the GPU per state class (STATES)
    # the checkpointed states of the stage that holds the most of them: what an asynchronous save stalls for
    # (service.time.goodput.staged_rows, the largest over the stages as /v1/plan takes it)
    staged_bytes: np.ndarray | None = None
    replicated_floor_bytes: np.ndarray | None = None
    bytes_sent_per_gpu: np.ndarray | None = None
    communication_s: np.ndarray | None = None
    exposed_communication_s: np.ndarray | None = None
    pcie_bytes_per_gpu: np.ndarray | None = None


def _untimed(
    d: Any, m: Any, top_bytes: Any, busiest: Any, host: Any, fits: Any, tokens: Any, sizes: tuple[int, int, int]
) -> Figures:
    """A grid's bytes with every time figure 0 (evaluate_grid's ``timed`` False)."""
    pair, cells = np.zeros((len(d), sizes[1])), np.zeros(top_bytes.shape)
    return Figures(
        data=d,
        micro_batches=m,
        per_gpu_bytes=top_bytes,
        model_state_bytes=None,
        working_set_bytes=None,
        activations_bytes=None,
        busiest_stage=busiest,
        host_bytes=host,
        fits=fits,
        tokens_per_step=tokens,
        compute_s=pair,
        pipeline_bubble_s=pair,
        tensor_parallel_s=pair,
        context_parallel_s=pair,
        pipeline_p2p_s=pair,
        expert_parallel_s=pair,
        data_parallel_s=cells,
        data_parallel_exposed_s=cells,
        offload_s=cells,
        optimizer_s=cells,
        overlap_slowdown_s=cells,
        step_s=cells,
        tokens_per_s=cells,
        mfu=cells,
    )


STRUCTURE_COLUMN = "structure"  # shapes may carry their ids in the table (StructureTable.index), found beforehand


class StructureTable:
    """Structures found so far, as arrays indexed by structure id, and the id of each (t, p, e, v)."""

    def __init__(self, case: Case) -> None:
        self.case = case
        self.ids: dict[tuple[int, int, int, int, bool, int], int] = {}
        self.items: list[Structure] = []
        self.arrays: dict[str, np.ndarray] = {}
        self.slowest_of: dict[tuple[int, int, bool, int], Any] = {}  # structure's pacing_stages answers
        self.memo: dict[tuple[Any, ...], Any] = {}  # what structures share (structure's memo)
        self.transposed: dict[str, np.ndarray] = {}  # by_candidate's tables, until the table grows

    def by_candidate(self, name: str) -> np.ndarray:
        """A (structures, candidates) table as (candidates, structures), contiguous: a grid gathers its shapes'
        structures from each row at once (np.take along the rows, faster than fancy indexing a transposed view)."""
        if name not in self.transposed:
            self.transposed[name] = np.ascontiguousarray(self.arrays[name].T)
        return self.transposed[name]

    def index(self, layouts: Layouts) -> np.ndarray:
        t, p, e, v = (layouts[k] for k in ("tensor", "pipeline", "expert", "virtual_stages"))
        # ZB-V's V places the chunks apart from the other schedules (service.mesh.pipeline.chunk_stages)
        vs = v_shaped(layouts["schedule"], p)
        split = layouts.columns.get("split", np.zeros(len(t), dtype=np.int64))  # the case's split of the layers
        code = (((t * (int(p.max()) + 1) + p) * (int(e.max()) + 1) + e) * (int(v.max()) + 1) + v) * 2 + vs
        code = code * (int(split.max()) + 1 if len(split) else 1) + split
        unique, first, inverse = np.unique(code, return_index=True, return_inverse=True)
        grew = False
        local = np.empty(len(unique), dtype=np.int64)
        for i, row in enumerate(first.tolist()):
            key = (int(t[row]), int(p[row]), int(e[row]), int(v[row]), bool(vs[row]), int(split[row]))
            if key not in self.ids:
                self.ids[key] = len(self.items)
                self.items.append(structure(self.case, *key, slowest_of=self.slowest_of, memo=self.memo))
                grew = True
            local[i] = self.ids[key]
        if grew:
            self._tabulate()
        return local[inverse.reshape(-1)]

    def _tabulate(self) -> None:
        """The arrays of every structure: the new structures' rows tabulated and appended to those already
        tabulated (each padded to the widest candidates and chunks with zeros, as a fresh table fills them)."""
        self.transposed = {}
        done = len(self.arrays["max_layers"]) if self.arrays else 0
        fresh = _tabulated(self.items[done:], len(self.case.shardings))
        if not done:
            self.arrays = fresh
            return
        self.arrays = {name: _stacked(self.arrays[name], fresh[name], ITEM_AXIS.get(name, 0)) for name in fresh}


ITEM_AXIS = {"working_states": 1}  # the structures' axis of each table where it is not the first


def _stacked(old: np.ndarray, new: np.ndarray, axis: int) -> np.ndarray:
    """old and new joined along ``axis``, every other axis padded with zeros to the larger of the two."""
    shape = [max(a, b) for a, b in zip(old.shape, new.shape, strict=True)]

    def padded(values: np.ndarray) -> np.ndarray:
        widths = [(0, 0 if k == axis else size - values.shape[k]) for k, size in enumerate(shape)]
        return np.pad(values, widths) if any(w for _, w in widths) else values

    return np.concatenate([padded(old), padded(new)], axis=axis)


def _tabulated(items: list[Structure], arrangements: int) -> dict[str, np.ndarray]:
    """The arrays of ``items`` (StructureTable.arrays), indexed by their position in the list."""
    width = max(len(item.candidates) for item in items)
    count = len(items)

    def table(value: Any, fill: int = 0) -> np.ndarray:
        out = np.full((count, width), fill, dtype=np.int64)
        for i, item in enumerate(items):
            for k, share in enumerate(item.candidates):
                out[i, k] = value(share)
        return out

    arrays = {
        "stage": table(lambda sh: sh.stage),
        "layers": table(lambda sh: sh.layers),
        "moe_layers": table(lambda sh: sh.moe_layers),
        "dense": table(lambda sh: sh.dense_parameters),
        "expert": table(lambda sh: sh.expert_parameters),
        "first": table(lambda sh: sh.first).astype(bool),
        "last": table(lambda sh: sh.last).astype(bool),
        "valid": table(lambda sh: 1).astype(bool),
        "candidates": np.array([len(item.candidates) for item in items], dtype=np.int64),
        "uneven": table(lambda sh: len(set(sh.chunk_layers)) > 1 and sh.layers > 0).astype(bool),
        "max_layers": np.array([item.max_layers for item in items], dtype=np.int64),
        "max_moe_layers": np.array([item.max_moe_layers for item in items], dtype=np.int64),
        # each structure's pacing stages, the first repeated past its own: (structures, PACING_STAGES)
        "pace_layers": np.array([_paced(item, 0) for item in items], dtype=np.int64),
        "pace_last": np.array([_paced(item, 1) for item in items], dtype=bool),
        "pace_share": np.array([_paced(item, 2) for item in items], dtype=np.float64),
    }
    working = np.zeros((count, arrangements, width), dtype=np.int64)
    states = np.zeros((len(StateClass), count, arrangements, width), dtype=np.int64)
    for i, item in enumerate(items):
        for a, row in enumerate(item.working_set_bytes):
            working[i, a, : len(row)] = row
            for k, by_state in enumerate(item.working_states[a]):
                for state, value in by_state.items():
                    states[STATES.index(state), i, a, k] = value
    chunks = max(len(share.chunk_layers) for item in items for share in item.candidates)
    chunk_layers = np.zeros((count, width, chunks), dtype=np.int64)
    for i, item in enumerate(items):
        for k, share in enumerate(item.candidates):
            chunk_layers[i, k, : len(share.chunk_layers)] = share.chunk_layers
    arrays["chunk_layers"] = chunk_layers  # (structures, candidates, chunks)
    arrays["working"] = working
    arrays["working_states"] = states
    return arrays


PACING_STAGES = 3  # pacing_stages' most: the most FLOPs, the output layer's, the most layers of the others


def _paced(item: Structure, field: int) -> list[Any]:
    """One field of a structure's pacing stages, the first repeated to PACING_STAGES."""
    pacing = item.pacing
    return [stage[field] for stage in pacing] + [pacing[0][field]] * (PACING_STAGES - len(pacing))


def _combos(*columns: np.ndarray) -> list[tuple[tuple[int, ...], np.ndarray]]:
    """Each combination of the categorical columns present (small non-negative ints or bools), with the
    indices of its layouts: one stable sort of a combined code, then a slice per combination."""
    code = np.zeros(len(columns[0]), dtype=np.int64)
    widths = []
    for column in columns:
        width = int(column.max()) + 1 if len(column) else 1
        code = code * width + column
        widths.append(width)
    order = np.argsort(code, kind="stable")
    counts = np.bincount(code, minlength=int(np.prod(widths)))
    found = []
    start = 0
    for value in np.flatnonzero(counts).tolist():
        key = []
        rest = value
        for width in reversed(widths):
            rest, digit = divmod(rest, width)
            key.append(digit)
        stop = start + int(counts[value])
        found.append((tuple(reversed(key)), order[start:stop]))
        start = stop
    return found


def evaluate_grid(
    case: Case,
    table: StructureTable,
    shapes: Layouts,
    choices: Choices,
    detail: bool = False,
    timed: bool = True,
    data_parallel: bool = True,
    sized: bool = True,
    async_saves: bool = False,
) -> Figures:
    """The figures of every shape (a row of ``shapes``) under every choice: arrays of shape
    (shapes, arrangements, recomputes, offloads), as service.engine.evaluation.evaluate_mesh computes them for one
    valid layout. Each term is computed on the axes it depends on and broadcast. ``detail``: also the busiest
    stage's model states, working set, activations and host bytes (what ranking does not need). What a bound
    needs alone (service.answers.search_prune): ``timed`` False, the bytes and no time (every time figure 0);
    ``data_parallel`` False, the compute, the bubble and the model-parallel groups without the data-parallel
    collectives, the offload and the optimizer step (those figures 0, and the step without them); ``sized`` False
    with it, those times alone: no bytes are counted (every byte figure 0, every layout fits, its busiest stage the
    first candidate). ``async_saves``: also ``staged_bytes``, an asynchronous save's stall (as with detail)."""
    assert not (detail and not (timed and data_parallel)), "a detailed grid prices every term"
    assert sized or not data_parallel, "the data-parallel groups price the busiest stage's share"
    arch, g_node, s = case.arch, case.gpus_per_node, case.sequence_length
    n_world, t, p, c, e, v = (
        shapes[k] for k in ("world_size", "tensor", "pipeline", "context", "expert", "virtual_stages")
    )
    b, schedule, sp = shapes["micro_batch_size"], shapes["schedule"], shapes["sequence_parallel"]
    arrangements, recomputes, offloads = choices.arrangement, choices.recompute, choices.offload_optimizer
    count = len(n_world)
    d = data_degree(n_world, t, p, c)
    m: Any = (
        shapes["micro_batches"] if "micro_batches" in shapes.columns else micro_batches(case.global_batch_size, 1, b, d)
    )
    sid = shapes[STRUCTURE_COLUMN] if STRUCTURE_COLUMN in shapes.columns else table.index(shapes)
    st = table.arrays

    # the candidates of these shapes' structures, the widest's (the table's columns past it are padding alone)
    k_count = int(st["candidates"][sid].max(initial=1))

    def per_stage(name: str) -> Any:
        return np.take(table.by_candidate(name)[:k_count], sid, axis=1)  # (candidates, shapes)

    degrees: dict[str, Any] = {"tensor": t, "pipeline": p, "context": c, "expert": e, "virtual_stages": v}
    mesh = Mesh(n_world, g_node, **degrees, expert_tensor=case.expert_tensor, runs=case.pipeline_runs)
    runs = case.pipeline_runs
    run_m = run_micro_batches(m, runs, p)  # what one run of the schedule holds (service.engine.layout.stage_memory)
    data_context: Any = mesh.data_context
    expert_data: Any = mesh.expert_data
    g_data: Any = mesh.members_per_node(Group.data)
    expert_per_node: Any = mesh.expert_data_per_node
    dense_k, expert_k, valid = per_stage("dense"), per_stage("expert"), per_stage("valid")
    apart_k = mesh.experts_apart & (expert_k > 0)  # the search keeps ETP = t: apart when e > 1
    dense_held = dense_k + np.where(apart_k, 0, expert_k)
    experts_held = np.where(apart_k, expert_k, 0)
    sizes = (len(arrangements), len(recomputes), len(offloads))

    # Model states and host bytes of every candidate stage, per arrangement and offload; the working set
    # per arrangement: (candidates, shapes, arrangements, 1, offloads) and (candidates, shapes, arrangements, 1, 1).
    # Model states depend on the structure and d x c alone: computed once per distinct pair, then spread (none
    # unless sized).
    pair = sid * (int(data_context.max()) + 1) + data_context
    _, first, spread = np.unique(pair if sized else pair[:0], return_index=True, return_inverse=True)
    spread = spread.reshape(-1)
    held_d, held_e = dense_held[:, first], experts_held[:, first]
    dc, ed, gd, ged = data_context[first], expert_data[first], g_data[first], expert_per_node[first]
    unique_shape = (k_count, len(first), sizes[0], 1, sizes[2])
    state_u = np.zeros(unique_shape, dtype=np.int64)
    host_u = np.zeros_like(state_u)
    cpu_u = np.zeros_like(state_u)
    # what an asynchronous save copies from each stage (with detail, or ``async_saves``)
    staged_u = np.zeros_like(state_u) if detail or async_saves else None
    working = np.zeros((k_count, count, sizes[0], 1, 1), dtype=np.int64)
    for i, a in enumerate(arrangements if sized else ()):
        working[:, :, i, 0, 0] = st["working"][sid, a, :k_count].T
        for j, o in enumerate(offloads):
            # the parts each candidate stage holds (service.engine.layout.stage_parts): the experts' is 0 unless apart
            states = held([Part(held_d, dc, gd), Part(held_e, ed, ged)], case.setup(a, 0, o))
            state_u[:, :, i, 0, j] = states.gpu_bytes
            if staged_u is not None:
                staged_u[:, :, i, 0, j] = staged_rows(row for rows in states.rows for row in rows)
            host_u[:, :, i, 0, j] = states.host_bytes
            cpu_u[:, :, i, 0, j] = states.cpu_optimizer_bytes
    state, cpu = state_u[:, spread], cpu_u[:, spread]  # the host bytes spread only where they are read (if sized)

    # Activations of every candidate stage with its micro-batches in flight: (candidates, shapes, 1, recomputes, 1),
    # or per arrangement where some run as torchtitan does and some not (service.engine.layout.torch_native).
    natives = [torch_native(case.setup(a)) for a in arrangements]
    native_axis = len(set(natives)) > 1
    activations = np.zeros((k_count, count, sizes[0] if native_axis else 1, sizes[1], 1), dtype=np.int64)
    shape = transformer_shape(arch)
    flash = case.scene.activations.flash_attention
    loss = case.scene.activations.cross_entropy
    layers_k, moe_k = per_stage("layers"), per_stage("moe_layers")
    stage_k, first_k, last_k = per_stage("stage"), per_stage("first"), per_stage("last")
    # The schedule sets each stage's micro-batches in flight alone, which read the structure and m: those are counted
    # once per distinct schedule, structure and m, and the bytes of every schedule's rows of a sequence-parallel
    # choice at once (the same formulas, element by element).
    counted = case.activations_counted and sized
    if counted:
        distinct, flight_of = _distinct_rows([schedule, sid, run_m])
        in_flight = np.zeros((6, k_count, len(distinct)), dtype=np.int64)  # in flight, the first chunk's, the last's
        chunks = np.zeros(len(distinct), dtype=np.int64)
        for (sched,), flight_rows in _combos(schedule[distinct]):
            flights_of = _in_flight(SCHEDULES[sched], distinct[flight_rows], stage_k, p, v, run_m, sid, st)
            in_flight[:, :, flight_rows], chunks[flight_rows] = flights_of
        whole = [_whole(in_flight[k]) for k in (1, 3, 5)]  # whole micro-batches in flight, every stage's and chunk's
    for (q,), rows in _combos(sp) if counted else ():
        flights = in_flight[:, :, flight_of[rows]]
        layers = StageLayers(
            layers_k[:, rows] - moe_k[:, rows],
            moe_k[:, rows],
            first_k[:, rows],
            last_k[:, rows],
            _ratio(flights[0], flights[1], whole[0]),
            first_in_flight=_ratio(flights[2], flights[3], whole[1]),
            last_in_flight=_ratio(flights[4], flights[5], whole[2]),
            micro_batches=np.where(p[rows] > 1, run_m[rows], 0),
            chunks=chunks[flight_of[rows]],
        )
        split = TensorSplit(t[rows], bool(q), c[rows])
        by_kind: dict[tuple[bool, bool], dict[bool, Any]] = {}  # modes of one kind hold the same bytes
        for j, r in enumerate(recomputes):
            kind = recompute_kind(RECOMPUTES[r], flash)
            if kind not in by_kind:
                by_kind[kind] = {}
                by_native = by_kind[kind]
                for native in sorted(set(natives)):
                    if native and False in by_native and RECOMPUTES[r] is not Recompute.full:
                        # the conventions differ there by torch.distributed.pipelining's buffers alone
                        by_native[True] = by_native[False] + stage_pipelining_bytes(b[rows], s, shape, layers, split)
                        continue
                    components = stage_activation_components(
                        b[rows], s, shape, flash, RECOMPUTES[r], layers, split, loss, torch_native=native
                    )
                    total: Any = 0
                    for value in components.values():
                        total = total + value
                    by_native[native] = total
            for native, total in by_kind[kind].items():
                for i in [i for i, flag in enumerate(natives) if flag == native] if native_axis else [0]:
                    activations[:, rows, i, j, 0] = total

    if sized:
        per_gpu = state + working + activations
        np.copyto(per_gpu, -1, where=~valid[:, :, None, None, None])  # a padded candidate is never the busiest
        index, top_bytes = busiest_stage(per_gpu)  # the busiest stage's bytes, by its definition
        busiest = index[None]  # (1, shapes, arrangements, recomputes, offloads)
    else:
        top_bytes = np.zeros((count, *sizes), dtype=np.int64)
        busiest = np.zeros((1, *top_bytes.shape), dtype=np.int64)
    cells = busiest.shape[1:]
    at_shape = np.arange(count)[:, None, None, None] * k_count + busiest[0]

    chosen: list[Any] = []  # where each candidate but the first is the busiest, once asked

    def top(values: Any) -> Any:
        """Each layout's value at its busiest stage: candidate 0's, replaced where another is the busiest."""
        if not chosen:
            chosen.extend(busiest[0] == k for k in range(1, k_count))
        out = np.broadcast_to(values[0], busiest.shape[1:])
        for k in range(1, k_count):
            out = np.where(chosen[k - 1], values[k], out)
        return np.array(out)

    def staged(values: Any) -> Any:
        """A (candidates, shapes) figure at each layout's busiest stage: one gather."""
        return np.ascontiguousarray(values.T).reshape(-1)[at_shape]

    host_node: Any = None
    fits = top_bytes <= case.scene.usable_bytes
    if sized and (detail or case.scene.host_memory_bytes is not None):
        host = np.where(valid[:, :, None, None, None], host_u[:, spread], 0)  # a padded candidate offloads nothing
        host_node = np.broadcast_to(
            stages_host_bytes_per_node(host, n_world[:, None, None, None], g_node), busiest.shape[1:]
        )
    if host_node is not None and case.scene.host_memory_bytes is not None:
        fits &= host_node <= case.scene.host_memory_bytes
    if not timed:
        return _untimed(d, m, top_bytes, staged(stage_k), host_node, fits, tokens_per_step(d, b, s, m), sizes)

    # Compute: the slowest stage's micro-batches, per recompute: (shapes, recomputes); by the efficiency model,
    # or at the given utilisation (its share of the step's FLOPs on its t x c x d GPUs).
    first_setup = case.setup(arrangements[0])
    given = first_setup.utilisation is not None
    active = active_parameter_count(arch)
    tokens: Any = tokens_per_step(d, b, s, m)
    per_token, _ = flops_per_token(first_setup, active, s)
    model_flops = per_token * tokens
    timed_by_stage = []  # each pacing stage's (compute, forward): (shapes, recomputes) each
    # every pacing stage of a structure at once: an id per distinct (layers, output layer, share) of its stages
    share_codes = np.unique(st["pace_share"], return_inverse=True)[1].reshape(st["pace_share"].shape)
    pace_code = _distinct_rows(
        [st["pace_layers"][:, k] for k in range(PACING_STAGES)]
        + [st["pace_last"][:, k] for k in range(PACING_STAGES)]
        + [share_codes[:, k] for k in range(PACING_STAGES)]
    )[1][sid]
    # Each pacing stage's compute, then the slowest (slowest_stage: the first of equals, the most FLOPs)
    for k in range(PACING_STAGES):
        stage_s, stage_forward_s = np.empty((count, sizes[1])), np.empty((count, sizes[1]))
        timed_by_stage.append((stage_s, stage_forward_s))
        share = st["pace_share"][sid, k]
        pace_layers, pace_last = st["pace_layers"][sid, k], st["pace_last"][sid, k]
        # a given utilisation reads no stage's layers: every shape at once
        paced: list[tuple[tuple[int, ...], Any]] = [((1,), np.arange(count))] if given else _combos(pace_last)
        # The paced stage's compute reads m, b, d, t, c, e, sequence parallelism and the stage's layers and share
        # alone: each distinct combination of them is computed once (many shapes differ only by schedule or split).
        for (last,), paced_rows in paced:
            paced_inputs = (m, b, d, t, c, e, sp, pace_code)
            distinct, spread_to = _distinct_rows([column[paced_rows] for column in paced_inputs])
            rows = paced_rows[distinct]
            paced_mesh = Mesh(
                n_world[rows],
                g_node,
                tensor=t[rows],
                pipeline=p[rows],
                context=c[rows],
                expert=e[rows],
                expert_tensor=case.expert_tensor,
                sequence_parallel=sp[rows],
                context_attention=case.context_attention,
            )
            stage_inputs = (pace_layers[rows], bool(last), share[rows], per_token, active)
            for j, r in enumerate(recomputes):
                setup = case.setup(arrangements[0], r)
                paced_s, paced_forward_s = mesh_stage_compute(
                    setup, paced_mesh, *stage_inputs, m[rows], b[rows], s, tokens[rows]
                )
                stage_s[paced_rows, j] = _spread(paced_s, len(rows), spread_to)
                stage_forward_s[paced_rows, j] = _spread(paced_forward_s, len(rows), spread_to)
    compute_s, forward_s, _ = slowest_stage(timed_by_stage)
    backward_s = compute_s - forward_s

    def group_mesh(rows: Any, q: bool, codes: Any) -> Mesh:
        """The mesh of these rows, with sequence parallelism or without, their schedules' ``codes`` (SCHEDULES)."""
        masked: dict[str, Any] = {name: values[rows] for name, values in degrees.items()}
        return Mesh(
            n_world[rows],
            g_node,
            sequence_parallel=q,
            expert_tensor=case.expert_tensor,
            context_attention=case.context_attention,
            schedule=codes,
            post_validation=case.post_validation,
            runs=case.pipeline_runs,
            **masked,
        )

    # The model-parallel groups of each sequence-parallelism choice, per recompute mode, as a plan's
    # (service.engine.evaluation.model_parallel_step, every schedule's rows at once): the bubble, each group's exposed
    # seconds, what the overlap levers hide, every call's seconds and bytes. Each group is stepped once per distinct
    # combination of what it reads (the two passes below), each call priced once whatever the recompute mode
    # (_PricedCalls), and a mode whose compute and calls are an earlier one's has its seconds.
    bubble_s = np.zeros((count, sizes[1]))
    group_s = {g: np.zeros((count, sizes[1])) for g in MODEL_GROUPS}
    groups_total_s = np.zeros((count, sizes[1]))  # every call's time, exposed or not
    lever_hidden_s = np.zeros((count, sizes[1]))  # hidden by tp_comm_overlap and the expert overlap
    groups_sent = np.zeros((count, sizes[1]), dtype=np.int64)
    max_layers, max_moe_layers = st["max_layers"][sid], st["max_moe_layers"][sid]
    by_mode = [bubble_s, groups_total_s, lever_hidden_s, groups_sent, *group_s.values()]
    fulls = [RECOMPUTES[r] is Recompute.full for r in recomputes]
    # The tensor, context and expert groups read m, b, the degrees but the pipeline's, the busiest stage's layers and
    # the paced stage's compute: they are stepped once for every schedule, pipeline degree and virtual stages that
    # share those; the pipeline's sends and bubble read the schedule, p and v too, as the expert overlap's combined
    # 1F1B pairs do (service.engine.model_parallel.combined_pairs). With detail, the second pass makes every call, for
    # the step's total and bytes.
    combined = combined_priced(first_setup)
    ring = case.context_attention is ContextAttention.ring
    pipelined_groups = (Group.pipeline, Group.expert) if combined else (Group.pipeline,)
    passes = (
        (
            tuple(g for g in MODEL_GROUPS if g not in pipelined_groups),
            (m, b, d, t, c, e, pace_code, max_layers, max_moe_layers),
        ),
        (pipelined_groups, (m, b, n_world, t, p, c, e, v, max_layers, max_moe_layers, schedule, pace_code)),
    )
    for (q,), rows_choice in _combos(sp):
        coarse, fine = (_Pass(step_groups, rows_choice, inputs, first_setup) for step_groups, inputs in passes)
        for one in (coarse, fine):
            one.mesh = group_mesh(one.rows, bool(q), schedule[one.rows])
        # each row of the second pass's row of the first, whose calls of the tensor, context and expert groups it
        # prices (a call's price reads none of what the second pass adds)
        coarse_of = coarse.spread_to[fine.distinct]
        pieces_s = None  # the expert overlap's pieces, found on the first pass's rows, at each of the second's
        if combined:
            near = coarse.mesh
            sequence = tensor_sequence_split(near.tensor, bool(q))
            some = (b[coarse.rows], s, near.tensor, near.context, near.expert, near.etp)
            pieces = combined_pieces(first_setup, *some, sequence, ring)
            pieces_s = tuple(np.broadcast_to(piece, (len(coarse.rows),))[coarse_of] for piece in pieces)
        fw_rows, bw_rows = forward_s[fine.rows], backward_s[fine.rows]
        for j, r in enumerate(recomputes):
            same = _same_compute(fw_rows, bw_rows, j, fulls)
            if same is not None:
                for values in by_mode:
                    values[rows_choice, j] = values[rows_choice, same]
                continue
            setup, full = case.setup(arrangements[0], r), fulls[j]
            hidden: Any = 0.0
            for one in (coarse, fine):
                rows = one.rows
                every = detail and one is fine
                layers_in = (max_layers[rows], max_moe_layers[rows], m[rows], b[rows], s)
                if full not in one.made:
                    work = stage_work(first_setup, *layers_in, full)
                    made_groups = None if every else (COARSE_GROUPS if one is coarse else one.groups)
                    one.made[full] = model_parallel_calls(one.mesh, arch, work, made_groups)
                seconds_of: Callable[[GroupCall], Any] = one.priced
                if one is fine:  # the first pass's prices, gathered
                    seconds_of = _Gathered(one.priced, coarse.priced, coarse.made[full], coarse_of)
                seconds = (compute_s[rows, j], forward_s[rows, j])
                step = model_parallel_step(
                    one.mesh,
                    arch,
                    setup,
                    *layers_in,
                    *seconds,
                    full,
                    seconds_of,
                    one.made[full],
                    one.groups,
                    pieces_s if one is fine else None,
                )
                for g in one.groups:
                    group_s[g][rows_choice, j] = one.spread(step.exposed_s[g])
                hidden = hidden + one.spread(step.lever_hidden_s)
                if one is fine:  # the pipeline's: the bubble, and every call with detail
                    bubble_s[rows_choice, j] = one.spread(step.bubble_s)
                if every:
                    groups_total_s[rows_choice, j] = one.spread(step.total_s)
                    groups_sent[rows_choice, j] = one.spread(step.bytes_sent)
            lever_hidden_s[rows_choice, j] = hidden

    full_shape = busiest.shape[1:]
    # The figures after the model-parallel groups, by cell first (arrangements, offloads, shapes, recomputes): each
    # cell's figures contiguous for rank_totals, laid out as the others (shapes, arrangements, recomputes, offloads)
    # at the end (laid_out).
    by_cell = (sizes[0], sizes[2], count, sizes[1])
    data_total, data_exposed, data_hidden = (np.zeros(by_cell) for _ in range(3))  # hidden: beside compute

    def by_offload(values: Any) -> Any:  # (shapes, recomputes, offloads) -> (offloads, shapes, recomputes)
        return np.moveaxis(np.broadcast_to(values, (count, *sizes[1:])), 2, 0)

    pcie = np.zeros(by_cell, dtype=np.int64)
    optimizer_s, offload_s, slowdown_s, step_s, tokens_per_s, mfu = (np.zeros(by_cell) for _ in range(6))
    extra = _Detail(full_shape, top(working), top(activations)) if detail else None
    exposed = model_exposed_s(group_s)
    col = (slice(None), None)
    mm = m[col]
    if data_parallel:  # else none of the data groups, the host link or the optimizer step is priced (0 each)
        top_dense, top_layers = staged(dense_held), staged(layers_k)
        experts_anywhere = bool(apart_k.any())
        top_experts = staged(experts_held) if experts_anywhere else np.zeros(cells, dtype=np.int64)
        top_apart = staged(apart_k) if experts_anywhere else np.zeros(cells, dtype=bool)
        top_cpu = top(cpu)
        # a group of one rank makes no call (NCCL prices no call: service.time.nccl)
        has_dense = (data_context > 1)[:, None]
        fw, bw = micro_batch_seconds(compute_s, forward_s, mm)
        # the exposed model-parallel seconds on NVLink alone and on the NIC alone, which the data rings run beside
        # (service.engine.step.part_windows)
        alone = links_alone(group_mesh(np.arange(count), False, schedule))
        beside = beside_data_seconds(group_s, {g: (on[:, None], off[:, None]) for g, (on, off) in alone.items()})
        beside3 = (beside[0][:, :, None], beside[1][:, :, None])
        wide3 = (slice(None), None, None)  # (shapes,) -> (shapes, 1, 1)
        # Megatron-Core's buckets where any model-parallel degree is above 1 (service.time.buckets)
        split3 = np.asarray(mesh.tensor * mesh.pipeline * mesh.context * mesh.expert * mesh.etp > 1)[wide3]
        fw3, bw3, m3 = fw[:, :, None], bw[:, :, None], m[wide3]
    # The busiest stage's data groups per arrangement, over (shapes, recomputes, offloads) at once; then, per
    # arrangement and offload, what follows them (service.engine.step.rank_totals): (shapes, recomputes) each.
    for i, a in enumerate(arrangements):
        at = (slice(None), i)
        if data_parallel:
            # The collectives' time depends on the offload choice only through the busiest stage's share.
            setup = case.setup(a)
            dense_p, expert_p, layers_top = top_dense[at], top_experts[at], top_layers[at]
            # FSDP on a pipeline stage gathers and reduces once per step (service.time.traffic.pipelined_collectives)
            variants = _pipelined_choices(setup, p)
            # the busiest stage's parts (service.engine.layout.stage_parts) and where each has a group that calls
            parts = [Part(dense_p, data_context[wide3], g_data[wide3])]
            grouped = [has_dense[:, :, None]]
            if experts_anywhere:  # the experts' part where they shard apart, over their own data group
                parts.append(Part(expert_p, expert_data[wide3], expert_per_node[wide3]))
                grouped.append(top_apart[at] & (expert_data[wide3] > 1))
            for pipelined in variants:
                on = by_offload(((p > 1) == pipelined)[wide3] | (len(variants) == 1))
                collectives = setup.step_data_calls(m3, pipelined, runs)
                groups = data_groups_step(parts, setup, collectives, m3, fw3, bw3, layers_top, beside3, split3, grouped)
                data_total[i] = np.where(on, by_offload(groups.total_s), data_total[i])
                data_exposed[i] = np.where(on, by_offload(groups.exposed_s), data_exposed[i])
                data_hidden[i] = np.where(on, by_offload(groups.hidden_s), data_hidden[i])
        for j, o in enumerate(offloads):
            setup = case.setup(a, 0, o)
            cell = (slice(None), i, slice(None), j)
            cell_parts: list[Part] = []
            cpu_bytes: Any = 0
            if data_parallel:
                dense_p, expert_p = top_dense[cell], top_experts[cell]  # the experts' part is 0 unless apart
                cell_parts = [
                    Part(dense_p, data_context[col], g_data[col]),
                    Part(expert_p, expert_data[col], expert_per_node[col]),
                ]
                cpu_bytes = top_cpu[cell]
            data_cell = DataGroupsStep([], [], data_total[i, j], data_exposed[i, j], data_hidden[i, j])
            ranked = rank_totals(
                cell_parts,
                setup,
                data_cell,
                cpu_bytes,
                mm,
                n_world[col],
                g_node,
                compute_s,
                bubble_s,
                exposed,
                lever_hidden_s,
                tokens[col],
                model_flops[col],
                None,
            )
            pcie[i, j], offload_s[i, j] = ranked.host.pcie_bytes_per_gpu, ranked.host.offload_s
            optimizer_s[i, j] = ranked.optimizer_s
            totals = ranked.totals
            slowdown_s[i, j], step_s[i, j] = totals.overlap_slowdown_s, totals.step_s
            tokens_per_s[i, j], mfu[i, j] = totals.tokens_per_s, totals.mfu
            if extra is not None:
                working_states = st["working_states"][:, sid, a, :k_count]  # (states, shapes, candidates)
                extra.add(cell, setup, mm, cell_parts, working_states, busiest[0][:, i, :, j], p[col] > 1, runs)

    def grid(values: Any) -> Any:  # (shapes, recomputes) -> (shapes, 1, recomputes, 1)
        return values[:, None, :, None]

    def laid_out(values: np.ndarray) -> np.ndarray:  # by cell -> (shapes, arrangements, recomputes, offloads)
        return np.ascontiguousarray(values.transpose(2, 0, 3, 1))

    data_total, data_exposed, pcie = laid_out(data_total), laid_out(data_exposed), laid_out(pcie)
    optimizer_s, offload_s, slowdown_s = laid_out(optimizer_s), laid_out(offload_s), laid_out(slowdown_s)
    step_s, tokens_per_s, mfu = laid_out(step_s), laid_out(tokens_per_s), laid_out(mfu)

    return Figures(
        data=d,
        micro_batches=m,
        per_gpu_bytes=top_bytes,
        model_state_bytes=top(state) if detail else None,
        working_set_bytes=top(working) if detail else None,
        activations_bytes=top(activations) if detail else None,
        busiest_stage=staged(stage_k),
        host_bytes=host_node,
        fits=fits,
        tokens_per_step=tokens,
        compute_s=compute_s,
        pipeline_bubble_s=bubble_s,
        tensor_parallel_s=group_s[Group.tensor],
        context_parallel_s=group_s[Group.context],
        pipeline_p2p_s=group_s[Group.pipeline],
        expert_parallel_s=group_s[Group.expert],
        data_parallel_s=data_total,
        data_parallel_exposed_s=data_exposed,
        offload_s=offload_s,
        optimizer_s=optimizer_s,
        overlap_slowdown_s=slowdown_s,
        step_s=step_s,
        tokens_per_s=tokens_per_s,
        mfu=mfu,
        state_bytes=extra.state_bytes if extra is not None else None,
        staged_bytes=_largest_stage(staged_u[:, spread], valid, top_bytes.shape) if staged_u is not None else None,
        replicated_floor_bytes=extra.floor_bytes if extra is not None else None,
        bytes_sent_per_gpu=grid(groups_sent) + extra.sent_bytes if extra is not None else None,
        communication_s=grid(groups_total_s) + data_total if detail else None,
        exposed_communication_s=grid(exposed) + data_exposed if detail else None,
        pcie_bytes_per_gpu=pcie if detail else None,
    )


def _largest_stage(per_candidate: np.ndarray, valid: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """The largest value over each layout's candidate stages (candidates, shapes, arrangements, 1, offloads), the
    padding past a structure's own candidates left out, as (shapes, arrangements, recomputes, offloads)."""
    largest = np.where(valid[:, :, None, None, None], per_candidate, 0).max(axis=0)
    return np.ascontiguousarray(np.broadcast_to(largest, shape))


def _in_flight(
    schedule: PipelineSchedule,
    rows: np.ndarray,
    stage_k: np.ndarray,
    p: np.ndarray,
    v: np.ndarray,
    m: np.ndarray,
    sid: np.ndarray,
    st: dict[str, np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    """The micro-batches in flight on each candidate stage (``stage_k``, (candidates, shapes)) of these rows, all
    run on ``schedule``: (numerator, denominator) of the stage's, then of its first chunk's, then of its last's,
    stacked (6, candidates, rows); and the model chunks each stage runs (rows,)."""
    stage_r, p_r, v_r, m_r = stage_k[:, rows], p[rows], v[rows], m[rows]
    numerator, denominator = in_flight_ratio(schedule, stage_r, p_r, v_r, m_r)
    if schedule in CHUNKED:  # unequal chunks: each chunk's micro-batches by its layers (stage_in_flight)
        width = len(stage_r)  # the candidates evaluated (the table's widest or fewer)
        uneven = st["uneven"].T[:width, sid[rows]] & (v_r > 1)
        if uneven.any():
            weighted: Any = 0
            warm = chunk_warmup(stage_r, p_r, v_r, m_r)
            sid_r = sid[rows]
            for j in range(st["chunk_layers"].shape[2]):
                size = st["chunk_layers"][:, :width, j].T[:, sid_r]
                weighted = weighted + chunk_in_flight(stage_r, p_r, v_r, m_r, j, warm=warm) * size
            numerator = np.where(uneven, weighted, numerator)
            denominator = np.where(uneven, st["layers"].T[:width, sid_r], denominator)
    # the end chunks' own micro-batches (service.engine.layout._end_flight); used only where the stage holds them
    ends = [end_chunk_in_flight(schedule, stage_r, p_r, v_r, m_r, chunk) for chunk in (0 * v_r, v_r - 1)]
    shape = stage_r.shape
    parts = (numerator, denominator, *ends[0], *ends[1])
    flights = np.stack([np.broadcast_to(part, shape) for part in parts])
    return flights, split_chunks(schedule, p_r, v_r)


def _whole(denominator: np.ndarray) -> bool:
    """Whether every one of these denominators of micro-batches in flight is 1 (whole micro-batches)."""
    return int(denominator.min(initial=1)) == 1 and int(denominator.max(initial=1)) == 1


def _ratio(numerator: np.ndarray, denominator: np.ndarray, whole: bool) -> ArrayRatio:
    """Micro-batches in flight as activations take them: the denominator 1 where every stage's is (``whole``
    micro-batches, nothing to round: most schedules; a denominator of 1 rounds nothing either way)."""
    return ArrayRatio(numerator, 1 if whole else denominator)


def _distinct_rows(columns: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(the first row of each distinct combination of these columns, each row's combination as an index into those):
    the columns (non-negative integers or bools, equal lengths) folded into one int64 code, recoded densely
    whenever the next column's values could overflow it, then one np.unique."""
    code = np.zeros(len(columns[0]), dtype=np.int64)
    width = 1  # the code's values lie in [0, width)
    for column in columns:
        values = column.astype(np.int64, copy=False)
        span = int(values.max()) + 1 if len(values) else 1
        if width * span >= 2**62:
            _, code = np.unique(code, return_inverse=True)
            code = code.reshape(-1)
            width = int(code.max()) + 1 if len(code) else 1
        code = code * span + values
        width *= span
    _, first, inverse = np.unique(code, return_index=True, return_inverse=True)
    return first, inverse.reshape(-1)


def _pipelined_choices(setup: Setup, pipeline: np.ndarray) -> list[bool]:
    """The data group's collectives a grid prices for an arrangement: the plain ones, and FSDP's on a pipeline stage
    where the parameters are sharded and some layout pipelines (service.time.traffic.step_collectives)."""
    if setup.sharding.shard_parameters and bool((pipeline > 1).any()):
        return [False, True] if bool((pipeline == 1).any()) else [True]
    return [False]


def _call_key(call: Any) -> tuple[Any, ...]:
    return (call.group, call.name, call.purpose, call.dtype, call.ring_step)


class _PricedCalls:
    """group_call_seconds of the model-parallel calls of one set of rows, each priced once: a call's seconds
    depend on its buffer, ranks and link, the same for those rows under every recompute mode (which changes only
    how many calls a step makes), and NCCL's model is the costly part of pricing a grid's groups."""

    def __init__(self, setup: Setup) -> None:
        self.setup = setup
        self.seconds: dict[tuple[Any, ...], Any] = {}

    def __call__(self, call: GroupCall) -> Any:
        key = _call_key(call)
        if key not in self.seconds:
            self.seconds[key] = group_call_seconds(call, self.setup)
        return self.seconds[key]


class _Pass:
    """One pass of the grid's model-parallel groups over a sequence-parallelism choice's rows (``rows_choice``): the
    groups it steps, its distinct rows by what it reads (``inputs``: ``distinct`` among the choice's, each of the
    choice's rows at ``spread_to``), their mesh, the calls made on them by full recomputation, and their prices."""

    def __init__(
        self, groups: tuple[Group, ...], rows_choice: np.ndarray, inputs: tuple[np.ndarray, ...], setup: Setup
    ) -> None:
        self.groups = groups
        self.distinct, self.spread_to = _distinct_rows([column[rows_choice] for column in inputs])
        self.rows = rows_choice[self.distinct]
        self.mesh: Any = None  # set by the grid (its group_mesh)
        self.made: dict[bool, list[GroupCall]] = {}
        self.priced = _PricedCalls(setup)  # each call priced once, whatever the recompute mode

    def spread(self, values: Any) -> Any:
        """Figures of the distinct rows at each of the choice's rows."""
        return _spread(values, len(self.rows), self.spread_to)


COARSE_GROUPS = (Group.tensor, Group.context, Group.expert)  # the calls the grid's first pass makes and prices


class _Gathered:
    """The second pass's call prices: a tensor, context or expert call's from the first pass's rows (``coarse``:
    its calls priced, ``coarse_calls``: those calls), gathered to each row (``index``: its first-pass row); a
    pipeline's send, which the first pass does not make, priced on these rows (``own``)."""

    def __init__(
        self, own: _PricedCalls, coarse: _PricedCalls, coarse_calls: list[GroupCall], index: np.ndarray
    ) -> None:
        self.own, self.coarse, self.index = own, coarse, index
        self.coarse_calls = {_call_key(call): call for call in coarse_calls}
        self.gathered: dict[tuple[Any, ...], Any] = {}

    def __call__(self, call: GroupCall) -> Any:
        key = _call_key(call)
        if key not in self.gathered:
            found = self.coarse_calls.get(key)
            if found is None:
                self.gathered[key] = self.own(call)
            else:
                seconds = self.coarse(found)
                self.gathered[key] = seconds[self.index] if isinstance(seconds, np.ndarray) else seconds
        return self.gathered[key]


def _same_compute(forward_s: np.ndarray, backward_s: np.ndarray, j: int, full: list[bool]) -> int | None:
    """An earlier recompute mode than ``j`` (columns of these (rows, recomputes) seconds) whose calls (full
    recomputation or not) and forward and backward seconds are ``j``'s, bit for bit: the model-parallel groups read
    nothing else of the mode, so their seconds are that mode's (under flash attention, selective recomputation
    recomputes nothing and costs what none does). None where there is none."""
    for earlier in range(j):
        if (
            full[earlier] == full[j]
            and np.array_equal(forward_s[:, earlier], forward_s[:, j])
            and np.array_equal(backward_s[:, earlier], backward_s[:, j])
        ):
            return earlier
    return None


def _spread(values: Any, count: int, spread: np.ndarray) -> Any:
    """Figures of ``count`` distinct rows (or one number for all) at each row of the rows they stand for."""
    return np.broadcast_to(values, (count,))[spread]


class _Detail:
    """What a sweep row reports beyond the search's figures, at each layout's busiest stage, as /v1/plan's
    answer reports it (service.engine.evaluation.Evaluation): the GPU's bytes per state class (model states and
    working set), the replicated floor, and the bytes the data-parallel groups send (their collectives on the
    stage's share, service.time.traffic)."""

    def __init__(self, shape: tuple[int, ...], working: Any, activations: Any) -> None:
        self.state_bytes = np.zeros((len(STATES), *shape), dtype=np.int64)
        self.floor_bytes = np.zeros(shape, dtype=np.int64)
        self.sent_bytes = np.zeros(shape, dtype=np.int64)
        self.working = working
        self.activations = activations

    def add(
        self,
        cell: Any,
        setup: Setup,
        m: Any,
        parts: list[Part],
        working_states: Any,
        busiest: Any,
        pipelined: Any = False,
        runs: int = 1,
    ) -> None:
        """One arrangement and offload choice: ``cell`` indexes (shapes, recomputes) of the figures, ``parts``
        the busiest stage's (its dense share, and its experts': 0 parameters unless they shard apart), ``busiest``
        its candidate index (shapes, recomputes); ``pipelined``: where FSDP runs on a pipeline stage
        (service.time.traffic.pipelined_collectives), over ``runs`` runs of the schedule a step."""
        rows = held(parts, setup).rows
        for state, value in gpu_state_bytes(row for of_part in rows for row in of_part).items():
            self.state_bytes[(STATES.index(state), *cell)] += value
        for k, by_state in enumerate(working_states):
            self.state_bytes[(k, *cell)] += np.take_along_axis(by_state, busiest, axis=1)
        self.floor_bytes[cell] = floor_bytes(parts, self.working[cell], self.activations[cell], setup)
        sent = []
        for calls in (
            step_collectives(setup.precision, setup.sharding, m),
            step_collectives(setup.precision, setup.sharding, m, pipelined=True, runs=runs),
        ):
            sent.append(
                data_bytes_sent(calls, [calls_bytes_sent(p.parameters, p.ranks, calls, p.per_node) for p in parts])
            )
        self.sent_bytes[cell] = np.where(pipelined & setup.sharding.shard_parameters, sent[1], sent[0])
