"""NCCL's own tuning model (service/time/nccl.py) against published nccl-tests figures from 2 to 248 nodes.

Source of the model: NVIDIA/nccl src/graph/tuning.cc @5067397c2676d5aed50042fc39e5c8ee96eb0027 (ncclTopoTuneModel,
ncclTopoGetAlgoTime); the expected values are written out here from its constants. The figures are measurements
that NCCL's model predicts; nothing here was fitted to them.

Tolerances:
- small-message latency, 10%: the model's latency is NCCL's base latency plus its per-step hardware latencies, with
  nothing for nccl-tests' own launch; the rows a test reads spread by +-3% around their mean;
- bus bandwidth, 10%, as tests/golden/test_nccl.py holds the 1-, 2- and 4-node figures: the ring's bus bandwidth is
  this service's (370 of NVLink 4's 450 GB/s, nccl-tests issue 212; 96% of the NICs' line rate, nccl-tests issue
  119), NCCL's refinements per algorithm are its own;
- a choice between algorithms (NVLS on against off), 10% on the ratio of the two predictions against the ratio of
  the two measurements.
"""

import pytest

from models.enums import CollectiveName
from service.time.nccl import (
    HOPPER,
    LL,
    NVLS_TREE,
    RING,
    SIMPLE,
    TREE,
    NcclSystem,
    algorithm_name,
    call_time,
    nccl_system,
)

AR = CollectiveName.all_reduce
A100 = nccl_system("ampere", 300e9)  # NVLink 3 (300 GB/s a direction)
H100 = nccl_system("hopper", 450e9)  # NVLink 4 (450 GB/s) and NVLink switches: NVLS and NVLS-tree
H100_NVLS_OFF = NcclSystem(HOPPER, amd_cpu=False, nvlink=True, nvswitch=False)  # NCCL_NVLS_ENABLE=0
NVLINK3_BUS = 300e9 * 370 / 450  # nccl-tests issue 212: 370 GB/s of bus bandwidth on a 450 GB/s line
NVLINK4_BUS = 370e9
HDR_NIC = 200e9 / 8 * 0.96  # one 200 Gb/s InfiniBand HDR NIC, 96% of line rate (nccl-tests issue 119)
NDR_NIC = 400e9 / 8 * 0.96  # one 400 Gb/s NIC (NDR InfiniBand or 400G RoCE)


def all_reduce_bus_bandwidth(n_bytes, ranks, seconds):
    """nccl-tests' busbw for an all-reduce (doc/PERFORMANCE.md): algbw x 2 (n - 1) / n."""
    return n_bytes / seconds * 2 * (ranks - 1) / ranks


# NVIDIA/nccl issue 652 ("NCCL performance on 32 node cluster"): all_reduce_perf on 32 nodes of 8 x A100-SXM4 with
# 4 x InfiniBand HDR NICs a node; out-of-place times of the smallest sizes, in microseconds.
ISSUE_652_SMALL_US = {8: 62.99, 16: 62.85, 32: 65.46, 64: 63.54, 128: 63.94}


@pytest.mark.parametrize("n_bytes, measured_us", sorted(ISSUE_652_SMALL_US.items()))
def test_32_node_a100_small_all_reduce_is_the_tree_in_ll(n_bytes, measured_us):
    # tuning.cc: the tree's LL latency, base 6.8 us + 2 x ((8 - 1) x 0.6 us of NVLink + log2(32) x 5.0 us of
    # network) = 65.2 us; its bandwidth at these sizes adds under 0.01 us.
    tree_us = 6.8 + 2 * (7 * 0.6 + 5 * 5.0)
    call = call_time(AR, n_bytes, 256, 32, 4 * HDR_NIC, A100, NVLINK3_BUS)
    assert (call.algorithm, call.protocol) == (TREE, LL)
    assert call.latency_s * 1e6 == pytest.approx(tree_us, rel=1e-12)
    assert call.seconds * 1e6 == pytest.approx(measured_us, rel=0.10)


def test_at_32_nodes_the_ring_would_be_ten_times_the_measured_latency():
    # The ring in LL pays 2 x 255 steps, 2 x 31 of them across nodes at 2.7 us and the other 448 at NVLink's 0.6 us
    # raised to the network post overhead (1 us on Intel hosts, 2 us on AMD: issue 652 names no CPU), base 6.6 us.
    # Either way it is ten times the 63 us measured: at this scale the tree's log2 depth decides the small sizes.
    intel_ring_us = 6.6 + 448 * 1.0 + 62 * 2.7
    amd_ring_us = 6.6 + 448 * 2.0 + 62 * 2.7
    assert min(intel_ring_us, amd_ring_us) > 9 * max(ISSUE_652_SMALL_US.values())
    call = call_time(AR, 8, 256, 32, 4 * HDR_NIC, A100, NVLINK3_BUS)
    assert call.seconds * 1e6 < intel_ring_us / 9


@pytest.mark.parametrize("generation", ["volta", "ampere", None])
def test_two_pcie_nodes_small_all_reduce_is_the_tree_in_ll(generation):
    # NVIDIA/nccl issue 757 (sjeaugey, NVIDIA): all_reduce_perf on two PCIe Gen3 systems of 8 GPUs and one 100 Gb/s
    # NIC each: 29.79 us at 8 bytes, 31.67 us at 16 (out of place). tuning.cc on PCIe: the tree's LL latency,
    # 6.8 + 2 x ((8 - 1) x 1.0 us of PCI + log2(2) x 5.0 us of network) = 30.8 us; the ring's, 6.6 + 28 x 1.0 +
    # 2 x 2.7 = 40.0 us on Intel hosts. The issue does not name the GPU; the tree's LL latency does not depend on it.
    pcie = nccl_system(generation, 15.75e9)  # PCIe Gen3 x16: no NVLink, so no LL128 and no NVLS
    for n_bytes, measured_us in ((8, 29.79), (16, 31.67)):
        call = call_time(AR, n_bytes, 16, 2, 100e9 / 8 * 0.96, pcie)
        assert (call.algorithm, call.protocol) == (TREE, LL)
        assert call.latency_s * 1e6 == pytest.approx(6.8 + 2 * (7 * 1.0 + 1 * 5.0), rel=1e-12)
        assert call.seconds * 1e6 == pytest.approx(measured_us, rel=0.10)


def test_248_node_h200_all_reduce_is_nvls_tree_at_the_published_bus_bandwidth():
    # NVIDIA/nccl-tests issue 283: all_reduce_perf on 248 nodes of 8 x H200 (1,984 ranks) with 8 NICs a node, NCCL's
    # default algorithm, 512 MiB (--minbytes 512M --maxbytes 512M): "typically measuring around 350G" of busbw. The
    # NICs are 400 Gb/s class: 350 GB/s is above what 8 x 200 Gb/s could carry across nodes (192 GB/s).
    n_bytes, ranks, nodes, measured = 2**29, 1984, 248, 350.0
    bus = min(NVLINK4_BUS, 8 * NDR_NIC)  # 370 GB/s: NVLink bounds the ring before the NICs (384 GB/s)
    call = call_time(AR, n_bytes, ranks, nodes, bus, H100, NVLINK4_BUS)
    assert (call.algorithm, call.protocol) == (NVLS_TREE, SIMPLE)
    # tuning.cc: NVLS-tree's latency, one NVLink SHARP step (25 us) + 2 x log2(248) = 14 network steps at 20.9 us;
    # its bus bandwidth, 16 channels x min(NVLink: 20 GB/s searched x 0.85 x 15/16 x 2, network: 22 GB/s, the
    # first of sm90SpeedArrayInter under 370 / 16, per-channel ceiling 45.5) = 16 x 22 GB/s, x N / (2 (N - 1)).
    latency_us = 25.0 + 2 * 7 * 20.9
    per_channel_gbps = min(20.0 * 0.85 * 15 / 16 * 2, 22.0, 45.5)
    algorithm_gbps = 16 * per_channel_gbps * ranks / (2 * (ranks - 1))
    seconds = (latency_us + n_bytes / (1000 * algorithm_gbps)) * 1e-6
    assert call.latency_s * 1e6 == pytest.approx(latency_us, rel=1e-12)
    assert call.seconds == pytest.approx(seconds, rel=1e-12)
    predicted = all_reduce_bus_bandwidth(n_bytes, ranks, call.seconds) / 1e9
    assert predicted == pytest.approx(measured, rel=0.10)  # 318.8 GB/s predicted: 8.9% under the measurement
    # The ring at 1,984 ranks is latency-bound: 3,472 NVLink steps and 494 network steps, 26 ms at its plateau.
    ring_latency_us = (8.4 + (3966 - 494) * 3.4 + 494 * 14.0) * 1.4
    assert ring_latency_us * 1e-6 > 7 * call.seconds


@pytest.mark.parametrize("n_bytes", [2**32, 2**33])
def test_nvls_helps_on_two_h100_nodes_and_not_on_four(n_bytes):
    # NVIDIA/nccl issue 1221 (NCCL 2.19.3): 8 x H100 a node with 8 x 400 Gb/s RoCE NICs, all_reduce_perf 4 to 8 GB:
    # on 1 and 2 nodes NCCL_NVLS_ENABLE=1 raises busbw from 330 to 430 GB/s; on 4 nodes it changes nothing
    # (320 GB/s either way). NCCL's model: NVLS on one node and NVLS-tree on two (2 x the network's per-channel
    # speed on two nodes, so NVLink's 31.9 GB/s a channel binds), the ring on four, where NVLS-tree's 16 x 22 GB/s
    # falls under the ring's 370.
    bus = min(NVLINK4_BUS, 8 * NDR_NIC)
    for nodes in (1, 2):
        on = call_time(AR, n_bytes, 8 * nodes, nodes, bus, H100, NVLINK4_BUS)
        off = call_time(AR, n_bytes, 8 * nodes, nodes, bus, H100_NVLS_OFF, NVLINK4_BUS)
        assert off.algorithm == RING and on.algorithm != RING
        assert off.seconds / on.seconds == pytest.approx(430 / 330, rel=0.10)  # 1.38 predicted against 1.30
    on = call_time(AR, n_bytes, 32, 4, bus, H100, NVLINK4_BUS)
    off = call_time(AR, n_bytes, 32, 4, bus, H100_NVLS_OFF, NVLINK4_BUS)
    assert algorithm_name(on.algorithm, on.protocol) == algorithm_name(off.algorithm, off.protocol) == "ring/Simple"
    assert on.seconds == off.seconds
    # The ring in Simple on 4 nodes: 62 steps, 6 across nodes at 14 us and 56 at NVLink's 3.4 us (above the 3 x 1 us
    # post overhead of Intel hosts), base 8.4 us, x 1.4 past the plateau; 370 GB/s x 32 / 62 of algorithm bandwidth.
    ring_us = (8.4 + 56 * 3.4 + 6 * 14.0) * 1.4 + n_bytes / (1000 * 370 * 32 / 62)
    assert on.seconds == pytest.approx(ring_us * 1e-6, rel=1e-12)
    # 364-367 GB/s predicted against the 320 measured on RoCE (+14%): NCCL's model has no term for it, and the same
    # 8 x 400 Gb/s on InfiniBand measured 365.84 GB/s on 4 nodes (nccl-tests issue 309, tests/golden/test_nccl.py).
    assert all_reduce_bus_bandwidth(n_bytes, 32, on.seconds) / 1e9 > 320


def test_nvls_tree_all_reduce_is_corrected_by_size_on_blackwell_alone():
    # tuning.cc, ncclTopoGetAlgoTime: from compute capability 10 on x86 hosts NVLS-tree's all-reduce bandwidth takes
    # treeCorrectionFactor[Simple][log2(bytes / 64)] below 1 GB, 0.8 at 64 MiB (log 20). Two HGX B200 nodes with
    # 8 x 400 Gb/s: 32 NVLS channels x min(NVLink: 20 GB/s searched from 740 / 32 x 0.74 x 31/32 x 2, network:
    # 2 x 12 GB/s searched from 384 / 32, ceiling 96) = 32 x 24 GB/s, x 16 / 30; latency 25 + 2 x 20.9 us.
    b200 = nccl_system("blackwell", 900e9)
    nvlink5_bus = 900e9 * 370 / 450
    call = call_time(AR, 2**26, 16, 2, min(nvlink5_bus, 8 * NDR_NIC), b200, nvlink5_bus)
    assert (call.algorithm, call.protocol) == (NVLS_TREE, SIMPLE)
    per_channel_gbps = min(20.0 * 0.74 * 31 / 32 * 2, 2 * 12.0, 96.0)
    algorithm_gbps = 32 * per_channel_gbps * 16 / 30 * 0.8
    assert call.seconds == pytest.approx((25.0 + 2 * 20.9 + 2**26 / (1000 * algorithm_gbps)) * 1e-6, rel=1e-12)
    # at 1 GiB (log 24) no correction
    big = call_time(AR, 2**30, 16, 2, min(nvlink5_bus, 8 * NDR_NIC), b200, nvlink5_bus)
    assert big.seconds == pytest.approx((25.0 + 2 * 20.9 + 2**30 / (1000 * algorithm_gbps / 0.8)) * 1e-6, rel=1e-12)
    # Hopper's NVLS-tree is not corrected: two H100 nodes at 64 MiB, 16 x min(31.875, 2 x 22, 57.7) GB/s x 16 / 30
    hopper = call_time(AR, 2**26, 16, 2, NVLINK4_BUS, H100, NVLINK4_BUS)
    assert (hopper.algorithm, hopper.protocol) == (NVLS_TREE, SIMPLE)
    hopper_gbps = 16 * min(20.0 * 0.85 * 15 / 16 * 2, 2 * 22.0, 57.7) * 16 / 30
    assert hopper.seconds == pytest.approx((25.0 + 2 * 20.9 + 2**26 / (1000 * hopper_gbps)) * 1e-6, rel=1e-12)
