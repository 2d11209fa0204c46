"""FP8 training priced as the frameworks run it (service/time/fp8.py), each expected value written out here.

- torchao's float8 README (pytorch/ao torchao/float8/README.md @fdddb2cf, 'Performance', example 2): a tensorwise
  float8 linear at M, K, N = 4096, 8192, 16384 runs forward and backward 1.39 x as fast as in bf16, on the H100 of
  torchao/testing/training/roofline_utils.py @36027d82 (989 TFLOP/s bf16, 2.4 TB/s).
- roofline_utils.py get_tensor_memory_traffic_ovhd_s, "tensorwise": an input or output gradient runs an abs-max
  (read 2 B an element) and a cast writing both layouts (read 2, write 1 + 1); a bf16 weight an abs-max and a cast
  per layout (read 2, write 1, forward and backward). Under FSDP2's float8 all-gather the gathered weight is FP8
  and _scaled_mm's column-major right operand makes the backward copy it transposed (float8_ops.py
  preprocess_addmm: read 1, write 1).
- Transformer Engine's delayed scaling: a cast-transpose per input and per output gradient (read 2, write 1 + 1).
"""

import dataclasses

import pytest

from models.enums import Fp8Recipe, Recompute
from service.time.efficiency import (
    Device,
    Efficiency,
    KernelShape,
    fp8_weight_elements,
    gemm_seconds,
    micro_batch_compute,
    trained_gemm_seconds,
)
from service.time.fp8 import (
    TORCHAO_CASTS,
    TORCHAO_FP8_GATHER_CASTS,
    TRANSFORMER_ENGINE_CASTS,
    fp8_cast_seconds,
    fp8_casts,
)

PEAK, FP8_PEAK, SMS, CEILING = 989.4e12, 1978.9e12, 132, 0.60


def test_the_recipes_cast_bytes_are_the_sources():
    assert (TORCHAO_CASTS.input_forward, TORCHAO_CASTS.grad_output_backward) == (2 + 2 + 1 + 1, 2 + 2 + 1 + 1)
    assert (TORCHAO_CASTS.weight_forward, TORCHAO_CASTS.weight_backward) == (2 + 2 + 1, 2 + 1)
    assert (TORCHAO_FP8_GATHER_CASTS.weight_forward, TORCHAO_FP8_GATHER_CASTS.weight_backward) == (0, 1 + 1)
    assert (TRANSFORMER_ENGINE_CASTS.input_forward, TRANSFORMER_ENGINE_CASTS.grad_output_backward) == (4, 4)
    assert fp8_casts(Fp8Recipe.torchao) == TORCHAO_FP8_GATHER_CASTS  # FSDP2's float8 all-gather, as torchtitan runs it
    assert fp8_casts(Fp8Recipe.transformer_engine) == TRANSFORMER_ENGINE_CASTS


def test_torchaos_published_float8_linear_speedup():
    """The published 1.39 x at 4096 x 8192 x 16384, the casts at the benchmark card's 2.4 TB/s."""
    m, k, n, hbm = 4096, 8192, 16384, 2.4e12
    device = Device(PEAK, hbm, SMS, None, FP8_PEAK)
    fp8 = Efficiency(device, fp8=True).gemm_device
    bf16_s = sum(trained_gemm_seconds(m, k, n, device, CEILING))
    # three GEMMs: 32 x 128 tiles in 32 waves, 32 x 64 in 16, 64 x 128 in 63; each tile 2 x 128 x 128 x K FLOPs
    per_sm = PEAK * CEILING / SMS
    by_hand = (32 * 2 * 128 * 128 * k + 16 * 2 * 128 * 128 * n + 63 * 2 * 128 * 128 * m) / per_sm
    assert bf16_s == pytest.approx(by_hand, rel=1e-12)
    cast_f, cast_b = fp8_cast_seconds(TORCHAO_CASTS, [(k, n)], k * n, m, hbm)
    assert cast_f + cast_b == pytest.approx((6 * m * k + 6 * m * n + 8 * k * n) / hbm, rel=1e-12)
    fp8_s = sum(trained_gemm_seconds(m, k, n, fp8, CEILING)) + cast_f + cast_b
    assert bf16_s / fp8_s == pytest.approx(1.39, rel=0.01)


def test_an_fp8_gemm_reads_one_byte_operands():
    """A memory-bound product (one row against 8192 x 32768: 2 waves of 256 tiles, 119 us in bf16 and 71 us in FP8,
    under 160 and 80 us of bytes): (1 x (m k + k n) + 2 x m n) bytes over HBM in FP8, 2 x all three in bf16."""
    device = Device(PEAK, 3.35e12, SMS, None, FP8_PEAK)
    m, k, n = 1, 8192, 32768
    assert gemm_seconds(m, k, n, device, CEILING) == pytest.approx(2 * (m * k + k * n + m * n) / 3.35e12)
    fast = Efficiency(device, fp8=True).gemm_device
    assert gemm_seconds(m, k, n, fast, CEILING) == pytest.approx((m * k + k * n + 2 * m * n) / 3.35e12)


def test_torchao_under_fsdp_casts_activations_and_copies_the_gathered_weight():
    hbm = 3.35e12
    h, f, v, layers, tokens = 4096, 14336, 128256, 32, 8192
    shape = KernelShape(layers, h, h, 1024, f, True, v, 32)
    device = Device(PEAK, hbm, SMS, None, FP8_PEAK)
    te = micro_batch_compute(Efficiency(device, shape, fp8=True), 1, tokens, Recompute.none, 0.0)
    ao = Efficiency(device, shape, fp8=True, fp8_casts=TORCHAO_FP8_GATHER_CASTS)
    torchao = micro_batch_compute(ao, 1, tokens, Recompute.none, 0.0)
    inputs = h + h + h + f  # q/k/v, output, gate and up, down: each GEMM's input width
    outputs = (h + 2 * 1024) + h + 2 * f + h
    weights = h * (h + 2 * 1024) + h * h + h * 2 * f + f * h
    # the same GEMMs; torchao's abs-max adds 2 B an activation element, the transposed weight copy 2 B a weight;
    # behind the q/k/v and fc1 norms Transformer Engine's delayed scaling only transposes the norm's FP8 output
    # (2 B, not its 4-byte cast-transpose), so torchao's 6 B there is 4 more
    normed = h + h
    forward = 2 * (inputs - normed) + 4 * normed
    assert torchao.forward_s - te.forward_s == pytest.approx(layers * forward * tokens / hbm, rel=1e-9)
    expected_b = layers * (2 * outputs * tokens + 2 * weights) / hbm
    assert torchao.backward_s - te.backward_s == pytest.approx(expected_b, rel=1e-9)


def test_a_mixtures_fp8_weights_are_its_dense_matrices_and_local_experts():
    h, kv, f_e, experts, top_k = 1024, 256, 512, 8, 2
    shape = KernelShape(
        2, h, h, kv, top_k * f_e, True, 1000, 8, experts=experts, top_k=top_k, expert_ffn_hidden_size=f_e
    )
    attention = h * (h + 2 * kv) + h * h
    local = experts // 4  # expert parallel 4
    routed = local * (h * 2 * f_e + f_e * h)  # gate and up, down; the router (h x 8) stays bf16
    assert fp8_weight_elements(shape, 1, 4) == attention + routed


def test_plans_pick_the_recipes_casts(client):
    body = {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "arrangement": "full_shard",
        "precision": "fsdp2",
        "training": {"micro_batch_size": 1, "sequence_length": 8192},
    }

    def compute_s(arrangement: str, fp8: str) -> float:
        answer = client.post("/v1/plan", json=body | {"arrangement": arrangement, "levers": {"fp8": fp8}})
        assert answer.status_code == 200, answer.text
        return answer.json()["time"]["compute_s"]

    # torchao's abs-max (2 B an activation element) and the gathered weight's transposed copy (2 B a weight)
    assert compute_s("full_shard", "torchao") > compute_s("full_shard", "transformer_engine")
    assert compute_s("full_shard", "transformer_engine") < compute_s("full_shard", "none")


def test_the_published_share_leaves_fp8_gemms_short_of_twice_bf16():
    device = Device(PEAK, 3.35e12, SMS, None, FP8_PEAK)
    fast = Efficiency(device, fp8=True).gemm_device
    assert fast == dataclasses.replace(device, peak_flops_per_s=FP8_PEAK * 0.84, gemm_operand_bytes=1)
