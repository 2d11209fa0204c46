"""The groups of bench.calibration.layout_groups_zoo (OLMo-core's H100 pairs, the B200 groups): the figures as
printed, checked against their sources' own arithmetic, and each row a plan request the source describes."""

import pytest

from bench.calibration.corpus import Metric, measured_tokens_per_s_per_gpu
from bench.calibration.layout_groups_zoo import BRIDGE_B200, GROUPS, NEIGHBOUR_GROUPS, OLMO_CORE, TORCHAO_B200
from bench.calibration.model import plan_request, predicted_tokens_per_s_per_gpu

TORCHAO, BRIDGE_8B, BRIDGE_405B = NEIGHBOUR_GROUPS


def test_the_cards_are_kept_apart() -> None:
    # the H100 report takes GROUPS, the other cards' report NEIGHBOUR_GROUPS
    assert {run.gpu for group in GROUPS for run in group.runs} == {"h100-80gb"}
    assert {run.gpu for group in NEIGHBOUR_GROUPS for run in group.runs} == {"b200"}


def test_the_olmo_core_table_is_copied_as_printed() -> None:
    # allenai/OLMo-core README.md @7e58d128 lines 54-61: 'Throughput' in tokens per second per device, bf16 then
    # BF16/FP8 with --train_module.float8_config.enabled=true, for OLMo2-1B, OLMo2-7B, Llama3-8B and OLMo2-13B
    printed = [(55000, 65000), (10000, 13000), (9500, 12500), (4600, 5500)]
    assert [tuple(run.measured for run in group.runs) for group in GROUPS] == printed
    for group, line in zip(GROUPS, (54, 56, 58, 60), strict=True):
        bf16, fp8 = group.runs
        assert f"line {line} " in bf16.where and f"line {line + 1} " in fp8.where
        assert "fp8" not in bf16.levers and fp8.levers["fp8"] == "torchao"
        for run in group.runs:
            assert run.source == OLMO_CORE and run.metric is Metric.tokens_per_s_per_gpu
            assert measured_tokens_per_s_per_gpu(run) == run.measured


def test_the_olmo_core_rows_are_their_scripts() -> None:
    # rank_microbatch_size = 8, 2, 2, 1 x 4,096 tokens; global_batch_size = 1,024 (2,048 for 13B) x 4,096 tokens
    micro = {"1B": 8 * 4096, "7B": 2 * 4096, "8B": 2 * 4096, "13B": 1 * 4096}
    batch = {"1B": 1024 * 4096, "7B": 1024 * 4096, "8B": 1024 * 4096, "13B": 2048 * 4096}
    for group in GROUPS:
        for run in group.runs:
            size = run.name.split()[0]
            assert run.micro_batch_size * run.sequence_length == micro[size]
            assert run.global_batch_size * run.sequence_length == batch[size]
            # one node of 8: accumulation = global batch / (micro-batch x 8); 1B: 1,024 / 64 = 16
            assert run.world_size == 8 and run.arrangement == "full_shard" and run.recompute == "none"
            assert run.accumulation_steps == batch[size] // (micro[size] * 8)
            # dolma2's 100,278 tokens padded to a multiple of 128: 784 x 128 = 100,352
            assert run.model["vocab_size"] == 128 * -(-100278 // 128) == 100352
    assert GROUPS[0].runs[0].accumulation_steps == 16
    # llama_like's FFN: 256 x ceil(int(8 d / 3) / 256); llama3_8B: x 1.3, a multiple of 1,024
    ffn = {run.name.split()[0]: run.model["ffn_hidden_size"] for group in GROUPS for run in group.runs}
    assert ffn["1B"] == 256 * -(-int(8 * 2048 / 3) // 256) == 5632
    assert ffn["7B"] == 256 * -(-int(8 * 4096 / 3) // 256) == 11008
    assert ffn["13B"] == 256 * -(-int(8 * 5120 / 3) // 256) == 13824
    assert ffn["8B"] == 1024 * -(-int(1.3 * int(8 * 4096 / 3)) // 1024) == 14336


def test_the_torchao_b200_table_is_copied_as_printed() -> None:
    # pytorch/ao docs/source/workflows/training.md @36027d82, lines 313-315: 'Median tokens/second' and 'Speedup over
    # baseline' of none (bfloat16), float8 tensorwise (f8 all-gather) and mxfp8_cublas
    bf16, float8, mxfp8 = (run.measured for run in TORCHAO.runs)
    assert (bf16, float8, mxfp8) == (8307.5, 10417.0, 9969.0)
    # the printed speedups: 10,417.0 / 8,307.5 = 1.2539 (+25.4%), 9,969.0 / 8,307.5 = 1.2000 (+20.0%)
    assert round(100 * (float8 / bf16 - 1), 1) == 25.4
    assert round(100 * (mxfp8 / bf16 - 1), 1) == 20.0
    # torchtitan's tps is per device: the figure is tokens per second per GPU as it stands
    for run in TORCHAO.runs:
        assert run.metric is Metric.tokens_per_s_per_gpu
        assert measured_tokens_per_s_per_gpu(run) == run.measured
        # batch size 1 per GPU, 8 GPUs, no accumulation: 8 sequences of 8,192 a step
        assert (run.world_size, run.global_batch_size, run.micro_batch_size, run.accumulation_steps) == (8, 8, 1, 1)
        assert run.sequence_length == 8192 and run.source == TORCHAO_B200
    # the step these figures imply: 8 x 8,192 tokens / (8,307.5 x 8) = 0.9861 s for bf16
    assert 8 * 8192 / (bf16 * 8) == pytest.approx(0.98610, abs=1e-5)


def test_the_megatron_bridge_b200_rows_are_copied_as_printed() -> None:
    # Megatron-Bridge docs/performance-summary-archive.md @067f987d lines 578-579: 'FP8-CS (FP8-MX)' tokens/s/GPU and
    # model TFLOP/s/GPU, 30624 (29521) | 1576 (1519) and 661 (624) | 1667 (1576)
    assert tuple(run.measured for run in BRIDGE_8B.runs) == (30624, 29521)
    assert tuple(run.measured for run in BRIDGE_405B.runs) == (661, 624)
    tflops = {BRIDGE_8B.name: (1576, 1519), BRIDGE_405B.name: (1667, 1576)}
    for group in (BRIDGE_8B, BRIDGE_405B):
        cs, mx = group.runs
        # both runs of a row count the same model FLOPs per token, so tokens/s over TFLOP/s agree within the printed
        # rounding (half a unit of the TFLOP column: 0.5 / 1,519 = 0.03%, 0.5 / 1,576 = 0.03%, plus the tokens')
        per_tflop = [run.measured / flops for run, flops in zip(group.runs, tflops[group.name], strict=True)]
        assert per_tflop[0] == pytest.approx(per_tflop[1], rel=2e-3)
        assert cs.source == mx.source == BRIDGE_B200
    # 30,624 / 1,576 = 19.431 tokens per TFLOP: 1e12 / 19.431 = 51.46 GFLOPs a token for Llama 3 8B at 8,192
    assert 30624 / 1576 == pytest.approx(19.431, abs=1e-3)


def test_the_megatron_bridge_rows_are_the_table_layouts() -> None:
    # columns GBS, MBS, TP, PP, CP, VP, GA of lines 578 and 579; DP = GPUs / (TP x PP x CP), GA = GBS / (MBS x DP)
    printed = {BRIDGE_8B.name: (8, 128, 2, 1, 1, 1, 1, 8), BRIDGE_405B.name: (128, 64, 1, 4, 8, 2, 8, 32)}
    for group in (BRIDGE_8B, BRIDGE_405B):
        for run in group.runs:
            virtual = int(str(run.parallelism.get("virtual_stages", 1)))
            row = (run.world_size, run.global_batch_size, run.micro_batch_size, run.tensor, run.pipeline, run.context)
            assert row + (virtual, run.accumulation_steps) == printed[group.name]
            assert run.sequence_length == 8192
    # 128 / (4 x 8 x 2) = 2 data-parallel ranks; 64 / (1 x 2) = 32 micro-batches
    assert BRIDGE_405B.runs[0].data_parallel == 2
    # 126 layers + the embedding and the loss over 8 x 8 chunks: 2 a chunk
    assert (126 + 2) % (8 * 8) == 0


def test_each_row_is_the_recipe_it_ran() -> None:
    for group in (BRIDGE_8B, BRIDGE_405B):
        cs, mx = group.runs
        assert cs.levers["fp8"] == "transformer_engine_current_scaling" and "mxfp8" not in cs.levers
        assert mx.levers["mxfp8"] is True and mx.levers["mxfp8_recipe"] == "fp8_weights" and "fp8" not in mx.levers
        for run in group.runs:
            assert run.arrangement == "zero1" and run.recompute == "none" and run.precision == "mixed_bf16_adam"
            assert run.levers["overlap_grad_reduce"] is True
    # llama31_405b_pretrain_config_b200: overlap_param_gather off for fp8_mx only
    assert [run.levers["overlap_param_gather"] for run in BRIDGE_405B.runs] == [True, False]
    assert [run.levers["overlap_param_gather"] for run in BRIDGE_8B.runs] == [True, True]
    assert all(run.levers["tp_comm_overlap"] is True and run.sequence_parallel for run in BRIDGE_405B.runs)
    bf16, float8, mxfp8 = TORCHAO.runs
    assert "fp8" not in bf16.levers and "mxfp8" not in bf16.levers
    assert float8.levers["fp8"] == "torchao" and mxfp8.levers["mxfp8"] is True
    assert mxfp8.levers["mxfp8_recipe"] == "torchao"  # torchao's MX linear, gathered in bf16


@pytest.mark.parametrize("group", GROUPS, ids=lambda g: g.name)
def test_every_h100_row_is_plannable(group: object) -> None:
    for run in group.runs:  # type: ignore[attr-defined]
        plan_request(run)  # a valid /v1/plan request
        assert predicted_tokens_per_s_per_gpu(run) > 0.0
        assert run.unpublished and run.assumed


@pytest.mark.parametrize("group", NEIGHBOUR_GROUPS, ids=lambda g: g.name)
def test_every_row_is_plannable(group: object) -> None:
    for run in group.runs:  # type: ignore[attr-defined]
        request = plan_request(run)  # a valid /v1/plan request
        assert request.cluster.world_size == run.world_size
        spec = request.cluster.links
        assert spec is not None and not isinstance(spec, str)
        # DGX B200: NVLink 5, 1.8 TB/s both directions; 400 Gb/s ConnectX-7 a GPU = 50 GB/s
        assert spec.intra_node_bytes_per_s == 1.8e12 / 2 and spec.inter_node_bytes_per_s == 400e9 / 8
        assert predicted_tokens_per_s_per_gpu(run) > 0.0  # the layout is one the planner accepts
        assert run.unpublished and run.assumed
