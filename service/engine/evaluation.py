"""The one evaluation of a plan: every figure of a job on a mesh, from its stages' bytes to its step's seconds.

Every plan is a mesh (service.mesh.degrees.Mesh): a data-parallel plan is the mesh whose model-parallel degrees are
1, its one stage holding every parameter over the N ranks of its data group (service.engine.data_parallel); a
layout's stages hold their shares of the model (service.engine.layout). What differs between the two is how a
stage's bytes are found (``MeshStages``); what follows is written here once, over Python numbers for one plan or
numpy arrays for a sweep's data-parallel cells:

1. the busiest stage: the one with the most bytes per GPU (the plan's per_gpu_bytes);
2. the compute of the stage that sets the pace (Narayanan et al. 2021, section 2.2): the model's FLOPs split over
   the stages by their layers, each stage's work over its t x c x d GPUs (service.engine.step.stage_compute);
3. the model-parallel groups, none on a mesh without them: the pipeline's bubble, each group's calls and what of
   them the step waits for (service.engine.model_parallel);
4. the busiest stage's data-parallel groups, host link and optimizer step, then the step's totals
   (service.engine.step.rank_step).

No formula is written here: each step calls the core's. The many layouts of a search or a layout sweep are
evaluated at once by service.engine.layout_grid, which takes these steps (busiest_stage, slowest_stage,
model_parallel_step, service.engine.step's data_groups_step and rank_totals) on arrays of layouts.
"""

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from models.enums import Recompute, StateClass, StateLocation
from models.parallelism import ContextAttention
from service.engine.model_parallel import (
    MODEL_GROUPS,
    combined_pairs,
    combined_pieces,
    combined_priced,
    exposed_group_s,
    group_call_seconds,
    hidden_lever_s,
    model_exposed_s,
    ring_step_backward_core_s,
    ring_step_core_s,
    stage_work,
)
from service.engine.setup import Setup
from service.engine.step import (
    Part,
    RankStep,
    flops_per_token,
    mesh_stage_compute,
    micro_batch_seconds,
    rank_step,
    replicated_bytes,
    stage_bubble,
)
from service.inputs.architecture import Architecture
from service.memory.model_states import StateBytes
from service.memory.offload import stages_host_bytes_per_node
from service.memory.working_set import WorkingSetRow
from service.mesh.degrees import Group, Mesh, tensor_sequence_split
from service.mesh.stages import StageShare
from service.numeric import IntLike, select
from service.time.communication import CollectivePrice
from service.time.compute import tokens_per_step
from service.time.mesh_traffic import GroupCall, beside_data_seconds, links_alone, model_parallel_calls
from service.time.traffic import StepCollective, calls_bytes_sent, per_step


# Not frozen, with slots: one is built for every stage of every plan (a frozen dataclass's __init__ costs more).
@dataclass(slots=True)
class StageEvaluation:
    """One stage's GPU: what it holds and its bytes (numbers, or arrays for a sweep's data-parallel cells)."""

    share: StageShare | None  # its layers and parameters; None: a data-parallel plan's stage of the bare count
    parts: list[Part]  # its parameters, each part with the data-parallel group its states shard over
    rows: list[StateBytes]  # the dense part's state classes
    expert_rows: list[StateBytes]  # the experts' where they shard apart
    working: list[WorkingSetRow]
    activations: dict[str, int]  # by component, where the stage's layers are known
    in_flight: Fraction | int  # micro-batches whose activations it holds at once
    layers: Any  # the layers its FSDP units wrap (service.engine.step.fsdp_units); None: unknown
    model_state_bytes: Any
    working_set_bytes: Any
    activations_bytes: Any
    per_gpu_bytes: Any
    host_bytes: Any
    cpu_optimizer_bytes: Any  # host-memory bytes the CPU optimizer streams for this GPU per step
    fits: Any

    @property
    def layout_share(self) -> StageShare:
        """The share of a layout's stage (a data-parallel plan's one stage has none: share None)."""
        assert self.share is not None, "a layout's stage"
        return self.share


@dataclass(frozen=True)
class PacingStage:
    """A stage that may set a pipeline's pace: its index, layers (None: the whole model's, as the efficiency model
    knows them), whether it holds the output layer, and its share of the model's FLOPs."""

    index: int
    layers: int | None
    last: bool
    share: Fraction | int


@dataclass(slots=True)
class MeshStages:
    """What the evaluation is given of a mesh's stages: each stage's bytes, the stages one of which sets the pace,
    the parameters a token uses (top_k of a mixture's experts) and the model whose model-parallel groups' calls the
    mesh makes (None on a mesh without them)."""

    memory: list[StageEvaluation]
    pacing: list[PacingStage]
    active_parameters: Any
    arch: Architecture | None


@dataclass(frozen=True)
class DataGroup:
    """One data-parallel group's collectives: the dense share over d x c, or the experts over d x c / e."""

    label: str  # "dense" or "experts"
    parameters: int  # the rank's share the collectives move
    ranks: int
    members_per_node: int
    calls: list[StepCollective]
    total_s: float  # as NCCL runs it over the node's NICs (service.time.nccl)
    exposed_s: float
    prices: tuple[CollectivePrice, ...]  # per collective of calls: its NCCL calls, algorithm and latency


@dataclass(slots=True)
class ModelParallelStep:
    """The model-parallel groups' share of a step: the bubble, each group's calls and their seconds."""

    bubble_s: Any = 0.0
    calls: list[GroupCall] = field(default_factory=list)
    exposed_s: dict[Group, Any] = field(default_factory=lambda: dict.fromkeys(MODEL_GROUPS, 0.0))
    exposed_total_s: Any = 0.0  # the groups' exposed seconds summed (model_exposed_s)
    lever_hidden_s: Any = 0.0  # what the overlap levers hide (charged to the compute)
    ring_step_core_s: Any = 0.0
    ring_step_backward_core_s: Any = 0.0
    seconds_of: Callable[[GroupCall], Any] | None = None  # a call's seconds (group_call_seconds, or a grid's memo)
    _total_s: Any = None

    @property
    def total_s(self) -> Any:
        """Every call of the groups a step, exposed or not (priced when first asked: a search ranks without it)."""
        if self._total_s is None:
            seconds_of = self.seconds_of
            if seconds_of is None:
                return 0.0
            self._total_s = sum(call.count_per_step * seconds_of(call) for call in self.calls)
        return self._total_s

    @property
    def bytes_sent(self) -> Any:
        """What every call of the groups sends a step (service.time.mesh_traffic)."""
        sent: Any = 0
        for call in self.calls:
            sent = sent + call.count_per_step * call.bytes_sent
        return sent


NO_MODEL_PARALLEL = ModelParallelStep()  # a mesh without model-parallel groups (read, never written)


# Not frozen, with slots: one is built for every plan.
@dataclass(slots=True)
class Evaluation:
    """Every figure of a plan: per stage, the busiest's, and the step's (numbers, or arrays for many cells)."""

    mesh: Mesh
    micro_batches: Any
    stages: list[StageEvaluation]
    busiest: int  # index of the stage with the most bytes per GPU
    top: StageEvaluation  # that stage
    slowest: int  # index of the stage whose compute sets the pace
    model_parallel: ModelParallelStep
    data_calls: list[StepCollective]  # the busiest stage's data groups' collectives
    step: RankStep
    replicated_floor_bytes: Any
    headroom_bytes: Any
    host_bytes: Any  # per node
    host_fits: Any  # host_bytes within the node's host memory (True when not given)
    fits: Any  # every stage's bytes within the card's usable bytes, and the host's
    tokens_per_step: Any
    model_flops: Any
    compute_flops: Any  # hardware FLOPs: the model's plus what recomputation repeats
    compute_s: Any
    pipeline_bubble_s: Any
    bubble_fraction: Any  # the bubble over the compute of a step
    # the step's figures (service.engine.step.rank_step), read by every answer
    data_parallel_s: Any
    data_parallel_exposed_s: Any
    pcie_bytes_per_gpu: Any
    offload_transfer_s: Any
    cpu_optimizer_s: Any
    offload_s: Any
    optimizer_s: Any  # the optimizer step through HBM (efficiency model)
    overlap_slowdown_s: Any  # compute lost to overlapped communication (efficiency model)
    step_s: Any
    tokens_per_s: Any
    mfu: Any
    hfu: Any
    _sent: Any = None  # the dense part's bytes per collective, once asked (call_bytes_sent)

    # the busiest stage's bytes: the plan's
    @property
    def model_state_bytes(self) -> Any:
        return self.top.model_state_bytes

    @property
    def working_set_bytes(self) -> Any:
        return self.top.working_set_bytes

    @property
    def activations_bytes(self) -> Any:
        return self.top.activations_bytes

    @property
    def per_gpu_bytes(self) -> Any:
        return self.top.per_gpu_bytes

    @property
    def host_bytes_per_gpu(self) -> Any:
        return self.top.host_bytes

    @property
    def state_rows(self) -> list[StateBytes]:
        return self.top.rows

    @property
    def working_rows(self) -> list[WorkingSetRow]:
        return self.top.working

    @property
    def state_bytes(self) -> dict[StateClass, IntLike]:
        """On the busiest stage's GPU, per state class (0 when offloaded): its parts' states, the dense share's and
        the experts', then its working set's (read by a sweep's columns and figures)."""
        top = self.top
        return gpu_state_bytes((*top.rows, *top.expert_rows)) | {row.state: row.bytes for row in top.working}

    # the data-parallel groups of the busiest stage (the dense part's first)
    @property
    def call_prices(self) -> list[CollectivePrice]:
        return self.step.prices[0]

    @property
    def call_flat_s(self) -> list[Any]:
        return self.step.groups[0].call_s

    @property
    def call_bytes_sent(self) -> list[Any]:
        """What one call of each collective of the dense part's group sends (service.time.traffic)."""
        if self._sent is None:
            part = self.top.parts[0]
            self._sent = calls_bytes_sent(part.parameters, part.ranks, self.data_calls, part.per_node)
        return self._sent  # type: ignore[no-any-return]

    @property
    def data_groups(self) -> list[DataGroup]:
        """The busiest stage's data-parallel groups that make calls (more than one rank), for one plan."""
        step = self.step
        return [
            DataGroup(
                label,
                part.parameters,
                part.ranks,
                part.per_node,
                self.data_calls,
                float(timed.total_s),
                float(timed.exposed_s),
                tuple(priced),
            )
            for label, part, timed, priced in zip(
                ("dense", "experts"), self.top.parts, step.groups, step.prices, strict=False
            )
            if part.ranks > 1
        ]

    def parts_bytes_sent(self) -> list[list[Any]]:
        """Per part of the busiest stage (the dense share's first), what one call of each of its data group's
        collectives sends (service.time.traffic.calls_bytes_sent)."""
        calls = self.data_calls
        others = [calls_bytes_sent(part.parameters, part.ranks, calls, part.per_node) for part in self.top.parts[1:]]
        return [self.call_bytes_sent, *others]

    # the step's communication: the data groups' and the model-parallel groups'
    @property
    def bytes_sent_per_gpu(self) -> Any:
        """Every call of the step, each of the busiest stage's data groups' and the model-parallel groups'."""
        return data_bytes_sent(self.data_calls, self.parts_bytes_sent()) + self.model_parallel.bytes_sent

    @property
    def communication_s(self) -> Any:
        """Every collective of the step, exposed or not."""
        if not self.model_parallel.calls:
            return self.data_parallel_s
        return self.data_parallel_s + self.model_parallel.total_s

    communication_flat_s = communication_s  # the data groups priced on their flat rings (NCCL's model)

    @property
    def exposed_communication_s(self) -> Any:
        """What of it the step waits for."""
        if not self.model_parallel.calls:
            return self.data_parallel_exposed_s
        return self.data_parallel_exposed_s + self.model_parallel.exposed_total_s

    @property
    def tensor_parallel_s(self) -> Any:
        return self.model_parallel.exposed_s[Group.tensor]

    @property
    def pipeline_p2p_s(self) -> Any:
        return self.model_parallel.exposed_s[Group.pipeline]

    @property
    def context_parallel_s(self) -> Any:
        return self.model_parallel.exposed_s[Group.context]

    @property
    def expert_parallel_s(self) -> Any:
        return self.model_parallel.exposed_s[Group.expert]

    @property
    def group_calls(self) -> list[GroupCall]:
        return self.model_parallel.calls

    @property
    def ring_step_core_s(self) -> Any:
        return self.model_parallel.ring_step_core_s

    @property
    def ring_step_backward_core_s(self) -> Any:
        return self.model_parallel.ring_step_backward_core_s


# The figures of an evaluation that are counts of bytes or tokens (integers; FLOPs are floating point): a sweep checks
# them against 64-bit integers.
COUNTED_FIGURES = (
    "model_state_bytes",
    "working_set_bytes",
    "activations_bytes",
    "per_gpu_bytes",
    "replicated_floor_bytes",
    "headroom_bytes",
    "host_bytes_per_gpu",
    "host_bytes",
    "bytes_sent_per_gpu",
    "pcie_bytes_per_gpu",
    "tokens_per_step",
)


def counts(result: Evaluation) -> list[tuple[str, Any]]:
    """Every count of bytes or tokens a sweep row of this evaluation holds or sums, by name: the plan's
    (COUNTED_FIGURES), each state class's bytes on the GPU, each stage's bytes, and what each call of the busiest
    stage's data groups and of the model-parallel groups sends a step (what must fit in 64-bit integers)."""
    found = [(name, getattr(result, name)) for name in COUNTED_FIGURES]
    found += [(f"{state.value}_bytes", value) for state, value in result.state_bytes.items()]
    for i, stage in enumerate(result.stages):
        found += [
            (f"stage {i}'s per_gpu_bytes", stage.per_gpu_bytes),
            (f"stage {i}'s host_bytes", stage.host_bytes),
            (f"stage {i}'s cpu_optimizer_bytes", stage.cpu_optimizer_bytes),
        ]
    calls = result.data_calls
    for sent in result.parts_bytes_sent():
        found += [
            (f"{c.name.value} bytes sent a step", c.count_per_step * one) for c, one in zip(calls, sent, strict=True)
        ]
    found += [(f"{c.name.value} bytes sent a step", c.count_per_step * c.bytes_sent) for c in result.group_calls]
    return found


def evaluate_mesh(mesh: Mesh, stages: MeshStages, setup: Setup, m: Any, b: Any, s: Any) -> Evaluation:
    """Every figure of the plan of these stages on ``mesh``, ``m`` micro-batches of ``b`` sequences of ``s``
    tokens a step on each data-parallel rank."""
    memory = stages.memory
    busiest = 0 if len(memory) == 1 else busiest_stage([stage.per_gpu_bytes for stage in memory])[0]
    top = memory[busiest]

    # Compute: the model's FLOPs split over the stages by their layers; the slowest stage sets the pace.
    active = stages.active_parameters
    tokens = tokens_per_step(mesh.data, b, s, m)
    model_per_token, hardware_per_token = flops_per_token(setup, active, s)
    model_flops, flops = model_per_token * tokens, hardware_per_token * tokens
    compute_s, forward_total_s, slowest = paced_compute(
        mesh, stages.pacing, setup, model_per_token, active, m, b, s, tokens
    )
    forward_s, backward_s = micro_batch_seconds(compute_s, forward_total_s, m)

    beside: tuple[Any, Any] = (0.0, 0.0)  # the exposed model-parallel seconds on NVLink alone, on the NIC alone
    if mesh.trivial:
        model = NO_MODEL_PARALLEL  # no group of more than one rank: no bubble and no call
    else:
        arch = stages.arch
        assert arch is not None, "a mesh with model-parallel groups has the model's architecture"
        layers, moe_layers = busiest_layers(memory)
        model = model_parallel_step(mesh, arch, setup, layers, moe_layers, m, b, s, compute_s, forward_total_s)
        beside = beside_data_seconds(model.exposed_s, links_alone(mesh))

    # Data parallelism on the busiest stage's parts: the dense share over d x c, the experts over d x c / e.
    n, g = mesh.world_size, mesh.gpus_per_node
    data_calls = setup.step_data_calls(m, mesh.pipeline > 1, mesh.runs)
    step = rank_step(
        top.parts,
        setup,
        data_calls,
        m,
        forward_s,
        backward_s,
        top.layers,
        top.cpu_optimizer_bytes,
        n,
        g,
        compute_s,
        model.bubble_s,
        model.exposed_total_s,
        tokens,
        model_flops,
        flops,
        not mesh.trivial,
        model.lever_hidden_s,
        beside,
    )
    host = stages_host_bytes_per_node([stage.host_bytes for stage in memory], n, g)
    host_fits = True if setup.host_memory_bytes is None else host <= setup.host_memory_bytes
    floor = stage_floor_bytes(top, setup)
    bubble_s = model.bubble_s
    host_link, totals = step.host, step.totals
    return Evaluation(
        mesh=mesh,
        micro_batches=m,
        stages=memory,
        busiest=busiest,
        top=top,
        slowest=slowest,
        model_parallel=model,
        data_calls=data_calls,
        step=step,
        replicated_floor_bytes=floor,
        headroom_bytes=setup.usable_bytes - top.per_gpu_bytes,
        host_bytes=host,
        host_fits=host_fits,
        fits=top.fits & host_fits,
        tokens_per_step=tokens,
        model_flops=model_flops,
        compute_flops=flops,
        compute_s=compute_s,
        pipeline_bubble_s=bubble_s,
        bubble_fraction=0.0 if mesh.trivial or not compute_s > 0 else bubble_s / compute_s,
        data_parallel_s=step.data_s,
        data_parallel_exposed_s=step.data_exposed_s,
        pcie_bytes_per_gpu=host_link.pcie_bytes_per_gpu,
        offload_transfer_s=host_link.transfer_s,
        cpu_optimizer_s=host_link.cpu_optimizer_s,
        offload_s=host_link.offload_s,
        optimizer_s=step.optimizer_s,
        overlap_slowdown_s=totals.overlap_slowdown_s,
        step_s=totals.step_s,
        tokens_per_s=totals.tokens_per_s,
        mfu=totals.mfu,
        hfu=totals.hfu,
    )


def busiest_stage(per_gpu_bytes: Sequence[Any] | np.ndarray) -> tuple[Any, Any]:
    """(index, bytes) of the stage with the most bytes per GPU, the first of equals: one plan's numbers, or a grid's
    arrays of equal shape (service.engine.layout_grid's candidate stages, stacked), element by element."""
    first = per_gpu_bytes[0]
    if not isinstance(first, np.ndarray):
        found = max(range(len(per_gpu_bytes)), key=per_gpu_bytes.__getitem__)
        return found, per_gpu_bytes[found]
    top = first.copy()
    index = np.zeros(top.shape, dtype=np.int64)
    # a few element-wise passes, one stage at a time: faster than a reduction along a short first axis
    for k in range(1, len(per_gpu_bytes)):
        np.copyto(index, k, where=per_gpu_bytes[k] > top)
        np.maximum(top, per_gpu_bytes[k], out=top)
    return index, top


def slowest_stage(timed: Sequence[tuple[Any, Any]]) -> tuple[Any, Any, Any]:
    """(compute, forward, position) of the pacing stage whose compute is the longest, the first of equals, of each
    stage's (compute, forward) seconds: the stage that sets a pipeline's pace (Narayanan et al. 2021, section 2.2).
    Numbers for one plan, arrays for a grid's layouts (element by element)."""
    compute_s, forward_s = timed[0]
    position: Any = 0
    for k in range(1, len(timed)):
        stage_s, stage_forward_s = timed[k]
        slower = stage_s > compute_s
        compute_s = select(slower, stage_s, compute_s)
        forward_s = select(slower, stage_forward_s, forward_s)
        position = select(slower, k, position)
    return compute_s, forward_s, position


def stage_floor_bytes(stage: StageEvaluation, setup: Setup) -> Any:
    """What no GPU count lowers on a stage's GPU (floor_bytes)."""
    return floor_bytes(stage.parts, stage.working_set_bytes, stage.activations_bytes, setup)


def floor_bytes(parts: list[Part], working_set_bytes: Any, activations_bytes: Any, setup: Setup) -> Any:
    """What no GPU count lowers on a GPU: its parts' replicated model states (service.engine.step.replicated_bytes),
    its working set and its activations (one stage's numbers, or a grid's busiest stages' arrays)."""
    return replicated_bytes(parts, setup) + working_set_bytes + activations_bytes


def gpu_state_bytes(rows: Iterable[StateBytes]) -> dict[StateClass, Any]:
    """The bytes of these model-state rows on the GPU, per state class (a class offloaded to host memory: 0)."""
    found: dict[StateClass, Any] = {}
    for row in rows:
        on_gpu = row.bytes if row.location is StateLocation.gpu else 0 * row.bytes
        state = row.spec.state
        found[state] = found[state] + on_gpu if state in found else on_gpu
    return found


def data_bytes_sent(calls: list[StepCollective], parts_sent: list[list[Any]]) -> Any:
    """What a stage's data groups send a step: per part, what one call of each collective sends
    (service.time.traffic.calls_bytes_sent) times the calls a step makes (per_step), summed over the parts."""
    sent: Any = 0
    for part_sent in parts_sent:
        sent = sent + per_step(calls, part_sent)
    return sent


def paced_compute(
    mesh: Mesh,
    pacing: list[PacingStage],
    setup: Setup,
    model_per_token: Any,
    active: Any,
    m: Any,
    b: Any,
    s: Any,
    tokens: Any,
) -> tuple[Any, Any, int]:
    """(compute, forward, index) of the stage that sets the pace: of the pacing stages, the first of those with the
    longest compute (service.engine.step.stage_compute; service.engine.layout.pacing_stages)."""
    timed = [
        mesh_stage_compute(
            setup,
            mesh,
            stage.layers,
            stage.last,
            stage.share if type(stage.share) is int else float(stage.share),
            model_per_token,
            active,
            m,
            b,
            s,
            tokens,
        )
        for stage in pacing
    ]
    compute_s, forward_s, position = slowest_stage(timed)
    return compute_s, forward_s, pacing[position].index


def model_parallel_step(
    mesh: Mesh,
    arch: Architecture,
    setup: Setup,
    layers: Any,
    moe_layers: Any,
    m: Any,
    b: Any,
    s: int,
    compute_s: Any,
    forward_s: Any,
    full_recompute: bool | None = None,
    priced: Callable[[GroupCall], Any] | None = None,
    calls: list[GroupCall] | None = None,
    groups: tuple[Group, ...] = MODEL_GROUPS,
    pieces_s: tuple[Any, ...] | None = None,
) -> ModelParallelStep:
    """The model-parallel groups of a layout (or of a grid's layouts, arrays) over a step whose paced stage computes
    ``compute_s``, ``forward_s`` of it forward, its busiest stage holding ``layers`` layers, ``moe_layers`` of them
    MoE: the pipeline's bubble (service.engine.step.stage_bubble), each group's calls
    (service.time.mesh_traffic.model_parallel_calls) and what the step waits for of them
    (service.engine.model_parallel.exposed_group_s) and the overlap levers' hidden seconds. ``full_recompute``:
    whether the forward is recomputed (None: as the setup says); ``priced``: a call's seconds (group_call_seconds, or
    a grid's memo of it); ``calls``: the groups' calls where the caller made them (a grid's, once per recompute
    kind); ``groups``: the groups whose exposed and hidden seconds are found (a grid's steps of the groups apart,
    each on the rows that differ in what it reads), the bubble with the pipeline's, the others' 0; ``pieces_s``: the
    combined 1F1B's pieces (service.engine.model_parallel.combined_pieces) where the caller found them (a grid's, once
    per distinct micro-batch and degrees)."""
    t, c, p, v = mesh.tensor, mesh.context, mesh.pipeline, mesh.virtual_stages
    full = setup.recompute is Recompute.full if full_recompute is None else full_recompute
    seconds_of = priced or (lambda call: group_call_seconds(call, setup))
    backward_s = compute_s - forward_s
    bubble_s: Any = 0.0
    if Group.pipeline in groups:
        bubble_s = stage_bubble(setup, mesh.schedule, p, v, m, compute_s, forward_s, mesh.post_validation, mesh.runs)
    if calls is None:
        calls = model_parallel_calls(mesh, arch, stage_work(setup, layers, moe_layers, m, b, s, full))
    core_s = ring_step_core_s(setup, b, s, t, c)
    back_core_s = ring_step_backward_core_s(setup, b, s, t, c)
    pairs = None  # the expert overlap as the combined 1F1B pairs it, where its pieces are known
    if Group.expert in groups and combined_priced(setup):
        if pieces_s is None:
            sequence = tensor_sequence_split(t, mesh.sequence_parallel)
            ring = mesh.context_attention is ContextAttention.ring
            pieces_s = combined_pieces(setup, b, s, t, c, mesh.expert, mesh.etp, sequence, ring)
        pairs = combined_pairs(setup, mesh.schedule, p, v, m, moe_layers, pieces_s, mesh.runs)
    exposed = {
        group: _plain(
            exposed_group_s(calls, group, setup, forward_s, backward_s, core_s, seconds_of, full, back_core_s, pairs)
        )
        if group in groups
        else 0.0
        for group in MODEL_GROUPS
    }
    lever_hidden = 0.0
    levers = tuple(group for group in (Group.tensor, Group.expert) if group in groups)
    if setup.efficiency is not None and levers:
        lever_hidden = _plain(
            hidden_lever_s(calls, setup, forward_s, backward_s, seconds_of, full, pairs, groups=levers)
        )
    return ModelParallelStep(
        _plain(bubble_s),
        calls,
        exposed,
        model_exposed_s(exposed),
        lever_hidden,
        _plain(core_s),
        _plain(back_core_s),
        seconds_of,
    )


def busiest_layers(memory: list[StageEvaluation]) -> tuple[int, int]:
    """(layers, MoE layers) of the busiest stage as the model-parallel groups see it: the most of each over a
    layout's stages."""
    shares = [stage.share for stage in memory if stage.share is not None]
    return max(share.layers for share in shares), max(share.moe_layers for share in shares)


def _plain(value: Any) -> Any:
    """One layout's seconds as a Python float (numpy's scalars cost more downstream); a grid's arrays as they are."""
    return value if isinstance(value, np.ndarray) else float(value)
