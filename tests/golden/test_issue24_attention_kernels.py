"""The attention core priced as its kernel runs (issue 24): each expected value written out from the published
kernel tables, Shah et al. 2024 (FlashAttention-3, arXiv 2407.08608, section 4.1, figures 5 and 6: H100 80GB
SXM5, BF16, TFLOP/s counting a causal call's FLOPs as half the square) and Dao 2023 (FlashAttention-2, arXiv
2307.08691, section 4.1: up to 73% of the A100's peak forward, 63% backward)."""

import math

import pytest

from models.enums import AttentionBackend, GpuGeneration
from models.plan import PlanRequest
from service.time.attention_kernels import default_backend, kernel_peak_share
from service.time.efficiency import (
    Calibration,
    Device,
    Efficiency,
    KernelShape,
    attention_core_backward_seconds,
    attention_core_seconds,
)

H100 = 989.4e12  # dense BF16, H100 SXM5 whitepaper
A100 = 312e12
UNSCALED = Calibration(attention_scale={"ampere": 1.0, "hopper": 1.0}, default_attention_scale=1.0)
# 32 heads of 128: a x d = 4096, 8 key/value heads
SHAPE = KernelShape(1, 4096, 4096, 1024, 14336, True, 128256, attention_heads=32)


def hopper(backend=None, cal=UNSCALED, shape=SHAPE) -> Efficiency:
    return Efficiency(Device(H100, generation=GpuGeneration.hopper), shape, cal, attention_backend=backend)


def test_a_causal_forward_runs_half_the_square_at_cudnns_published_speed():
    # one 4K sequence, 32 x 128 wide: 4 x s^2 x (a x d) / 2 FLOPs (the causal half, as the benchmarks count it)
    # at cuDNN's 518 TFLOP/s (figure 5, head dim 128, causal, 4K)
    s = 4096
    flops = 4 * s * s * 4096 / 2
    assert attention_core_seconds(hopper(), 1, s) == pytest.approx(flops / 518e12, rel=1e-9)


def test_the_backward_runs_two_and_a_half_forwards_of_flops_at_its_own_speed():
    # figure 6 prints the backward without the mask: cuDNN 499 TFLOP/s at 4K, head dim 128; causal, at the
    # forward's causal / non-causal ratio at 4K (518 / 609); 2.5 x the forward's FLOPs (five products to two)
    s = 4096
    flops = 2.5 * 4 * s * s * 4096 / 2
    speed = 499e12 * 518 / 609
    assert attention_core_backward_seconds(hopper(), 1, s) == pytest.approx(flops / speed, rel=1e-9)
    ratio = attention_core_backward_seconds(hopper(), 1, s) / attention_core_seconds(hopper(), 1, s)
    assert ratio == pytest.approx(2.5 * 518 / (499 * 518 / 609), rel=1e-9)  # about 3x the forward's time


def test_flash_attention_2_and_3_run_at_their_own_rows():
    s = 4096
    flops = 4 * s * s * 4096 / 2
    fa2 = attention_core_seconds(hopper(AttentionBackend.flash_attention_2), 1, s)
    fa3 = attention_core_seconds(hopper(AttentionBackend.flash_attention_3), 1, s)
    assert fa2 == pytest.approx(flops / 319e12, rel=1e-9)  # FlashAttention-2, causal, 4K
    assert fa3 == pytest.approx(flops / 579e12, rel=1e-9)  # FlashAttention-3, causal, 4K
    fa2_back = attention_core_backward_seconds(hopper(AttentionBackend.flash_attention_2), 1, s)
    assert fa2_back == pytest.approx(2.5 * flops / (310e12 * 319 / 368), rel=1e-9)


def test_speed_between_the_published_lengths_is_interpolated_in_log_length():
    # 3K tokens: between 2K (484) and 4K (518), log2(3072 / 2048) of the way
    w = math.log2(3072 / 2048)
    speed = (484 + w * (518 - 484)) * 1e12
    assert kernel_peak_share("hopper", AttentionBackend.cudnn, "forward", 128, 3072) == pytest.approx(
        speed / H100, rel=1e-9
    )
    # outside 512-16K the nearest published length's speed
    assert kernel_peak_share("hopper", AttentionBackend.cudnn, "forward", 128, 131072) == pytest.approx(
        539e12 / H100, rel=1e-9
    )
    assert kernel_peak_share("hopper", AttentionBackend.cudnn, "forward", 128, 256) == pytest.approx(
        315e12 / H100, rel=1e-9
    )


def test_head_dims_between_64_and_128_are_interpolated_and_held_flat_outside():
    # head dim 96: halfway between FlashAttention-2's 284 (64) and 319 (128), causal, 4K
    assert kernel_peak_share("hopper", AttentionBackend.flash_attention_2, "forward", 96, 4096) == pytest.approx(
        (284 + 319) / 2 * 1e12 / H100, rel=1e-9
    )
    assert kernel_peak_share("hopper", AttentionBackend.cudnn, "forward", 192, 4096) == pytest.approx(
        518e12 / H100, rel=1e-9
    )
    # a head dim of 64 backward: 128's backward times the forward's 64 / 128 ratio (non-causal), and the mask's
    back = 499 * (408 / 609) * (363 / 408)
    assert kernel_peak_share("hopper", AttentionBackend.cudnn, "backward", 64, 4096) == pytest.approx(
        back * 1e12 / H100, rel=1e-9
    )


def test_ampere_runs_flash_attention_2_at_dao_2023s_plateau():
    # forward: 73% of the A100's peak at 16K without the mask, shaped by FlashAttention-2's causal 4K / 16K
    # non-causal (319 / 370); backward 63% at 16K, the causal backward by 310 / 322 and the mask's 319 / 368
    forward = 0.73 * 319 / 370
    backward = 0.63 * (310 * 319 / 368) / 322
    assert kernel_peak_share("ampere", AttentionBackend.flash_attention_2, "forward", 128, 4096) == pytest.approx(
        forward, rel=1e-9
    )
    assert kernel_peak_share("ampere", AttentionBackend.cudnn, "backward", 128, 4096) == pytest.approx(
        backward, rel=1e-9
    )  # no cuDNN table off Hopper: FlashAttention-2's
    a100 = Efficiency(Device(A100, generation=GpuGeneration.ampere), SHAPE, UNSCALED)
    s = 4096
    assert attention_core_seconds(a100, 1, s) == pytest.approx(4 * s * s * 4096 / 2 / (A100 * forward), rel=1e-9)


def test_the_fitted_scale_multiplies_the_published_speed():
    cal = Calibration(attention_scale={"hopper": 0.5}, default_attention_scale=0.5)
    s = 8192
    flops = 4 * s * s * 4096 / 2
    assert attention_core_seconds(hopper(cal=cal), 1, s) == pytest.approx(flops / (529e12 * 0.5), rel=1e-9)


def test_tensor_parallelism_splits_the_heads_and_the_default_kernel_follows_the_generation():
    s = 4096
    whole = attention_core_seconds(hopper(), 2, s)
    assert attention_core_seconds(hopper(), 2, s, tensor=4) == pytest.approx(whole / 4, rel=1e-12)
    assert default_backend("hopper") is AttentionBackend.cudnn
    assert default_backend("ampere") is AttentionBackend.flash_attention_2


def test_without_flash_attention_the_whole_square_runs_at_the_gemm_ceiling():
    # an unfused implementation computes every score, then masks: 4 x s x (a x d) per token forward, twice that
    # backward, at the GEMM ceiling
    cal = Calibration(gemm_ceiling={"hopper": 0.5})
    plain = KernelShape(1, 4096, 4096, 1024, 14336, True, 128256, attention_heads=32, flash_attention=False)
    eff = hopper(cal=cal, shape=plain)
    s = 2048
    forward = 4 * s * 4096 * s / (H100 * 0.5)
    assert attention_core_seconds(eff, 1, s) == pytest.approx(forward, rel=1e-12)
    assert attention_core_backward_seconds(eff, 1, s) == pytest.approx(2 * forward, rel=1e-12)


def test_the_lever_reaches_the_plan_and_a_slower_kernel_slows_the_step():
    from service.answers import plan as planner

    def step(backend: str | None) -> float:
        levers = {} if backend is None else {"attention_backend": backend}
        body = {
            "model": {"preset": "llama-3.1-8b"},
            "cluster": {"world_size": 8, "gpu": "h100-80gb"},
            "arrangement": "full_shard",
            "training": {"micro_batch_size": 1, "sequence_length": 8192},
            "levers": levers,
        }
        return planner.plan(PlanRequest.model_validate(body)).time.compute_s

    default, cudnn = step(None), step("cudnn")
    assert default == cudnn  # Hopper's default is cuDNN's fused attention
    assert step("flash_attention_2") > cudnn > step("flash_attention_3")
