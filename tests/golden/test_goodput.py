"""Time to train with checkpoints and failures (service.time.goodput) against its published sources.

Young 1974 (CACM 17(9)): tau = sqrt(2 delta M). Daly 2006 (FGCS 22(3)): the higher-order optimum
tau = sqrt(2 delta M) (1 + sqrt(delta / 2M) / 3 + delta / 18M) - delta, and the wall time
T_w = M e^(R/M) (e^((tau + delta)/M) - 1) T_s / tau. Dubey et al. 2024 (The Llama 3 Herd of Models),
section 3.3.4: 466 interruptions in a 54-day snapshot on up to 16,384 H100, higher than 90% effective
training time; section 3.3.1: Tectonic sustains 2 TB/s.
"""

import math

import pytest

from models.presets import PRECISION_PRESETS, PrecisionPresetName
from models.resilience import LLAMA3_INTERRUPTIONS_PER_GPU_HOUR, Checkpoint, Failures
from service.time.goodput import (
    checkpoint_bytes,
    daly_interval_s,
    job_mtbf_s,
    resilience_of,
    run_of,
    wall_factor,
    write_s,
    young_interval_s,
)


def test_young_interval_is_its_formula():
    # delta 60 s, M 24 h: sqrt(2 x 60 x 86,400) = sqrt(10,368,000) = 3,219.94 s
    assert young_interval_s(60.0, 86_400.0) == pytest.approx(3219.937887, rel=1e-9)


def test_daly_interval_is_its_formula():
    delta, m = 60.0, 86_400.0
    x = delta / (2 * m)  # 3.4722e-4
    expected = math.sqrt(2 * delta * m) * (1 + math.sqrt(x) / 3 + x / 9) - delta
    assert daly_interval_s(delta, m) == pytest.approx(expected, rel=1e-12)
    assert daly_interval_s(delta, m) == pytest.approx(3180.0, abs=1.0)  # 3219.94 x 1.006251 - 60
    # a stall of 2M or more: Daly's estimate is M itself
    assert daly_interval_s(200.0, 100.0) == 100.0


def test_wall_time_is_dalys_complete_model_and_free_of_failures_without_them():
    tau, delta, r, m = 3000.0, 60.0, 600.0, 86_400.0
    assert wall_factor(tau, delta, r, m) == pytest.approx(m * math.exp(r / m) * math.expm1((tau + delta) / m) / tau)
    assert wall_factor(tau, delta, r, math.inf) == pytest.approx((tau + delta) / tau)


def test_llama3_405b_interruptions_are_its_published_count():
    # the default rate over the snapshot: 16,384 GPUs for 54 days
    per_gpu_hour = Failures().rate_per_gpu_hour(8)[0]
    assert per_gpu_hour == LLAMA3_INTERRUPTIONS_PER_GPU_HOUR
    assert per_gpu_hour * 16_384 * 54 * 24 == pytest.approx(466, abs=1e-9)
    # the job's mean time between interruptions: 54 x 86,400 / 466 = 10,012.0 s, 2.78 h
    assert job_mtbf_s(per_gpu_hour, 16_384) == pytest.approx(54 * 86_400 / 466, rel=1e-12)


def test_llama3_405b_effective_training_time_is_above_90_percent():
    # 405e9 weights; a checkpoint keeps bf16 parameters, fp32 master weights and two fp32 moments: 14 bytes
    precision = PRECISION_PRESETS[PrecisionPresetName.mixed_bf16_adam].spec
    saved = checkpoint_bytes(405 * 10**9, precision)
    assert saved == 405 * 10**9 * 14
    # 2,048 nodes of 8 GPUs share Tectonic's 2 TB/s: 2.768 GB per node at 976.6 MB/s = 2.835 s
    spec = resilience_of(Checkpoint(), Failures(), 8)
    assert write_s(saved, 16_384, 8, spec.node_bytes_per_s) == pytest.approx(405e9 * 14 / 2e12, rel=1e-9)
    run = run_of(spec, 10.0, 16_384, 8, saved, 0, 64e9)
    # published: "higher than 90% effective training time"; the 600 s re-launch is the assumption
    assert 0.90 < run.goodput < 0.93
    # over 54 days of wall time the expected interruptions are the published 466
    totals = run.totals(54 * 86_400 * run.goodput)
    assert totals["expected_interruptions"] == pytest.approx(466, rel=1e-9)


def test_no_failures_no_checkpoints_full_goodput():
    spec = resilience_of(Checkpoint(), Failures(interruptions_per_gpu_hour=0), 8)
    run = run_of(spec, 1.0, 64, 8, 10**12, 10**9, 64e9)
    assert run.goodput == 1.0 and run.interval_steps == math.inf


def test_node_mtbf_is_a_rate_per_gpu_hour():
    # a node failing every 1,000 hours with 8 GPUs: 1 / 8,000 interruptions per GPU-hour
    assert Failures(node_mtbf_hours=1000).rate_per_gpu_hour(8)[0] == pytest.approx(1 / 8000)


def test_an_asynchronous_save_stalls_for_the_copy_to_the_host():
    spec = resilience_of(Checkpoint(save="asynchronous", interval_steps=100), Failures(), 8)
    # 64 GPUs of 1 GB staged each over a 64 GB/s host link: 1/64 s; the write, 8 GB per node at 976.6 MB/s
    # = 8.19 s, ends well inside the 100 s interval
    run = run_of(spec, 1.0, 64, 8, 64 * 10**9, 10**9, 64e9)
    assert run.stall_s == pytest.approx(10**9 / 64e9)
