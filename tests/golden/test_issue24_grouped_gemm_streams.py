"""Golden waves of the routed experts' grouped GEMM issued over four streams (service.time.efficiency).

Transformer Engine's GroupedLinear (Megatron-Core's TEGroupedMLP) runs one cuBLAS GEMM per expert through
nvte_multi_stream_cublas_gemm over transformer_engine/common/util/multi_stream.h's num_compute_streams = 4;
grouped_gemm's gmm (NeMo Automodel's experts: gmm) on Hopper runs cuBLAS per expert round-robin over NUM_STREAM 4
(fanshiqing/grouped_gemm v1.1.4, csrc/grouped_gemm.cu: "Use cuBLAS for SM90"). Four experts' GEMMs are in flight at
once, so their tiles share the waves of 128 x 128 output tiles over the SMs (NVIDIA, "Matrix Multiplication
Background User's Guide").
Qwen3-30B-A3B e8 (h 2048, f_e 768, top 8, 128 experts: 16 on a rank) at 16,384 tokens a rank: 8,192 copies an expert.
"""

import math

import pytest

from models.common import ModelSpec
from service.inputs import resolve
from service.time.efficiency import Device, Efficiency, grouped_gemm_seconds, routed_expert_seconds

PEAK, HBM, SMS, CEILING = 989.4e12, 3.35e12, 132, 0.60  # H100 SXM bf16 dense, HBM3, SMs; Hopper's fitted ceiling
DEVICE = Device(PEAK, HBM, SMS)
PER_TILE_K = 2 * 128 * 128 / (PEAK * CEILING / SMS)  # seconds per tile and unit of k


def test_weight_gradients_of_four_experts_share_their_waves():
    """The up projection's weight gradient, h x f (2048 x 1536) over k = 8,192 copies: 16 x 12 = 192 tiles, 1.45
    waves alone (2 whole), four at once 768 tiles: ceil(768 / 132) = 6 waves, 1.5 an expert."""
    alone = math.ceil(192 / SMS) * PER_TILE_K * 8192
    four = math.ceil(4 * 192 / SMS) * PER_TILE_K * 8192
    assert (math.ceil(192 / SMS), math.ceil(4 * 192 / SMS)) == (2, 6)
    _, backward = grouped_gemm_seconds(8192, 2048, 1536, DEVICE, CEILING, 16)
    # backward: dx (8192 x 1536 -> 2048: 64 x 16 = 1,024 tiles, four at once 4,096: 32 waves) and dW
    dx = math.ceil(4 * 64 * 16 / SMS) * PER_TILE_K * 1536
    assert backward == pytest.approx(4 * (dx + four), rel=1e-12)
    assert 16 * alone / (4 * four) == pytest.approx(2 / 1.5)


def test_qwen3_routed_experts_on_a_rank():
    """Forward: up 8192 x 2048 -> 1536 (64 x 12 = 768 tiles, four at once 3,072: 24 waves) and down 8192 x 768 -> 2048
    (64 x 16 = 1,024 tiles, 4,096: 32 waves), four groups of four experts."""
    arch = resolve.model(ModelSpec(preset="qwen3-30b-a3b")).architecture
    shape = resolve.kernel_shape(arch)
    assert shape is not None
    forward, _ = routed_expert_seconds(Efficiency(DEVICE, shape), 16384, 1, 8)
    up = math.ceil(4 * 768 / SMS) * PER_TILE_K * 2048
    down = math.ceil(4 * 1024 / SMS) * PER_TILE_K * 768
    assert (math.ceil(4 * 768 / SMS), math.ceil(4 * 1024 / SMS)) == (24, 32)
    assert forward == pytest.approx(4 * (up + down), rel=1e-12)


def test_fewer_experts_than_streams_run_together():
    """Two local experts (e 64 of 128): one group of two; one expert: alone."""
    two, _ = grouped_gemm_seconds(256, 2048, 1536, DEVICE, CEILING, 2)
    assert two == pytest.approx(math.ceil(2 * 24 / SMS) * PER_TILE_K * 2048, rel=1e-12)
    one, _ = grouped_gemm_seconds(256, 2048, 1536, DEVICE, CEILING, 1)
    assert one == pytest.approx(two)  # 24 and 48 tiles are both one wave
