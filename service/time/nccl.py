"""One NCCL call priced as NCCL's own tuning model prices it, and the algorithm and protocol it picks.

Source: NVIDIA/nccl ``src/graph/tuning.cc`` @5067397c2676d5aed50042fc39e5c8ee96eb0027 (``ncclTopoTuneModel``
and ``ncclTopoGetAlgoTime``). For every algorithm and protocol a collective can run, NCCL predicts

    time_us = latency_us + n_bytes / (1000 x algorithm bandwidth in GB/s)

and runs the enabled pair of least time. Latency is a base per (algorithm, protocol) plus per-step hardware
latencies: a ring of N ranks over ``nodes`` nodes takes 2 (N - 1) steps for an all-reduce (N - 1 for an
all-gather or reduce-scatter), of which only 2 (nodes - 1) (nodes - 1) leave a node and pay the network's
latency; the others pay NVLink's (at least the network post overhead, tripled for Simple, once the ring spans
nodes). A tree all-reduce pays 2 ((G - 1) intra + log2(nodes) inter) steps; NVLS one NVLink SHARP step
(and, across nodes, NVLS-tree 2 log2(nodes) network steps); PAT (all-gather and reduce-scatter with one GPU
per node) log2(nodes) steps at 1/3.5 of the network's latency plus 2.8 us per rank. Bandwidth is the ring's
bus bandwidth (``bus``: channels x per-channel speed) refined per algorithm and protocol: LL at half of it
under a per-system ceiling, LL128 at 92% under a per-channel ceiling, the tree at 92% under its own, NVLS at
its efficiency (0.85 on Hopper) times two for an all-reduce, PAT at 75%; the ring's bus bandwidth becomes an
algorithm bandwidth x N / steps, the tree's x 1/2. The tree's all-reduce is corrected by size
(``treeCorrectionFactor``), as is NVLS-tree's on Blackwell (x86 hosts: HGX B200 and B300), and a multi-node
ring's Simple all-reduce latency x 1.4 past 64 bytes per channel and rank (the ring's "plateau").

What this module takes from the system rather than from NCCL's topology search (``src/graph/search.cc``):
- ``bus``: the ring's Simple bus bandwidth, priced by service.time.efficiency.bus_speeds from measured
  nccl-tests figures;
- channels: two per GPU of the node (one per NIC or NVLink path, doubled by ``ncclTopoDupChannels`` when a
  channel runs at 25 GB/s or more), 2 to 32; NVLS runs 16 on Hopper and 32 on Blackwell
  (``src/transport/nvls.cc``, NVLS_NCHANNELS_SM90 / SM100). Channels only bound the LL128 and tree ceilings;
- the CPU: AMD on Ampere and CDNA systems (DGX A100's EPYC 7742), Intel otherwise (DGX H100's Xeon 8480C):
  it picks the LL ceiling and the network post overhead (1 us Intel, 2 us AMD, ``getNetOverhead``);
- the network's own latency (``graph->latencyInter``): 0, as NCCL's InfiniBand and socket plugins report it
  (``src/transport/net_ib/init.cc``: ``props->latency = 0; // Not set``);
- NVLS (NVLink SHARP) only on Hopper and later with an NVLink switch, and across nodes only as NVLS-tree
  (NVLS proper across nodes needs CollNet, which NCCL disables by default); CollNet is not priced;
- the tree is taken as balanced (the 0.85 of ``NCCL_TOPO_PATTERN_TREE`` is not applied).

Every formula takes Python numbers or numpy arrays (ranks, nodes, bytes, bus bandwidths), choosing by
``select``/``minimum`` so that a sweep of layouts runs through the same lines as one plan.
"""

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from models.enums import CollectiveName
from service.numeric import FloatLike, IntLike, any_array, maximum, minimum, select
from service.recent import recent

SOURCE = "NVIDIA/nccl src/graph/tuning.cc@5067397c2676d5aed50042fc39e5c8ee96eb0027"

ALGORITHMS = ("ring", "tree", "nvls", "nvls_tree", "pat")
PROTOCOLS = ("LL", "LL128", "Simple")
RING, TREE, NVLS, NVLS_TREE, PAT = range(5)
LL, LL128, SIMPLE = range(3)

# ncclTunerConstantsDefaults, in microseconds: base latency per algorithm and protocol (LL, LL128, Simple)
BASE_US = {RING: (6.6, 14.0, 8.4), TREE: (6.8, 14.0, 8.4), NVLS: (0.0, 0.0, 0.0), NVLS_TREE: (0.0, 0.0, 0.0)}
BASE_US[PAT] = (8.0, 8.0, 8.0)
# hwLatencies per step: NVLink, PCI and network
NVLINK_US = {RING: (0.6, 1.9, 3.4), TREE: (0.6, 1.25, 4.0), NVLS: (0.0, 0.0, 25.0), NVLS_TREE: (0.0, 0.0, 25.0)}
PCI_US = {RING: (1.0, 2.5, 5.7), TREE: (1.0, 1.9, 4.0), NVLS: (0.0, 0.0, 0.0), NVLS_TREE: (0.0, 0.0, 0.0)}
NET_US = {RING: (2.7, 4.0, 14.0), TREE: (5.0, 8.5, 14.0), NVLS: (0.0, 0.0, 18.0), NVLS_TREE: (0.0, 0.0, 20.9)}
NVLINK_US[PAT], PCI_US[PAT], NET_US[PAT] = (0.0, 0.0, 4.0), (0.0, 0.0, 4.0), (0.0, 0.0, 14.0)

# Compute-capability rows: Volta, Ampere, Hopper, Blackwell (NCCL's compCapIndex)
VOLTA, AMPERE, HOPPER, BLACKWELL = range(4)
NVLS_EFFICIENCY = (0.0, 0.0, 0.85, 0.74)
# llMaxBws[index1][index2]: one node by GPU row; across nodes row 0 (Intel CPU) or 1 (AMD); index2 = 1, 2, >2 nodes
LL_MAX_GBPS = ((39.0, 39.0, 20.4), (87.7, 22.5, 19.0), (141.0, 45.0, 35.0), (2 * 141.0, 2 * 45.0, 2 * 35.0))
RING_LL128_PER_CHANNEL_GBPS = ((20.0, 20.0, 20.0), (20.0, 20.0, 20.0), (36.7, 36.7, 36.7), (40.0, 40.0, 40.0))
TREE_LL128_PER_CHANNEL_GBPS = ((20.0, 20.0, 20.0), (20.0, 20.0, 20.0), (36.7, 36.7, 29.0), (55.6, 31.67, 20.0))
TREE_PER_CHANNEL_GBPS = ((26.5, 18.5, 10.0), (24.0, 23.6, 17.8), (38.7, 41.4, 36.0), (70.0, 42.8, 24.0))
NVLS_TREE_PER_CHANNEL_GBPS = ((26.5, 18.5, 10.0), (24.0, 23.6, 17.8), (0.0, 57.7, 45.5), (0.0, 96.0, 80.0))
# treeCorrectionFactor[protocol][log2(bytes / 64)], 64 B to 1 GB: the tree reads the first 23 (to 512 MB), NVLS-tree
# on Blackwell all 24
TREE_CORRECTION = (
    (
        *(1.0, 1.0, 1.0, 1.0, 0.9, 0.8, 0.7, 0.7, 0.7, 0.7, 0.6, 0.5),
        *(0.4, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.0, 1.0, 1.0, 1.0),
    ),
    (
        *(1.0, 1.0, 1.0, 1.0, 1.0, 0.9, 0.8, 0.8, 0.8, 0.7, 0.6, 0.6),
        *(0.6, 0.6, 0.6, 0.6, 0.8, 0.9, 0.9, 0.9, 0.9, 1.0, 1.0, 1.0),
    ),
    (
        *(0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.8, 0.7, 0.6, 0.6, 0.5),
        *(0.5, 0.5, 0.5, 0.6, 0.7, 0.8, 0.7, 0.7, 0.8, 0.9, 0.9, 0.9),
    ),
)
# search.cc's per-channel speeds (GB/s) a graph is searched at, fastest first: sm90SpeedArrayIntra/Inter and
# sm100SpeedArrayIntra/Inter
SM90_INTRA = (60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0)
SM90_INTER = (48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12)
SM100_INTRA = (90.0, 80.0, 70.0, 60.0, 50.0, 45.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0)
SM100_INTER = (
    *(96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0),
    *(20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12),
)
RING_PLATEAU = 1.4  # compCap >= 80 (1.9 before): a multi-node ring's Simple all-reduce latency past 64 B per channel


class NcclSystem(NamedTuple):
    """What NCCL's tuning reads of the machine beyond sizes and speeds (module docstring). A named tuple: immutable,
    and hashed in C, which the memoised pricing does for every call of every plan."""

    generation: int = HOPPER  # compCapIndex
    amd_cpu: bool = False
    nvlink: bool = True  # GPUs of a node joined by NVLink (else PCIe: LL128 and NVLS off)
    nvswitch: bool = True  # an NVLink switch: NVLS possible from Hopper on


def nccl_system(generation: str | None, intra_node_bytes_per_s: float) -> NcclSystem:
    """The system of a GPU generation (models.enums.GpuGeneration's values): NVLink when the scale-up link runs
    faster than PCIe 5.0 x16 (64 GB/s a direction); an NVLink switch (so NVLS) on Hopper and Blackwell boards
    alone. A card of no known generation takes Hopper's constants without NVLS."""
    index = {"volta": VOLTA, "ampere": AMPERE, "ada": AMPERE, "hopper": HOPPER}.get(generation or "hopper", BLACKWELL)
    amd = generation in ("ampere", "cdna2", "cdna3", "cdna4")
    if generation in ("cdna2", "cdna3", "cdna4"):  # RCCL on Infinity Fabric: Ampere's constants, no NVLS
        index = AMPERE
    nvlink = intra_node_bytes_per_s > 64e9
    switch = generation in ("hopper", "blackwell", "blackwell_ultra")
    return NcclSystem(index, amd, nvlink, nvlink and switch)


@dataclass(slots=True)
class NcclCall:
    """One call: its predicted seconds, the latency part of them, and the algorithm and protocol NCCL picks
    (indices into ALGORITHMS and PROTOCOLS; numbers, or arrays for many layouts). One plan's are memoised and
    shared: never changed once made."""

    seconds: FloatLike
    latency_s: FloatLike
    algorithm: IntLike
    protocol: IntLike


def lesser(a: FloatLike, b: FloatLike) -> FloatLike:
    """Element-wise minimum of numbers or arrays (numbers stay Python numbers)."""
    return minimum(a, b)


def greater(a: FloatLike, b: FloatLike) -> FloatLike:
    return maximum(a, b)


def log2i(value: IntLike) -> IntLike:
    """floor(log2(value)) for value >= 1, as NCCL's log2i."""
    if isinstance(value, np.ndarray):
        return np.floor(np.log2(np.maximum(value, 1))).astype(np.int64)
    return max(int(value), 1).bit_length() - 1


def channels(ranks_per_node: FloatLike) -> FloatLike:
    """Ring and tree channels: two per GPU of the node, 2 to 32 (module docstring)."""
    return lesser(greater(2 * ranks_per_node, 2), 32)


def _steps(name: CollectiveName, ranks: IntLike) -> IntLike:
    return 2 * (ranks - 1) if name is CollectiveName.all_reduce else ranks - 1


def _latency_us(
    name: CollectiveName, algorithm: int, protocol: int, ranks: IntLike, nodes: IntLike, system: NcclSystem
) -> FloatLike:
    """comm->latencies[coll][algorithm][protocol] of ncclTopoTuneModel."""
    ppn = ranks / nodes
    one_node, one_per_node = nodes == 1, ppn == 1
    intra_table = NVLINK_US if system.nvlink else PCI_US
    intra = intra_table[algorithm][protocol]
    # With one GPU per node every step is exposed: the tree's network latency; graph->latencyInter is 0
    inter = select(one_per_node, NET_US[TREE][protocol], NET_US[algorithm][protocol])
    base = BASE_US[algorithm][protocol]
    if algorithm == RING:
        overhead = (2.0 if system.amd_cpu else 1.0) * (3 if protocol == SIMPLE else 1)
        intra_step = select(one_node, intra, greater(intra, overhead))
        steps = _steps(name, ranks)
        inter_steps = select(one_node, 0, _steps(name, nodes))
        return base + (steps - inter_steps) * intra_step + inter_steps * inter
    if algorithm == TREE:
        return base + 2 * ((ppn - 1) * intra + log2i(nodes) * inter)
    if algorithm == NVLS:
        return intra + 0.0 * ppn
    if algorithm == NVLS_TREE:
        return base + intra + 2 * log2i(nodes) * inter
    return base + log2i(nodes) * (inter / 3.5) + ranks * 2.8  # PAT


def _bandwidth_gbps(
    name: CollectiveName,
    algorithm: int,
    protocol: int,
    ranks: IntLike,
    nodes: IntLike,
    bus_gbps: FloatLike,
    system: NcclSystem,
    nvlink_gbps: FloatLike,
) -> FloatLike:
    """comm->bandwidths[coll][algorithm][protocol]: the algorithm bandwidth NCCL divides the bytes by (GB/s)."""
    gen, ppn = system.generation, ranks / nodes
    index2 = lesser(nodes, 3) - 1
    nch = channels(ppn)
    row = select(nodes == 1, gen, 1 if system.amd_cpu else 0)
    ll_max = np.asarray(LL_MAX_GBPS)[row, index2] if isinstance(index2, np.ndarray) else LL_MAX_GBPS[row][index2]
    steps = greater(_steps(name, ranks), 1)
    if algorithm == RING:
        bus = bus_gbps
        if protocol == LL:
            bus = lesser(ll_max, bus_gbps * 0.5)
        elif protocol == LL128:
            bus = lesser(bus_gbps * 0.92, nch * _pick(RING_LL128_PER_CHANNEL_GBPS[gen], index2))
        return bus * ranks / steps
    if algorithm == TREE:  # all-reduce only
        bus = lesser(bus_gbps * 0.92, nch * _pick(TREE_PER_CHANNEL_GBPS[gen], index2))
        if protocol == LL:
            bus = lesser(bus / 3.8, ll_max)
        elif protocol == LL128:
            bus = lesser(
                bus * select(nodes == 1, 7.0 / 9.0, 120.0 / 128.0),
                nch * _pick(TREE_LL128_PER_CHANNEL_GBPS[gen], index2),
            )
        return bus * 0.5
    if algorithm == PAT:
        return bus_gbps * 0.75  # all-gather and reduce-scatter keep their bus bandwidth for non-ring algorithms
    # The NVLS graph's per-channel speeds: the fastest of search.cc's speed arrays that its channels fit in the
    # NVLink bus bandwidth (inside) and in the ring's bus bandwidth across nodes (ncclTopoCompute)
    nvls_channels = 32 if gen >= BLACKWELL else 16
    intra_speeds, inter_speeds = (SM100_INTRA, SM100_INTER) if gen >= BLACKWELL else (SM90_INTRA, SM90_INTER)
    intra_bw = searched_speed(nvlink_gbps / nvls_channels, intra_speeds)
    intra_bw = intra_bw * NVLS_EFFICIENCY[gen] * (nvls_channels - 1) / nvls_channels
    intra_bw = intra_bw * 2.0 if name is CollectiveName.all_reduce else intra_bw * (ppn - 1) / ppn
    if algorithm == NVLS:
        return nvls_channels * intra_bw * ranks / steps
    inter_bw = searched_speed(bus_gbps / nvls_channels, inter_speeds) * select(nodes <= 2, 2.0, 1.0)  # NVLS tree
    per = lesser(lesser(intra_bw, inter_bw), _pick(NVLS_TREE_PER_CHANNEL_GBPS[gen], index2))
    return nvls_channels * per * ranks / steps


def searched_speed(available_gbps: FloatLike, speeds: tuple[float, ...]) -> FloatLike:
    """The fastest of ``speeds`` (fastest first) not above ``available_gbps``, else the slowest: the per-channel
    speed NCCL's search settles on (numbers, or arrays)."""
    if isinstance(available_gbps, np.ndarray):
        chosen = np.full(available_gbps.shape, speeds[-1])
        for speed in reversed(speeds):
            chosen = np.where(available_gbps >= speed, speed, chosen)
        return chosen
    return next((speed for speed in speeds if speed <= available_gbps), speeds[-1])


def _pick(row: tuple[float, ...], index: IntLike) -> FloatLike:
    """row[index], for an index or an array of them."""
    if isinstance(index, np.ndarray):
        return np.asarray(row)[index]
    return row[int(index)]


def candidates(
    name: CollectiveName, ranks: IntLike, nodes: IntLike, system: NcclSystem
) -> list[tuple[int, int, FloatLike]]:
    """(algorithm, protocol, enabled) of every pair NCCL may run for this collective (enabled: a flag, or a bool
    array where it depends on the layout)."""
    ppn = ranks / nodes
    pairs: list[tuple[int, int, FloatLike]] = []
    ll128 = system.nvlink  # LL128: on NVLink (typeIntra <= PATH_NVB), the NIC path PXB/PXN assumed
    for protocol in (LL, LL128, SIMPLE):
        pairs.append((RING, protocol, ll128 if protocol == LL128 else True))
    nvls = system.nvswitch and system.generation >= HOPPER
    if name is CollectiveName.all_reduce:
        for protocol in (LL, LL128, SIMPLE):
            pairs.append((TREE, protocol, ll128 if protocol == LL128 else True))
        if nvls:
            pairs.append((NVLS, SIMPLE, nodes == 1))
            pairs.append((NVLS_TREE, SIMPLE, nodes > 1))
        return pairs
    if nvls:
        pairs.append(
            (NVLS, SIMPLE, (nodes == 1) & (ppn > 1) if isinstance(nodes, np.ndarray) else nodes == 1 and ppn > 1)
        )
    pairs.append((PAT, SIMPLE, ppn == 1))  # ncclPatEnable: one GPU per node
    return pairs


# (algorithm, protocol, enabled, size_correction, latency in us, algorithm bandwidth in GB/s) of each pair
PairTerms = list[tuple[int, int, FloatLike, int, FloatLike, FloatLike]]


def call_time(
    name: CollectiveName,
    n_bytes: IntLike,
    ranks: IntLike,
    nodes: IntLike,
    bus_bytes_per_s: FloatLike,
    system: NcclSystem,
    nvlink_bytes_per_s: FloatLike | None = None,
) -> NcclCall:
    """One call of ``n_bytes`` (the whole buffer: an all-gather's output, a reduce-scatter's input) over ``ranks``
    GPUs on ``nodes`` nodes, the ring's Simple bus bandwidth ``bus_bytes_per_s``: what NCCL predicts for the
    pair it picks (ncclTopoGetAlgoTime, the least time of the enabled pairs). ``nvlink_bytes_per_s``: the bus
    bandwidth of NVLink inside a node, which NVLS reads (default: ``bus_bytes_per_s``)."""
    nvlink = bus_bytes_per_s if nvlink_bytes_per_s is None else nvlink_bytes_per_s
    # one plan's Python numbers already: no array tests, nothing to convert
    if type(n_bytes) is type(ranks) is type(nodes) is int and type(bus_bytes_per_s) is type(nvlink) is float:
        return _one_call(name, n_bytes, ranks, nodes, bus_bytes_per_s, system, nvlink)
    if any_array(n_bytes, ranks, nodes, bus_bytes_per_s, nvlink):
        return _array_call_time(name, n_bytes, ranks, nodes, bus_bytes_per_s, system, nvlink)
    # one plan: a pure function of hashable numbers, asked again by every plan of the same shape
    return _one_call(name, int(n_bytes), int(ranks), int(nodes), float(bus_bytes_per_s), system, float(nvlink))


@recent(4)  # a grid's groups make calls of the same buffer for other purposes (attention's and the MLP's)
def _array_call_time(
    name: CollectiveName,
    n_bytes: IntLike,
    ranks: IntLike,
    nodes: IntLike,
    bus: FloatLike,
    system: NcclSystem,
    nvlink: FloatLike,
) -> NcclCall:
    """_call_time over arrays (many layouts), the last answers kept (service.recent): shared, never changed."""
    if not any_array(n_bytes, ranks, nodes, bus):  # NVLink's bandwidth alone an array: one group of numbers
        return _one_call(name, int(n_bytes), int(ranks), int(nodes), float(bus), system, float(nvlink))
    return _call_time(name, n_bytes, ranks, nodes, _array_pair_terms(name, ranks, nodes, bus, system, nvlink), True)


@lru_cache(maxsize=4096)
def _one_call(
    name: CollectiveName, n_bytes: int, ranks: int, nodes: int, bus: float, system: NcclSystem, nvlink: float
) -> NcclCall:
    if ranks <= 1:  # a group of one rank makes no call
        return NcclCall(0.0, 0.0, RING, SIMPLE)
    terms = _one_group_pair_terms(name, ranks, nodes, bus, system, nvlink)
    return _call_time(name, n_bytes, ranks, nodes, terms, False)


def _call_time(
    name: CollectiveName, n_bytes: IntLike, ranks: IntLike, nodes: IntLike, terms: PairTerms, several: bool
) -> NcclCall:
    """One call of ``n_bytes`` (the whole buffer: an all-gather's output, a reduce-scatter's input) over ``ranks``
    GPUs on ``nodes`` nodes, its group's pairs ``terms`` (_pair_terms) refined by the buffer's size: what NCCL
    predicts for the pair it picks (ncclTopoGetAlgoTime, the least time of the enabled pairs); ``several``: some
    of the sizes, ranks, nodes and speeds are arrays (many layouts), else they are Python numbers of a group of
    more than one rank."""
    # log2(bytes / 64) indexes the tree's size corrections, which an all-reduce alone takes (size_correction)
    log_size = log2i(n_bytes // 64) if name is CollectiveName.all_reduce else 0
    best_s: FloatLike = math.inf
    best_latency_s: FloatLike = 0.0
    best_algorithm: IntLike = RING
    best_protocol: IntLike = SIMPLE
    taken: list[
        tuple[Any, FloatLike, int, int]
    ] = []  # many layouts: each pair's (better, latency, algorithm, protocol)
    for algorithm, protocol, enabled, correction, latency_us, bandwidth in terms:
        if correction:
            latency_us, bandwidth = size_corrected(
                correction, protocol, latency_us, bandwidth, n_bytes, log_size, ranks, nodes
            )
        if not several:  # one plan: numbers, the faster pair taken as it is
            seconds = (latency_us + n_bytes / (1000.0 * bandwidth)) * 1e-6
            if seconds < best_s:
                best_s, best_latency_s, best_algorithm, best_protocol = seconds, latency_us * 1e-6, algorithm, protocol
            continue
        with np.errstate(divide="ignore", invalid="ignore"):  # a pair some layouts cannot run has no bandwidth there
            seconds = (latency_us + n_bytes / (1000.0 * bandwidth)) * 1e-6
        better = enabled & (seconds < best_s)  # masked out by ``enabled`` where it cannot run
        best_s = select(better, seconds, best_s)
        taken.append((better, latency_us, algorithm, protocol))
    if not several:  # Python numbers throughout (_one_call)
        return NcclCall(best_s, best_latency_s, best_algorithm, best_protocol)
    alone = ranks <= 1
    return _PickedCall(select(alone, 0.0, best_s), alone, taken)


# ncclTopoGetAlgoTime's corrections of a pair by the buffer's size, resolved per pair with its terms (size_correction)
NO_CORRECTION, TREE_SIZE, NVLS_TREE_SIZE, RING_PLATEAU_LATENCY = range(4)
TREE_CORRECTION_ENTRIES = {TREE_SIZE: 23, NVLS_TREE_SIZE: 24}  # of treeCorrectionFactor's 24 (module docstring)


def size_correction(name: CollectiveName, algorithm: int, protocol: int, system: NcclSystem) -> int:
    """Which of ncclTopoGetAlgoTime's corrections by size a pair takes (size_corrected): the tree's all-reduce,
    NVLS-tree's all-reduce from compute capability 10 on x86 hosts, a ring's Simple all-reduce."""
    if algorithm == TREE:
        return TREE_SIZE
    if algorithm == NVLS_TREE and name is CollectiveName.all_reduce and system.generation >= BLACKWELL:
        return NVLS_TREE_SIZE
    if algorithm == RING and protocol == SIMPLE and name is CollectiveName.all_reduce:
        return RING_PLATEAU_LATENCY
    return NO_CORRECTION


def size_corrected(
    correction: int,
    protocol: int,
    latency_us: FloatLike,
    bandwidth: FloatLike,
    n_bytes: IntLike,
    log_size: IntLike,
    ranks: IntLike,
    nodes: IntLike,
) -> tuple[FloatLike, FloatLike]:
    """(latency in us, bandwidth in GB/s) of a pair corrected for a buffer of ``n_bytes`` (log_size: log2(bytes /
    64)): the tree's and NVLS-tree's bandwidth by treeCorrectionFactor, 64 B up to their last entry; a multi-node
    ring's Simple latency x RING_PLATEAU past 64 bytes per channel and rank."""
    if correction == RING_PLATEAU_LATENCY:
        plateau = (nodes > 1) & (n_bytes / (channels(ranks / nodes) * ranks) >= 64)
        return latency_us * select(plateau, RING_PLATEAU, 1.0), bandwidth
    entries = TREE_CORRECTION_ENTRIES[correction]
    factor = _pick(TREE_CORRECTION[protocol], lesser(greater(log_size, 0), entries - 1))
    return latency_us, bandwidth * select((n_bytes >= 64) & (log_size < entries), factor, 1.0)


class _PickedCall(NcclCall):
    """NcclCall of many layouts whose latency, algorithm and protocol are read from the pairs only when asked
    (a grid reads the seconds alone): each taken pair by pair where it was better, as _call_time takes the
    seconds, then 0 latency where the group has one rank (``alone``)."""

    __slots__ = ("_alone", "_taken", "_read")

    def __init__(self, seconds: FloatLike, alone: Any, taken: list[tuple[Any, FloatLike, int, int]]) -> None:
        self.seconds = seconds
        self._alone: Any = alone
        self._taken = taken
        self._read: tuple[FloatLike, IntLike, IntLike] | None = None

    def _picks(self) -> tuple[FloatLike, IntLike, IntLike]:
        if self._read is None:
            latency_s: FloatLike = 0.0
            algorithm: IntLike = RING
            protocol: IntLike = SIMPLE
            for better, latency_us, pair_algorithm, pair_protocol in self._taken:
                latency_s = select(better, latency_us * 1e-6, latency_s)
                algorithm = select(better, pair_algorithm, algorithm)
                protocol = select(better, pair_protocol, protocol)
            self._read = (select(self._alone, 0.0, latency_s), algorithm, protocol)
        return self._read

    @property
    def latency_s(self) -> FloatLike:
        return self._picks()[0]

    @property
    def algorithm(self) -> IntLike:  # type: ignore[override]
        return self._picks()[1]

    @property
    def protocol(self) -> IntLike:  # type: ignore[override]
        return self._picks()[2]


@recent(4)  # a grid prices several calls of one group (buffers of other sizes on the same ranks, nodes, links)
def _array_pair_terms(
    name: CollectiveName,
    ranks: IntLike,
    nodes: IntLike,
    bus_bytes_per_s: FloatLike,
    system: NcclSystem,
    nvlink_bytes_per_s: FloatLike,
) -> PairTerms:
    """_pair_terms over arrays (many layouts), those of the last groups asked for kept (service.recent): the
    terms are read, never written, by _call_time."""
    return _pair_terms(name, ranks, nodes, bus_bytes_per_s, system, nvlink_bytes_per_s, True)


@lru_cache(maxsize=1024)  # every plan on the same GPUs asks for them again
def _one_group_pair_terms(
    name: CollectiveName, ranks: int, nodes: int, bus: float, system: NcclSystem, nvlink: float
) -> PairTerms:
    return _pair_terms(name, ranks, nodes, bus, system, nvlink, False)


def _pair_terms(
    name: CollectiveName,
    ranks: IntLike,
    nodes: IntLike,
    bus_bytes_per_s: FloatLike,
    system: NcclSystem,
    nvlink_bytes_per_s: FloatLike,
    several: bool,
) -> PairTerms:
    """(algorithm, protocol, enabled, size correction, latency in us, algorithm bandwidth in GB/s) of every pair
    NCCL may run, before the buffer's size refines them (_call_time); ``several``: arrays for many layouts, else
    numbers, whose pairs are the enabled ones alone and depend on the group and its links, not on the bytes."""
    bus_gbps, nvlink_gbps = bus_bytes_per_s / 1e9, nvlink_bytes_per_s / 1e9
    terms: PairTerms = []
    for algorithm, protocol, enabled in candidates(name, ranks, nodes, system):
        if not several and not enabled:
            continue
        correction = size_correction(name, algorithm, protocol, system)
        latency_us = _latency_us(name, algorithm, protocol, ranks, nodes, system)
        bandwidth = _bandwidth_gbps(name, algorithm, protocol, ranks, nodes, bus_gbps, system, nvlink_gbps)
        terms.append((algorithm, protocol, enabled, correction, latency_us, bandwidth))
    return terms


def algorithm_name(algorithm: int, protocol: int) -> str:
    """'ring/Simple', 'tree/LL', ..."""
    return f"{ALGORITHMS[algorithm]}/{PROTOCOLS[protocol]}"
