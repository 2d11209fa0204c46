"""Golden compute terms of a mixture of experts (service.time.efficiency), each written out from its source.

Megatron-Core's MoE layer (megatron/core/transformer/moe/ @d98e8a64): the all-to-all dispatcher (token_dispatcher.py,
MoEAlltoAllTokenDispatcher) permutes a rank's tokens into top_k copies, exchanges them over the expert group,
all-gathers them over the expert tensor group and sorts them by local expert (dispatch_postprocess,
sort_chunks_by_idxs when num_local_experts > 1); the experts run one GEMM each (experts.py, TEGroupedMLP). A GEMM's
time is waves of 128 x 128 output tiles over the streaming multiprocessors (NVIDIA, "Matrix Multiplication
Background User's Guide": tile and wave quantisation) or its operand bytes over HBM, whichever is longer.
Qwen3-30B-A3B's config.json (huggingface.co/Qwen/Qwen3-30B-A3B): h 2048, 128 experts of 768, top 8, SwiGLU.
"""

import dataclasses
import math

import pytest

from models.common import ModelSpec
from models.enums import Recompute
from service.inputs import resolve
from service.time.efficiency import (
    FITTED,
    Device,
    Efficiency,
    micro_batch_compute,
    routed_expert_seconds,
    routed_tokens_per_expert,
    routing_bytes_per_token,
    trained_gemm_seconds,
)

H, F_E, EXPERTS, TOP_K = 2048, 768, 128, 8
PEAK, HBM, SMS, CEILING = 989.4e12, 3.35e12, 132, 0.60  # H100 SXM bf16 dense, HBM3, SMs; Hopper's fitted ceiling
DEVICE = Device(PEAK, HBM, SMS)


def _kernels():  # type: ignore[no-untyped-def]
    arch = resolve.model(ModelSpec(preset="qwen3-30b-a3b")).architecture
    shape = resolve.kernel_shape(arch)
    assert shape is not None and (shape.experts, shape.top_k, shape.expert_ffn_hidden_size) == (EXPERTS, TOP_K, F_E)
    return shape


def _gemm(m: int, k: int, n: int, concurrent: int = 1) -> float:
    """``concurrent`` equal GEMMs in flight on separate streams: their tiles share the waves."""
    waves = math.ceil(concurrent * math.ceil(m / 128) * math.ceil(n / 128) / SMS)
    compute = waves * 2 * 128 * 128 * k / (PEAK * CEILING / SMS)
    memory = concurrent * 2 * (m * k + k * n + m * n) / HBM
    return max(compute, memory)


def _experts(local: int, m: int, k: int, n: int) -> float:
    """local per-expert GEMMs round-robin over 4 streams (Transformer Engine's multi_stream.h num_compute_streams 4;
    grouped_gemm v1.1.4's NUM_STREAM 4 on SM90): local // 4 groups of 4 at once, then the local % 4 left."""
    return (local // 4) * _gemm(m, k, n, 4) + (_gemm(m, k, n, local % 4) if local % 4 else 0.0)


def test_each_local_expert_gets_its_share_of_the_groups_copies():
    shape = _kernels()
    # e 8, t 1, ETP 1, 4096 tokens: the 8 ranks' 8 x 4096 x 8 copies over 128 experts, 16 on each rank
    assert routed_tokens_per_expert(shape, 4096, 1, 8, 1) == 8 * 4096 * 8 // 128 == 2048
    # t 4 with sequence parallelism and ETP 4: each rank routes 1024, gathers 4 ranks' copies: the same 2048
    assert routed_tokens_per_expert(shape, 4096, 4, 8, 4) == 2048
    # no expert parallelism: every expert on every rank, 4096 x 8 / 128 copies each
    assert routed_tokens_per_expert(shape, 4096, 1, 1, 1) == 256


@pytest.mark.parametrize(("expert", "local", "m"), [(8, 16, 2048), (1, 128, 256), (64, 2, 16384)])
def test_the_grouped_gemm_is_one_gemm_per_local_expert(expert, local, m):
    eff = Efficiency(DEVICE, _kernels())
    forward, backward = routed_expert_seconds(eff, 4096, 1, expert)
    # up (gate and up, 2 f_e) and down; backward: the input gradient (m x n x k) and the weight gradient (k x m x n)
    up, down = (m, H, 2 * F_E), (m, F_E, H)
    assert forward == pytest.approx(_experts(local, *up) + _experts(local, *down), rel=1e-12)
    want = sum(_experts(local, m_, n, k) + _experts(local, k, m_, n) for m_, k, n in (up, down))
    assert backward == pytest.approx(want, rel=1e-12)


def test_small_experts_lose_a_wave_the_dense_count_did_not():
    """At 256 copies an expert (no expert parallelism) the up projection is 2 x 12 = 24 tiles; four experts in flight
    at once (4 streams) are 96 tiles, one wave of 132 SMs: 128 / 4 = 32 waves, where one 4096 x 12288 GEMM of top_k x
    2 f_e runs 32 x 96 / 132 = 24 waves for the same FLOPs (and one expert at a time would run 128)."""
    m = 256
    grouped_waves = EXPERTS // 4 * math.ceil(4 * math.ceil(m / 128) * math.ceil(2 * F_E / 128) / SMS)
    dense_waves = math.ceil(math.ceil(4096 / 128) * math.ceil(TOP_K * 2 * F_E / 128) / SMS)
    assert (grouped_waves, dense_waves) == (32, 24)
    eff = Efficiency(DEVICE, _kernels())
    forward, _ = routed_expert_seconds(eff, 4096, 1, 1)
    assert forward > EXPERTS // 4 * _gemm(m, H, 2 * F_E, 4) - 1e-15


def test_routing_and_permutation_bytes():
    """Per token of the micro-batch, e 8 (16 local experts), t 1: router scores fp32 written, read and the
    probabilities written (3 x 4 x 128); permute reads the token and writes 8 copies, unpermute reads 8 and writes
    one (2 x 2 x (h + 8h)); the local sort by expert and its inverse read and write the 8 copies (2 x 2 x 2 x 8h)."""
    shape = _kernels()
    expected = 3 * 4 * EXPERTS + 2 * 2 * (H + TOP_K * H) + 2 * 2 * 2 * TOP_K * H
    assert routing_bytes_per_token(shape, 1, 8) == expected
    # one local expert (e = 128): no sort
    assert routing_bytes_per_token(shape, 1, 128) == 3 * 4 * EXPERTS + 2 * 2 * (H + TOP_K * H)


def test_a_micro_batch_adds_the_routed_experts_and_the_routing():
    """micro_batch_compute's MoE part is the grouped GEMMs plus the routing at HBM bandwidth (x the fitted unfused
    passes), backward twice the routing's bytes; the rest of the layer is as the dense count prices it."""
    shape = _kernels()
    eff = Efficiency(DEVICE, shape)
    dense_eff = Efficiency(DEVICE, dataclasses.replace(shape, experts=0))
    tokens, layers = 4096, shape.layers
    moe = micro_batch_compute(eff, 1, tokens, Recompute.none, 0.0, logits=False, expert=8)
    without = micro_batch_compute(dense_eff, 1, tokens, Recompute.none, 0.0, logits=False)
    routed_f = routed_b = 0.0
    for k, n in ((H, 2 * TOP_K * F_E), (TOP_K * F_E, H)):  # the old count's routed experts: one wide GEMM each
        f, b = trained_gemm_seconds(tokens, k, n, DEVICE, CEILING)
        routed_f, routed_b = routed_f + f, routed_b + b
    router_f, router_b = trained_gemm_seconds(tokens, H, EXPERTS, DEVICE, CEILING)
    grouped_f, grouped_b = routed_expert_seconds(eff, tokens, 1, 8)
    routing_s = FITTED.elementwise_passes * routing_bytes_per_token(shape, 1, 8) * tokens / HBM
    assert moe.forward_s == pytest.approx(
        without.forward_s + layers * (grouped_f - routed_f + router_f + routing_s), rel=1e-12
    )
    assert moe.backward_s == pytest.approx(
        without.backward_s + layers * (grouped_b - routed_b + router_b + 2 * routing_s), rel=1e-12
    )


def test_dense_layers_beside_moe_layers_cost_their_share():
    """Llama 4 Maverick (config.json: interleave_moe_layer_step 2, 48 layers): 24 MoE layers of 128 experts (top 1)
    and one shared expert, 24 dense layers of intermediate_size_mlp 16384. A stage's layer costs the mean of the two
    at the model's share of MoE layers, 24 / 48."""
    arch = resolve.model(ModelSpec(preset="llama-4-maverick")).architecture
    shape = resolve.kernel_shape(arch)
    assert shape is not None and (shape.layers, shape.moe_layers) == (48, 24)
    eff = Efficiency(DEVICE, shape)
    all_moe = Efficiency(DEVICE, dataclasses.replace(shape, moe_layers=0))
    dense_shape = dataclasses.replace(
        shape,
        ffn_hidden_size=shape.dense_ffn_hidden_size,
        experts=0,
        top_k=0,
        expert_ffn_hidden_size=0,
        moe_layers=0,
    )
    assert dense_shape.ffn_hidden_size == 16384
    one = {"b": 1, "s": 4096, "recompute": Recompute.none, "model_flops_per_token": 0.0, "logits": False}
    moe_layer = micro_batch_compute(all_moe, layers_per_stage=1, expert=8, **one)
    dense_layer = micro_batch_compute(Efficiency(DEVICE, dense_shape), layers_per_stage=1, **one)
    mixed = micro_batch_compute(eff, layers_per_stage=12, expert=8, **one)
    assert mixed.forward_s == pytest.approx(12 * (moe_layer.forward_s + dense_layer.forward_s) / 2, rel=1e-12)
    assert mixed.backward_s == pytest.approx(12 * (moe_layer.backward_s + dense_layer.backward_s) / 2, rel=1e-12)
