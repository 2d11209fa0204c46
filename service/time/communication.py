"""Communication time: each data-parallel collective as NCCL runs it, and what overlap hides.

As NCCL runs it (price_collectives): the collective's buffer is cut into its framework's buckets or FSDP units
(service.time.buckets), and each call is priced by NCCL's own tuning model (service.time.nccl): the algorithm
and protocol NCCL picks, base and per-step latency, only the steps that leave a node at the network's latency,
at the ring's bus bandwidth over every NIC of a node (service.time.efficiency.bus_speeds).

alpha-beta (Hockney 1994; Thakur, Rabenseifner and Gropp 2005) prices what NCCL's model does not (a pipeline's
sends, an all-to-all: alpha_beta_seconds): hops x latency + bytes sent / bandwidth of the link; an all-to-all
whose group leaves the node sends its chunks for other nodes through the NIC and those for its own node over
NVLink at once, and lasts the longer (service.time.mesh_traffic.all_to_all_seconds). The two-level
split of the bytes (all-reduce = reduce-scatter in the node (G), all-reduce of the 1/G shard across
nodes (N/G), all-gather in the node; the NCCL/Horovod scheme, Sergeev and Del Balso 2018) still reports how many
bytes stay inside a node (hierarchical_link_bytes).

Overlap (Li et al. 2020, PyTorch DDP, section 3.2.3): gradients are reduced bucket by bucket
while the backward pass goes on, so the exposed time of a window is at least one bucket (the
last one, which has no compute left to hide under) plus whatever the window's compute cannot
cover. ZeRO-3's forward gathers are prefetched under the forward pass except the first.
"""

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from models.enums import CollectiveName, Link
from service.inputs.arrangements import Sharding
from service.memory.model_states import shard_elements
from service.numeric import CountLike, FloatLike, IntLike, ceil_div, group_digits, minimum, select
from service.time.buckets import call_count, data_bucket_bytes
from service.time.collectives import ring_bytes_sent
from service.time.efficiency import LinkSpeeds
from service.time.nccl import SOURCE, NcclCall, NcclSystem, algorithm_name, call_time
from service.time.traffic import (
    RankGroup,
    StepCollective,
    Window,
    collective_buffer_bytes,
    collective_ranks,
    node_count,
)

RS, AG, AR = CollectiveName.reduce_scatter, CollectiveName.all_gather, CollectiveName.all_reduce


def alpha_beta_seconds(hops: IntLike, bytes_sent: IntLike, latency_s: float, bytes_per_s: float) -> FloatLike:
    """hops x latency + bytes / bandwidth."""
    return hops * latency_s + bytes_sent / bytes_per_s


def link_speed(link: Link | np.ndarray, links: LinkSpeeds) -> tuple[FloatLike, FloatLike]:
    """(latency_s, bytes_per_s) of a link; for many layouts a bool array (True: inter-node) selects."""
    if isinstance(link, np.ndarray):
        return (
            np.where(link, links.inter_node_latency_s, links.intra_node_latency_s),
            np.where(link, links.inter_node_bytes_per_s, links.intra_node_bytes_per_s),
        )
    if link is Link.intra_node:
        return links.intra_node_latency_s, links.intra_node_bytes_per_s
    if link is Link.inter_node:
        return links.inter_node_latency_s, links.inter_node_bytes_per_s
    return 0.0, links.host_bytes_per_s


class Phase(NamedTuple):
    """One ring collective on one link: the unit the time model prices (a named tuple: immutable, and
    several times cheaper to build than a frozen dataclass, which the hierarchical schedule does per call)."""

    name: CollectiveName
    elements: IntLike
    ranks: IntLike
    link: Link


def phase_bytes(phase: Phase, dtype: FloatLike) -> IntLike:
    return ring_bytes_sent(phase.name, phase.elements, phase.ranks, dtype)


def one_node(n: IntLike, g: IntLike) -> FloatLike:
    """N <= G: the ring stays inside a node (a bool for one plan, an array for a sweep)."""
    return n <= g


def flat_link(c: StepCollective, n: IntLike, g: IntLike) -> Link | None:
    """The slowest link a flat ring crosses; None when it depends on the cell (N <= G or not)."""
    if c.group is RankGroup.node:
        return Link.intra_node
    if c.group is RankGroup.replicas:
        return Link.inter_node
    inside = one_node(n, g)
    if inside is True or inside is False:
        return Link.intra_node if inside else Link.inter_node
    return None


def hierarchical_phases(c: StepCollective, elements: IntLike, n: IntLike, g: IntLike) -> list[Phase]:
    """The two-level schedule of a collective over all N GPUs (valid when G divides N)."""
    nodes = node_count(n, g)
    node_shard = shard_elements(elements, g)
    if c.name is AR:
        return [
            Phase(RS, elements, g, Link.intra_node),
            Phase(AR, node_shard, nodes, Link.inter_node),
            Phase(AG, elements, g, Link.intra_node),
        ]
    if c.name is RS:
        return [Phase(RS, elements, g, Link.intra_node), Phase(RS, node_shard, nodes, Link.inter_node)]
    if c.name is AG:
        return [Phase(AG, node_shard, nodes, Link.inter_node), Phase(AG, elements, g, Link.intra_node)]
    raise KeyError(c.name)


def hierarchical_link_bytes(
    c: StepCollective, elements: IntLike, n: IntLike, g: IntLike, flat_bytes: IntLike | None = None
) -> tuple[IntLike, IntLike]:
    """(intra-node, inter-node) bytes each GPU sends for one call on the hierarchical schedule; ``flat_bytes``: what
    one call sends on the flat ring (service.time.traffic.collective_bytes_sent), when the caller has them."""
    if c.group is RankGroup.node:
        return ring_bytes_sent(c.name, elements, g, c.dtype), 0
    if c.group is RankGroup.replicas:
        return 0, ring_bytes_sent(c.name, elements, node_count(n, g), c.dtype)
    if flat_bytes is None:  # the data group's collective over all N GPUs: collective_bytes_sent's ring
        flat_bytes = ring_bytes_sent(c.name, elements, n, c.dtype)
    inside = one_node(n, g)
    if inside is True:  # one plan inside a node: the flat ring is the schedule
        return flat_bytes, 0
    intra: IntLike = 0
    inter: IntLike = 0
    for phase in hierarchical_phases(c, elements, n, g):
        if phase.link is Link.intra_node:
            intra = intra + phase_bytes(phase, c.dtype)
        else:
            inter = inter + phase_bytes(phase, c.dtype)
    if inside is False:  # one plan across nodes
        return intra, inter
    return select(n <= g, flat_bytes, intra), select(n <= g, 0, inter)


@dataclass(slots=True)
class CollectivePrice:
    """A collective of the step as NCCL runs it: ``calls`` calls (its buckets or FSDP units) of ``call`` each,
    priced by NCCL's tuning model (service.time.nccl); numbers, or arrays for many layouts."""

    calls: IntLike
    call: NcclCall
    bucket_bytes: IntLike  # bytes of one call's buffer
    buffer_bytes: IntLike  # bytes of the collective's whole buffer, cut into its calls

    @property
    def seconds(self) -> FloatLike:
        return self.calls * self.call.seconds

    @property
    def latency_s(self) -> FloatLike:
        return self.calls * self.call.latency_s


def price_fields(price: CollectivePrice) -> dict[str, object]:
    """What a plan's collective record shows of its price (one plan: numbers): its calls, NCCL's algorithm and
    protocol, the latency part of its seconds, and the arithmetic."""
    calls, call = int(price.calls), price.call
    algorithm = algorithm_name(int(call.algorithm), int(call.protocol))
    words = (
        f"; as NCCL runs it: {calls:,} call{'s' if calls != 1 else ''} of {group_digits(int(price.bucket_bytes))} B "
        f"({algorithm}, {SOURCE}), each {call.latency_s * 1e6:.4g} us latency + "
        f"{(call.seconds - call.latency_s) * 1e6:.4g} us of bytes over bandwidth = {calls:,} x "
        f"{call.seconds * 1e6:.4g} us"
    )
    return {"calls": calls, "algorithm": algorithm, "latency_s": float(price.latency_s), "words": words}


def group_nodes(c: StepCollective, n: IntLike, g: IntLike) -> IntLike:
    """Nodes the collective's ranks sit on: the data group's N over N / G nodes, a node's group on one, the
    replicas one GPU a node."""
    if c.group is RankGroup.node:
        return 1 + 0 * n
    return node_count(n, g)


def price_collective(
    c: StepCollective,
    p: IntLike,
    n: IntLike,
    g: IntLike,
    links: LinkSpeeds,
    system: NcclSystem,
    sharding: Sharding,
    model_parallel: Any,
    given_bucket_bytes: int | None,
    units: int | None,
) -> CollectivePrice:
    """One collective: its buffer cut into the framework's buckets (or FSDP units), each call priced by NCCL's
    model over the group's ranks and nodes at the ring's bus bandwidth (inside a node, or across)."""
    buffer = collective_buffer_bytes(p, c, g)
    ranks, nodes, bucket = collective_group(c, n, g, sharding, model_parallel, given_bucket_bytes)
    calls = call_count(buffer, bucket, units)
    per_call = ceil_div(buffer, calls)
    bus = select(nodes == 1, links.intra_node_bytes_per_s, links.inter_node_bytes_per_s)
    call = call_time(c.name, per_call, ranks, nodes, bus, system, links.intra_node_bytes_per_s)
    return CollectivePrice(select(ranks > 1, calls, 0 * calls), call, per_call, buffer)


def collective_group(
    c: StepCollective, n: IntLike, g: IntLike, sharding: Sharding, model_parallel: Any, given_bucket_bytes: int | None
) -> tuple[IntLike, IntLike, IntLike]:
    """(ranks, nodes, bucket bytes) of a data-group collective, whatever its buffer: numbers for one plan (a pure
    function of hashable values, asked again by every plan on the same GPUs), or arrays for many cells."""
    if type(n) is int and type(g) is int and type(model_parallel) is bool:
        return _one_collective_group(c, n, g, sharding, model_parallel, given_bucket_bytes)
    return _collective_group(c, n, g, sharding, model_parallel, given_bucket_bytes)


@lru_cache(maxsize=1024)
def _one_collective_group(
    c: StepCollective, n: int, g: int, sharding: Sharding, model_parallel: bool, given_bucket_bytes: int | None
) -> tuple[IntLike, IntLike, IntLike]:
    return _collective_group(c, n, g, sharding, model_parallel, given_bucket_bytes)


def _collective_group(
    c: StepCollective, n: IntLike, g: IntLike, sharding: Sharding, model_parallel: Any, given_bucket_bytes: int | None
) -> tuple[IntLike, IntLike, IntLike]:
    if c.name not in (AR, RS, AG):
        raise KeyError(c.name)  # the data group runs all-reduces, reduce-scatters and all-gathers only
    bucket = data_bucket_bytes(sharding, c.dtype, n, model_parallel, given_bucket_bytes)
    return collective_ranks(c, n, g), group_nodes(c, n, g), bucket


def price_collectives(
    calls: list[StepCollective],
    p: IntLike,
    n: IntLike,
    g: IntLike,
    links: LinkSpeeds,
    system: NcclSystem,
    sharding: Sharding,
    model_parallel: Any = False,
    given_bucket_bytes: int | None = None,
    units: int | None = None,
) -> list[CollectivePrice]:
    """price_collective of each of ``calls``, collectives of one cost_key priced once."""
    priced: dict[tuple[object, ...], CollectivePrice] = {}
    for c in calls:
        if c.cost_key not in priced:
            priced[c.cost_key] = price_collective(
                c, p, n, g, links, system, sharding, model_parallel, given_bucket_bytes, units
            )
    return [priced[c.cost_key] for c in calls]


def data_windows(
    forward_s: FloatLike, backward_s: FloatLike, beside_s: FloatLike, micro_batches: CountLike
) -> tuple[FloatLike, FloatLike]:
    """The forward and backward windows of a micro-batch that a data group's collectives hide behind: the
    compute's, and ``beside_s``, the step's exposed model-parallel seconds on the link the data ring does not
    wait on (service.time.mesh_traffic.beside_data_seconds), spread over the micro-batches and over the two windows
    as the compute is (a layer's model-parallel calls run where its compute does).

    The data group's collectives run on their own CUDA stream, not the compute stream: Megatron-Core's
    gradient reduce-scatters and parameter all-gathers are issued with async_op (megatron/core/distributed/
    param_and_grad_buffer.py @d98e8a64, start_grad_sync and start_param_sync), Megatron-FSDP's on its side
    stream (megatron/core/distributed/custom_fsdp/param_and_grad_buffer.py @1e057005, GradReducePipeline's
    reduce_scatter_stream, AllGatherPipeline's async all-gathers), FSDP2's on its all-gather and reduce-scatter
    streams. While the compute stream waits on a tensor-parallel collective or an expert all-to-all inside the
    node, a data ring across nodes keeps its NICs busy, as it does beside a GEMM; it is held back only by traffic
    on its own bottleneck link."""
    compute_s = forward_s + backward_s
    per_micro_batch = beside_s / micro_batches
    if (type(compute_s) is not float or type(per_micro_batch) is not float) and (
        isinstance(compute_s, np.ndarray) or isinstance(per_micro_batch, np.ndarray)
    ):
        share = np.divide(forward_s, compute_s, out=np.zeros_like(compute_s * per_micro_batch), where=compute_s > 0)
    else:
        share = forward_s / compute_s if compute_s > 0 else 0.0
    return forward_s + share * per_micro_batch, backward_s + (1 - share) * per_micro_batch


def beside_compute_s(
    hidden_s: FloatLike, forward_s: FloatLike, backward_s: FloatLike, window_f: FloatLike, window_b: FloatLike
) -> FloatLike:
    """Of a data group's hidden seconds, those beside compute: the compute's share of its windows (data_windows).
    Hidden communication slows only the kernels it runs beside (service.time.efficiency's overlap slowdown);
    beside a model-parallel wait no compute kernel runs."""
    compute_s, windows_s = forward_s + backward_s, window_f + window_b
    if (type(windows_s) is not float or type(hidden_s) is not float) and (
        isinstance(windows_s, np.ndarray) or isinstance(hidden_s, np.ndarray)
    ):
        # the share on the windows' own shape (a grid's layouts and recomputes), then one product on the hidden's
        ones = np.ones(np.broadcast(compute_s, windows_s).shape)
        share = np.divide(compute_s, windows_s, out=ones, where=np.asarray(windows_s) > 0)
        return hidden_s * share
    return hidden_s * (compute_s / windows_s) if windows_s > 0 else hidden_s


def exposed_in_window(total_s: FloatLike, bucket_s: FloatLike, window_compute_s: FloatLike) -> FloatLike:
    """min(total, bucket + max(0, total - bucket - compute)): one bucket is always exposed."""
    # one plan: scalars, no numpy call (exact float types first: an isinstance test that fails costs more)
    if (type(total_s) is float and type(bucket_s) is float and type(window_compute_s) is float) or not (
        isinstance(total_s, np.ndarray) or isinstance(bucket_s, np.ndarray) or isinstance(window_compute_s, np.ndarray)
    ):
        return float(min(total_s, bucket_s + max(0.0, total_s - bucket_s - window_compute_s)))
    excess_s = np.maximum(0.0, total_s - bucket_s - window_compute_s)
    exposed = np.minimum(total_s, bucket_s + excess_s)
    return exposed if isinstance(exposed, np.ndarray) else float(exposed)


@dataclass(slots=True)  # not frozen: built for every schedule of every plan, and a frozen __init__ costs more
class CommunicationTime:
    total_s: FloatLike
    exposed_s: FloatLike
    # per collective of the calls priced: one call's seconds, with its further buckets' or units' latency
    call_s: list[FloatLike] = field(default_factory=list)
    prices: list["CollectivePrice"] = field(default_factory=list)  # as NCCL runs each, when priced so


def communication_time(
    calls: list[StepCollective],
    micro_batches: CountLike,
    forward_s: FloatLike,
    backward_s: FloatLike,
    overlap: bool,
    prices: list[CollectivePrice],
) -> CommunicationTime:
    """Total and exposed communication per step of ``calls``, each as NCCL runs it (``prices``, price_collectives:
    its buckets or units, each at NCCL's tuning model); forward_s and backward_s are per micro-batch."""
    times: list[FloatLike] = []
    total: FloatLike = 0.0
    exposed: FloatLike = 0.0  # with overlap: the calls outside any window, then what each window exposes
    # per window, in the order of ``calls``: each collective's (collective, seconds, price)
    forward: list[tuple[StepCollective, FloatLike, CollectivePrice]] = []
    backward: list[tuple[StepCollective, FloatLike, CollectivePrice]] = []
    for c, price in zip(calls, prices, strict=True):
        t = price.seconds
        times.append(t)
        step_s = c.count_per_step * t
        total = total + step_s
        if c.window is Window.none:
            exposed = exposed + step_s
        elif c.window is Window.forward:
            forward.append((c, t, price))
        else:
            backward.append((c, t, price))
    if not overlap:
        return CommunicationTime(total, total, times, prices)
    # The k - 1 earlier micro-batches expose what their own window cannot hide (none when k = 1;
    # k may be an array in a sweep, where k - 1 = 0 zeroes the term cell by cell).
    if type(micro_batches) is int:  # one plan's k (an exact type test: an isinstance that fails costs more)
        earlier_micro_batches = micro_batches > 1
    else:
        earlier_micro_batches = isinstance(micro_batches, np.ndarray) or micro_batches > 1
    for in_window, compute_s in ((forward, forward_s), (backward, backward_s)):
        if not in_window:
            continue
        bucket_s = in_window[0][2].call.seconds  # one call of the window's first collective: its last
        last: FloatLike = 0.0
        every: FloatLike = 0.0
        repeated: FloatLike = 0.0
        for c, t, _ in in_window:
            last = last + t
            if c.per_micro_batch:
                every = every + t
            elif c.per_run:
                # once per run of the pipeline schedule (traffic.pipelined_collectives): each run's call is exposed
                # as the last one is, before its own run's window
                repeated = repeated + (c.count_per_step - 1) * exposed_in_window(t, minimum(bucket_s, t), compute_s)
        exposed = exposed + exposed_in_window(last, bucket_s, compute_s) + repeated
        if earlier_micro_batches:
            earlier = exposed_in_window(every, minimum(bucket_s, every), compute_s)
            exposed = exposed + (micro_batches - 1) * earlier
    return CommunicationTime(total, exposed, times, prices)


def step_seconds(
    compute_s: FloatLike,
    pipeline_bubble_s: FloatLike,
    exposed_communication_s: FloatLike,
    offload_s: FloatLike,
    optimizer_s: FloatLike,
    overlap_slowdown_s: FloatLike,
) -> FloatLike:
    """One optimizer step: the compute, the pipeline's idle time, the communication no compute hides, the
    offload's transfers and CPU optimizer, the optimizer step on the GPU and the slowdown that overlapped
    communication costs the compute, one after another."""
    return compute_s + pipeline_bubble_s + exposed_communication_s + offload_s + optimizer_s + overlap_slowdown_s
