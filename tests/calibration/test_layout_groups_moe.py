"""The mixture-of-experts group of bench.calibration.layout_groups: Qwen3-235B-A22B on 256 H100 in five layouts
(yanring/Megatron-MoE-ModelZoo best_practice/qwen3/readme.md @e8650517, section 'H100')."""

import pytest

from bench.calibration.corpus import Metric, measured_tokens_per_s_per_gpu
from bench.calibration.layout_groups import GROUPS, QWEN3_235B_LAYOUTS
from bench.calibration.model import plan_request


def test_the_table_is_copied_as_printed() -> None:
    # columns TP, EP, PP, VPP, MBS, GA and 'Step time (sec)' of the five rows, in the table's order
    printed = [(2, 32, 8, 4, 1, 128, 19.7), (2, 32, 8, 4, 1, 128, 17.6), (2, 8, 1, 1, 4, 4, 17.6)]
    printed += [(2, 8, 32, 3, 1, 512, 24.2), (4, 8, 8, 4, 1, 256, 29.0)]
    rows = [
        (r.tensor, r.expert, r.pipeline, int(str(r.parallelism.get("virtual_stages", 1))), r.micro_batch_size)
        + (r.accumulation_steps, r.measured)
        for r in QWEN3_235B_LAYOUTS
    ]
    assert rows == printed
    # the table's DP column: world / (TP x PP)
    assert [r.data_parallel for r in QWEN3_235B_LAYOUTS] == [16, 16, 128, 4, 8]
    assert any(g.runs == QWEN3_235B_LAYOUTS for g in GROUPS)


def test_a_step_time_is_tokens_per_second_per_gpu() -> None:
    # 2,048 sequences x 4,096 tokens in 19.7 s on 256 GPUs: 8,388,608 / 19.7 / 256 = 1,663.35 tokens/s/GPU
    run = QWEN3_235B_LAYOUTS[0]
    assert run.metric is Metric.step_s
    assert measured_tokens_per_s_per_gpu(run) == pytest.approx(8_388_608 / 19.7 / 256)
    assert measured_tokens_per_s_per_gpu(run) == pytest.approx(1663.35, abs=0.01)


def test_every_row_is_a_plan_request_megatron_runs() -> None:
    for run in QWEN3_235B_LAYOUTS:
        request = plan_request(run)
        assert request.parallelism is not None
        assert request.parallelism.expert_tensor == 1  # --expert-tensor-parallel-size 1
    # 94 layers + the embedding and the loss over p x v chunks: 96 = 8 x 4 = 32 x 3
    for run in QWEN3_235B_LAYOUTS:
        if run.pipeline > 1:
            assert (94 + 2) % (run.pipeline * int(str(run.parallelism["virtual_stages"]))) == 0
