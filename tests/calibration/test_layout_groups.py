"""Published groups of one job in several layouts (bench.calibration.layout_groups), and the tensor-parallel
overlap they exposed: each call hidden only behind the GEMM it is paired with."""

import pytest

from bench.calibration.corpus import Run
from bench.calibration.layout_groups import GROUPS, evaluate, pairs_in_order, split_points
from bench.calibration.model import plan_request
from models.enums import CollectiveName
from service.time.overlaps import paired_exposed_seconds, paired_gemm_weights


def test_pairs_are_counted_as_measured_against_predicted() -> None:
    # 3 rows: measured a > b > c; predicted a > c > b: (a, b) and (a, c) in order, (b, c) out of order
    good, total, wrong = pairs_in_order((3.0, 2.0, 1.0), (30.0, 10.0, 20.0))
    assert (good, total, wrong) == (2, 3, [(1, 2)])
    # equal measurements are no pair; a predicted tie is out of order
    assert pairs_in_order((1.0, 1.0, 2.0), (5.0, 5.0, 5.0))[:2] == (0, 2)


def test_torchtitan_split_points() -> None:
    # torchtitan 9dec370a generate_split_points for Llama 3.1 405B's 126 layers: 126 // 8 = 15 rest 6 (1F1B over 8
    # stages), 126 // 16 = 7 rest 14 (interleaved, two chunks a rank)
    assert split_points(126, 8) == [15, 16, 16, 16, 16, 16, 16, 15]
    assert split_points(126, 16) == [7] + [8] * 14 + [7]


def test_groups_copy_the_published_figures() -> None:
    measured = {g.name: tuple(r.measured for r in g.runs) for g in GROUPS}
    # benchmarks/llama3_h100_202412_torchtitan.md @b5bcd76c, tables 5 and 4
    assert measured["Llama 3.1 405B, 512 H100, FSDP8 TP8 PP8: pipeline schedule"] == (100, 128)
    assert measured["Llama 3.1 70B, 256 H100, FSDP32 TP8 float8: AsyncTP"] == (829, 876)
    # benchmarks/asyncTP_llama3_h100_2025-06_torchtitan.md @b5bcd76c
    assert measured["Llama 3.1 70B, 256 H100, FSDP32 TP8: AsyncTP and float8"] == (597.3, 652.4, 809.8, 942.4)
    assert measured["Llama 3.1 8B, 64 H100, FSDP8 TP8: AsyncTP and float8"] == (4378, 4809.4, 5078.1, 5570.1)
    # benchmarks/llama3_h100_202412_torchtitan.md @b5bcd76c tables 1 and 3, the torch.compile rows
    assert measured["Llama 3.1 8B, 8 H100, FSDP, torch.compile: float8"] == (6667, 8532)
    assert measured["Llama 3.1 8B, 128 H100, FSDP, torch.compile: float8"] == (6514, 8380)
    # pytorch/ao torchao/float8/README.md @49cb18a6, e2e training benchmarks, NVIDIA H100
    assert measured["Llama 3 8B, 8 H100, FSDP2: float8 tensorwise"] == (6150, 7689.5)
    # llm-foundry scripts/train/benchmarking/README.md @8c8dd48f, 'H100 80GB BF16' and 'H100 80GB FP8', T/s/GPU
    assert measured["MPT-3b, 8 H100, s32768: bf16 or fp8"] == (5873, 5856)
    assert measured["MPT-3b, 8 H100, s8192: bf16 or fp8"] == (16578, 19146)
    assert measured["MPT-3b, 8 H100, s512: bf16 or fp8"] == (27965, 36527)
    assert measured["MPT-1b, 8 H100, s32768: bf16 or fp8"] == (12025, 12580)
    assert measured["MPT-1b, 8 H100, s512: bf16 or fp8"] == (52275, 70315)
    for group in GROUPS:
        for run in group.runs:
            # global batch = local batch x FSDP degree, as each table states (512 for 70B, 256 for 405B)
            assert run.global_batch_size % (run.micro_batch_size * run.data_parallel) == 0
            plan_request(run)  # every row is a valid /v1/plan request
    big = GROUPS[0].runs[0]
    assert (big.global_batch_size, big.accumulation_steps, big.micro_batch_size) == (256, 8, 4)
    assert GROUPS[1].runs[0].global_batch_size == 512


def test_a_group_is_one_job() -> None:
    from bench.calibration.layout_groups import Group

    a, b = GROUPS[2].runs[0], GROUPS[3].runs[0]
    with pytest.raises(ValueError, match="not the same job"):
        Group("mixed", "x", "y", (a, b))


def test_the_schedule_and_async_tp_are_ordered_as_measured() -> None:
    # The orders the sources measured: interleaved 1F1B above 1F1B (table 5), AsyncTP above vanilla TP (table 4)
    for group in GROUPS[:3]:
        result = evaluate(group)
        assert result.pairs_in_order == result.pairs, result.out_of_order


def test_paired_weights_follow_transformer_engine() -> None:
    # transformer_engine/pytorch/module/base.py initialize_ub: all-gathers beside qkv_fprop, fc1_fprop, proj_dgrad,
    # fc2_dgrad and (the input gathered again) qkv_dgrad, fc1_dgrad; reduce-scatters beside proj_fprop, fc2_fprop,
    # qkv_wgrad, fc1_wgrad. Full recomputation runs the forward's pairs once more.
    assert paired_gemm_weights(CollectiveName.all_gather, False) == (2, 1, 2, 1)
    assert paired_gemm_weights(CollectiveName.reduce_scatter, False) == (1, 1, 1, 1)
    assert paired_gemm_weights(CollectiveName.all_gather, True) == (3, 1, 3, 1)
    assert paired_gemm_weights(CollectiveName.reduce_scatter, True) == (1, 2, 1, 2)


def test_a_call_hides_only_behind_its_own_gemm() -> None:
    # 6 all-gathers of 2 ms: qkv's GEMM 1 ms (2 of them), proj 0.5 ms (1), fc1 4 ms (2), fc2 3 ms (1):
    # exposed per call (2 x 1 + 1 x 1.5 + 0 + 0) / 6 ms; 6 calls: 3.5 ms
    exposed = paired_exposed_seconds(6, 2e-3, [1e-3, 0.5e-3, 4e-3, 3e-3], (2, 1, 2, 1))
    assert exposed == pytest.approx(3.5e-3)
    # every GEMM longer than the call: nothing exposed
    assert paired_exposed_seconds(6, 1e-3, [2e-3, 2e-3, 2e-3, 2e-3], (2, 1, 2, 1)) == 0.0


def test_async_tp_leaves_what_its_gemms_cannot_hide() -> None:
    # Llama 3.1 70B at t8, 16 x 8,192 tokens a micro-batch: the attention output projection (8,192 x 1,024 per rank)
    # is shorter than the reduce-scatter paired with it, so AsyncTP hides most but not all of the tensor group
    from bench.calibration.model import layout_evaluation

    def tensor_s(run: Run) -> float:
        return layout_evaluation(run).tensor_parallel_s

    vanilla, async_tp = GROUPS[2].runs[0], GROUPS[2].runs[1]
    assert 0.0 < tensor_s(async_tp) < 0.5 * tensor_s(vanilla)


def test_fp8_gathers_carry_one_byte_an_element() -> None:
    # Under per-tensor FP8 the dense pairs' sequence-parallel all-gathers carry FP8 (torchao @eab345c2
    # float8_tensor_parallel.py; Transformer Engine's userbuffers); the reduce-scatters of partial sums stay bf16.
    # Llama 3.1 8B (h = 4,096) at t8, 1 x 8,192 tokens: an all-gather's buffer is 8,192 x 4,096 elements and each
    # rank sends 7/8 of it.
    from models.enums import Dtype
    from models.model_presets import ModelPresetName
    from service.inputs.resolve import bare_preset
    from service.mesh.degrees import Mesh
    from service.time.mesh_traffic import StageWork, tensor_calls

    arch = bare_preset(ModelPresetName("llama-3.1-8b")).architecture
    assert arch is not None
    mesh = Mesh(64, 8, tensor=8, sequence_parallel=True)
    calls = {}
    for fp8 in (False, True):
        work = StageWork(32, 0, 1, 1, 8192, False, fp8_gathers=fp8)
        calls[fp8] = {c.name: c for c in tensor_calls(mesh, arch, work)}
    buffer = 8192 * 4096
    gather, scatter = CollectiveName.all_gather, CollectiveName.reduce_scatter
    assert calls[False][gather].bytes_sent == 2 * buffer * 7 // 8
    assert calls[True][gather].bytes_sent == 1 * buffer * 7 // 8
    assert calls[True][gather].dtype is Dtype.fp8
    assert calls[True][scatter].bytes_sent == calls[False][scatter].bytes_sent == 2 * buffer * 7 // 8
