"""Published arithmetic the calibration rests on; every expected value is the source's own number."""

import pytest

from bench.calibration.corpus import RUNS, Metric, flops_per_sequence, measured_tokens_per_s_per_gpu
from service.time.compute import flops_utilisation

A100_PEAK = 312e12  # A100 datasheet, dense bf16
# composer/callbacks/speed_monitor.py GPU_AVAILABLE_FLOPS['h100-sxm']['amp_bf16'], which llm-foundry's
# scripts/train/benchmarking/collect_results.py divides by
H100_PEAK = 1.979e15 / 2

# Narayanan et al. 2021, table 1: (GPUs, teraFLOP/s per GPU, % of peak, aggregate petaFLOP/s)
TABLE_1 = {
    "1.7B": (32, 137, 44, 4.4),
    "3.6B": (64, 138, 44, 8.8),
    "7.5B": (128, 142, 46, 18.2),
    "18B": (256, 135, 43, 34.6),
    "39B": (512, 138, 44, 70.8),
    "76B": (1024, 140, 45, 143.8),
    "145B": (1536, 148, 47, 227.1),
    "310B": (1920, 155, 50, 297.4),
    "530B": (2520, 163, 52, 410.2),
    "1T": (3072, 163, 52, 502.0),
}


@pytest.mark.parametrize("size", TABLE_1)
def test_narayanan_table_1_adds_up(size):
    gpus, per_gpu, percent, aggregate = TABLE_1[size]
    # per-GPU x GPUs is the aggregate, to the table's rounding of the per-GPU figure (half a teraFLOP/s)
    assert abs(per_gpu * gpus / 1000 - aggregate) <= 0.5 * gpus / 1000 + 0.05
    assert round(100 * per_gpu / 312) == percent  # of the A100's 312 teraFLOP/s


def test_narayanan_training_time_from_the_flop_formula():
    """Section 5.1: with s << 6h and V << 16lh the formula is 8TP / (nX): GPT-3 175B on 300B tokens with
    1024 GPUs at 140 teraFLOP/s takes 34 days; the 1T model on 450B tokens with 3072 at 163, 84 days."""
    day_s = 86_400
    assert round(8 * 300e9 * 175e9 / (1024 * 140e12) / day_s) == 34
    assert round(8 * 450e9 * 1008e9 / (3072 * 163e12) / day_s) == 84


def test_the_corpus_converts_teraflops_by_the_papers_formula():
    one_t = next(r for r in RUNS if r.metric is Metric.narayanan_tflops_per_gpu and r.world_size == 3072)
    s, layers, h, vocab = 2048, 128, 25600, 51200
    per_sequence = 96 * s * layers * h**2 * (1 + s / (6 * h) + vocab / (16 * layers * h))
    assert flops_per_sequence(one_t) == pytest.approx(per_sequence, rel=1e-12)
    # 3072 GPUs x 163 teraFLOP/s run the 3072-sequence batch in F / (n X) seconds
    step_s = 3072 * per_sequence / (3072 * 163e12)
    assert measured_tokens_per_s_per_gpu(one_t) == pytest.approx(3072 * s / step_s / 3072, rel=1e-12)


def test_mpt_7b_mfu_from_its_throughput():
    """llm-foundry's benchmark table: MPT-7B, s = 2048, 8 x H100, 10,643 tokens/s/GPU is 46.44% MFU
    by its formula (3 x 2 x n_params per token + 3 x n_layers x 2 x 2 x d_model x s, over 989.5 TFLOP/s)."""
    n_params, layers, d_model, s = 6658859008, 32, 4096, 2048
    flops_per_token = 3 * 2 * n_params + 3 * layers * 2 * 2 * d_model * s
    mfu = flops_utilisation(flops_per_token * 10643, 1.0, 1, H100_PEAK)
    assert round(100 * mfu, 2) == 46.44


def test_a_published_nccl_bus_bandwidth():
    """nccl-tests' all_reduce_perf on two H100 PCIe (NVIDIA/nccl issue 1161): 1,073,741,824 bytes in
    9306.7 us are 115.37 GB/s of algorithm bandwidth, and bus bandwidth = algbw x 2(n-1)/n (nccl-tests
    doc/PERFORMANCE.md) is the same 115.37 at n = 2."""
    size, time_s, n = 1073741824, 9306.7e-6, 2
    algbw = size / time_s / 1e9
    assert round(algbw, 2) == 115.37
    assert round(algbw * 2 * (n - 1) / n, 2) == 115.37


def test_the_corpus_is_as_wide_as_asked():
    assert len(RUNS) >= 25
    assert all(r.source and r.where for r in RUNS)
    assert {r.gpu.split("-")[0] for r in RUNS} >= {"a100", "h100"}
    assert min(r.world_size for r in RUNS) == 8 and max(r.world_size for r in RUNS) >= 3000
    assert {r.arrangement for r in RUNS} >= {"full_shard", "shard_grad_op", "ddp", "zero1"}
    assert any(r.needs_layouts for r in RUNS)
    for r in RUNS:  # every row's batch is whole micro-batches on every data-parallel rank
        assert r.accumulation_steps * r.micro_batch_size * r.data_parallel == r.global_batch_size, r.name
