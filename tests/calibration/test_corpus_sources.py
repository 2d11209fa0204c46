"""The corpus rows added for issue 24 (H100 pipelines past 1,000 GPUs, mixtures of experts): each measurement is
the source's own number, converted by arithmetic written out here."""

import pytest

from bench.calibration.corpus import AUTOMODEL, LLAMA3, RUNS, Metric, Run, measured_tokens_per_s_per_gpu

H100_PEAK = 989e12  # H100 SXM dense bf16, the peak Dubey et al. 2024's MFU column divides by


def rows(source: str) -> dict[str, Run]:
    return {r.name: r for r in RUNS if r.source == source}


def test_llama3_table_4_mfu_matches_its_teraflops():
    """Dubey et al. 2024, table 4: 430 TFLOP/s per GPU is 43% BF16 MFU, 400 is 41% (of the H100's 989)."""
    assert round(100 * 430e12 / H100_PEAK) == 43
    assert round(100 * 400e12 / H100_PEAK) == 40  # the table prints 41: its MFU is from unrounded FLOP/s
    assert abs(100 * 400e12 / H100_PEAK - 41) < 1


@pytest.mark.parametrize(("gpus", "tflops"), [(8192, 430), (16384, 400)])
def test_llama3_rows_convert_teraflops_by_palms_formula(gpus, tflops):
    """6N + 12 l h s per token (PaLM appendix B): N = 405,853,388,800, l = 126, h = 16,384, s = 8,192."""
    run = next(r for r in rows(LLAMA3).values() if r.world_size == gpus)
    assert run.metric is Metric.palm_tflops_per_gpu
    per_token = 6 * 405_853_388_800 + 12 * 126 * 16384 * 8192
    assert measured_tokens_per_s_per_gpu(run) == pytest.approx(tflops * 1e12 / per_token, rel=1e-12)
    # table 4: 16M tokens a batch, 8,192-token sequences, t8 p16: d = gpus / 128 replicas
    assert run.global_batch_size * run.sequence_length == 2048 * 8192 == 16 * 2**20
    assert (run.tensor, run.pipeline, run.data_parallel) == (8, 16, gpus // 128)


# Automodel's table: (GPUs, global batch, sequence, seconds per global step, tokens/s/GPU as printed)
AUTOMODEL_TABLE = {
    "DeepSeek-V3 p4 e64 x1024 (Automodel)": (1024, 8192, 4096, 37.87, 865),
    "DeepSeek-V3 p4 e64 x256 (Automodel)": (256, 512, 4096, 8.18, 1002),
    "Qwen3-30B-A3B e8 x8 (Automodel)": (8, 512, 4096, 21.773, 12040),
    "Llama-3.1-70B c2 x64 (Automodel)": (64, 128, 8192, 18.90, 866.77),
}


@pytest.mark.parametrize("name", AUTOMODEL_TABLE)
def test_automodel_throughput_is_its_step_time(name):
    """Tokens per second per GPU = global batch x sequence / step time / GPUs, to the table's rounding."""
    gpus, batch, seq, step_s, printed = AUTOMODEL_TABLE[name]
    run = rows(AUTOMODEL)[name]
    assert (run.world_size, run.global_batch_size, run.sequence_length, run.measured) == (gpus, batch, seq, printed)
    assert batch * seq / step_s / gpus == pytest.approx(printed, rel=0.002)


def test_the_corpus_has_what_issue_24_asks():
    """H100 runs with tensor and pipeline parallelism, mixtures of experts, data parallelism past 1,000 GPUs."""
    evaluable = [r for r in RUNS if not r.excluded]
    assert sum(r.gpu == "h100-80gb" and r.tensor > 1 and r.pipeline > 1 for r in evaluable) >= 6
    moe = {"deepseek-v3", "qwen3-30b-a3b"}
    assert {r.model.get("preset") for r in evaluable if r.expert > 1} == moe
    assert sum(r.world_size > 1000 and r.data_parallel >= 64 for r in evaluable) >= 3
