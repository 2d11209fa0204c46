"""The groups of bench.calibration.layout_groups_h100 (Qwen3-30B-A3B on 16 H100 under Megatron-Bridge, with and
without the expert-parallel overlap; Llama 3 70B SFT on 32 H100 in three layouts; Llama 3 8B on 8 H100 with and
without full activation checkpointing, eager): the figures as printed, each row the job its source ran, and the
pairs ordered as measured."""

import pytest

from bench.calibration import layout_groups, layout_groups_h100, layout_groups_more, layout_groups_zoo
from bench.calibration.corpus import Metric, bridge_flops_per_token, measured_tokens_per_s_per_gpu
from bench.calibration.layout_groups import evaluate
from bench.calibration.layout_groups_h100 import BRIDGE_A2A, BRIDGE_HYBRIDEP, BRIDGE_MEMORY, GROUPS, TORCHAO_NOCOMPILE
from bench.calibration.model import plan_request, predicted_tokens_per_s_per_gpu

A2A, HYBRIDEP, LLAMA, BF16_AC, FLOAT8_AC = GROUPS
QWEN = (A2A, HYBRIDEP)


def test_the_figures_are_copied_as_printed() -> None:
    # skills/perf-expert-parallel-overlap/SKILL.md @750d0d32 lines 133-134: 'no EP overlap | 41.25s', 'EP overlap |
    # 31.31s'; skills/nemo-mbridge-perf-expert-parallel-overlap/SKILL.md @067f987d lines 111-112: 'overlap off |
    # iterations 5-20 | 24.7138s', 'overlap on, search run | iterations 5-20 | 21.0725s'
    assert tuple(run.measured for run in A2A.runs) == (41.25, 31.31)
    assert tuple(run.measured for run in HYBRIDEP.runs) == (24.7138, 21.0725)
    # the printed relative figure: 41.25 / 31.31 = 1.317x
    assert round(41.25 / 31.31, 3) == 1.317
    # the printed model TFLOP/s checks the HybridEP pair: both count the same FLOPs a step, so TFLOP/s x step time
    # agree (244.039 x 24.7138 = 6,031.1; 286.208 x 21.0725 = 6,031.1)
    assert 244.039 * 24.7138 == pytest.approx(286.208 * 21.0725, rel=1e-4)
    for run in A2A.runs:
        assert run.source == BRIDGE_A2A and run.metric is Metric.step_s
    for run in HYBRIDEP.runs:
        assert run.source == BRIDGE_HYBRIDEP and run.metric is Metric.step_s


def test_a_step_time_is_tokens_per_second_per_gpu() -> None:
    # 1,024 sequences x 4,096 tokens in 41.25 s on 16 GPUs: 4,194,304 / 41.25 / 16 = 6,355.0 tokens/s/GPU
    assert measured_tokens_per_s_per_gpu(A2A.runs[0]) == pytest.approx(4_194_304 / 41.25 / 16)
    assert measured_tokens_per_s_per_gpu(A2A.runs[0]) == pytest.approx(6355.0, abs=0.1)
    # 4,194,304 / 24.7138 / 16 = 10,607.2
    assert measured_tokens_per_s_per_gpu(HYBRIDEP.runs[0]) == pytest.approx(10607.2, abs=0.1)


def test_every_row_is_the_harness_job() -> None:
    # QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_BF16_V1: 16 GPUs, GBS 1,024, EP 16, ETP 1, TP = PP = CP = MBS = 1;
    # set_qwen3_common_configs: sequence 4,096, no recomputation
    for group in QWEN:
        for run in group.runs:
            assert (run.world_size, run.global_batch_size, run.micro_batch_size, run.sequence_length) == (
                16,
                1024,
                1,
                4096,
            )
            assert (run.tensor, run.pipeline, run.context, run.expert) == (1, 1, 1, 16)
            assert run.parallelism["expert_tensor"] == 1 and run.recompute == "none"
            # 16 data-parallel ranks at micro-batch 1: 1,024 / 16 = 64 micro-batches a step
            assert run.data_parallel == 16 and run.accumulation_steps == 64
            # the distributed optimizer, gradients reduced in bf16 (grad_reduce_in_fp32 False)
            assert run.arrangement == "zero1" and run.precision == "mixed_bf16_adam"
            assert run.levers["overlap_grad_reduce"] is True and run.levers["overlap_param_gather"] is True
            assert run.unpublished and run.assumed
            request = plan_request(run)
            assert request.parallelism is not None and request.parallelism.expert == 16
            assert predicted_tokens_per_s_per_gpu(run) > 0.0


def test_each_pair_differs_in_the_expert_parallel_overlap_alone() -> None:
    for group in QWEN:
        off, on = group.runs
        assert off.levers["overlap_moe_expert_parallel_comm"] is False
        assert on.levers["overlap_moe_expert_parallel_comm"] is True
        assert {k: v for k, v in off.levers.items() if k != "overlap_moe_expert_parallel_comm"} == {
            k: v for k, v in on.levers.items() if k != "overlap_moe_expert_parallel_comm"
        }
    # --moe_flex_dispatcher_backend None: alltoall, moe_permute_fusion=false; the July recipe: HybridEP (planned as
    # the flex dispatcher the plan names, deepep) with the 8-GPU recipe's moe_permute_fusion True
    assert {run.levers["moe_token_dispatcher"] for run in A2A.runs} == {"alltoall"}
    assert {run.levers["moe_permute_fusion"] for run in A2A.runs} == {False}
    assert {run.levers["moe_token_dispatcher"] for run in HYBRIDEP.runs} == {"deepep"}
    assert {run.levers["moe_permute_fusion"] for run in HYBRIDEP.runs} == {True}


def test_the_llama_sft_table_is_copied_as_printed() -> None:
    # skills/nemo-mbridge-perf-memory-tuning/SKILL.md @067f987d lines 185-187: 'Experiment | TP | PP | VPP | DP |
    # TFLOP/s/GPU': Baseline 4 4 5 2 ~704, More PP 4 8 5 1 668.0, More TP 8 4 5 1 508.7
    rows = [
        (r.tensor, r.pipeline, int(str(r.parallelism["virtual_stages"])), r.data_parallel, r.measured)
        for r in LLAMA.runs
    ]
    assert rows == [(4, 4, 5, 2, 704), (4, 8, 5, 1, 668.0), (8, 4, 5, 1, 508.7)]
    # the printed 'vs Golden' column against the golden 709.93: -0.8%, -5.9%, -28.4% (508.7 / 709.93 = 0.7165, -28.3%:
    # the table's percentage was taken before its TFLOP/s were rounded, or from another golden figure)
    assert [round(100 * (r.measured / 709.93 - 1), 1) for r in LLAMA.runs] == [-0.8, -5.9, -28.3]
    for run in LLAMA.runs:
        assert run.source == BRIDGE_MEMORY and run.metric is Metric.bridge_tflops_per_gpu
        # 32 H100, MBS 1, GBS 32, sequence 4,096: 16 micro-batches at DP2, 32 at DP1
        assert (run.world_size, run.global_batch_size, run.micro_batch_size, run.sequence_length) == (32, 32, 1, 4096)
        assert run.accumulation_steps == 32 // run.data_parallel
        # 80 layers over p x 5 chunks: 4 a chunk at PP4, 2 at PP8
        assert 80 % (run.pipeline * 5) == 0
        assert run.levers["fp8"] == "transformer_engine_current_scaling" and run.levers["tp_comm_overlap"] is True
        assert run.levers["overlap_grad_reduce"] is False and run.arrangement == "zero1"
        assert run.sequence_parallel and run.unpublished and run.assumed
        assert plan_request(run).parallelism is not None


def test_the_tflops_are_bridges_count() -> None:
    # flop_utils.py @ebca8936 transformer_flops for Llama 3 70B (h 8,192, 80 layers, 64 heads of 128, 8 KV heads,
    # SwiGLU FFN 28,672, vocabulary 128,256 padded to 128 x TP), per token at 4,096:
    mlp = 6 * 8192 * (3 * 28672) * 80  # 338,228,674,560
    attention = 6 * 80 * (8192 * (8192 + 2 * 1024) + 8192 * 8192 + 8192 * 4096)  # 88,583,700,480
    assert (mlp, attention) == (338_228_674_560, 88_583_700_480)
    # TP4: 128,256 up to a multiple of 512 = 128,512; TP8: of 1,024 = 129,024
    assert bridge_flops_per_token({"preset": "llama-3-70b"}, 4096, 4) == mlp + attention + 6 * 8192 * 128_512
    assert bridge_flops_per_token({"preset": "llama-3-70b"}, 4096, 8) == mlp + attention + 6 * 8192 * 129_024
    assert mlp + attention + 6 * 8192 * 128_512 == 433_128_996_864
    # 704 TFLOP/s over 433,128,996,864 FLOPs a token: 1,625.39 tokens/s/GPU
    measured = [measured_tokens_per_s_per_gpu(r) for r in LLAMA.runs]
    assert measured[0] == pytest.approx(704e12 / 433_128_996_864)
    assert measured[0] == pytest.approx(1625.39, abs=0.01)
    # the three rows count within 0.006% of the same FLOPs a token, so the printed order is the throughput order
    assert measured[0] / measured[2] == pytest.approx(704 / 508.7, rel=1e-4)


def test_the_float8nocompile_tables_are_copied_as_printed() -> None:
    # torchao/prototype/float8nocompile/README.md @36027d82: 'No AC' lines 43-44 and 'Full AC' lines 63-64,
    # 'Tokens/sec' of bfloat16 eager and the float8nocompile prototype, and their 'Tokens/sec Δ' column
    assert tuple(r.measured for r in BF16_AC.runs) == (5339.0, 4502.0)
    assert tuple(r.measured for r in FLOAT8_AC.runs) == (5871.4, 4773.4)
    assert round(100 * (5871.4 / 5339.0 - 1), 2) == 9.97  # printed 9.97%
    assert round(100 * (4773.4 / 4502.0 - 1), 2) == 6.03  # printed 6.03%
    for group in (BF16_AC, FLOAT8_AC):
        none, full = group.runs
        assert (none.recompute, full.recompute) == ("none", "full")
        assert none.levers == full.levers  # the pair differs in the checkpointing alone
        for run in group.runs:
            assert run.source == TORCHAO_NOCOMPILE and run.metric is Metric.tokens_per_s_per_gpu
            # batch_size 1 a GPU at 4,096 tokens, FSDP over the 8 GPUs of one node, no accumulation
            assert (run.world_size, run.global_batch_size, run.micro_batch_size) == (8, 8, 1)
            assert run.sequence_length == 4096 and run.accumulation_steps == 1
            assert run.arrangement == "full_shard" and run.unpublished and run.assumed
    assert "fp8" not in BF16_AC.runs[0].levers
    assert all(run.levers["fp8"] == "torchao" for run in FLOAT8_AC.runs)


def test_the_groups_are_ordered_as_measured() -> None:
    # measured: the overlap faster in both (31.31 s < 41.25 s; 21.0725 s < 24.7138 s), TP4 PP4 > TP4 PP8 > TP8 PP4
    # (704 > 668.0 > 508.7), and no AC faster than full AC (5,339.0 > 4,502.0; 5,871.4 > 4,773.4)
    for group, pairs in zip(GROUPS, (1, 1, 3, 1, 1), strict=True):
        result = evaluate(group)
        assert (result.pairs_in_order, result.pairs) == (pairs, pairs), result.out_of_order


def test_the_h100_share_as_measured() -> None:
    # every H100 group of python -m bench.calibration --layout-groups: 40 of 44 pairs in order when these five
    # groups joined (33 of 37 before; the four out of order are MPT-3B at 32K tokens and three of the Qwen3-235B
    # group's nine pairs, all with its TP4 EP8 PP8 row)
    groups = layout_groups.GROUPS + layout_groups_more.GROUPS + layout_groups_zoo.GROUPS + layout_groups_h100.GROUPS
    results = [evaluate(group) for group in groups]
    good, total = sum(r.pairs_in_order for r in results), sum(r.pairs for r in results)
    assert (good, total) == (40, 44)
    assert round(good / total, 4) == 0.9091  # 40 / 44
