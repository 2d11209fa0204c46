"""Hopper FP8 as a precision (levers.fp8), each term from its source, written out here.

- H100 SXM: 989.4 TFLOP/s dense bf16 and 1,978.9 dense FP8 (NVIDIA H100 datasheet: 1,979 and 3,958 with
  sparsity); the layers' GEMMs run at the FP8 peak times 0.84, reading 1-byte operands, attention and the logits at
  the 16-bit one. (The 0.84 is torchao's published float8 linear speedup, 1.39 at 4096 x 8192 x 16384 on H100, less
  its casts: tests/golden/test_fp8_training.py; before, the GEMMs kept the bf16 GEMMs' share of the doubled peak,
  which no published FP8 GEMM measurement shows.)
- Transformer Engine casts each GEMM input to FP8 with its transpose (cast-transpose: read 2 B, write 1 + 1) and
  caches an FP8 weight and its transpose for the step (transformer_engine/pytorch/module/linear.py,
  is_first_microbatch; Hopper's FP8 GEMMs are TN-only): 2 B per weight beside the 16/32-bit state.
- torchao's float8 under FSDP2 all-gathers the weights in FP8 (torchao/float8/fsdp_utils.py,
  WeightWithFloat8CastTensor.fsdp_pre_all_gather): 1 B per weight on the wire and in the gathered units.
"""

import dataclasses

import pytest

from models.enums import Recompute
from service.time.efficiency import Device, Efficiency, KernelShape, micro_batch_compute, trained_gemm_seconds

P = 8_030_261_248  # Llama 3 8B (tests/fit/test_limits.py)


def _plan(client, arrangement: str, fp8: str, precision: str = "megatron", gpu: str = "h100-80gb") -> dict:  # type: ignore[no-untyped-def]
    body = {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": gpu},
        "arrangement": arrangement,
        "precision": precision,
        "training": {"micro_batch_size": 1, "sequence_length": 8192},
        "levers": {"fp8": fp8},
    }
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def _rows(answer: dict) -> dict[str, dict]:
    return {row["state"]: row for row in answer["memory"]["breakdown"]}


def test_transformer_engine_caches_an_fp8_weight_and_its_transpose(client):
    plain, fp8 = _plan(client, "zero1", "none"), _plan(client, "zero1", "transformer_engine")
    cached = _rows(fp8)["compute_parameters"]
    assert (cached["dtype"], cached["bytes"]) == ("fp8", 2 * 1 * P)
    assert "compute_parameters" not in _rows(plain)
    assert fp8["memory"]["per_gpu_bytes"] - plain["memory"]["per_gpu_bytes"] == 2 * P
    assert fp8["traffic"]["collectives"] == plain["traffic"]["collectives"]  # gathers and reductions unchanged


def test_torchao_gathers_fsdp_units_in_fp8(client):
    plain, fp8 = _plan(client, "full_shard", "none", "fsdp2"), _plan(client, "full_shard", "torchao", "fsdp2")
    gathers = [c for c in fp8["traffic"]["collectives"] if c["name"] == "all_gather"]
    assert {(c["dtype"], c["buffer_bytes"]) for c in gathers} == {("fp8", 1 * P)}
    before = [c for c in plain["traffic"]["collectives"] if c["name"] == "all_gather"]
    assert {c["buffer_bytes"] for c in before} == {2 * P}
    assert 2 * _rows(fp8)["gathered_parameters"]["bytes"] == _rows(plain)["gathered_parameters"]["bytes"]
    reduce = [c for c in fp8["traffic"]["collectives"] if c["name"] == "reduce_scatter"]
    assert {c["dtype"] for c in reduce} == {"bf16"}  # gradients reduced as before
    # data parallel: nothing gathered, nothing cached
    assert _plan(client, "ddp", "torchao", "fsdp2")["memory"] == _plan(client, "ddp", "none", "fsdp2")["memory"]


def test_the_layers_gemms_run_at_the_fp8_peak_with_their_casts():
    peak, fp8_peak, hbm, sms = 989.4e12, 1978.9e12, 3.35e12, 132
    h, f, v, layers, tokens, ceiling = 4096, 14336, 128256, 32, 8192, 0.60
    shape = KernelShape(layers, h, h, 1024, f, True, v, 32)
    device = Device(peak, hbm, sms, None, fp8_peak)
    bf16 = micro_batch_compute(Efficiency(device, shape), 1, tokens, Recompute.none, 0.0)
    fp8 = micro_batch_compute(Efficiency(device, shape, fp8=True), 1, tokens, Recompute.none, 0.0)
    matrices = [(h, h + 2 * 1024), (h, h), (h, 2 * f), (f, h)]  # q/k/v, output, gate and up, down
    fast = dataclasses.replace(device, peak_flops_per_s=fp8_peak * 0.84, gemm_operand_bytes=1)
    gemm_f = gemm_b = 0.0
    for k, n in matrices:
        slow_f, slow_b = trained_gemm_seconds(tokens, k, n, device, ceiling)
        quick_f, quick_b = trained_gemm_seconds(tokens, k, n, fast, ceiling)
        gemm_f, gemm_b = gemm_f + quick_f - slow_f, gemm_b + quick_b - slow_b
    # inputs, cast with their transposes; the q/k/v and fc1 inputs come out of their LayerNorm-fused linear's norm
    # already in FP8 (Transformer Engine's normalization.cpp @d0067d0d, Impl::FULLY_FUSED for delayed scaling), so
    # only their transposes are made, read 1 and written 1 (this test once charged them 4 B too)
    normed = h + h
    cast_f = (4 * (sum(k for k, _ in matrices) - normed) + 2 * normed) * tokens / hbm
    cast_b = 4 * sum(n for _, n in matrices) * tokens / hbm  # output gradients
    assert fp8.forward_s - bf16.forward_s == pytest.approx(layers * (gemm_f + cast_f), rel=1e-9)
    assert fp8.backward_s - bf16.backward_s == pytest.approx(layers * (gemm_b + cast_b), rel=1e-9)
    assert fp8.total_s < bf16.total_s


def test_h100_fp8_shortens_the_step_and_an_a100_says_it_cannot(client):
    plain, fp8 = _plan(client, "zero1", "none"), _plan(client, "zero1", "torchao")
    assert fp8["time"]["compute_s"] < plain["time"]["compute_s"]
    a100 = _plan(client, "zero1", "torchao", gpu="a100-80gb")
    assert any("levers.fp8" in w and "FP8 peak" in w for w in a100["warnings"])
    assert a100["time"] == _plan(client, "zero1", "none", gpu="a100-80gb")["time"]


def test_fp8_and_mxfp8_together_are_refused(client):
    body = {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "levers": {"fp8": "transformer_engine", "mxfp8": True},
    }
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 422
    assert "/levers" in [e["pointer"] for e in response.json()["errors"]]


@pytest.mark.parametrize("fp8", ["transformer_engine", "torchao"])
def test_a_sweep_cell_under_fp8_is_its_plan(client, fp8):
    from tests.layouts.test_sweep_layouts import assert_row_is_its_plan
    from tests.sweep.test_sweep import rows, sweep

    base = {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"world_size": 16, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "arrangement": "full_shard",
        "precision": "fsdp2",
        "parallelism": {"sequence_parallel": True},
        "training": {"micro_batch_size": 1, "sequence_length": 4096},
        "levers": {"fp8": fp8},
    }
    answer = sweep(client, {"tensor": [1, 2, 4], "world_size": [16, 32]}, base=base)
    assert answer["rows"] == 6
    for row in rows(answer):
        assert_row_is_its_plan(client, base, row, base["model"])
