"""One evaluation of a layout: every figure of a plan on a mesh, per stage, from the core's formulas.

The rank of each stage holds its share of the parameters (service.mesh.stages); the arrangement's
flags shard that share's model states over the data-parallel group x context, the experts' over
the expert-data-parallel group (service.mesh.degrees). Activations are the stage's micro-batches in flight
(service.mesh.pipeline) of Korthikanti et al.'s per-layer bytes with t, sequence parallelism and the
context's share of the sequence (service.memory.activations). The busiest GPU is the plan's per_gpu_bytes.

A step is the slowest stage's compute, the pipeline bubble, the exposed part of each group's
communication (service.time.mesh_traffic; the data group's as service.time.communication prices it on the rank's
share) and host-link time when offloading. Compute splits the model FLOPs (active parameters for a
mixture of experts) over stages by their layers; each stage's work is divided over its t x c x d
GPUs at the requested utilisation.
"""

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from models.enums import Recompute, StateLocation
from service.engine.data_parallel import Setup, fsdp_units, optimizer_step_seconds, time_links
from service.inputs.architecture import (
    Architecture,
    active_parameter_count,
    attention_width,
    layer_parameters,
    moe_layer_parameters,
    norm_width,
    routed_expert_parameters,
)
from service.memory.activations import StageLayers, TensorSplit, stage_activation_components, transformer_shape
from service.memory.model_states import (
    StateBytes,
    bytes_at,
    model_state_breakdown,
    replicated_floor_bytes,
    shard_degree,
)
from service.memory.offload import cpu_optimizer_bytes_per_gpu, host_bytes_per_node, offload_seconds, pcie_bytes_per_gpu
from service.memory.working_set import Units, WorkingSetRow, working_set_rows
from service.mesh.degrees import Group, Mesh
from service.mesh.pipeline import bubble_seconds, stage_in_flight, stage_layer_indices, v_shaped
from service.mesh.stages import StageShare, embedding_split, is_moe_layer, layer_split, output_split, rank_parameters
from service.mesh.stages import stage_shares as shares_of
from service.numeric import group_digits
from service.time.communication import (
    CommunicationTime,
    alpha_beta_seconds,
    communication_time,
    exposed_in_window,
    link_speed,
    step_seconds,
)
from service.time.compute import (
    compute_seconds,
    flops_utilisation,
    forward_flops_per_token,
    hardware_efficiency,
    hardware_flops_per_token,
    model_flops_per_token,
    tokens_per_second,
    tokens_per_step,
)
from service.time.efficiency import (
    attention_core_seconds,
    call_overheads,
    micro_batch_compute,
    overlap_slowdown_seconds,
)
from service.time.mesh_traffic import GroupCall, StageWork, model_parallel_calls, ring_exposed_seconds
from service.time.traffic import StepCollective, Window, step_collectives


@dataclass(frozen=True)
class DataGroup:
    """One data-parallel group's collectives: the dense share over d x c, or the experts over d x c / e."""

    label: str  # "dense" or "experts"
    parameters: int  # the rank's share the collectives move
    ranks: int
    members_per_node: int
    calls: list[StepCollective]
    total_s: float  # NCCL's flat ring over the node's NICs
    exposed_s: float


@dataclass(frozen=True)
class StageEvaluation:
    share: StageShare
    rows: list[StateBytes]  # dense share's state classes, then the experts'
    expert_rows: list[StateBytes]
    working: list[WorkingSetRow]
    activations: dict[str, int]
    in_flight: Fraction
    model_state_bytes: int
    working_set_bytes: int
    activations_bytes: int
    per_gpu_bytes: int
    host_bytes: int
    cpu_optimizer_bytes: int  # host-memory bytes the CPU optimizer streams for this GPU per step
    fits: bool


@dataclass(frozen=True)
class LayoutEvaluation:
    mesh: Mesh
    micro_batches: int
    stages: list[StageEvaluation]
    busiest: int  # index of the stage with the most bytes per GPU
    slowest: int  # index of the stage with the most compute
    group_calls: list[GroupCall]
    data_groups: list[DataGroup]
    replicated_floor_bytes: int
    tokens_per_step: int
    model_flops: float
    compute_flops: float
    compute_s: float
    pipeline_bubble_s: float
    bubble_fraction: float  # the bubble over the compute of a step
    tensor_parallel_s: float
    pipeline_p2p_s: float
    context_parallel_s: float
    expert_parallel_s: float
    data_parallel_s: float
    data_parallel_exposed_s: float
    pcie_bytes_per_gpu: int
    host_bytes: int  # per node
    host_fits: bool
    offload_transfer_s: float
    cpu_optimizer_s: float
    offload_s: float
    step_s: float
    tokens_per_s: float
    mfu: float
    hfu: float
    optimizer_s: float = 0.0  # the efficiency model's optimizer step over HBM
    overlap_slowdown_s: float = 0.0  # compute lost to the data-parallel communication it hides
    ring_step_core_s: float = 0.0  # one ring-attention step's attention core (ring_step_core_s), forward

    @property
    def top(self) -> StageEvaluation:
        return self.stages[self.busiest]


def layout_units(arch: Architecture, mesh: Mesh) -> Units:
    """FSDP units as one GPU holds them: a block's, the embedding's and the output layer's share."""
    t, e = mesh.tensor, mesh.expert
    kinds = {is_moe_layer(arch, i): i for i in range(arch.layers)}  # a layer's split depends on its kind alone
    blocks = {sum(rank_parameters(layer_split(arch, i), t, e, mesh.expert_tensor)) for i in kinds.values()}
    block = max(blocks)
    embedding = rank_parameters(embedding_split(arch, t), t, e)[0]
    output = rank_parameters(output_split(arch, t, mesh.pipeline), t, e)[0]
    pairs = [embedding + block, block + output] + ([2 * block] if arch.layers > 1 else [])
    words = (
        f"units per GPU: embedding {group_digits(embedding)}, block {group_digits(block)}, "
        f"output {group_digits(output)} parameters"
    )
    return Units(max(embedding, block, output), max(pairs), words)


def active_layer_parameters(arch: Architecture, index: int) -> int:
    if not is_moe_layer(arch, index):
        return layer_parameters(arch)
    moe = arch.moe
    assert moe is not None
    return moe_layer_parameters(arch) - (moe.experts - moe.top_k) * routed_expert_parameters(arch)


def stage_flops_per_token(arch: Architecture, indices: list[int], last: bool, sequence_length: int) -> int:
    """6 x (the stage's active matmul parameters) + 12 x its layers x width x s (PaLM appendix B), exact.

    The output layer's matmul (and the final norm) belongs to the last stage; the input embedding is
    a lookup. Summed over the stages this is compute.model_flops_per_token of the whole model.
    """
    weights = sum(active_layer_parameters(arch, i) for i in indices)
    if last:
        norm = norm_width(arch) * arch.hidden_size
        weights += arch.vocab_size * arch.hidden_size + norm
    return 6 * weights + 12 * len(indices) * attention_width(arch) * sequence_length


def _stage(
    arch: Architecture,
    mesh: Mesh,
    setup: Setup,
    share: StageShare,
    m: int,
    b: int,
    s: int,
    counted: bool,
    units: Units | None,
) -> StageEvaluation:
    precision, sharding, offload = setup.precision, setup.sharding, setup.offload
    g = mesh.members_per_node(Group.data)
    experts_apart = bool(mesh.experts_apart) and share.expert_parameters > 0
    dense = share.dense_parameters + (0 if experts_apart else share.expert_parameters)
    rows = model_state_breakdown(dense, mesh.data_context, precision, sharding, g, offload)
    cpu = int(cpu_optimizer_bytes_per_gpu(rows, dense, mesh.data_context, precision, sharding, offload))
    expert_rows = []
    if experts_apart:
        experts = share.expert_parameters
        expert_rows = model_state_breakdown(experts, mesh.expert_data, precision, sharding, g, offload)
        cpu += int(cpu_optimizer_bytes_per_gpu(expert_rows, experts, mesh.expert_data, precision, sharding, offload))
    model_state = int(bytes_at(rows, StateLocation.gpu)) + int(bytes_at(expert_rows, StateLocation.gpu))
    host = int(bytes_at(rows, StateLocation.host)) + int(bytes_at(expert_rows, StateLocation.host))
    pipelined = mesh.pipeline > 1  # FSDP with pipelining as torchtitan runs it (working_set.pipelined_rows)
    working = working_set_rows(
        share.parameters, precision, sharding, units, setup.bucket_bytes, setup.overlap, pipelined=pipelined
    )
    flight = stage_in_flight(mesh.schedule, share.stage, mesh.pipeline, mesh.virtual_stages, m, share.chunk_layers)
    activations: dict[str, int] = {}
    if counted:
        layers = StageLayers(share.layers - share.moe_layers, share.moe_layers, share.first, share.last, flight)
        split = TensorSplit(mesh.tensor, mesh.sequence_parallel, mesh.context)
        parts = stage_activation_components(
            b, s, transformer_shape(arch), setup.activations.flash_attention, setup.recompute, layers, split
        )
        activations = {name: int(value) for name, value in parts.items()}
    working_bytes = sum(row.bytes for row in working)
    activation_bytes = sum(activations.values())
    per_gpu = model_state + working_bytes + activation_bytes
    return StageEvaluation(
        share=share,
        rows=rows,
        expert_rows=expert_rows,
        working=working,
        activations=activations,
        in_flight=flight,
        model_state_bytes=model_state,
        working_set_bytes=working_bytes,
        activations_bytes=activation_bytes,
        per_gpu_bytes=per_gpu,
        host_bytes=host,
        cpu_optimizer_bytes=cpu,
        fits=per_gpu <= setup.usable_bytes,
    )


def split_of(mesh: Mesh) -> dict[str, Any]:
    """The mesh's split of the layers, as stage_shares and slowest_stage take it (pipeline.chunk_layers)."""
    return {
        "pipeline_layers": mesh.pipeline_layers,
        "embedding_layers": mesh.embedding_layers,
        "loss_layers": mesh.loss_layers,
        "v_shape": v_shaped(mesh.schedule, mesh.pipeline),
    }


def slowest_stage(
    arch: Architecture,
    pipeline: int,
    virtual_stages: int,
    s: int,
    *,
    pipeline_layers: tuple[int, ...] | None = None,
    embedding_layers: int = 0,
    loss_layers: int = 0,
    v_shape: bool = False,
) -> tuple[int, list[list[int]], Fraction]:
    """(index of the stage with the most FLOPs, each stage's layer indices, its share of the model's FLOPs):
    the model's FLOPs split over the stages by their layers (stage_flops_per_token); the slowest sets the pace.
    The output layer is on the last stage, or on stage 0 in ZB-V's V (``v_shape``)."""
    indices = stage_layer_indices(
        arch.layers, pipeline, virtual_stages, pipeline_layers, embedding_layers, loss_layers, v_shape
    )
    output = 0 if v_shape else pipeline - 1
    per_stage = [stage_flops_per_token(arch, idx, i == output, s) for i, idx in enumerate(indices)]
    slowest = max(range(len(per_stage)), key=lambda i: per_stage[i])
    return slowest, indices, Fraction(per_stage[slowest], sum(per_stage))


def given_stage_seconds(setup: Setup, active: int, s: int, tokens: Any, share: Any, stage_gpus: Any) -> tuple[Any, Any]:
    """(compute, forward) seconds of the slowest stage at a given utilisation (numbers, or arrays for many
    layouts): its ``share`` of the step's hardware FLOPs over its t x c x d GPUs at the hardware efficiency
    the MFU implies for the recomputation it was given for (service.time.compute.hardware_efficiency); the
    forward pass is its share of those FLOPs (2 of 6 per weight and token, PaLM appendix B)."""
    assert setup.utilisation is not None
    shape = setup.flop_shape
    hardware_per_token = float(hardware_flops_per_token(active, shape, s, setup.recompute))
    measured = setup.measured_recompute or setup.recompute
    efficiency = hardware_efficiency(setup.utilisation, active, shape, s, measured)
    compute_s = compute_seconds(hardware_per_token * tokens * share, stage_gpus, setup.peak_flops_per_s, efficiency)
    return compute_s, compute_s * float(forward_flops_per_token(active, shape, s)) / hardware_per_token


def modelled_stage_seconds(
    setup: Setup, mesh: Mesh, layers: int, stage: int, m: int, b: int, s: int, active: int
) -> tuple[float, float]:
    """(compute, forward) seconds of a stage's m micro-batches by the efficiency model (service.time.efficiency)."""
    eff = setup.efficiency
    if eff is None:
        raise ValueError("a setup without a utilisation needs the efficiency model's device")
    per_token = float(model_flops_per_token(active, setup.flop_shape, s))
    last = stage == (0 if v_shaped(mesh.schedule, mesh.pipeline) else mesh.pipeline - 1)  # holds the output layer
    micro = micro_batch_compute(eff, b, s, setup.recompute, per_token, layers, mesh.tensor, mesh.context, last)
    return m * float(micro.total_s), m * float(micro.forward_s)


def group_call_seconds(call: GroupCall, setup: Setup) -> Any:
    """One call's seconds (a float; an array for many layouts, whose link is then a bool array)."""
    latency_s, bytes_per_s = link_speed(call.link, time_links(setup, 1))  # a model-parallel call: the GPU's own NIC
    seconds = alpha_beta_seconds(call.hops, call.bytes_sent, latency_s, bytes_per_s)
    return seconds if isinstance(seconds, np.ndarray) else float(seconds)


def ring_step_core_s(setup: Setup, b: Any, s: int, tensor: Any, context: Any) -> Any:
    """One ring-attention step's attention core, forward, per layer and micro-batch: the rank's queries against
    one K/V chunk, 1 / c of the efficiency model's attention term (service.time.efficiency.attention_core_seconds);
    0 without the model's kernel shapes (nothing is then hidden). Numbers, or arrays for many layouts."""
    eff = setup.efficiency
    if eff is None or eff.kernels is None:
        return 0.0
    return attention_core_seconds(eff, b, s, tensor, context) / context


def exposed_group_s(
    calls: list[GroupCall], group: Group, setup: Setup, forward_s: Any, backward_s: Any, step_core_s: Any = 0.0
) -> Any:
    """Every call of the group on the critical path, except a window's calls, hidden under its compute
    but the first; ring attention's transfers each behind one ring step's attention core ``step_core_s``
    (ring_step_core_s) alone (service.time.mesh_traffic.ring_exposed_seconds)."""
    exposed: Any = 0.0
    for call in (c for c in calls if c.group is group):
        if call.ring_step:
            exposed += ring_exposed_seconds(call.count_per_step, group_call_seconds(call, setup), step_core_s)
            continue
        total = call.count_per_step * group_call_seconds(call, setup)
        if call.window is Window.none:
            exposed += total
        else:
            window_s = forward_s if call.window is Window.forward else backward_s
            exposed += exposed_in_window(total, group_call_seconds(call, setup), window_s)
    return exposed


def data_group_time(
    calls: list[StepCollective],
    parameters: Any,
    ranks: Any,
    per_node: Any,
    setup: Setup,
    m: Any,
    forward_s: Any,
    backward_s: Any,
    layers: Any,
) -> CommunicationTime:
    """The data group's step on NCCL's flat ring over the node's NICs, one call per bucket
    (service.time.efficiency); numbers for one plan, arrays for many layouts."""
    links = time_links(setup, per_node)
    units = fsdp_units(setup, layers)
    overheads = call_overheads(calls, parameters, ranks, per_node, links, setup.bucket_bytes, units)
    return communication_time(
        calls,
        parameters,
        ranks,
        per_node,
        links,
        m,
        forward_s,
        backward_s,
        setup.overlap,
        setup.bucket_bytes,
        overheads,
    )


def _data_group(
    label: str,
    parameters: int,
    ranks: int,
    per_node: int,
    setup: Setup,
    m: int,
    forward_s: float,
    backward_s: float,
    layers: int,
    pipelined: bool = False,
) -> DataGroup:
    calls = step_collectives(setup.precision, setup.sharding, m, pipelined=pipelined)
    timed = data_group_time(calls, parameters, ranks, per_node, setup, m, forward_s, backward_s, layers)
    return DataGroup(label, parameters, ranks, per_node, calls, float(timed.total_s), float(timed.exposed_s))


def evaluate_layout(
    arch: Architecture,
    mesh: Mesh,
    setup: Setup,
    micro_batches: int,
    micro_batch_size: int,
    sequence_length: int,
    activations_counted: bool,
) -> LayoutEvaluation:
    m, b, s = micro_batches, micro_batch_size, sequence_length
    shares = shares_of(
        arch, mesh.tensor, mesh.pipeline, mesh.expert, mesh.virtual_stages, mesh.expert_tensor, **split_of(mesh)
    )
    units = layout_units(arch, mesh) if setup.units is not None else None
    stages = [_stage(arch, mesh, setup, share, m, b, s, activations_counted, units) for share in shares]
    busiest = max(range(len(stages)), key=lambda i: stages[i].per_gpu_bytes)
    top = stages[busiest]

    # Compute: the model's FLOPs split over the stages by their layers; the slowest stage sets the pace.
    slowest, indices, share = slowest_stage(arch, mesh.pipeline, mesh.virtual_stages, s, **split_of(mesh))
    active, shape = active_parameter_count(arch), setup.flop_shape
    tokens = int(tokens_per_step(mesh.data, b, s, m))
    model_flops = float(model_flops_per_token(active, shape, s)) * tokens
    flops = float(hardware_flops_per_token(active, shape, s, setup.recompute)) * tokens
    if setup.utilisation is None:
        compute_s, forward_s = modelled_stage_seconds(setup, mesh, len(indices[slowest]), slowest, m, b, s, active)
    else:
        stage_gpus = mesh.tensor * mesh.context * mesh.data
        given = given_stage_seconds(setup, active, s, tokens, float(share), stage_gpus)
        compute_s, forward_s = float(given[0]), float(given[1])
    backward_s = compute_s - forward_s
    recomputed_s = forward_s if setup.recompute is Recompute.full else 0.0  # B needs it before W (pass_seconds)
    bubble_s = float(
        bubble_seconds(
            mesh.schedule,
            mesh.pipeline,
            mesh.virtual_stages,
            m,
            forward_s,
            backward_s,
            recomputed_s,
            mesh.post_validation,
        )
    )
    idle = bubble_s / compute_s if compute_s > 0 else 0.0

    work = StageWork(
        layers=max(share_.layers for share_ in shares),
        moe_layers=max(share_.moe_layers for share_ in shares),
        micro_batches=m,
        micro_batch_size=b,
        sequence_length=s,
        full_recompute=setup.recompute is Recompute.full,
    )
    calls = model_parallel_calls(mesh, arch, work)
    core_s = ring_step_core_s(setup, b, s, mesh.tensor, mesh.context)
    group_s = {
        g: float(exposed_group_s(calls, g, setup, forward_s, backward_s, core_s)) for g in Group if g is not Group.data
    }

    # Data parallelism on the busiest stage's share: the dense part over d x c, the experts over d x c / e.
    groups = []
    experts_apart = bool(top.expert_rows)
    dense_share = top.share.dense_parameters + (0 if experts_apart else top.share.expert_parameters)
    if mesh.data_context > 1:
        groups.append(
            _data_group(
                "dense",
                dense_share,
                mesh.data_context,
                mesh.members_per_node(Group.data),
                setup,
                m,
                forward_s / m,
                backward_s / m,
                top.share.layers,
                mesh.pipeline > 1,
            )
        )
    if experts_apart and mesh.expert_data > 1:
        per_node = max(1, min(mesh.expert_data, mesh.gpus_per_node // mesh.expert_data_stride))
        groups.append(
            _data_group(
                "experts",
                top.share.expert_parameters,
                mesh.expert_data,
                per_node,
                setup,
                m,
                forward_s / m,
                backward_s / m,
                top.share.layers,
                mesh.pipeline > 1,
            )
        )
    data_total = sum(group.total_s for group in groups)
    data_exposed = sum(group.exposed_s for group in groups)
    pcie = int(pcie_bytes_per_gpu(dense_share, mesh.data_context, setup.precision, setup.sharding, setup.offload, m))
    if experts_apart:
        pcie += int(
            pcie_bytes_per_gpu(
                top.share.expert_parameters, mesh.expert_data, setup.precision, setup.sharding, setup.offload, m
            )
        )
    n, g = mesh.world_size, mesh.gpus_per_node
    transfer_s, cpu_s = offload_seconds(
        pcie, top.cpu_optimizer_bytes, n, g, setup.links.host_bytes_per_s, setup.host_memory_bytes_per_s
    )
    offload_transfer_s, cpu_optimizer_s = float(transfer_s), float(cpu_s)
    offload_s = offload_transfer_s + cpu_optimizer_s
    host = int(host_bytes_per_node(top.host_bytes, n, g))
    host_fits = setup.host_memory_bytes is None or host <= setup.host_memory_bytes
    exposed = sum(group_s.values())
    optimizer_s = slowdown_s = 0.0
    if setup.efficiency is not None:
        degree = shard_degree(mesh.data_context, mesh.members_per_node(Group.data), setup.sharding)
        optimizer_s = float(optimizer_step_seconds(setup, dense_share, degree))
        if experts_apart:
            experts = shard_degree(mesh.expert_data, mesh.members_per_node(Group.data), setup.sharding)
            optimizer_s += float(optimizer_step_seconds(setup, top.share.expert_parameters, experts))
        slowdown_s = float(overlap_slowdown_seconds(data_total - data_exposed, setup.efficiency.calibration))
    step_s = float(step_seconds(compute_s, bubble_s, exposed + data_exposed, offload_s, optimizer_s, slowdown_s))
    floor = (
        int(replicated_floor_bytes(dense_share, setup.precision, setup.sharding, setup.offload))
        + int(replicated_floor_bytes(top.share.expert_parameters, setup.precision, setup.sharding, setup.offload))
        * experts_apart
        + top.working_set_bytes
        + top.activations_bytes
    )
    return LayoutEvaluation(
        mesh=mesh,
        micro_batches=m,
        stages=stages,
        busiest=busiest,
        slowest=slowest,
        group_calls=calls,
        data_groups=groups,
        replicated_floor_bytes=floor,
        tokens_per_step=tokens,
        model_flops=model_flops,
        compute_flops=flops,
        compute_s=compute_s,
        pipeline_bubble_s=bubble_s,
        bubble_fraction=idle,
        tensor_parallel_s=group_s[Group.tensor],
        pipeline_p2p_s=group_s[Group.pipeline],
        context_parallel_s=group_s[Group.context],
        expert_parallel_s=group_s[Group.expert],
        data_parallel_s=data_total,
        data_parallel_exposed_s=data_exposed,
        pcie_bytes_per_gpu=pcie,
        host_bytes=host,
        host_fits=host_fits,
        offload_transfer_s=offload_transfer_s,
        cpu_optimizer_s=cpu_optimizer_s,
        offload_s=offload_s,
        step_s=step_s,
        tokens_per_s=float(tokens_per_second(tokens, step_s)),
        mfu=float(flops_utilisation(model_flops, step_s, n, setup.peak_flops_per_s)),
        hfu=float(flops_utilisation(flops, step_s, n, setup.peak_flops_per_s)),
        optimizer_s=optimizer_s,
        overlap_slowdown_s=slowdown_s,
        ring_step_core_s=float(core_s),
    )


def stage_memory(
    arch: Architecture,
    mesh: Mesh,
    setup: Setup,
    micro_batches: int,
    micro_batch_size: int,
    sequence_length: int,
    activations_counted: bool,
) -> list[StageEvaluation]:
    """Each stage's bytes per GPU alone, without the step's time: what a fit search compares."""
    shares = shares_of(
        arch, mesh.tensor, mesh.pipeline, mesh.expert, mesh.virtual_stages, mesh.expert_tensor, **split_of(mesh)
    )
    m, b, s = micro_batches, micro_batch_size, sequence_length
    units = layout_units(arch, mesh) if setup.units is not None else None
    return [_stage(arch, mesh, setup, share, m, b, s, activations_counted, units) for share in shares]
