"""The efficiency model's terms, each from arithmetic written out here."""

import numpy as np
import pytest

from models.enums import Recompute
from models.presets import LinkSpec
from service.time.efficiency import (
    Calibration,
    Device,
    Efficiency,
    KernelShape,
    bus_speeds,
    gemm_seconds,
    micro_batch_compute,
    optimizer_seconds,
)

DEVICE = Device(peak_flops_per_s=1e15, hbm_bytes_per_s=2e12, multiprocessors=100)


def test_a_square_gemm_runs_in_whole_waves():
    # 4096^2 outputs are 32 x 32 = 1024 tiles of 128 x 128: 11 waves over 100 multiprocessors, each
    # tile 2 x 128 x 128 x 4096 FLOPs on one multiprocessor's share of half the peak
    tile_s = 2 * 128 * 128 * 4096 / (1e15 * 0.5 / 100)
    assert gemm_seconds(4096, 4096, 4096, DEVICE, 0.5) == pytest.approx(11 * tile_s, rel=1e-12)


def test_a_skinny_gemm_is_bound_by_its_bytes():
    # 8 x 8192 @ 8192 x 8192: one wave of 64 tiles, far less than its 2 x (8 x 8192 + 8192^2 + 8 x 8192) bytes
    memory_s = 2 * (8 * 8192 + 8192 * 8192 + 8 * 8192) / 2e12
    assert gemm_seconds(8, 8192, 8192, DEVICE, 0.5) == pytest.approx(memory_s, rel=1e-12)


def test_arrays_and_ints_agree():
    m = np.array([4096, 8], dtype=np.int64)
    arrays = gemm_seconds(m, 8192, 8192, DEVICE, 0.5)
    assert arrays[0] == gemm_seconds(4096, 8192, 8192, DEVICE, 0.5)
    assert arrays[1] == gemm_seconds(8, 8192, 8192, DEVICE, 0.5)


def test_bus_bandwidth_of_nvlink_and_of_a_nodes_nics():
    links = LinkSpec(intra_node_bytes_per_s=450e9, inter_node_bytes_per_s=50e9)
    bus = bus_speeds(links, 4)
    assert bus.intra_node_bytes_per_s == pytest.approx(370e9, rel=1e-12)  # nccl-tests issue 212
    assert bus.inter_node_bytes_per_s == pytest.approx(4 * 50e9 * 0.96, rel=1e-12)  # one ring per NIC
    # eight 400 Gb/s NICs (384 GB/s of bus bandwidth) outrun NVLink's 370: the ring runs at NVLink's
    assert bus_speeds(links, 8).inter_node_bytes_per_s == pytest.approx(370e9, rel=1e-12)
    a100 = bus_speeds(LinkSpec(intra_node_bytes_per_s=300e9, inter_node_bytes_per_s=25e9), 8)
    assert a100.inter_node_bytes_per_s == pytest.approx(192e9, rel=1e-12)
    capped = bus_speeds(LinkSpec(intra_node_bytes_per_s=100e9, inter_node_bytes_per_s=50e9), 8)
    assert capped.inter_node_bytes_per_s == pytest.approx(100e9 * 370 / 450, rel=1e-12)


def test_a_group_of_one_rank_makes_no_call():
    from models.plan import PlanRequest
    from service.answers import plan as planner

    body = {"model": {"preset": "llama-3.1-8b"}, "cluster": {"world_size": 1, "gpu": "h100-80gb"}, "arrangement": "ddp"}
    answer = planner.plan(PlanRequest.model_validate(body))
    assert [c.seconds for c in answer.traffic.collectives] == [0.0]
    assert answer.time.communication_s == 0.0


def test_a_layer_without_an_architecture_runs_every_flop_at_the_ceiling():
    cal = Calibration(default_gemm_ceiling=0.5)
    eff = Efficiency(Device(1e15), None, cal)
    none = micro_batch_compute(eff, 2, 1000, Recompute.none, 6e9)
    assert none.total_s == pytest.approx(6e9 * 2000 / (1e15 * 0.5), rel=1e-12)
    full = micro_batch_compute(eff, 2, 1000, Recompute.full, 6e9)
    assert full.total_s == pytest.approx(4 / 3 * none.total_s, rel=1e-12)


def test_without_flash_attention_the_scores_go_through_hbm():
    # the difference is the scores' bytes, per layer and token 4 passes of 8 heads x s 2-byte scores, 1.5 passes
    # per counted byte, twice again backward, and the attention core's own: unfused, the whole square (4 s (a x d)
    # per token forward, twice that backward) at the GEMM ceiling (0.5); fused, the causal half (2 s (a x d))
    # at FlashAttention-2's published speed on the H100 (a card of no named generation takes its fraction of the
    # peak), 319 TFLOP/s of 989.4 forward at 4K and head dim 128, its backward 2.5 x the FLOPs at 310 x 319 / 368
    # (Shah et al. 2024, arXiv 2407.08608, section 4.1, figures 5-6), times the attention scale (0.5). (It was
    # the scores alone, both cores at one rate on the whole square: a causal kernel runs half of it.)
    cal = Calibration(default_gemm_ceiling=0.5, default_attention_scale=0.5, elementwise_passes=1.5)
    flash = Efficiency(DEVICE, KernelShape(2, 1024, 1024, 1024, 4096, False, 1000, 8), cal)
    plain = Efficiency(DEVICE, KernelShape(2, 1024, 1024, 1024, 4096, False, 1000, 8, flash_attention=False), cal)
    s = 4096
    scores_s = 2 * 1.5 * 2 * 4 * 8 * s * s / 2e12  # layers x passes x bytes x 4 x heads x s x tokens / HBM
    unfused_s = 2 * 4 * s * 1024 * s / (1e15 * 0.5)  # two layers' forward
    causal_flops = 2 * 2 * s * 1024 * s
    fused_forward_s = causal_flops / (1e15 * 319 / 989.4 * 0.5)
    fused_backward_s = 2.5 * causal_flops / (1e15 * 310 * 319 / 368 / 989.4 * 0.5)
    with_flash = micro_batch_compute(flash, 1, s, Recompute.none, 0.0)
    without = micro_batch_compute(plain, 1, s, Recompute.none, 0.0)
    assert without.forward_s - with_flash.forward_s == pytest.approx(scores_s + unfused_s - fused_forward_s, rel=1e-9)
    assert without.backward_s - with_flash.backward_s == pytest.approx(
        2 * scores_s + 2 * unfused_s - fused_backward_s, rel=1e-9
    )


def test_selective_recomputation_repeats_the_attention_core_only_when_it_was_stored():
    # Korthikanti et al. 2022, section 4.2: the backward runs Q K^T, the softmax, its dropout and the
    # weighted sum again. Without flash attention, per layer: the two products' forward, 4 x s x (a x d)
    # FLOPs per token at the GEMM ceiling (0.5 of 1e15), and the scores' 4 passes of 8 heads x s 2-byte
    # values at 1.5 HBM passes per counted byte; two layers. With flash attention nothing was stored.
    cal = Calibration(default_gemm_ceiling=0.5, default_attention_scale=0.5, elementwise_passes=1.5)
    s = 4096
    attention_s = 4 * s * 1024 * s / (1e15 * 0.5)
    scores_s = 1.5 * 2 * 4 * 8 * s * s / 2e12
    plain = Efficiency(DEVICE, KernelShape(2, 1024, 1024, 1024, 4096, False, 1000, 8, flash_attention=False), cal)
    none = micro_batch_compute(plain, 1, s, Recompute.none, 0.0)
    selective = micro_batch_compute(plain, 1, s, Recompute.selective, 0.0)
    assert selective.forward_s == none.forward_s
    assert selective.backward_s - none.backward_s == pytest.approx(2 * (attention_s + scores_s), rel=1e-9)
    flash = Efficiency(DEVICE, KernelShape(2, 1024, 1024, 1024, 4096, False, 1000, 8), cal)
    assert micro_batch_compute(flash, 1, s, Recompute.selective, 0.0) == micro_batch_compute(
        flash, 1, s, Recompute.none, 0.0
    )


def test_adam_streams_thirty_bytes_a_weight():
    assert optimizer_seconds(10**9, DEVICE) == pytest.approx(30e9 / 2e12, rel=1e-12)


def test_the_collectives_add_up_to_the_communication_time():
    from models.plan import PlanRequest
    from service.answers import plan as planner

    body = {
        "model": {"preset": "llama-3.1-8b"},
        "cluster": {"world_size": 16, "gpu": "h100-80gb"},
        "arrangement": "zero3",
        "training": {"micro_batch_size": 2, "sequence_length": 8192, "gradient_accumulation_steps": 2},
    }
    answer = planner.plan(PlanRequest.model_validate(body))
    calls = answer.traffic.collectives
    total = sum(c.seconds * c.count_per_step for c in calls)
    assert total == pytest.approx(answer.time.communication_s, rel=1e-12)
    # 33 FSDP units (32 layers and the rest): every call pays at least 33 launches of 10.14 us
    assert all(c.seconds > 33 * 10.14e-6 for c in calls)


def test_sequence_parallelism_splits_the_norms_and_residuals_along_the_sequence():
    # Korthikanti et al. 2022, section 4.2.2: with sequence parallelism each of the t tensor-parallel ranks runs
    # the layer norms and the residual adds (and their dropouts) on its s / t of the sequence; without it every
    # rank repeats them. Per layer and token: two norms (read and write h) and two residual adds (read 2h, write
    # h), 2-byte values: 2 x (2 x 2h + 2 x 3h) bytes; at 1.5 HBM passes per counted byte, two layers, and the
    # backward twice the forward. Everything else (GEMMs, attention, the activation) is the same either way.
    cal = Calibration(default_gemm_ceiling=0.5, default_attention_scale=0.5, elementwise_passes=1.5)
    h, s, t = 1024, 4096, 4
    eff = Efficiency(DEVICE, KernelShape(2, h, h, h, 4 * h, False, 1000, 8), cal)
    replicated = micro_batch_compute(eff, 1, s, Recompute.none, 0.0, tensor=t)
    split = micro_batch_compute(eff, 1, s, Recompute.none, 0.0, tensor=t, sequence=t)
    norms_s = 2 * 1.5 * 2 * (2 * 2 * h + 2 * 3 * h) * s / 2e12  # layers x passes x bytes x (norms + adds) x tokens
    saved_s = norms_s * (1 - 1 / t)
    assert replicated.forward_s - split.forward_s == pytest.approx(saved_s, rel=1e-9)
    assert replicated.backward_s - split.backward_s == pytest.approx(2 * saved_s, rel=1e-9)
