"""A B300 (Blackwell Ultra) takes Blackwell's fitted constants: its presets' peaks and HBM are a B200's, so a job on
either card is priced alike; with Hopper's default attention scale the B300 was priced 25% slower."""

from fastapi.testclient import TestClient

from models.gpu_presets import GPU_PRESETS, GpuPresetName
from service.time.efficiency import FITTED


def test_blackwell_ultra_takes_blackwells_constants():
    assert FITTED.ceiling("blackwell_ultra") == FITTED.ceiling("blackwell")
    assert FITTED.attention("blackwell_ultra") == FITTED.attention("blackwell")
    assert FITTED.attention("blackwell") != FITTED.default_attention_scale  # fitted, not Hopper's default


def test_a_job_on_b300_is_priced_as_on_b200(client: TestClient):
    b200, b300 = GPU_PRESETS[GpuPresetName("b200")], GPU_PRESETS[GpuPresetName("b300")]
    assert (b300.peak_bf16_flops, b300.hbm_bytes_per_s) == (b200.peak_bf16_flops, b200.hbm_bytes_per_s)
    steps = []
    for gpu in ("b200", "b300"):
        body = {
            "model": {"preset": "llama-3-8b"},
            "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": gpu},
            "arrangement": "zero3",
            "training": {"sequence_length": 8192, "micro_batch_size": 1},
        }
        answer = client.post("/v1/plan", json=body)
        assert answer.status_code == 200, answer.text
        steps.append(answer.json()["time"]["compute_s"])
    assert steps[1] == steps[0]
