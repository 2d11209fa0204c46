"""Megatron-DeepSpeed's published A100 runs, held out and never fitted (bench.calibration.corpus_megatron_deepspeed):
BLOOM 176B on 384 A100 (Le Scao et al. 2022, arXiv 2211.05100, section 3.4) and MT-NLG 530B on 280, 350 and 420
DGX A100 (Smith et al. 2022, arXiv 2201.11990, section 2.4).

BLOOM is a job nobody calibrated the plan on: its prediction must meet the held-out target (10%). MT-NLG is
predicted 23-29% fast (the module says why); its rows are checked as the paper prints them, its step times against
its teraFLOP/s, not its prediction.
"""

import pytest

from bench.calibration.__main__ import CORPUS, TARGET_MEDIAN
from bench.calibration.corpus import measured_tokens_per_s_per_gpu
from bench.calibration.corpus_megatron_deepspeed import MEGATRON_DEEPSPEED_RUNS
from bench.calibration.model import predicted_tokens_per_s_per_gpu

BLOOM, *MT_NLG = MEGATRON_DEEPSPEED_RUNS


def narayanan_flops_per_iteration(batch: int, s: int, layers: int, h: int, vocab: int) -> float:
    # Narayanan et al. 2021, section 5.1, with activation recomputation (Megatron-DeepSpeed's throughput calculator)
    return 96 * batch * s * layers * h**2 * (1 + s / (6 * h) + vocab / (16 * layers * h))


def test_bloom_as_printed():
    # 48 nodes x 8 A100 80GB; TP 4, PP 12, DP 8 (ZeRO-1); micro-batch 2, global batch 2,048 of 2,048 tokens
    assert (BLOOM.world_size, BLOOM.tensor, BLOOM.pipeline, BLOOM.data_parallel) == (384, 4, 12, 8)
    assert (BLOOM.micro_batch_size, BLOOM.global_batch_size, BLOOM.sequence_length) == (2, 2048, 2048)
    assert BLOOM.accumulation_steps == 2048 // (2 * 8) == 128
    assert (BLOOM.arrangement, BLOOM.recompute, BLOOM.measured) == ("zero1", "full", 156)
    # four 100 Gb/s Omni-Path links a node of 8 GPUs: 400e9 / 8 bits / 8 GPUs = 6.25 GB/s a GPU
    assert BLOOM.cluster["link_spec"]["inter_node_bytes_per_s"] == 6.25e9  # type: ignore[index]


def test_bloom_measured_tokens_are_its_teraflops():
    flops = narayanan_flops_per_iteration(2048, 2048, 70, 14336, 250880)  # 6.020e18 per iteration
    step_s = flops / (156e12 * 384)  # 100.5 s
    assert step_s == pytest.approx(100.5, abs=0.1)
    assert measured_tokens_per_s_per_gpu(BLOOM) == pytest.approx(2048 * 2048 / step_s / 384)


def test_bloom_is_predicted_within_the_held_out_target():
    measured = measured_tokens_per_s_per_gpu(BLOOM)
    assert abs(predicted_tokens_per_s_per_gpu(BLOOM) / measured - 1) <= TARGET_MEDIAN


@pytest.mark.parametrize(
    ("run", "nodes", "seconds", "tflops"),
    [(MT_NLG[0], 280, 60.1, 126), (MT_NLG[1], 350, 50.2, 121), (MT_NLG[2], 420, 44.4, 113)],
    ids=["280 nodes", "350 nodes", "420 nodes"],
)
def test_mt_nlg_as_printed(run, nodes, seconds, tflops):
    assert (run.world_size, run.tensor, run.pipeline, run.data_parallel) == (8 * nodes, 8, 35, nodes * 8 // 280)
    assert (run.global_batch_size, run.sequence_length, run.measured) == (1920, 2048, tflops)
    # section 2.4's seconds an iteration and teraFLOP/s per GPU are one figure under the section 5.1 count
    flops = narayanan_flops_per_iteration(1920, 2048, 105, 20480, 51200)
    assert flops / (seconds * 8 * nodes) / 1e12 == pytest.approx(tflops, rel=0.01)
    step_s = flops / (tflops * 1e12 * 8 * nodes)
    assert measured_tokens_per_s_per_gpu(run) == pytest.approx(1920 * 2048 / step_s / (8 * nodes))


def test_the_rows_are_held_out():
    assert not {run.name for run in CORPUS} & {run.name for run in MEGATRON_DEEPSPEED_RUNS}
