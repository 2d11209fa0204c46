"""MXFP8 training priced as the frameworks run it on Blackwell (service/time/fp8.py, "MXFP8"), each expected value
written out here from its source.

- OCP MX v1.0: an MXFP8 element is 1 byte, and 32 of them share one 1-byte E8M0 scale: 1 + 1/32 = 1.03125 bytes.
- NVIDIA HGX B200 datasheet: 2.25 PFLOPS dense BF16 and 4.5 dense FP8 a GPU, 8 TB/s; the block-scaled path runs at
  the FP8 figure (torchao roofline_utils.py @36027d82 prices mxfp8_cublas GEMMs at fp8_peak_tops, reading
  num_reads + num_reads // 32 operand bytes).
- Transformer Engine's linear (module/linear.py @d0067d0d) quantises each input in the forward and each output
  gradient in the backward once for both usages, rowwise and columnwise: read 2, write 2 x 1.03125.
- torchao's MX linear (mx_formats/mx_linear.py @e4e681be, mx_mm) casts each of input, weight and output gradient
  along dim 0 and dim 1, one kernel a cast (read 2, write 1.03125): input and weight dim 0 in the forward, the rest in
  the backward.
- seed names no library: its GEMMs stay in bf16.
"""

import dataclasses

import pytest

from models.enums import Mxfp8Recipe, Recompute
from service.time.efficiency import Device, Efficiency, KernelShape, gemm_seconds, micro_batch_compute
from service.time.fp8 import (
    TORCHAO_MXFP8_CASTS,
    TRANSFORMER_ENGINE_CASTS,
    TRANSFORMER_ENGINE_MXFP8_CASTS,
    Fp8Casts,
    fp8_cast_seconds,
    mxfp8_casts,
)

BF16_PEAK, FP8_PEAK, HBM, SMS, CEILING = 2.25e15, 4.5e15, 8.0e12, 148, 0.60
MX = 1 + 1 / 32  # bytes of an MXFP8 element with its share of the block's scale


def test_the_recipes_cast_bytes_are_the_sources():
    assert MX == 1.03125
    assert TRANSFORMER_ENGINE_MXFP8_CASTS == Fp8Casts(4.0625, 4.0625, 0, 0, input_backward=0)
    # torchao: 2 + 1.03125 a cast; the output gradient's two casts both in the backward
    assert TORCHAO_MXFP8_CASTS == Fp8Casts(3.03125, 6.0625, 3.03125, 3.03125, input_backward=3.03125)
    assert mxfp8_casts(Mxfp8Recipe.fp8_weights) == TRANSFORMER_ENGINE_MXFP8_CASTS
    assert mxfp8_casts(Mxfp8Recipe.torchao) == TORCHAO_MXFP8_CASTS
    assert mxfp8_casts(Mxfp8Recipe.seed) is None


def test_torchaos_casts_of_one_linear():
    """M, K, N = 8192, 4096, 14336 (Llama 3 8B's up projection at 8,192 tokens), on the B200's 8 TB/s."""
    m, k, n = 8192, 4096, 14336
    forward_s, backward_s = fp8_cast_seconds(TORCHAO_MXFP8_CASTS, [(k, n)], k * n, m, HBM)
    # forward: input (m x k) and weight (k x n) along dim 0; backward: output gradient (m x n) along both
    # dimensions, weight along dim 1, input along dim 1
    assert forward_s == pytest.approx((3.03125 * m * k + 3.03125 * k * n) / HBM, rel=1e-12)
    assert backward_s == pytest.approx((6.0625 * m * n + 3.03125 * k * n + 3.03125 * m * k) / HBM, rel=1e-12)
    # 3.03125 x 2 x (33,554,432 + 58,720,256) + 6.0625 x 117,440,512 = 1,271,398,400 B: 0.159 ms
    assert forward_s + backward_s == pytest.approx(1_271_398_400 / HBM, rel=1e-12)


def test_transformer_engines_mxfp8_casts_cost_the_scales_over_delayed_scaling():
    m, k, n = 8192, 4096, 14336
    mx_f, mx_b = fp8_cast_seconds(TRANSFORMER_ENGINE_MXFP8_CASTS, [(k, n)], k * n, m, HBM)
    te_f, te_b = fp8_cast_seconds(TRANSFORMER_ENGINE_CASTS, [(k, n)], k * n, m, HBM)
    # two layouts of 1/32 B of scales an element beyond the per-tensor cast-transpose's 4 B
    assert mx_f - te_f == pytest.approx(2 / 32 * m * k / HBM, rel=1e-9)
    assert mx_b - te_b == pytest.approx(2 / 32 * m * n / HBM, rel=1e-9)


def test_an_mxfp8_gemm_runs_at_the_fp8_peak_and_reads_its_scales():
    device = Device(BF16_PEAK, HBM, SMS, None, FP8_PEAK)
    mx = Efficiency(device, fp8=True, fp8_operand_bytes=MX).gemm_device
    assert mx == dataclasses.replace(device, peak_flops_per_s=FP8_PEAK * 0.84, gemm_operand_bytes=1.03125)
    # a memory-bound product, one row against 8192 x 18944: one wave of 148 tiles, 2 x 128 x 128 x 8192 FLOPs each
    # at 4.5e15 x 0.84 x 0.60 / 148 a tile's SM (17.5 us), under (1.03125 (m k + k n) + 2 m n) bytes over HBM (20.0 us)
    m, k, n = 1, 8192, 18944
    assert gemm_seconds(m, k, n, mx, CEILING) == pytest.approx((1.03125 * (m * k + k * n) + 2 * m * n) / HBM)
    # a compute-bound one: 8192 x 4096 x 14336 in 64 x 112 = 7,168 tiles, ceil(7,168 / 148) = 49 waves
    m, k, n = 8192, 4096, 14336
    per_tile_s = 2 * 128 * 128 * k / (FP8_PEAK * 0.84 * CEILING / SMS)
    assert gemm_seconds(m, k, n, mx, CEILING) == pytest.approx(49 * per_tile_s, rel=1e-12)


def test_a_layer_under_either_recipe_is_its_fp8_gemms_and_its_casts():
    h, kv, f, layers, tokens = 4096, 1024, 14336, 32, 8192
    shape = KernelShape(layers, h, h, kv, f, True, 128256, 32)
    device = Device(BF16_PEAK, HBM, SMS, None, FP8_PEAK)
    per_tensor = micro_batch_compute(Efficiency(device, shape, fp8=True), 1, tokens, Recompute.none, 0.0)
    inputs = h + h + h + f  # q/k/v, output, gate and up, down: each GEMM's input width
    outputs = (h + 2 * kv) + h + 2 * f + h
    weights = h * (h + 2 * kv) + h * h + h * 2 * f + f * h
    for casts in (TRANSFORMER_ENGINE_MXFP8_CASTS, TORCHAO_MXFP8_CASTS):
        eff = Efficiency(device, shape, fp8=True, fp8_casts=casts, fp8_operand_bytes=MX)
        mx = micro_batch_compute(eff, 1, tokens, Recompute.none, 0.0)
        # the same compute-bound GEMMs at the same peak; only the casts differ from Transformer Engine's per-tensor
        # 4 + 4 B (2 B behind the q/k/v and fc1 norms, which write FP8 themselves under delayed scaling; an MXFP8
        # norm output is cast apart: normalization.cpp @d0067d0d runs MXFP8 unfused unless cuDNN's norm is asked)
        normed = h + h
        per_tensor_inputs = 4 * (inputs - normed) + 2 * normed
        forward = (casts.input_forward * inputs - per_tensor_inputs) * tokens + casts.weight_forward * weights
        backward = (
            (casts.grad_output_backward - 4) * outputs * tokens
            + casts.input_backward * inputs * tokens
            + casts.weight_backward * weights
        )
        assert mx.forward_s - per_tensor.forward_s == pytest.approx(layers * forward / HBM, rel=1e-9)
        assert mx.backward_s - per_tensor.backward_s == pytest.approx(layers * backward / HBM, rel=1e-9)


LLAMA_8B_B200 = {
    "model": {"preset": "llama-3-8b"},
    "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "b200"},
    "arrangement": "zero1",
    "precision": "mixed_bf16_adam",
    "training": {"micro_batch_size": 2, "sequence_length": 8192, "gradient_accumulation_steps": 8},
}


def _plan(client, gpu: str, levers: dict[str, object]) -> dict:
    body = LLAMA_8B_B200 | {"cluster": LLAMA_8B_B200["cluster"] | {"gpu": gpu}, "levers": levers}
    answer = client.post("/v1/plan", json=body)
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_plans_price_mxfp8_compute_on_blackwell_only(client):
    bf16 = _plan(client, "b200", {})["time"]["compute_s"]
    per_tensor = _plan(client, "b200", {"fp8": "transformer_engine"})["time"]["compute_s"]
    te = _plan(client, "b200", {"mxfp8": True, "mxfp8_recipe": "fp8_weights"})["time"]["compute_s"]
    torchao = _plan(client, "b200", {"mxfp8": True, "mxfp8_recipe": "torchao"})["time"]["compute_s"]
    seed = _plan(client, "b200", {"mxfp8": True, "mxfp8_recipe": "seed"})["time"]["compute_s"]
    # FP8 GEMMs, a little dearer than per-tensor FP8 (the scales), torchao's per-micro-batch casts dearer still
    assert per_tensor < te < torchao < bf16
    assert seed == bf16  # the textbook recipe names no library's casts: bf16 GEMMs
    # an H100 has FP8 tensor cores but no block-scaled ones: the lever keeps bf16 GEMMs, and says so
    hopper = _plan(client, "h100-80gb", {"mxfp8": True, "mxfp8_recipe": "fp8_weights"})
    assert hopper["time"]["compute_s"] == _plan(client, "h100-80gb", {})["time"]["compute_s"]
    assert any("Blackwell-class" in w for w in hopper["warnings"])
