"""A mixture's FP8 and MXFP8 quantisation counts every routed copy of a token (service.time.efficiency.
fp8_layer_cast_seconds), each expected value written out here from the layer's shape.

Megatron-Core's routed experts (TEGroupedMLP, megatron/core/transformer/moe/experts.py @d98e8a64) run Transformer
Engine's GroupedLinear on the permuted copies a rank holds: its forward quantises each expert's split of the input
(transformer_engine/pytorch/module/grouped_linear.py @d0067d0d, _split_quantize(inp_view, m_splits,
input_quantizers)), its backward each expert's split of the output gradient (_split_quantize(grad_output_view,
ctx.m_splits, ctx.grad_output_quantizers)). A token routed to top_k experts is so cast top_k times at fc1's input
(w wide) and at fc2's output gradient (w wide). The attention, the shared experts and a latent mixture's
fc1_latent_proj and fc2_latent_proj (duplicated TELinear, megatron/core/transformer/moe/moe_layer.py @d98e8a64) meet
the token once; the router stays in 16 bits. A GPU computes ETP x top_k x tokens / t copies (each tensor-parallel
rank routes tokens / t, each of the ETP ranks of an expert's tensor-parallel group takes every copy).
"""

import pytest

from models.enums import Dtype, GpuGeneration
from service.memory.dtypes import bytes_per_element
from service.time.efficiency import Device, Efficiency, KernelShape, fp8_layer_cast_seconds
from service.time.fp8 import (
    TORCHAO_MXFP8_CASTS,
    TRANSFORMER_ENGINE_CASTS,
    TRANSFORMER_ENGINE_CURRENT_SCALING_CASTS,
)

HBM = 4.8e12
HOPPER = Device(989.4e12, HBM, 132, GpuGeneration.hopper, 1978.9e12)

# Mixtral 8x7B's layer: h 4,096, 32 query heads and 8 KV heads of 128, 8 experts of SwiGLU 14,336, top 2
H, KV, F_E, TOP_K, EXPERTS = 4096, 1024, 14336, 2, 8
MIXTRAL = KernelShape(
    32, H, H, KV, TOP_K * F_E, True, 32000, 32, experts=EXPERTS, top_k=TOP_K, expert_ffn_hidden_size=F_E
)


def test_a_mixtral_layers_delayed_scaling_casts_count_both_routed_copies():
    tokens = 4096
    eff = Efficiency(HOPPER, MIXTRAL, fp8=True, fp8_casts=TRANSFORMER_ENGINE_CASTS)
    forward_s, backward_s = fp8_layer_cast_seconds(eff, tokens)
    # once a token: q/k/v (h -> h + 2 kv, behind the norm: its transpose alone, 2 B) and the output projection (h)
    once_inputs, once_normed, once_outputs = H + H, H, (H + 2 * KV) + H
    # each of the 2 copies: fc1 (h -> 2 f_e) and fc2 (f_e -> h)
    copies = TOP_K * tokens
    routed_inputs, routed_outputs = H + F_E, 2 * F_E + H
    forward = 4 * (once_inputs - once_normed) * tokens + 2 * once_normed * tokens + 4 * routed_inputs * copies
    backward = 4 * once_outputs * tokens + 4 * routed_outputs * copies
    assert forward_s == pytest.approx(forward / HBM, rel=1e-12)
    assert backward_s == pytest.approx(backward / HBM, rel=1e-12)
    # (the experts folded into one MLP of width top_k f_e had fc1's input and fc2's output gradient cast once a
    # token: (top_k - 1) x h x tokens elements short in each pass)


def test_under_tensor_and_expert_parallelism_a_gpu_casts_the_copies_it_computes():
    # t 2, e 2, ETP 1: each tensor-parallel rank routes tokens / 2, so a GPU computes 2 x tokens / 2 copies,
    # each fc1 h -> 2 f_e and fc2 f_e -> h whole (ETP 1); the attention is split over t
    tokens, t = 4096, 2
    eff = Efficiency(HOPPER, MIXTRAL, fp8=True, fp8_casts=TRANSFORMER_ENGINE_CASTS)
    forward_s, backward_s = fp8_layer_cast_seconds(eff, tokens, t, 2, 1)
    once_inputs, once_normed, once_outputs = H + H // t, H, (H + 2 * KV) // t + H
    copies = 1 * TOP_K * tokens // t
    forward = 4 * (once_inputs - once_normed) * tokens + 2 * once_normed * tokens + 4 * (H + F_E) * copies
    backward = 4 * once_outputs * tokens + 4 * (2 * F_E + H) * copies
    assert forward_s == pytest.approx(forward / HBM, rel=1e-12)
    assert backward_s == pytest.approx(backward / HBM, rel=1e-12)
    # ETP 2 (the default, = t): every copy on both ranks of the expert's group, fc1 and fc2 split in two
    forward_s, backward_s = fp8_layer_cast_seconds(eff, tokens, t, 2)
    copies = 2 * TOP_K * tokens // t
    forward = 4 * (once_inputs - once_normed) * tokens + 2 * once_normed * tokens + 4 * (H + F_E // 2) * copies
    backward = 4 * once_outputs * tokens + 4 * (2 * F_E // 2 + H) * copies
    assert forward_s == pytest.approx(forward / HBM, rel=1e-12)
    assert backward_s == pytest.approx(backward / HBM, rel=1e-12)


def test_a_shared_expert_meets_the_token_once_beside_its_routed_copy():
    # Llama 4 Scout's layer: h 5,120, 40 query heads and 8 KV heads of 128, 16 experts of SwiGLU 8,192, top 1, one
    # shared expert of 8,192; t 1, e 1
    h, kv, f_e, shared, tokens = 5120, 1024, 8192, 8192, 8192
    shape = KernelShape(
        48, h, h, kv, shared + f_e, True, 202048, 40, experts=16, top_k=1, expert_ffn_hidden_size=f_e
    )  # fmt: skip
    eff = Efficiency(HOPPER, shape, fp8=True, fp8_casts=TRANSFORMER_ENGINE_CASTS)
    forward_s, backward_s = fp8_layer_cast_seconds(eff, tokens)
    # once: q/k/v (behind its norm, 2 B), output, the shared expert's fc1 (h -> 2 f_s) and fc2 (f_s -> h); the one
    # routed copy: fc1 (h -> 2 f_e) and fc2 (f_e -> h), h at fc1's input and fc2's output gradient a second time
    once_inputs, normed, once_outputs = h + h + h + shared, h, (h + 2 * kv) + h + 2 * shared + h
    forward = (4 * (once_inputs - normed) + 2 * normed) * tokens + 4 * (h + f_e) * tokens
    backward = 4 * once_outputs * tokens + 4 * (2 * f_e + h) * tokens
    assert forward_s == pytest.approx(forward / HBM, rel=1e-12)
    assert backward_s == pytest.approx(backward / HBM, rel=1e-12)


def test_a_latent_mixtures_shared_expert_and_projections_meet_the_token_once():
    # h 4,096 into a latent 1,024; 128 experts of 1,856 (squared ReLU, not gated), top 8; one shared expert of 3,712
    # on h; 32 query heads and 2 KV heads of 128; e 8, t 1: 16 local experts
    h, latent, f_e, top_k, shared, tokens = 4096, 1024, 1856, 8, 3712, 2048
    shape = KernelShape(
        52, h, h, 256, shared, False, 131072, 32, latent_size=latent, latent_ffn_hidden_size=top_k * f_e,
        experts=128, top_k=top_k, expert_ffn_hidden_size=f_e,
    )  # fmt: skip
    eff = Efficiency(HOPPER, shape, fp8=True, fp8_casts=TRANSFORMER_ENGINE_CURRENT_SCALING_CASTS)
    forward_s, backward_s = fp8_layer_cast_seconds(eff, tokens, 1, 8)
    # once: q/k/v, output, the shared expert's fc1 and fc2, fc1_latent_proj (h -> l), fc2_latent_proj (l -> h)
    once_inputs = h + h + h + shared + h + latent
    once_outputs = (h + 2 * 256) + h + shared + h + latent + h
    normed = h  # q/k/v behind its norm: the cast alone, 4 B
    copies = top_k * tokens  # 16 local experts x 2,048 x 8 x 8 / 128 copies each
    forward = (6 * (once_inputs - normed) + 4 * normed) * tokens + 6 * (latent + f_e) * copies
    backward = 6 * once_outputs * tokens + 6 * (f_e + latent) * copies
    assert forward_s == pytest.approx(forward / HBM, rel=1e-12)
    assert backward_s == pytest.approx(backward / HBM, rel=1e-12)


def test_torchaos_mx_casts_of_a_mixture_cast_every_copy_again_in_the_backward():
    # torchao's MX recipe: 2 + 33/32 B a cast; the input cast in the forward and again in the backward, the output
    # gradient twice, every weight (the 8 experts' included) twice each micro-batch
    tokens, mx = 4096, 2 + bytes_per_element(Dtype.mxfp8)
    assert mx == 2 + 1 + 1 / 32
    eff = Efficiency(HOPPER, MIXTRAL, fp8=True, fp8_casts=TORCHAO_MXFP8_CASTS)
    forward_s, backward_s = fp8_layer_cast_seconds(eff, tokens)
    once_inputs, once_outputs = H + H, (H + 2 * KV) + H
    copies = TOP_K * tokens
    weights = H * (H + 2 * KV) + H * H + EXPERTS * (2 * H * F_E + F_E * H)
    inputs = once_inputs * tokens + (H + F_E) * copies
    outputs = once_outputs * tokens + (2 * F_E + H) * copies
    assert forward_s == pytest.approx((mx * inputs + mx * weights) / HBM, rel=1e-12)
    assert backward_s == pytest.approx((2 * mx * outputs + mx * weights + mx * inputs) / HBM, rel=1e-12)


def test_the_copies_casts_are_in_the_experts_piece_of_the_combined_1f1b():
    """Megatron-Core's combined 1F1B overlaps the experts piece (the routed grouped GEMMs) with the dispatch and
    combine: the copies' casts run inside GroupedLinear, so they belong to that piece, and the two pieces still
    sum to the layer."""
    from service.time.efficiency import _layer_seconds, moe_layer_pieces, routed_expert_seconds

    b, s = 1, 4096
    eff = Efficiency(HOPPER, MIXTRAL, fp8=True, fp8_casts=TRANSFORMER_ENGINE_CASTS)
    attention_f, experts_f, attention_b, experts_b = moe_layer_pieces(eff, b, s, 1, 1, 2, 1)
    gemm_f, gemm_b = routed_expert_seconds(eff, b * s, 1, 2, 1)
    # e 2, ETP 1, t 1: the GPU computes top_k x tokens copies, each fc1 h -> 2 f_e and fc2 f_e -> h; 4 local experts'
    # weights cast once a step under delayed scaling (0 B a micro-batch)
    copies = TOP_K * b * s
    assert experts_f - gemm_f == pytest.approx(4 * (H + F_E) * copies / HBM, rel=1e-9)
    assert experts_b - gemm_b == pytest.approx(4 * (2 * F_E + H) * copies / HBM, rel=1e-9)
    forward, backward = _layer_seconds(eff, b, s, 1, 1, 2, 1)
    assert attention_f + experts_f == pytest.approx(forward, rel=1e-12)
    assert attention_b + experts_b == pytest.approx(backward, rel=1e-12)
