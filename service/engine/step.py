"""The steps of one evaluation: what a rank holds and what its step costs, shared by every evaluation.

A data-parallel plan is the mesh whose model-parallel degrees are 1: its one stage holds every
parameter, sharded over the N ranks of its one data group. A stage of a layout holds its dense share,
sharded over d x c ranks, and, when the experts shard apart, their share over the expert-data-parallel
group (service.mesh.degrees). Each such share is a ``Part``; every step below is written once over the
parts of the stage that sets the pace, with numbers for one plan or numpy arrays for a sweep's data-parallel
cells (service.engine.evaluation.evaluate_mesh, the one evaluation) or many layouts at once
(service.engine.layout_grid). No formula is written here: each step calls the core's.
"""

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from models.enums import GpuGeneration, Recompute
from models.parallelism import ContextAttention, PipelineSchedule
from models.presets import LinkSpec
from service.engine.setup import Setup
from service.memory.model_states import (
    StateBytes,
    floor_states_bytes,
    gpu_and_host_bytes,
    resident_rows,
    shard_degree,
    shard_elements,
)
from service.memory.offload import cpu_optimizer_bytes_per_gpu, offload_seconds, pcie_bytes_per_gpu
from service.mesh.degrees import SCHEDULES, Mesh, run_micro_batches, schedule_runs, tensor_sequence_split
from service.mesh.pipeline import bubble_seconds
from service.numeric import select
from service.time.communication import (
    CollectivePrice,
    CommunicationTime,
    beside_compute_s,
    communication_time,
    data_windows,
    price_collectives,
    step_seconds,
)
from service.time.compute import (
    compute_seconds,
    flops_utilisation,
    forward_flops_per_token,
    hardware_efficiency,
    hardware_flops_per_token,
    tokens_per_second,
)
from service.time.compute import model_flops_per_token as model_flops_of
from service.time.efficiency import (
    Device,
    Efficiency,
    LinkSpeeds,
    bus_speeds,
    micro_batch_compute,
    optimizer_seconds,
    overlap_slowdown_seconds,
)
from service.time.nccl import NcclSystem, nccl_system
from service.time.traffic import StepCollective


@dataclass(slots=True)  # not frozen: one is built for every plan, and a frozen __init__ costs more
class Part:
    """A share of one rank's parameters and the data-parallel group its states shard over (numbers, or arrays
    aligned with the cells): ``per_node`` of the group's ``ranks`` share a node."""

    parameters: Any
    ranks: Any
    per_node: Any


@dataclass(slots=True)
class Held:
    """What a rank's parts hold: their state rows (one list per part) and the bytes summed over the parts."""

    rows: list[list[StateBytes]]
    gpu_bytes: Any  # model states on the GPU
    host_bytes: Any  # model states offloaded to host memory
    cpu_optimizer_bytes: Any  # host-memory bytes the CPU optimizer streams per step


def held(parts: list[Part], setup: Setup) -> Held:
    """The model states of a rank's parts, and what the CPU optimizer streams for them."""
    precision, sharding, offload, residents = setup.precision, setup.sharding, setup.offload, setup.residents
    found: list[list[StateBytes]] = []
    gpu: Any = 0
    host: Any = 0
    cpu: Any = 0
    for part in parts:
        rows = resident_rows(residents, part.parameters, part.ranks, sharding, part.per_node)
        found.append(rows)
        on_gpu, on_host = gpu_and_host_bytes(rows)
        gpu = gpu + on_gpu
        host = host + on_host
        degree = shard_degree(part.ranks, part.per_node, sharding)
        cpu = cpu + cpu_optimizer_bytes_per_gpu(rows, part.parameters, degree, precision, sharding, offload)
    return Held(found, gpu, host, cpu)


def replicated_bytes(parts: list[Part], setup: Setup) -> Any:
    """The parts' replicated states on the GPU: what no GPU count lowers (service.memory.model_states)."""
    total: Any = 0
    for part in parts:
        total = total + floor_states_bytes(setup.floor_residents, part.parameters, part.per_node)
    return total


@dataclass(slots=True)
class HostStep:
    """The host link's share of a step: the bytes over PCIe, their transfer, the CPU optimizer."""

    pcie_bytes_per_gpu: Any
    transfer_s: Any
    cpu_optimizer_s: Any
    offload_s: Any  # the two, one after the other


def host_step(
    parts: list[Part], setup: Setup, cpu_optimizer_bytes: Any, micro_batches: Any, n: Any, g: Any
) -> HostStep:
    """What offloading costs a step: each part's transfers over the host link and the CPU optimizer's pass."""
    pcie: Any = 0
    for part in parts:
        degree = shard_degree(part.ranks, part.per_node, setup.sharding)
        pcie = pcie + pcie_bytes_per_gpu(
            part.parameters, degree, setup.precision, setup.sharding, setup.offload, micro_batches
        )
    transfer_s, cpu_s = offload_seconds(
        pcie, cpu_optimizer_bytes, n, g, setup.links.host_bytes_per_s, setup.host_memory_bytes_per_s
    )
    return HostStep(pcie, transfer_s, cpu_s, transfer_s + cpu_s)


def optimizer_step(parts: list[Part], setup: Setup) -> Any:
    """The optimizer step on the GPU over every part the rank holds: its shard of each part's weights when the
    optimizer is sharded (service.time.efficiency.optimizer_seconds)."""
    device, sharding = efficiency_of(setup).device, setup.sharding
    total: Any = 0.0
    for part in parts:
        weights = part.parameters
        if sharding.shard_optimizer:
            weights = shard_elements(weights, shard_degree(part.ranks, part.per_node, sharding))
        total = total + optimizer_seconds(weights, device)
    return total


def flops_per_token(setup: Setup, active: Any, s: Any) -> tuple[Any, Any]:
    """(model, hardware) FLOPs per token of a step: of the parameters a token uses (top_k of a mixture's
    experts), the hardware's with what recomputation repeats (service.time.compute)."""
    shape = setup.flop_shape
    return model_flops_of(active, shape, s), hardware_flops_per_token(active, shape, s, setup.recompute)


def given_compute(setup: Setup, active: int, s: Any, tokens: Any, share: Any, gpus: Any) -> tuple[Any, Any]:
    """(compute, forward) seconds of a step at a given utilisation (numbers, or arrays for many cells): ``share``
    of the step's hardware FLOPs over ``gpus`` GPUs at the hardware efficiency the MFU implies for the
    recomputation it was given for (service.time.compute.hardware_efficiency); the forward pass is its share of
    those FLOPs (2 of 6 per weight and token, PaLM appendix B)."""
    assert setup.utilisation is not None
    shape = setup.flop_shape
    hardware_per_token = hardware_flops_per_token(active, shape, s, setup.recompute)
    measured = setup.measured_recompute or setup.recompute
    efficiency = hardware_efficiency(setup.utilisation, active, shape, s, measured)
    # tokens x share first: a layout's share is a fraction, and its product with the count stays in floats
    compute_s = compute_seconds(hardware_per_token * (tokens * share), gpus, setup.peak_flops_per_s, efficiency)
    return compute_s, compute_s * (forward_flops_per_token(active, shape, s) / hardware_per_token)


def stage_compute(
    setup: Setup,
    model_flops_per_token: Any,
    active: Any,
    m: Any,
    b: Any,
    s: Any,
    tokens: Any,
    share: Any,
    gpus: Any,
    layers: Any = None,
    tensor: Any = 1,
    context: Any = 1,
    last: bool = True,
    expert: Any = 1,
    expert_tensor: Any = None,
    sequence: Any = 1,
    ring: bool = True,
) -> tuple[Any, Any]:
    """(compute, forward) seconds of the stage that sets the pace, its m micro-batches: by the efficiency model
    (its ``layers`` over ``tensor`` x ``context`` ranks), or, with a given training.utilisation (which overrides
    the compute's efficiency and nothing else), its ``share`` of the step's FLOPs over its ``gpus``. A
    data-parallel plan's one stage: every layer, share 1 over the N GPUs. A mixture's routed experts over the
    ``expert`` group, split ``expert_tensor`` ways; ``sequence``: t with sequence parallelism, else 1; ``ring``:
    the context group runs ring attention, else the all-gather (service.time.efficiency.micro_batch_compute)."""
    if setup.utilisation is None:
        eff = efficiency_of(setup)
        micro = micro_batch_compute(
            eff,
            b,
            s,
            setup.recompute,
            model_flops_per_token,
            layers,
            tensor,
            context,
            last,
            expert,
            expert_tensor,
            sequence,
            ring,
        )
        return m * micro.total_s, m * micro.forward_s
    return given_compute(setup, active, s, tokens, share, gpus)


def mesh_stage_compute(
    setup: Setup,
    mesh: Mesh,
    layers: Any,
    last: bool,
    share: Any,
    model_flops_per_token: Any,
    active: Any,
    m: Any,
    b: Any,
    s: Any,
    tokens: Any,
) -> tuple[Any, Any]:
    """stage_compute of a stage of ``mesh`` (one layout, or many layouts' arrays) with these ``layers`` (the output
    layer's when ``last``) and ``share`` of the model's FLOPs: its layers over the mesh's t x c ranks, its share over
    its t x c x d GPUs, the routed experts over e split ETP ways, the sequence split by t with sequence parallelism,
    ring attention or the all-gather as the mesh exchanges K and V."""
    t, c = mesh.tensor, mesh.context
    return stage_compute(
        setup,
        model_flops_per_token,
        active,
        m,
        b,
        s,
        tokens,
        share,
        t * c * mesh.data,
        layers,
        t,
        c,
        last,
        mesh.expert,
        mesh.etp,
        tensor_sequence_split(t, mesh.sequence_parallel),
        mesh.context_attention is ContextAttention.ring,
    )


def stage_bubble(
    setup: Setup,
    schedule: PipelineSchedule,
    p: Any,
    v: Any,
    m: Any,
    compute_s: Any,
    forward_s: Any,
    post_validation: bool,
    runs: Any = 1,
) -> Any:
    """The pipeline's idle time over a step of the stage that sets the pace (service.mesh.pipeline): a full
    recomputation's forward runs again before the backward needs it (pass_seconds). The schedule runs ``runs``
    times a step (parallelism.pipeline_runs), each over m / runs micro-batches and its share of the compute, each
    run filling and draining the pipeline again (torchtitan's train step and NeMo Automodel's benchmark recipe call
    ``schedule.step`` once per local batch of their gradient accumulation). ``schedule``: a PipelineSchedule, or a
    grid's codes into SCHEDULES, each schedule's layouts through its own lines
    (service.mesh.pipeline.bubble_seconds)."""
    if not isinstance(schedule, PipelineSchedule):
        bubble_s = np.zeros(len(schedule))
        for code in np.flatnonzero(np.bincount(schedule)).tolist():
            rows = np.flatnonzero(schedule == code)
            bubble_s[rows] = stage_bubble(
                setup,
                SCHEDULES[code],
                p[rows],
                v[rows],
                m[rows],
                compute_s[rows],
                forward_s[rows],
                post_validation,
                runs,
            )
        return bubble_s
    recomputed_s = forward_s * (setup.recompute is Recompute.full)
    backward_s = compute_s - forward_s
    run_m = run_micro_batches(m, runs, p)
    runs = schedule_runs(runs, p)
    per_run_s = bubble_seconds(
        schedule, p, v, run_m, forward_s / runs, backward_s / runs, recomputed_s / runs, post_validation
    )
    return runs * per_run_s


def time_links(setup: Setup, gpus_per_node: Any) -> LinkSpeeds:
    """The speeds collectives are priced at: NCCL's bus bandwidths (service.time.efficiency.bus_speeds), with or
    without a given utilisation (which sets the compute's efficiency alone)."""
    if type(gpus_per_node) is int:  # one plan: a pure function of frozen values
        return plan_bus_speeds(setup.links, gpus_per_node)
    return bus_speeds(setup.links, gpus_per_node)


@lru_cache(maxsize=1024)
def plan_bus_speeds(links: LinkSpec, gpus_per_node: int) -> LinkSpeeds:
    return bus_speeds(links, gpus_per_node)


def fsdp_units(setup: Setup, layers: int | None) -> int | None:
    """Calls per collective when parameters are sharded: one per wrapped unit, a unit per layer and one
    for the rest (torchtitan and llm-foundry wrap each transformer block); None: by buckets."""
    return layers + 1 if setup.sharding.shard_parameters and layers is not None else None


def nccl_system_of(setup: Setup) -> NcclSystem:
    """What NCCL's tuning reads of the machine: the GPU's generation and whether NVLink joins a node."""
    generation = setup.efficiency.device.generation if setup.efficiency is not None else None
    return _nccl_system(generation, setup.links.intra_node_bytes_per_s)


@lru_cache(maxsize=64)  # keyed by the generation itself: a string enum, hashed in C as its value is
def _nccl_system(generation: GpuGeneration | None, intra_node_bytes_per_s: float) -> NcclSystem:
    return nccl_system(generation, intra_node_bytes_per_s)


def data_call_prices(
    calls: list[StepCollective],
    part: Part,
    setup: Setup,
    layers: Any,
    links: LinkSpeeds | None = None,
    model_parallel: Any = False,
) -> list[CollectivePrice]:
    """Per collective of the data group, as NCCL runs it: the framework's buckets or FSDP units
    (service.time.buckets; Megatron-Core's when ``model_parallel``), each call at NCCL's tuning model
    (service.time.nccl): its calls, algorithm, seconds and latency part."""
    links = time_links(setup, part.per_node) if links is None else links
    return price_collectives(
        calls,
        part.parameters,
        part.ranks,
        part.per_node,
        links,
        nccl_system_of(setup),
        setup.sharding,
        model_parallel,
        setup.given_bucket_bytes,
        fsdp_units(setup, layers),
    )


def data_group_time(
    calls: list[StepCollective],
    part: Part,
    setup: Setup,
    m: Any,
    forward_s: Any,
    backward_s: Any,
    layers: Any,
    prices: list[CollectivePrice] | None = None,
    links: LinkSpeeds | None = None,
    model_parallel: Any = False,
) -> CommunicationTime:
    """A part's data-parallel group over a step as NCCL runs it over the node's NICs (data_call_prices):
    ``forward_s`` and ``backward_s`` per micro-batch; numbers for one plan, arrays for many cells."""
    links = time_links(setup, part.per_node) if links is None else links
    if prices is None:
        prices = data_call_prices(calls, part, setup, layers, links, model_parallel)
    return communication_time(calls, m, forward_s, backward_s, setup.overlap, prices)


def part_windows(part: Part, forward_s: Any, backward_s: Any, m: Any, beside_s: tuple[Any, Any]) -> tuple[Any, Any]:
    """The windows a part's data group hides behind, per micro-batch (service.time.communication.data_windows):
    ``beside_s`` is (the step's exposed model-parallel seconds on NVLink alone, on the NIC alone); a ring that
    leaves the node waits on its NICs and runs beside the first, a ring inside one node beside the second."""
    beside = select(part.ranks > part.per_node, beside_s[0], beside_s[1])
    return data_windows(forward_s, backward_s, beside, m)


def micro_batch_seconds(compute_s: Any, forward_s: Any, m: Any) -> tuple[Any, Any]:
    """(forward, backward) seconds of one micro-batch of the paced stage, whose m micro-batches compute
    ``compute_s``, ``forward_s`` of it forward: the windows its data groups hide behind (part_windows)."""
    forward = forward_s / m
    return forward, compute_s / m - forward


@dataclass(slots=True)
class PartStep:
    """A part's data-parallel group over a step: its collectives' prices, their time, and what of it runs beside
    the compute (and so slows it)."""

    prices: list[CollectivePrice]
    timed: CommunicationTime
    hidden_s: Any


def part_step(
    part: Part,
    setup: Setup,
    calls: list[StepCollective],
    m: Any,
    forward_s: Any,
    backward_s: Any,
    layers: Any,
    beside_s: tuple[Any, Any],
    model_parallel: Any = False,
) -> PartStep:
    """A part's data group over a step (``forward_s`` and ``backward_s`` per micro-batch: micro_batch_seconds): its
    collectives as NCCL runs them (data_call_prices), hidden in the windows of part_windows, and the hidden seconds
    that ran beside compute (service.time.communication.beside_compute_s). Numbers for one plan, arrays for many."""
    links = time_links(setup, part.per_node)
    priced = data_call_prices(calls, part, setup, layers, links, model_parallel)
    window_f, window_b = part_windows(part, forward_s, backward_s, m, beside_s)
    timed = data_group_time(calls, part, setup, m, window_f, window_b, layers, priced, links)
    hidden = beside_compute_s(timed.total_s - timed.exposed_s, forward_s, backward_s, window_f, window_b)
    return PartStep(priced, timed, hidden)


@dataclass(slots=True)
class StepTotals:
    """A step's seconds and what it yields."""

    overlap_slowdown_s: Any
    step_s: Any
    tokens_per_s: Any
    mfu: Any
    hfu: Any


def step_totals(
    setup: Setup,
    compute_s: Any,
    bubble_s: Any,
    model_exposed_s: Any,
    data: "DataGroupsStep",
    lever_hidden_s: Any,
    offload_s: Any,
    optimizer_s: Any,
    tokens: Any,
    model_flops: Any,
    flops: Any,
    n: Any,
) -> StepTotals:
    """One optimizer step, one term after another (service.time.communication.step_seconds): the compute, the
    bubble, the model-parallel groups' exposed seconds and the data groups', the host link, the optimizer step, and
    the slowdown the communication hidden beside the compute costs it (the data groups' and what the overlap levers
    hide, ``lever_hidden_s``); then the step's tokens per second, MFU and HFU (none without the hardware
    ``flops``)."""
    exposed_s = model_exposed_s + data.exposed_s
    slowdown_s = overlap_slowdown_seconds(data.hidden_s + lever_hidden_s, efficiency_of(setup).calibration)
    step_s = step_seconds(compute_s, bubble_s, exposed_s, offload_s, optimizer_s, slowdown_s)
    peak = setup.peak_flops_per_s
    return StepTotals(
        slowdown_s,
        step_s,
        tokens_per_second(tokens, step_s),
        flops_utilisation(model_flops, step_s, n, peak),
        None if flops is None else flops_utilisation(flops, step_s, n, peak),
    )


def efficiency_of(setup: Setup) -> Efficiency:
    """The setup's efficiency model; without one, a device of the setup's peak alone (no HBM or kernel
    figures: matrix multiplications at the GEMM ceiling, the optimizer and collectives as the model prices
    them), which a given utilisation needs for everything but the compute."""
    if setup.efficiency is None:
        if setup.utilisation is None:
            raise ValueError("a setup without a utilisation needs the efficiency model's device")
        return bare_efficiency(setup.peak_flops_per_s)
    return setup.efficiency


@lru_cache(maxsize=64)
def bare_efficiency(peak_flops_per_s: float) -> Efficiency:
    return Efficiency(Device(peak_flops_per_s), None)


@dataclass(slots=True)
class RankStep:
    """The step of the rank that sets the pace, once its compute is known: each part's data group (its
    collectives' prices, and their time), the host link, the optimizer step, the totals."""

    prices: list[list[CollectivePrice]]  # per part, per collective: data_call_prices
    groups: list[CommunicationTime]  # per part (a group of one rank takes no time)
    data_s: Any
    data_exposed_s: Any
    host: HostStep
    optimizer_s: Any
    totals: StepTotals


def rank_step(
    parts: list[Part],
    setup: Setup,
    calls: list[StepCollective],
    m: Any,
    forward_s: Any,
    backward_s: Any,
    layers: Any,
    cpu_optimizer_bytes: Any,
    n: Any,
    g: Any,
    compute_s: Any,
    bubble_s: Any,
    model_exposed_s: Any,
    tokens: Any,
    model_flops: Any,
    flops: Any,
    model_parallel: Any = False,
    lever_hidden_s: Any = 0.0,
    beside_s: tuple[Any, Any] = (0.0, 0.0),
) -> RankStep:
    """What follows the compute in every evaluation: each part's data group on NCCL's ring (``forward_s`` and
    ``backward_s`` per micro-batch hide it), the host link's transfers and CPU optimizer, the optimizer step
    on the GPU, then the step with the model-parallel groups' exposed ``model_exposed_s`` and the pipeline's
    ``bubble_s``; ``lever_hidden_s``, the model-parallel communication the overlap levers hide, slows the compute
    as the data groups' hidden communication does. ``model_parallel``: Megatron-Core's buckets
    (service.time.buckets). ``beside_s``: the step's exposed model-parallel seconds on NVLink alone and on the NIC
    alone (service.time.mesh_traffic.beside_data_seconds); a data group whose ring leaves the node hides behind
    the first as behind compute, one inside a node behind the second (service.time.communication.data_windows).
    Numbers for one plan; arrays that broadcast for many cells."""
    data = data_groups_step(parts, setup, calls, m, forward_s, backward_s, layers, beside_s, model_parallel)
    return rank_totals(
        parts,
        setup,
        data,
        cpu_optimizer_bytes,
        m,
        n,
        g,
        compute_s,
        bubble_s,
        model_exposed_s,
        lever_hidden_s,
        tokens,
        model_flops,
        flops,
    )


def rank_totals(
    parts: list[Part],
    setup: Setup,
    data: "DataGroupsStep",
    cpu_optimizer_bytes: Any,
    m: Any,
    n: Any,
    g: Any,
    compute_s: Any,
    bubble_s: Any,
    model_exposed_s: Any,
    lever_hidden_s: Any,
    tokens: Any,
    model_flops: Any,
    flops: Any,
) -> RankStep:
    """What follows the data groups (``data``: data_groups_step) in every evaluation: the host link's transfers and
    CPU optimizer, the optimizer step on the GPU, the step's totals (step_totals)."""
    host = host_step(parts, setup, cpu_optimizer_bytes, m, n, g)
    optimizer_s = optimizer_step(parts, setup)
    totals = step_totals(
        setup,
        compute_s,
        bubble_s,
        model_exposed_s,
        data,
        lever_hidden_s,
        host.offload_s,
        optimizer_s,
        tokens,
        model_flops,
        flops,
        n,
    )
    return RankStep(data.prices, data.groups, data.total_s, data.exposed_s, host, optimizer_s, totals)


@dataclass(slots=True)
class DataGroupsStep:
    """The data-parallel groups of a stage's parts over a step: per part, its collectives' prices and time; summed,
    their seconds, what of them the step waits for, and what ran beside the compute (and so slows it)."""

    prices: list[list[CollectivePrice]]  # per part, per collective: data_call_prices
    groups: list[CommunicationTime]  # per part
    total_s: Any
    exposed_s: Any
    hidden_s: Any


def data_groups_step(
    parts: list[Part],
    setup: Setup,
    calls: list[StepCollective],
    m: Any,
    forward_s: Any,
    backward_s: Any,
    layers: Any,
    beside_s: tuple[Any, Any],
    model_parallel: Any = False,
    grouped: list[Any] | None = None,
) -> DataGroupsStep:
    """Each part's data group over a step (part_step), summed. ``grouped``: per part, where its group makes calls (a
    grid's masks, for rows whose part has no group of its own or none at all); None: every part's."""
    prices: list[list[CollectivePrice]] = []
    groups: list[CommunicationTime] = []
    sums: list[Any] = [0.0, 0.0, 0.0]  # total, exposed, and beside compute: what slows it (nothing beside a wait)
    for i, part in enumerate(parts):
        found = part_step(part, setup, calls, m, forward_s, backward_s, layers, beside_s, model_parallel)
        timed = found.timed
        prices.append(found.prices)
        groups.append(timed)
        terms = [timed.total_s, timed.exposed_s, found.hidden_s]
        if grouped is not None:
            terms = [select(grouped[i], term, 0.0) for term in terms]
        # the first part's seconds as they are (0.0 + x is x: no array copied), the others added
        sums = terms if i == 0 else [total + term for total, term in zip(sums, terms, strict=True)]
    return DataGroupsStep(prices, groups, *sums)
