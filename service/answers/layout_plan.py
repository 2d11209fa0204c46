"""The /v1/plan answer on a mesh: the request's layout resolved, evaluated and reported.

The layout is read once (``layout_of``): the degrees, validated against the model and the batch
(service.mesh.degrees), and m, the micro-batches per step. With every degree 1 the plan is the data-parallel
plan of service.answers.plan, with one stage; otherwise service.engine.layout evaluates each stage and this
module reports the busiest GPU's memory, every group's collectives and the step's time.
"""

import threading
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache
from operator import itemgetter
from typing import Any, NamedTuple, TypeVar

from models.base import SHARED_DEFAULTS
from models.enums import ActivationModel, ArrangementName, Dtype
from models.parallelism import GroupPlacement, ParallelismEcho, StageMemory
from models.plan import (
    ActivationComponent,
    ActivationMemory,
    Collective,
    Memory,
    PlanRequest,
    Traffic,
)
from models.training import Training
from service.answers.plan_report import (
    KORTHIKANTI,
    data_collective_records,
    memory_figures,
    state_rows_report,
    traffic_fields,
    working_rows_report,
)
from service.engine.evaluation import DataGroup, Evaluation, StageEvaluation
from service.engine.layout import evaluate_layout
from service.engine.model_parallel import group_call_seconds, ring_transfer_window_s
from service.engine.setup import Setup
from service.engine.step import nccl_system_of, time_links
from service.errors import InvalidLayout
from service.inputs import resolve
from service.inputs.arrangements import Sharding
from service.memory.dtypes import tensor_bytes
from service.mesh.degrees import (
    Group,
    Mesh,
    ModelLimits,
    layout_warnings,
    micro_batches,
    requested_mesh,
    validated_mesh,
)
from service.mesh.pipeline import (
    chunk_layers,
    deepspeed_convention,
    mesh_plan_problems,
    split_chunks,
    v_shaped,
)
from service.numeric import group_digits
from service.time.communication import (
    CollectivePrice,
    price_fields,
)
from service.time.mesh_traffic import GroupCall, group_call_price, ring_exposed_seconds
from service.time.traffic import (
    Window,
    calls_bytes_sent,
)

GROUP_ORDER = (Group.data, Group.tensor, Group.context, Group.pipeline, Group.expert)


@dataclass(frozen=True)
class Layout:
    mesh: Mesh
    micro_batches: int
    training: Training | None  # the request's, with gradient_accumulation_steps = m
    warnings: list[str]
    model: resolve.ResolvedModel  # read once here, handed to resolve.scenario


def layout_of(request: PlanRequest, resolved_model: resolve.ResolvedModel | None = None) -> Layout:
    """The request's mesh, validated (every problem a 422 naming its field), and its micro-batches
    (``resolved_model``: the request's model, when the caller has resolved it)."""
    par, cluster = request.parallelism, request.cluster
    mesh = requested_mesh(par, cluster.world_size, cluster.gpus_per_node)
    training = request.training or resolve.DEFAULT_TRAINING
    resolved_model = resolved_model or resolve.model(request.model)
    arch = resolved_model.architecture
    limits = ModelLimits.of(arch)
    problems: list[tuple[str, str]] = []
    if not mesh.trivial:  # every rule of mesh_plan_problems is about a model-parallel mesh
        deepspeed = deepspeed_convention(request.precision) and mesh.pipeline > 1  # DeepSpeed's convention
        shards = deepspeed and resolve.sharding(request.arrangement).shard_gradients
        hybrid = request.arrangement == ArrangementName.hybrid
        rules = mesh_plan_problems(True, hybrid, request.levers.zeropp.asked, deepspeed, shards, mesh.pipeline)
        problems = [(detail, pointer) for detail, pointer, refused in rules if refused]
    if problems:
        raise InvalidLayout(problems)
    gbs, k, b = training.global_batch_size, training.gradient_accumulation_steps, training.micro_batch_size
    validated_mesh(mesh, limits, b, training.sequence_length, gbs, k)
    m = micro_batches(gbs, k, b, mesh.data)
    return Layout(mesh, m, layout_training(request.training, m), layout_warnings(mesh), resolved_model)


def layout_training(training: Training | None, m: int) -> Training | None:
    """The request's training with the layout's m micro-batches as its accumulation steps (a global batch is
    resolved into them)."""
    if training is not None and (training.global_batch_size is not None or training.gradient_accumulation_steps != m):
        return training.model_copy(update={"global_batch_size": None, "gradient_accumulation_steps": m})
    return training


# A pure function of hashable values; an answer's fields only read the dict they are given (never written).
@lru_cache(maxsize=1024)
def echo_fields(mesh: Mesh, m: int, micro_batch_size: int) -> dict[str, Any]:
    """``echo`` as an answer's fields (service.answers.plan.plan_fields): its values, groups included, in a
    plain dict, which the JSON writer takes as it is (api.encoding)."""
    return echo(mesh, m, micro_batch_size).model_dump()


# A pure function of hashable values; a response only reads the echo it is given.
@lru_cache(maxsize=1024)
def echo(mesh: Mesh, m: int, micro_batch_size: int, layers: int = 0) -> ParallelismEcho:
    """The layout as planned; with the model's ``layers``, its split over the pipeline's chunks."""
    groups = [
        GroupPlacement(group=g, ranks=mesh.ranks(g), stride=mesh.stride(g), spans_nodes=mesh.spans_nodes(g))
        for g in GROUP_ORDER
    ]
    return ParallelismEcho(
        tensor=mesh.tensor,
        pipeline=mesh.pipeline,
        context=mesh.context,
        expert=mesh.expert,
        expert_tensor=mesh.etp,
        data=mesh.data,
        context_attention=mesh.context_attention,
        sequence_parallel=mesh.sequence_parallel,
        pipeline_schedule=mesh.schedule,
        virtual_stages=mesh.virtual_stages,
        pipeline_layers=chunk_layers(
            layers,
            mesh.pipeline,
            split_chunks(mesh.schedule, mesh.pipeline, mesh.virtual_stages),
            mesh.pipeline_layers,
            mesh.embedding_layers,
            mesh.loss_layers,
            v_shaped(mesh.schedule, mesh.pipeline),
        )
        if mesh.pipeline > 1 and layers
        else [],
        optimizer_post_validation=mesh.post_validation,
        micro_batches=m,
        pipeline_runs=mesh.runs,
        global_batch_size=m * micro_batch_size * mesh.data,
        expert_data=mesh.expert_data,
        groups=groups,
    )


def resolved_request(request: PlanRequest, layout: Layout) -> tuple[resolve.Scenario, Sharding, Setup]:
    """What a plan request resolves to (service.inputs.resolve), with the training and model its layout gives."""
    scene = resolve.scenario(
        request.model,
        request.precision,
        layout.training,
        request.activations,
        request.levers,
        request.cluster,
        layout.model,
    )
    sharding = resolve.sharding(request.arrangement)
    return scene, sharding, resolve.setup_for(scene, sharding)


class Resolution(NamedTuple):  # a named tuple: built for every plan, and a frozen dataclass's __init__ costs more
    """A plan request resolved: its layout (service.mesh), scenario, arrangement and evaluation setup."""

    layout: Layout
    scene: resolve.Scenario
    sharding: Sharding
    setup: Setup


# What a request's settings resolve to (mesh, card, links, precision, levers, activations, the efficiency model's
# device) depends on its model through the architecture, units and warnings alone, never on the parameter counts,
# and on its training through the shape and utilisation alone, never on the run's length or checkpoints (the time's
# report reads those from the request): schedulers ask about many models and runs on one cluster with one set of
# settings, so the resolution is kept per settings (at most RESOLUTIONS_KEPT, the least recently used out first)
# and a request with the same settings puts its own model and training in. What is kept is shared between requests
# and threads: read, never written.
RESOLUTIONS_KEPT = 256


@dataclass(frozen=True)
class Kept:
    settings: tuple[object, ...]
    resolution: Resolution
    training: Training | None  # the request's, which the resolution's layout and scenario resolved


# keyed by the settings' hash, each entry holding the settings too: a look-up hashes them once (a tuple's hash is
# not kept, and the request blocks' are computed field by field)
_resolutions: OrderedDict[int, Kept] = OrderedDict()
_resolutions_lock = threading.Lock()


def resolution(request: PlanRequest) -> Resolution:
    """``layout_of`` and ``resolved_request`` of the request, their settings' part resolved once (above)."""
    model = resolve.model(request.model)
    key = settings_key(request, model)
    kept = _kept(key)
    if kept is not None:
        layout, scene = kept.resolution.layout, kept.resolution.scene
        training = layout.training
        if request.training is not kept.training:  # the same shape, maybe another run's length or checkpoints
            training = layout_training(request.training, layout.micro_batches)
        return Resolution(
            _with(layout, model, training),
            _with(scene, model, training or resolve.DEFAULT_TRAINING),
            kept.resolution.sharding,
            kept.resolution.setup,
        )
    layout = layout_of(request, model)
    found = Resolution(layout, *resolved_request(request, layout))
    if key is not None:
        with _resolutions_lock:
            _resolutions[key[0]] = Kept(key[1], found, request.training)
            if len(_resolutions) > RESOLUTIONS_KEPT:
                _resolutions.popitem(last=False)
    return found


SettingsKey = tuple[int, tuple[object, ...]]  # the settings' hash, and the settings


def settings_key(request: PlanRequest, model: resolve.ResolvedModel) -> SettingsKey | None:
    """Every field of the request but its model (its architecture, units and warnings stand in) and its training's
    run, with the hash: derived from the request's fields, so a field added to it is part of the key. None when
    some part is not hashable (a layout's list of pipeline layers): such a request is resolved afresh."""
    blocks = request_blocks(request.__dict__)
    # a block the request left out (the shared default) stands as its model: hashed as a class, not field by field
    stand_ins = map(DEFAULT_BLOCK_MODELS.get, map(id, blocks), blocks)
    settings = (model.architecture, model.units, tuple(model.warnings), training_settings(request.training), *stand_ins)
    try:
        return hash(settings), settings
    except TypeError:
        return None


# The request's fields in the key as they are (or as their block's model, when left out): all but the model and the
# training, which stand in the key by what resolution reads of them.
BLOCK_FIELDS = tuple(name for name in PlanRequest.model_fields if name not in ("model", "training"))
request_blocks = itemgetter(*BLOCK_FIELDS)  # of a request's __dict__, in C
# Each shared default's model by the default's identity: a block is looked up by its id, in C (every default the
# request's fields take was made when PlanRequest was, before this module; each lives as long as the process).
DEFAULT_BLOCK_MODELS: dict[int, type] = {id(instance): kind for kind, instance in SHARED_DEFAULTS.items()}


RUN_FIELDS = frozenset({"total_tokens", "checkpoint"})  # the run, which the time's report reads from the request


def training_settings(training: Training | None) -> tuple[object, ...] | None:
    """What resolution reads of a training block: every field but the run's (RUN_FIELDS)."""
    if training is None:
        return None
    return tuple(value for name, value in training.__dict__.items() if name not in RUN_FIELDS)


def _kept(key: SettingsKey | None) -> Kept | None:
    if key is None:
        return None
    hashed, settings = key
    with _resolutions_lock:
        kept = _resolutions.get(hashed)
        if kept is None or kept.settings != settings:  # none, or other settings of the same hash
            return None
        _resolutions.move_to_end(hashed)
    return kept


Resolved = TypeVar("Resolved", Layout, resolve.Scenario)


def _with(kept: Resolved, model: resolve.ResolvedModel, training: Training | None) -> Resolved:
    """A copy of a kept layout or scenario holding this request's model and training (``dataclasses.replace`` runs
    the class's ``__init__`` over every field: four times as long)."""
    copied = object.__new__(type(kept))
    copied.__dict__.update(kept.__dict__, model=model, training=training)
    return copied


@dataclass(frozen=True)
class LayoutAnswer:
    """What a plan on a mesh answers beside the time (service.answers.plan.plan_fields assembles the answer)."""

    result: Evaluation
    parallelism: ParallelismEcho
    memory: Memory
    traffic: Traffic
    notes: tuple[str, ...]  # what the layout adds to the time model's assumptions
    warnings: list[str]


def layout_plan(resolved: Resolution) -> LayoutAnswer:
    """The plan on a mesh with some degree above 1 (the architecture is known: the mesh checked it)."""
    layout, scene, setup = resolved.layout, resolved.scene, resolved.setup
    arch = scene.model.architecture
    assert arch is not None
    mesh, m = layout.mesh, layout.micro_batches
    b, s = scene.training.micro_batch_size, scene.training.sequence_length
    counted = setup.activations.model.value == "transformer"
    result = evaluate_layout(arch, mesh, setup, m, b, s, counted)
    warnings = []
    if setup.activations.model.value == "fudge":
        warnings.append("activations.model fudge is not split over a layout: transformer activations are counted")
        result = evaluate_layout(arch, mesh, setup, m, b, s, True)
    return LayoutAnswer(
        result,
        echo(mesh, m, b, arch.layers),
        _memory(scene, setup, result, counted or setup.activations.model.value == "fudge", b, s),
        _traffic(setup, result),
        _notes(result),
        warnings,
    )


def stage_report(stage: StageEvaluation, layers: int) -> StageMemory:
    return StageMemory(
        stage=stage.layout_share.stage,
        layers=layers,
        parameters_per_gpu=stage.layout_share.parameters,
        model_state_bytes=stage.model_state_bytes,
        working_set_bytes=stage.working_set_bytes,
        activations_bytes=stage.activations_bytes,
        in_flight_micro_batches=float(stage.in_flight),
        per_gpu_bytes=stage.per_gpu_bytes,
        fits=stage.fits,
    )


def _memory(
    scene: resolve.Scenario,
    setup: Setup,
    result: Evaluation,
    counted: bool,
    b: int,
    s: int,
) -> Memory:
    top, card, mesh = result.top, scene.card, result.mesh
    share = top.layout_share
    experts_apart = bool(top.expert_rows)
    dense = share.dense_parameters + (0 if experts_apart else share.expert_parameters)
    breakdown = state_rows_report(dense, top.rows, f"stage {share.stage}, {group_digits(dense)} weights a GPU holds: ")
    breakdown += state_rows_report(
        share.expert_parameters,
        top.expert_rows,
        f"stage {share.stage}, routed experts over the expert-data-parallel group ({mesh.expert_data} GPUs): ",
    )
    breakdown += working_rows_report(top.working)
    return Memory(
        **memory_figures(result, setup, card, share.parameters),
        activations_counted=counted,
        breakdown=breakdown,
        activations=_activations(setup, top, mesh, b, s) if counted else _no_activations(),
        stages=[stage_report(stage, stage.layout_share.layers) for stage in result.stages],
    )


def _no_activations() -> ActivationMemory:
    return ActivationMemory(
        model=ActivationModel.none, bytes=0, fudge=None, components=[], source="no activations counted"
    )


def _activations(setup: Setup, top: StageEvaluation, mesh: Mesh, b: int, s: int) -> ActivationMemory:
    assert setup.activations.shape is not None
    shape = setup.activations.shape
    latent = f", routed experts on the latent l={shape.latent_size}" if shape.latent_size else ""
    share = top.layout_share
    symbols = (
        f"s={s}, b={b}, h={shape.hidden_size}, a={shape.attention_heads}, V={shape.vocab_size}; stage "
        f"{share.stage}: {share.layers} layers ({share.moe_layers} MoE{latent}), {float(top.in_flight):g} "
        f"micro-batches in flight; t={mesh.tensor}{' with sequence parallelism' if mesh.sequence_parallel else ''}, "
        f"c={mesh.context}"
    )
    components = [
        ActivationComponent(name=name, bytes=value, arithmetic=f"{name} with {symbols} = {group_digits(value)} B")
        for name, value in top.activations.items()
    ]
    flash = "flash attention (no 5as/h term)" if setup.activations.flash_attention else "attention scores kept"
    return ActivationMemory(
        model=ActivationModel.transformer,
        bytes=top.activations_bytes,
        fudge=None,
        components=components,
        source=f"{KORTHIKANTI} (rows with t and sequence parallelism); recompute {setup.recompute.value}; {flash}; "
        f"16-bit activations; {mesh.schedule.value} schedule",
    )


def _data_collectives(group: DataGroup) -> tuple[list[dict[str, Any]], int, int]:
    """(records, intra-node bytes, inter-node bytes) of one data-parallel group's step: its collectives' records as
    the data-parallel plan writes them (service.answers.plan_report.data_collective_records)."""
    p, n, g = group.parameters, group.ranks, group.members_per_node
    label = (
        "expert weights over the expert-data-parallel group: "
        if group.label == "experts"
        else "the GPU's parameter share over the data-parallel group x context: "
    )
    sent = calls_bytes_sent(p, n, group.calls, g)
    seconds = [price.seconds for price in group.prices]
    return data_collective_records(group.calls, sent, seconds, list(group.prices), p, n, g, label)


def _group_collective(
    call: GroupCall, setup: Setup, step_core_s: float = 0.0, step_backward_core_s: float = 0.0
) -> Collective:
    per_value = 2 if call.dtype is Dtype.bf16 else 1
    seconds = group_call_seconds(call, setup)
    price = group_call_price(call, time_links(setup, 1), nccl_system_of(setup))
    call_bytes = tensor_bytes(call.elements, call.dtype)
    nccl = price_fields(CollectivePrice(1, price, call_bytes, call_bytes)) if price else {"words": ""}
    hidden = ""
    if call.ring_step:  # ring attention: each transfer hidden only behind one step's attention core
        window_s = ring_transfer_window_s(call, step_core_s, step_backward_core_s)
        exposed = ring_exposed_seconds(call.count_per_step, seconds, window_s)
        core = (
            f"one ring step's attention core of {window_s * 1e6:.3g} us"
            if call.window is Window.forward
            else f"half a backward ring step's attention core, {window_s * 1e6:.3g} us (two transfers a step)"
        )
        hidden = (
            f"; each hidden only behind {core}: "
            f"exposed {call.count_per_step} x max(0, {seconds * 1e6:.3g} - {window_s * 1e6:.3g}) us = "
            f"{exposed:.4g} s"
        )
    words = (
        f"the whole buffer of {group_digits(call.elements)} values to one peer"
        if call.name.value == "send_recv"
        else f"{call.hops} steps of ceil({group_digits(call.elements)} values / {call.ranks} ranks)"
    )
    return Collective(
        name=call.name,
        purpose=call.purpose,
        dtype=call.dtype,
        buffer_bytes=call.elements * per_value,
        bytes_sent_per_gpu=call.bytes_sent,
        hops=call.hops,
        ranks=call.ranks,
        count_per_step=call.count_per_step,
        link=call.link,
        seconds=seconds,
        overlaps_with=call.window.value,
        group=call.group,
        arithmetic=f"{words} x {per_value} B = {group_digits(call.bytes_sent)} B per call, "
        f"x {call.count_per_step} per step{hidden}{nccl['words']}",
        calls=nccl.get("calls"),
        algorithm=nccl.get("algorithm"),
        latency_s=nccl.get("latency_s"),
    )


def _traffic(setup: Setup, result: Evaluation) -> Traffic:
    """The plan's traffic (service.answers.plan_report.traffic_fields): each data-parallel group's collectives as the
    data-parallel plan writes them, then each model-parallel group's calls."""
    entries: list[Collective | dict[str, Any]] = []
    intra = inter = 0
    for group in result.data_groups:
        found, inside, across = _data_collectives(group)
        entries += found
        intra, inter = intra + inside, inter + across
    for call in result.group_calls:
        entries.append(_group_collective(call, setup, result.ring_step_core_s, result.ring_step_backward_core_s))
        sent = call.count_per_step * call.bytes_sent
        if call.link.value == "intra_node":
            intra += sent
        else:
            inter += sent
    return Traffic(**traffic_fields(setup, result, entries, intra, inter))


def _notes(result: Evaluation) -> tuple[str, ...]:
    """What a plan on a mesh adds to the time model's assumptions (service.answers.plan_report.time_report)."""
    mesh = result.mesh
    return (
        f"layout: tensor {mesh.tensor} x context {mesh.context} x data {mesh.data} x pipeline {mesh.pipeline} "
        f"({mesh.schedule.value}, {result.micro_batches} micro-batches); compute is the slowest stage's "
        f"(stage {result.slowest}), the model's FLOPs split over the stages by their layers and the longest "
        "compute of the stage with the most FLOPs, the output layer's and the one with the most layers",
        "tensor-parallel collectives, pipeline sends and expert all-to-alls are on the critical path; a "
        "context group's ring step hides its K/V transfer only behind that step's attention core",
    )
