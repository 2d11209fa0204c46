"""Transformer Engine's per-tensor FP8 as it runs (service/time/fp8.py): current scaling's casts, and Blackwell's
transpose-free FP8 tensors, each expected value written out here from its source.

- Current scaling (transformer_engine/pytorch/csrc/quantizer.cpp @d0067d0d, Float8CurrentScalingQuantizer::
  quantize_impl): an amax kernel reads the 16-bit tensor (2 B), then the cast-transpose reads it again and writes the
  FP8 data and its transpose (2 + 1 + 1): 6 B an element. Behind a LayerNorm-fused linear the norm writes the amax
  (csrc/extensions/normalization.cpp @d0067d0d, FUSED_NORM_AMAX_FP8): the cast alone, 4 B.
- Which linears are LayerNorm-fused: Megatron-Core's Transformer Engine spec (megatron/core/models/gpt/
  gpt_layer_specs.py @1e057005): linear_qkv and a dense MLP's linear_fc1 (TELayerNormColumnParallelLinear); a
  mixture has pre_mlp_layernorm = TENorm; multi-head latent attention's q and kv up projections.
- Blackwell (transformer_engine/common/transformer_engine.cpp @d0067d0d, nvte_is_non_tn_fp8_gemm_supported: compute
  capability 10.x, 11.x and 13+): no transpose is written (create_tensor: with_transpose = columnwise_usage and not
  is_non_tn_fp8_gemm_supported), so each cast writes 1 B: delayed 3 B, current 5 B (3 behind a norm), one cached
  FP8 weight copy instead of two.
- MXFP8 GEMMs against per-tensor FP8 ones (docs/examples/gemm_profiling/gemm_profiling.rst @d0067d0d, B300,
  pre-quantised): 6.812 ms FP8Current and 7.161 ms MXFP8 a layer.
"""

import pytest

from models.enums import Dtype, Fp8Recipe, GpuGeneration, Recompute
from models.presets import PRECISION_PRESETS, PrecisionPresetName
from service.memory.fp8 import with_fp8
from service.time.efficiency import Device, Efficiency, KernelShape, micro_batch_compute, normed_input_elements
from service.time.fp8 import (
    FP8_GEMM_PEAK_SHARE,
    MXFP8_GEMM_PEAK_SHARE,
    TRANSFORMER_ENGINE_CASTS,
    TRANSFORMER_ENGINE_CURRENT_SCALING_CASTS,
    Fp8Casts,
    fp8_cast_seconds,
    fp8_casts,
)

HBM = 3.35e12


def test_current_scalings_casts_are_an_amax_pass_and_a_cast():
    hopper = fp8_casts(Fp8Recipe.transformer_engine_current_scaling, GpuGeneration.hopper)
    assert hopper == Fp8Casts(2 + 2 + 1 + 1, 2 + 2 + 1 + 1, 0, 0, normed_input_forward=2 + 1 + 1)
    assert hopper == TRANSFORMER_ENGINE_CURRENT_SCALING_CASTS
    assert fp8_casts(Fp8Recipe.transformer_engine_current_scaling) == hopper  # an unknown card: Hopper's layouts
    blackwell = fp8_casts(Fp8Recipe.transformer_engine_current_scaling, GpuGeneration.blackwell)
    assert blackwell == Fp8Casts(2 + 2 + 1, 2 + 2 + 1, 0, 0, normed_input_forward=2 + 1)
    assert fp8_casts(Fp8Recipe.transformer_engine_current_scaling, GpuGeneration.blackwell_ultra) == blackwell
    # delayed scaling: a cast-transpose; behind a LayerNorm-fused linear the norm writes FP8 and only the transpose
    # (read 1, write 1) is made; on Blackwell no transpose
    assert fp8_casts(Fp8Recipe.transformer_engine, GpuGeneration.hopper) == TRANSFORMER_ENGINE_CASTS
    assert TRANSFORMER_ENGINE_CASTS == Fp8Casts(2 + 1 + 1, 2 + 1 + 1, 0, 0, normed_input_forward=1 + 1)
    assert fp8_casts(Fp8Recipe.transformer_engine, GpuGeneration.blackwell) == Fp8Casts(
        2 + 1, 2 + 1, 0, 0, normed_input_forward=0
    )


def test_a_llama_layers_casts_under_current_scaling():
    # Llama 3 8B: h 4,096, 8 KV heads of 128, SwiGLU 14,336; one micro-batch of 8,192 tokens, no tensor parallelism
    h, kv, f, tokens = 4096, 1024, 14336, 8192
    matrices = [(h, h + 2 * kv), (h, h), (h, 2 * f), (f, h)]
    inputs = h + h + h + f
    outputs = (h + 2 * kv) + h + 2 * f + h
    normed = h + h  # q/k/v and fc1 read the norms' outputs
    forward_s, backward_s = fp8_cast_seconds(TRANSFORMER_ENGINE_CURRENT_SCALING_CASTS, matrices, 0, tokens, HBM, normed)
    assert forward_s == pytest.approx((4 * normed + 6 * (inputs - normed)) * tokens / HBM, rel=1e-12)
    assert backward_s == pytest.approx(6 * outputs * tokens / HBM, rel=1e-12)
    # against delayed scaling: 2 B more for each input and output gradient (behind a norm 4 B against the transpose's 2)
    delayed_f, delayed_b = fp8_cast_seconds(TRANSFORMER_ENGINE_CASTS, matrices, 0, tokens, HBM, normed)
    assert delayed_f == pytest.approx((2 * normed + 4 * (inputs - normed)) * tokens / HBM, rel=1e-12)
    assert forward_s - delayed_f == pytest.approx(2 * inputs * tokens / HBM, rel=1e-9)
    assert backward_s - delayed_b == pytest.approx(2 * outputs * tokens / HBM, rel=1e-9)


def test_the_layernorm_fused_linears_of_megatron_cores_spec():
    dense = KernelShape(32, 4096, 4096, 1024, 14336, True, 128256, 32)
    assert normed_input_elements(dense) == 4096 + 4096
    moe = KernelShape(48, 2048, 4096, 512, 8 * 768, True, 151936, 32, experts=128, top_k=8, expert_ffn_hidden_size=768)
    assert normed_input_elements(moe) == 2048  # q/k/v alone: the experts' fc1 follows pre_mlp_layernorm
    mla = KernelShape(
        61, 7168, 128 * 128, 0, 8 * 2048, True, 129280, 128, experts=256, top_k=8, expert_ffn_hidden_size=2048,
        q_lora_rank=1536, kv_lora_rank=512, qk_head_dim=192, qk_rope_head_dim=64, v_head_dim=128,
    )  # fmt: skip
    assert normed_input_elements(mla) == 1536 + 512


def test_a_layer_under_current_scaling_is_delayed_scaling_and_the_amax_passes():
    h, kv, f, layers, tokens = 4096, 1024, 14336, 32, 8192
    shape = KernelShape(layers, h, h, kv, f, True, 128256, 32)
    device = Device(989.4e12, HBM, 132, GpuGeneration.hopper, 1978.9e12)
    delayed = micro_batch_compute(Efficiency(device, shape, fp8=True), 1, tokens, Recompute.none, 0.0)
    current = Efficiency(device, shape, fp8=True, fp8_casts=TRANSFORMER_ENGINE_CURRENT_SCALING_CASTS)
    cs = micro_batch_compute(current, 1, tokens, Recompute.none, 0.0)
    outputs = (h + 2 * kv) + h + 2 * f + h
    # each input 2 B more (behind the q/k/v and fc1 norms 4 B against delayed scaling's transpose, 2)
    inputs = h + h + h + f
    assert cs.forward_s - delayed.forward_s == pytest.approx(layers * 2 * inputs * tokens / HBM, rel=1e-9)
    assert cs.backward_s - delayed.backward_s == pytest.approx(layers * 2 * outputs * tokens / HBM, rel=1e-9)


def test_transformer_engine_keeps_one_fp8_weight_copy_on_blackwell():
    precision = PRECISION_PRESETS[PrecisionPresetName.mixed_bf16_adam]
    for recipe in (Fp8Recipe.transformer_engine, Fp8Recipe.transformer_engine_current_scaling):
        hopper = with_fp8(precision, recipe, True, GpuGeneration.hopper)
        blackwell = with_fp8(precision, recipe, True, GpuGeneration.blackwell)
        assert (hopper.compute_parameter_dtype, hopper.compute_parameter_copies) == (Dtype.fp8, 2)
        assert (blackwell.compute_parameter_dtype, blackwell.compute_parameter_copies) == (Dtype.fp8, 1)


def test_an_mxfp8_gemm_keeps_transformer_engines_measured_share_of_a_per_tensor_one():
    assert MXFP8_GEMM_PEAK_SHARE == pytest.approx(0.84 * 6.812 / 7.161, rel=1e-12)
    assert FP8_GEMM_PEAK_SHARE == 0.84
