"""Many layouts at once: service.layout's figures for arrays of layouts, through the same formulas.

A layout is a world size N, degrees t, p, c, e, a pipeline schedule with v virtual stages,
sequence parallelism, a micro-batch size b, an arrangement, a recomputation mode and optimizer
offload; d = N / (t p c) and m = global batch / (b d). It is evaluated as service.layout
evaluates one (and /v1/plan answers it), in two parts:

- What depends only on the structure (t, p, e, v) -- each stage's layers, its parameter share
  (service.stages), the FSDP units (service.layout.layout_units), the working set per arrangement,
  the slowest stage by its FLOPs -- is computed once per structure by the scalar functions.
- Everything else is numpy over the layouts: each formula of the core (model states, activations,
  micro-batches in flight, the efficiency model's compute, the bubble, the model-parallel and
  data-parallel collectives, offload, the optimizer step) is called once per value of the
  categorical choices it branches on (arrangement, offload, recompute, schedule, sequence
  parallelism), on the layouts that hold that value (boolean masks). No formula is written here.

Only a few stages can be the busiest: micro-batches in flight never rise with the stage index
(service.pipeline), so of the stages that hold the same layers and parameters the first holds the
most. Those first stages of each distinct signature are the candidates, evaluated side by side
(arrays of shape (candidates, layouts)); the busiest is the first largest, as in service.layout.
"""

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from models.enums import ArrangementName, Recompute, StateLocation
from models.parallelism import PipelineSchedule
from models.training import Levers
from service import resolve
from service.activations import ArrayRatio, StageLayers, TensorSplit, stage_activation_components, transformer_shape
from service.architecture import Architecture, active_parameter_count
from service.arrangements import sharding_for
from service.compute import flops_utilisation, model_flops_per_token, tokens_per_second, tokens_per_step
from service.efficiency import micro_batch_compute, overlap_slowdown_seconds
from service.evaluate import Setup, optimizer_step_seconds
from service.layout import data_group_time, exposed_group_s, layout_units, stage_flops_per_token
from service.memory import bytes_at, model_state_breakdown, shard_degree
from service.mesh import Group, Mesh
from service.mesh_traffic import StageWork, model_parallel_calls
from service.offload import cpu_optimizer_bytes_per_gpu, host_bytes_per_node, pcie_bytes_per_gpu
from service.pipeline import bubble_ratio, in_flight_ratio, stage_layer_indices
from service.stages import StageShare, stage_shares
from service.traffic import step_collectives
from service.working_set import working_set_rows

ARRANGEMENTS: tuple[ArrangementName, ...] = (
    ArrangementName.ddp,
    ArrangementName.zero1,
    ArrangementName.zero2,
    ArrangementName.zero3,
    ArrangementName.shard_grad_op,
    ArrangementName.hybrid,
)
RECOMPUTES: tuple[Recompute, ...] = (Recompute.none, Recompute.selective, Recompute.full)
SCHEDULES: tuple[PipelineSchedule, ...] = tuple(PipelineSchedule)
MODEL_GROUPS = (Group.tensor, Group.context, Group.pipeline, Group.expert)  # service.layout's order

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


@dataclass(frozen=True)
class Case:
    """What every layout of a search shares: the model, the card and links, the training shape."""

    arch: Architecture
    scene: resolve.Scenario
    gpus_per_node: int
    global_batch_size: int
    sequence_length: int
    setups: dict[tuple[int, int, bool], Setup] = field(default_factory=dict)

    def setup(self, arrangement: int, recompute: int = 0, offload: bool = False) -> Setup:
        key = (arrangement, recompute, offload)
        if key not in self.setups:
            levers = Levers(recompute=RECOMPUTES[recompute], offload_optimizer=offload)
            self.setups[key] = resolve.setup_for(self.scene, sharding_for(ARRANGEMENTS[arrangement]), levers)
        return self.setups[key]


@dataclass(frozen=True)
class Structure:
    """The facts of one (t, p, e, v): candidate stages, working sets per arrangement, the slowest stage."""

    candidates: list[StageShare]
    working_set_bytes: list[list[int]]  # [arrangement][candidate]
    max_layers: int
    max_moe_layers: int
    slowest_layers: int
    slowest_last: bool


def candidate_stages(shares: list[StageShare]) -> list[StageShare]:
    """The first stage of each distinct signature: the only stages that can hold the most bytes."""
    seen: set[tuple[int, int, int, int, bool, bool]] = set()
    found = []
    for share in shares:
        key = (share.layers, share.moe_layers, share.dense_parameters, share.expert_parameters, share.first, share.last)
        if key not in seen:
            seen.add(key)
            found.append(share)
    return found


def structure(case: Case, tensor: int, pipeline: int, expert: int, virtual_stages: int) -> Structure:
    arch, s = case.arch, case.sequence_length
    shares = stage_shares(arch, tensor, pipeline, expert, virtual_stages)
    candidates = candidate_stages(shares)
    mesh = Mesh(world_size=tensor * pipeline, gpus_per_node=case.gpus_per_node, tensor=tensor, pipeline=pipeline)
    units = layout_units(arch, Mesh(**{**mesh.__dict__, "expert": expert}))
    working = []
    for code in range(len(ARRANGEMENTS)):
        setup = case.setup(code)
        used = units if setup.units is not None else None
        working.append(
            [
                sum(
                    row.bytes
                    for row in working_set_rows(
                        share.parameters, setup.precision, setup.sharding, used, setup.bucket_bytes, setup.overlap
                    )
                )
                for share in candidates
            ]
        )
    indices = stage_layer_indices(arch.layers, pipeline, virtual_stages)
    per_stage = [stage_flops_per_token(arch, idx, i == pipeline - 1, s) for i, idx in enumerate(indices)]
    slowest = max(range(len(per_stage)), key=lambda i: per_stage[i])
    return Structure(
        candidates,
        working,
        max(share.layers for share in shares),
        max(share.moe_layers for share in shares),
        len(indices[slowest]),
        slowest == pipeline - 1,
    )


@dataclass(frozen=True)
class Figures:
    """Per layout: the figures of its /v1/plan answer the search ranks and reports."""

    data: np.ndarray
    micro_batches: np.ndarray
    per_gpu_bytes: np.ndarray
    model_state_bytes: np.ndarray
    working_set_bytes: np.ndarray
    activations_bytes: np.ndarray
    busiest_stage: np.ndarray
    host_bytes: np.ndarray
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


class StructureTable:
    """Structures found so far, as arrays indexed by structure id, and the id of each (t, p, e, v)."""

    def __init__(self, case: Case) -> None:
        self.case = case
        self.ids: dict[tuple[int, int, int, int], int] = {}
        self.items: list[Structure] = []
        self.arrays: dict[str, np.ndarray] = {}

    def index(self, layouts: Layouts) -> np.ndarray:
        keys = np.stack([layouts["tensor"], layouts["pipeline"], layouts["expert"], layouts["virtual_stages"]], 1)
        unique, inverse = np.unique(keys, axis=0, return_inverse=True)
        grew = False
        local = np.empty(len(unique), dtype=np.int64)
        for i, row in enumerate(unique.tolist()):
            key = (row[0], row[1], row[2], row[3])
            if key not in self.ids:
                self.ids[key] = len(self.items)
                self.items.append(structure(self.case, *key))
                grew = True
            local[i] = self.ids[key]
        if grew:
            self._tabulate()
        return local[inverse.reshape(-1)]

    def _tabulate(self) -> None:
        width = max(len(item.candidates) for item in self.items)
        count = len(self.items)

        def table(value: Any, fill: int = 0) -> np.ndarray:
            out = np.full((count, width), fill, dtype=np.int64)
            for i, item in enumerate(self.items):
                for k, share in enumerate(item.candidates):
                    out[i, k] = value(share)
            return out

        self.arrays = {
            "stage": table(lambda sh: sh.stage),
            "layers": table(lambda sh: sh.layers),
            "moe_layers": table(lambda sh: sh.moe_layers),
            "dense": table(lambda sh: sh.dense_parameters),
            "expert": table(lambda sh: sh.expert_parameters),
            "first": table(lambda sh: sh.first).astype(bool),
            "last": table(lambda sh: sh.last).astype(bool),
            "valid": table(lambda sh: 1).astype(bool),
            "max_layers": np.array([item.max_layers for item in self.items], dtype=np.int64),
            "max_moe_layers": np.array([item.max_moe_layers for item in self.items], dtype=np.int64),
            "slowest_layers": np.array([item.slowest_layers for item in self.items], dtype=np.int64),
            "slowest_last": np.array([item.slowest_last for item in self.items], dtype=bool),
        }
        working = np.zeros((count, len(ARRANGEMENTS), width), dtype=np.int64)
        for i, item in enumerate(self.items):
            for a, row in enumerate(item.working_set_bytes):
                working[i, a, : len(row)] = row
        self.arrays["working"] = working


def _combos(*columns: np.ndarray) -> list[tuple[tuple[Any, ...], np.ndarray]]:
    """Each distinct combination of the categorical columns present, with the mask of its layouts."""
    stacked = np.stack([np.asarray(c, dtype=np.int64) for c in columns], 1)
    unique, inverse = np.unique(stacked, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    return [(tuple(row), inverse == i) for i, row in enumerate(unique.tolist())]


def evaluate_layouts(case: Case, table: StructureTable, layouts: Layouts) -> Figures:
    """Every layout's figures, as service.layout.evaluate_layout computes them for one (valid) layout."""
    arch, g_node, s = case.arch, case.gpus_per_node, case.sequence_length
    n_world, t, p, c, e, v = (
        layouts[k] for k in ("world_size", "tensor", "pipeline", "context", "expert", "virtual_stages")
    )
    b, arrangement, recompute = layouts["micro_batch_size"], layouts["arrangement"], layouts["recompute"]
    offload, schedule, sp = layouts["offload_optimizer"], layouts["schedule"], layouts["sequence_parallel"]
    d = n_world // (t * p * c)
    m = case.global_batch_size // (b * d)
    sid = table.index(layouts)
    st = table.arrays

    def per_stage(name: str) -> Any:
        return st[name][sid].T  # (candidates, layouts)

    degrees: dict[str, Any] = {"tensor": t, "pipeline": p, "context": c, "expert": e, "virtual_stages": v}
    mesh = Mesh(n_world, g_node, **degrees)
    data_context: Any = mesh.data_context
    expert_data: Any = mesh.expert_data
    g_data: Any = mesh.members_per_node(Group.data)
    dense_k, expert_k, valid = per_stage("dense"), per_stage("expert"), per_stage("valid")
    apart_k = (e > 1) & (expert_k > 0)
    dense_held = dense_k + np.where(apart_k, 0, expert_k)
    experts_held = np.where(apart_k, expert_k, 0)
    shape_k = dense_k.shape

    # Model states, the working set and host bytes of every candidate stage, per arrangement and offload.
    state = np.zeros(shape_k, dtype=np.int64)
    host = np.zeros(shape_k, dtype=np.int64)
    cpu = np.zeros(shape_k, dtype=np.int64)
    working = np.zeros(shape_k, dtype=np.int64)
    for (a, o), mask in _combos(arrangement, offload):
        setup = case.setup(a, 0, bool(o))
        prec, shard, off = setup.precision, setup.sharding, setup.offload
        dc, ed, gd = data_context[mask], expert_data[mask], g_data[mask]
        dense_rows = model_state_breakdown(dense_held[:, mask], dc, prec, shard, gd, off)
        expert_rows = model_state_breakdown(experts_held[:, mask], ed, prec, shard, gd, off)
        state[:, mask] = bytes_at(dense_rows, StateLocation.gpu) + bytes_at(expert_rows, StateLocation.gpu)
        host[:, mask] = bytes_at(dense_rows, StateLocation.host) + bytes_at(expert_rows, StateLocation.host)
        cpu[:, mask] = cpu_optimizer_bytes_per_gpu(
            dense_rows, dense_held[:, mask], dc, prec, shard, off
        ) + cpu_optimizer_bytes_per_gpu(expert_rows, experts_held[:, mask], ed, prec, shard, off)
        working[:, mask] = st["working"][sid[mask], a].T

    # Activations of every candidate stage with its micro-batches in flight.
    activations = np.zeros(shape_k, dtype=np.int64)
    shape = transformer_shape(arch)
    flash = case.scene.activations.flash_attention
    layers_k, moe_k = per_stage("layers"), per_stage("moe_layers")
    stage_k, first_k, last_k = per_stage("stage"), per_stage("first"), per_stage("last")
    for (r, q, sched), mask in _combos(recompute, sp, schedule):
        numerator, denominator = in_flight_ratio(SCHEDULES[sched], stage_k[:, mask], p[mask], v[mask], m[mask])
        layers = StageLayers(
            layers_k[:, mask] - moe_k[:, mask],
            moe_k[:, mask],
            first_k[:, mask],
            last_k[:, mask],
            ArrayRatio(numerator, denominator),
        )
        split = TensorSplit(t[mask], bool(q), c[mask])
        parts = stage_activation_components(b[mask], s, shape, flash, RECOMPUTES[r], layers, split)
        total: Any = np.zeros(shape_k, dtype=np.int64)[:, mask]
        for value in parts.values():
            total = total + value
        activations[:, mask] = total

    per_gpu = np.where(valid, state + working + activations, -1)
    busiest = np.argmax(per_gpu, axis=0)

    def top(values: Any) -> Any:
        return np.take_along_axis(values, busiest[None, :], axis=0)[0]

    top_bytes = top(per_gpu)
    host_node: Any = host_bytes_per_node(top(host), n_world, g_node)
    fits = top_bytes <= case.scene.usable_bytes
    if case.scene.host_memory_bytes is not None:
        fits &= host_node <= case.scene.host_memory_bytes

    # Compute: the slowest stage's micro-batches by the efficiency model; the bubble by the schedule.
    first_setup = case.setup(0)
    eff = first_setup.efficiency
    assert eff is not None
    active = active_parameter_count(arch)
    per_token = float(model_flops_per_token(active, first_setup.flop_shape, s))
    compute_s = np.zeros(len(layouts))
    forward_s = np.zeros(len(layouts))
    slowest_layers, slowest_last = st["slowest_layers"][sid], st["slowest_last"][sid]
    for (r, last), mask in _combos(recompute, slowest_last):
        micro = micro_batch_compute(
            eff, b[mask], s, RECOMPUTES[r], per_token, slowest_layers[mask], t[mask], c[mask], bool(last)
        )
        compute_s[mask] = m[mask] * micro.total_s
        forward_s[mask] = m[mask] * micro.forward_s
    backward_s = compute_s - forward_s
    bubble_s = np.zeros(len(layouts))
    for (sched,), mask in _combos(schedule):
        numerator, denominator = bubble_ratio(SCHEDULES[sched], p[mask], v[mask], m[mask])
        bubble_s[mask] = compute_s[mask] * (numerator / denominator)

    # Model-parallel groups: their calls on the critical path, ring attention's hidden but for one step.
    group_s = {g: np.zeros(len(layouts)) for g in MODEL_GROUPS}
    for (q, r), mask in _combos(sp, recompute == RECOMPUTES.index(Recompute.full)):
        masked: dict[str, Any] = {name: values[mask] for name, values in degrees.items()}
        sub = Mesh(n_world[mask], g_node, sequence_parallel=bool(q), **masked)
        work = StageWork(st["max_layers"][sid[mask]], st["max_moe_layers"][sid[mask]], m[mask], b[mask], s, bool(r))
        calls = model_parallel_calls(sub, arch, work)
        for g in MODEL_GROUPS:
            group_s[g][mask] = exposed_group_s(calls, g, first_setup, forward_s[mask], backward_s[mask])

    # The data-parallel groups on the busiest stage's share, offload and the optimizer step.
    top_dense, top_experts, top_layers = top(dense_held), top(experts_held), top(layers_k)
    top_apart = top(apart_k)
    trivial = (t == 1) & (p == 1) & (c == 1) & (e == 1)
    expert_per_node = np.maximum(1, np.minimum(expert_data, g_node // (t * e)))
    data_total = np.zeros(len(layouts))
    data_exposed = np.zeros(len(layouts))
    pcie = np.zeros(len(layouts), dtype=np.int64)
    optimizer_s = np.zeros(len(layouts))
    for (a, o), mask in _combos(arrangement, offload):
        setup = case.setup(a, 0, bool(o))
        mm, fw, bw = m[mask], forward_s[mask] / m[mask], backward_s[mask] / m[mask]
        collectives = step_collectives(setup.precision, setup.sharding, mm)
        dense = data_group_time(
            collectives, top_dense[mask], data_context[mask], g_data[mask], setup, mm, fw, bw, top_layers[mask]
        )[False]
        experts = data_group_time(
            collectives,
            top_experts[mask],
            expert_data[mask],
            expert_per_node[mask],
            setup,
            mm,
            fw,
            bw,
            top_layers[mask],
        )[False]
        # /v1/plan prices a layout without model parallelism by service.evaluate, whose data group is there
        # even on one GPU (NCCL's call latency on a ring of one); service.layout skips a group of one.
        has_dense = (data_context[mask] > 1) | trivial[mask]
        has_experts = top_apart[mask] & (expert_data[mask] > 1)
        data_total[mask] = np.where(has_dense, dense.total_s, 0.0) + np.where(has_experts, experts.total_s, 0.0)
        data_exposed[mask] = np.where(has_dense, dense.exposed_s, 0.0) + np.where(has_experts, experts.exposed_s, 0.0)
        prec, shard, off = setup.precision, setup.sharding, setup.offload
        pcie[mask] = pcie_bytes_per_gpu(top_dense[mask], data_context[mask], prec, shard, off, mm) + np.where(
            top_apart[mask], pcie_bytes_per_gpu(top_experts[mask], expert_data[mask], prec, shard, off, mm), 0
        )
        degree = shard_degree(data_context[mask], g_data[mask], shard)
        expert_degree = shard_degree(expert_data[mask], g_data[mask], shard)
        optimizer_s[mask] = optimizer_step_seconds(setup, top_dense[mask], degree) + np.where(
            top_apart[mask], optimizer_step_seconds(setup, top_experts[mask], expert_degree), 0.0
        )
    offload_s = pcie / first_setup.links.host_bytes_per_s + (
        host_bytes_per_node(top(cpu), n_world, g_node) / first_setup.host_memory_bytes_per_s
    )
    slowdown_s = overlap_slowdown_seconds(data_total - data_exposed, eff.calibration)
    exposed = 0.0 + group_s[Group.tensor] + group_s[Group.context] + group_s[Group.pipeline] + group_s[Group.expert]
    step_s = compute_s + bubble_s + exposed + data_exposed + offload_s + optimizer_s + slowdown_s
    tokens: Any = tokens_per_step(d, b, s, m)
    model_flops = per_token * tokens
    return Figures(
        data=d,
        micro_batches=m,
        per_gpu_bytes=top_bytes,
        model_state_bytes=top(state),
        working_set_bytes=top(working),
        activations_bytes=top(activations),
        busiest_stage=top(stage_k),
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
        tokens_per_s=tokens_per_second(tokens, step_s),
        mfu=flops_utilisation(model_flops, step_s, n_world, first_setup.peak_flops_per_s),
    )
