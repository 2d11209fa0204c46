"""FlagPerf's groups of one job in several layouts (bench.calibration.layout_groups_more): the figures as printed, each
row a plan request its source describes, and the terms each layout is priced with."""

import pytest

from bench.calibration.corpus import Metric
from bench.calibration.layout_groups import Group
from bench.calibration.layout_groups_more import (
    FLAGPERF,
    GROUPS,
    LLAMA3_8B_A800_LAYOUTS,
    NEIGHBOUR_GROUPS,
    TERMS,
    terms,
)
from bench.calibration.model import plan_request, predicted_tokens_per_s_per_gpu

ALL = GROUPS + NEIGHBOUR_GROUPS


def test_the_figures_are_copied_as_printed() -> None:
    # FlagOpen/FlagPerf @1b5a0303 training/nvidia/llama3_8B-megatron/README.md lines 61-64: token/p/s of H100 runs
    measured = {g.name: tuple(r.measured for r in g.runs) for g in ALL}
    assert measured["Llama 3 8B, 8 H100, TP2 DP4, Megatron-Core: bf16 or fp8"] == (8103, 10486)
    assert measured["Llama 3 8B, 16 H100, TP2 DP8, Megatron-Core: bf16 or fp8"] == (7914, 10280)
    # training/nvidia/llama2_70B-megatron/README.md lines 58 and 59 (amp, TP8PP4DP1 and TP4PP8DP1)
    assert measured["Llama 2 70B, 32 H800, batch 44 x 4096, FlagScale: TP8 PP4 or TP4 PP8"] == (641.93, 791.37)
    # llama3_8B README line 60 (the PP2DP4TP1 baseline) and the ablation table, lines 71-77 (the OOM row left out)
    printed = [(2, 4, 1, 3698.7), (4, 2, 1, 3306.5), (2, 2, 2, 3409.2), (2, 1, 4, 3006.1), (8, 1, 1, 2690.3)]
    printed += [(1, 1, 8, 2451.2), (4, 1, 2, 3042.7)]
    rows = [(r.pipeline, r.data_parallel, r.tensor, r.measured) for r in LLAMA3_8B_A800_LAYOUTS]
    assert rows == printed
    # training/nvidia/aquila2_7b-flagscale/README.md lines 55, 56 and 58: TPxPPyDPz, LBS and token/p/s
    aquila = [(r.tensor, r.pipeline, r.data_parallel, r.micro_batch_size, r.measured) for r in NEIGHBOUR_GROUPS[2].runs]
    assert aquila == [(1, 1, 8, 1, 3936.8), (8, 1, 1, 8, 2866.3), (2, 2, 2, 4, 3468.3)]


def test_every_row_is_the_job_its_script_runs() -> None:
    for group in ALL:
        for run in group.runs:
            assert run.source == FLAGPERF and "README.md" in run.where and "line" in run.where
            assert run.metric is Metric.tokens_per_s_per_gpu
            assert run.unpublished and run.assumed  # what the pages leave out is said
            request = plan_request(run)  # a valid /v1/plan request
            assert request.levers.overlap_grad_reduce is False  # no --overlap-grad-reduce in the scripts
            # --sequence-parallel (a no-op at TP 1) in the Megatron-Core and Llama 2 scripts, absent from Aquila2's and
            # from the Paddle configs
            megatron_sp = "llama3_8B-megatron" in run.where or "llama2_70B-megatron" in run.where
            assert run.sequence_parallel == (run.tensor > 1 and megatron_sp)
    # pretrain_llama3.sh: --global-batch-size 512, micro-batch 1: 512 = 1 x DP x accumulation
    for run in GROUPS[0].runs + GROUPS[1].runs + LLAMA3_8B_A800_LAYOUTS:
        assert run.global_batch_size == 512 and run.micro_batch_size == 1
        assert run.data_parallel * run.accumulation_steps == 512
        assert run.tensor * run.pipeline * run.data_parallel == run.world_size
    # llama2_70B run_pretraining.py: gbs = 1 x 8 GPUs x 4 nodes x 44 accumulation / (t x p) = 44 when t x p = 32
    for run in NEIGHBOUR_GROUPS[0].runs:
        assert run.tensor * run.pipeline == 32
        assert (run.global_batch_size, run.accumulation_steps) == (1 * 8 * 4 * 44 // 32, 44)
        assert plan_request(run).levers.attention_backend is not None
    # aquila2_7b run_pretraining.py: gbs = LBS x 8 GPUs x 9 accumulation / (t x p): 72 for the three rows
    for run in NEIGHBOUR_GROUPS[2].runs:
        assert run.global_batch_size == run.micro_batch_size * 8 * 9 // (run.tensor * run.pipeline) == 72
        assert run.accumulation_steps == 9
        assert plan_request(run).levers.overlap is False  # FlagScale @ed55532 overlaps no communication


def test_the_export_cards_carry_their_links() -> None:
    # H800 and A800: NVLink 400 GB/s both directions (200 GB/s a direction), InfiniBand 200 Gb/s = 25 GB/s a GPU
    export = [g for g in NEIGHBOUR_GROUPS if "H800" in g.name or "A800" in g.name]
    assert len(export) == 3
    for group in export:
        for run in group.runs:
            cluster = plan_request(run).cluster
            spec = cluster.links
            assert spec is not None and not isinstance(spec, str)
            assert spec.intra_node_bytes_per_s == 400e9 / 2
            assert spec.inter_node_bytes_per_s == 200e9 / 8
    for group in GROUPS:
        for run in group.runs:
            assert run.cluster == {} and run.gpu == "h100-80gb"
    for group in NEIGHBOUR_GROUPS:
        if group not in export:  # DGX A100: the card's reference links
            assert all(run.cluster == {} for run in group.runs)


def test_fp8_rows_differ_from_their_pair_in_fp8_alone() -> None:
    for group in GROUPS:
        bf16, fp8 = group.runs
        assert "fp8" not in bf16.levers and fp8.levers["fp8"] == "transformer_engine"
        same = ("model", "world_size", "tensor", "pipeline", "micro_batch_size", "recompute", "arrangement")
        assert all(getattr(bf16, name) == getattr(fp8, name) for name in same)


def test_groups_are_one_job_each() -> None:
    a, b = GROUPS[0].runs[0], GROUPS[1].runs[0]  # 8 and 16 GPUs: two jobs
    with pytest.raises(ValueError, match="not the same job"):
        Group("mixed", "x", "y", (a, b))


def test_terms_add_up_to_the_predicted_step() -> None:
    # the step a layout is priced at is the tokens of a step over the predicted throughput
    run = NEIGHBOUR_GROUPS[0].runs[0]
    priced = terms(run)
    assert set(priced) == set(TERMS)
    tokens = run.global_batch_size * run.sequence_length
    assert priced["step_s"] == pytest.approx(tokens / (predicted_tokens_per_s_per_gpu(run) * run.world_size))
    assert all(value >= 0.0 for value in priced.values())
    assert priced["pipeline_bubble_s"] > 0.0  # four stages, 44 micro-batches: a bubble


def test_granularity_counts_layer_passes_and_tokens_per_expert() -> None:
    from bench.calibration.layout_groups import QWEN3_235B_LAYOUTS
    from bench.calibration.layout_groups_more import granularity

    # Qwen3-235B-A22B (94 layers, 128 experts, top 8) at TP4 EP8 PP8, 1 x 4,096 tokens, 256 micro-batches:
    # 256 x 94 // 8 = 3,008 layer passes; 4,096 / 4 tokens a rank x 8 ranks x 8 copies / 128 experts = 512
    tp4 = QWEN3_235B_LAYOUTS[4]
    assert (tp4.tensor, tp4.expert, tp4.pipeline, tp4.accumulation_steps) == (4, 8, 8, 256)
    assert granularity(tp4) == (3008, 512.0)
    # TP2 EP32 PP8: 128 x 94 // 8 = 1,504; 2,048 x 32 x 8 / 128 = 4,096
    assert granularity(QWEN3_235B_LAYOUTS[0]) == (1504, 4096.0)
    # a dense model has no experts: Llama 2 70B TP8 PP4, 44 micro-batches x 80 // 4 layers
    assert granularity(NEIGHBOUR_GROUPS[0].runs[0]) == (44 * 80 // 4, 0.0)


def test_the_paddle_rows_are_their_configs() -> None:
    # training/nvidia/gpt3_6.7B-paddle/README.md lines 86-89 and 91-94, llama1_7B-paddle lines 49-52, 54-57, 59-62:
    # (TP, PP, sharding stage, per-device batch, tokens/s/GPU as printed: samples/s x 2,048 / 8)
    printed = {
        "gpt3_6.7B-paddle/README.md, lines 86-89": [(1, 1, 2, 4, 4410), (2, 1, 1, 4, 4024), (2, 1, 2, 4, 3811)]
        + [(2, 4, 1, 4, 3791)],
        "gpt3_6.7B-paddle/README.md, lines 91-94": [(1, 1, 2, 2, 1784), (2, 1, 1, 2, 1648), (2, 1, 2, 2, 1518)]
        + [(2, 4, 1, 4, 1643)],
        "llama1_7B-paddle/README.md, lines 49-52": [(1, 1, 2, 4, 4267), (2, 1, 1, 4, 3888), (2, 1, 2, 4, 3650)]
        + [(2, 4, 1, 4, 3722)],
        "llama1_7B-paddle/README.md, lines 54-57": [(1, 1, 2, 2, 2744), (2, 1, 1, 2, 2163), (2, 1, 2, 2, 2160)]
        + [(2, 4, 1, 2, 2232)],
        "llama1_7B-paddle/README.md, lines 59-62": [(1, 1, 2, 2, 1707), (2, 1, 1, 2, 1605), (2, 1, 2, 2, 1489)]
        + [(2, 4, 1, 4, 1597)],
    }
    paddle = [g for g in NEIGHBOUR_GROUPS if "Paddle" in g.name]
    assert len(paddle) == len(printed)
    for group in paddle:
        key = next(k for k in printed if group.where.endswith(k))
        rows = [(r.tensor, r.pipeline, int(r.arrangement[-1]), r.micro_batch_size, r.measured) for r in group.runs]
        assert rows == printed[key]
        # global batch 2M tokens (GPT-3, 1,024 x 2,048) or 4M (LLaMA, 2,048 x 2,048) = batch x accumulation x DP
        sequences = 1024 if "gpt3" in key else 2048
        for run in group.runs:
            assert run.global_batch_size == sequences and run.data_parallel * run.tensor * run.pipeline == 8
            assert run.precision == "mixed_fp16_adam"  # fp16 at level O2
            assert (run.recompute == "full") == ("91-94" in key or "54-57" in key or "59-62" in key)
    # the 40GB rows ran on A100 40GB
    assert {r.gpu for g in paddle for r in g.runs} == {"a100-80gb", "a100-40gb"}
