"""Published figures: ZeRO paper figure 1, the textbook simulator assignment, and the framework presets.

Rajbhandari et al. 2020, "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models",
figure 1: Psi = 7.5B weights, N_d = 64 GPUs, K = 12: baseline (2 + 2 + K) Psi = 120 GB;
P_os 31.4 GB; P_os+g 16.6 GB; P_os+g+p 1.9 GB (decimal GB).
"""

import pytest

from tests.conftest import plan_body

PSI = 7_500_000_000


@pytest.mark.parametrize(
    ("arrangement", "expected_bytes", "paper_gb"),
    [
        ("ddp", (2 + 2 + 12) * PSI, 120.0),
        ("zero1", 2 * PSI + 2 * PSI + 12 * PSI // 64, 31.4),
        ("zero2", 2 * PSI + (2 + 12) * PSI // 64, 16.6),
        ("zero3", (2 + 2 + 12) * PSI // 64, 1.9),
    ],
)
def test_zero_paper_figure_1(client, arrangement, expected_bytes, paper_gb):
    body = plan_body(arrangement, world_size=64, parameter_count=PSI, precision="mixed_fp16_adam")
    memory = client.post("/v1/plan", json=body).json()["memory"]
    assert memory["per_gpu_bytes"] == expected_bytes
    assert round(memory["per_gpu_gb"], 1) == paper_gb


# The textbook simulator: 100M weights, fp16, Adam, 1/2/8 ranks, DDP vs ZeRO-3.
SKETCH_P = 100_000_000


@pytest.mark.parametrize("ranks", [1, 2, 8])
def test_seed_assignment_rough_accounting(client, ranks):
    # The sketch: model = P x 2, grads = model, optim = P x 8 x 2 ("two fp32 moments, rough").
    ddp_expected = SKETCH_P * 2 + SKETCH_P * 2 + SKETCH_P * 8 * 2  # 2,000,000,000 B
    zero3_expected = ddp_expected // ranks
    for arrangement, expected in (("ddp", ddp_expected), ("zero3", zero3_expected)):
        body = plan_body(arrangement, world_size=ranks, parameter_count=SKETCH_P, precision="seed_sketch")
        memory = client.post("/v1/plan", json=body).json()["memory"]
        assert memory["per_gpu_bytes"] == expected
        assert memory["bytes_per_weight"] == 20 / (1 if arrangement == "ddp" else ranks)


@pytest.mark.parametrize("ranks", [1, 2, 8])
def test_seed_assignment_exact_accounting(client, ranks):
    # The exact count: fp16 parameters and gradients, fp32 master, fp32 moments = 16 B/weight.
    ddp_expected = SKETCH_P * (2 + 2 + 4 + 4 + 4)
    for arrangement, expected in (("ddp", ddp_expected), ("zero3", ddp_expected // ranks)):
        body = plan_body(arrangement, world_size=ranks, parameter_count=SKETCH_P, precision="mixed_fp16_adam")
        response = client.post("/v1/plan", json=body).json()
        assert response["memory"]["per_gpu_bytes"] == expected
        arithmetic = [row["arithmetic"] for row in response["memory"]["breakdown"]]
        if arrangement == "zero3" and ranks == 8:
            assert arithmetic[0] == "2 B x 100,000,000 weights / 8 GPUs = 25,000,000 B"


def test_sketch_written_as_explicit_dtypes_equals_its_preset(client):
    spec = {
        "parameter_dtype": "fp16",
        "gradient_dtype": "fp16",
        "master_dtype": None,
        "optimizer": "adam",
        "optimizer_state_dtype": "fp64",
    }
    explicit = client.post("/v1/plan", json=plan_body("ddp", parameter_count=SKETCH_P, precision=spec)).json()
    preset = client.post("/v1/plan", json=plan_body("ddp", parameter_count=SKETCH_P, precision="seed_sketch")).json()
    assert explicit == preset


def test_megatron_distributed_optimizer(client):
    # megatron/training/theoretical_memory_usage.py: 18 B/param; 6 + 12/N with the distributed optimizer
    p = 1_000_000_000
    ddp = client.post("/v1/plan", json=plan_body("ddp", parameter_count=p, precision="megatron")).json()
    zero1 = client.post("/v1/plan", json=plan_body("zero1", parameter_count=p, precision="megatron")).json()
    assert ddp["memory"]["per_gpu_bytes"] == 18 * p
    assert zero1["memory"]["per_gpu_bytes"] == 6 * p + 12 * p // 8


def test_deepspeed_zero2_estimator(client):
    # stage_1_and_2.py estimate_zero2_model_states_mem_needs: 2 * P + int(18 * P / N)
    p = 1_000_000_000
    body = client.post("/v1/plan", json=plan_body("zero2", parameter_count=p, precision="deepspeed")).json()
    assert body["memory"]["per_gpu_bytes"] == 2 * p + int(18 * p / 8)


def test_presets_name_their_sources(client):
    presets = client.get("/v1/presets").json()
    gpus = {g["name"]: g for g in presets["gpus"]}
    assert gpus["seed-80gb"]["memory_bytes"] == 80_000_000_000
    assert round(gpus["seed-80gb"]["memory_gib"], 1) == 74.5
    assert gpus["h100-80gb"]["memory_bytes"] == 81_559 * 2**20  # nvidia-smi: 81559 MiB
    precisions = {p["name"]: p["bytes_per_weight"] for p in presets["precisions"]}
    assert precisions["mixed_bf16_adam"] == 16 and precisions["megatron"] == 18 and precisions["seed_sketch"] == 20
    models = {m["name"]: m["parameter_count"] for m in presets["models"]}
    assert models["llama-2-7b"] == 6_738_415_616 and models["llama-3-8b"] == 8_030_261_248
    for group in presets.values():
        assert all(item["source"] for item in group)


def test_model_preset_supplies_the_count(client):
    body = plan_body("ddp")
    body["model"] = {"preset": "llama-2-7b"}
    body["activations"] = {"model": "none"}  # model states and the working set alone
    memory = client.post("/v1/plan", json=body).json()["memory"]
    assert memory["model_state_bytes"] == 16 * 6_738_415_616
    # plus two 25 MiB gradient buckets in flight (the working set of data parallel with overlap)
    assert memory["per_gpu_bytes"] == 16 * 6_738_415_616 + 2 * 25 * 2**20


@pytest.mark.parametrize(
    ("parameter_dtype", "gradient_dtype", "extra", "plain", "replicated", "sharded"),
    [
        # Megatron-LM docs/user-guide/features/dist_optimizer.md, bytes per parameter (d data-parallel ranks):
        # fp16 parameters and gradients: 20, or 4 + 16/d (fp32 main parameters and main gradients, Adam's two)
        ("fp16", "fp16", {"optimizer_gradient_dtype": "fp32"}, 20, 4, 16),
        # bf16 parameters, fp32 gradients: 18, or 6 + 12/d
        ("bf16", "fp32", {}, 18, 6, 12),
        # fp32 parameters and gradients: 16, or 8 + 8/d (no separate main copy)
        ("fp32", "fp32", {"master_dtype": None}, 16, 8, 8),
    ],
)
def test_megatron_distributed_optimizer_table(
    client, parameter_dtype, gradient_dtype, extra, plain, replicated, sharded
):
    p, d = 1_000_000_000, 8
    spec = {"parameter_dtype": parameter_dtype, "gradient_dtype": gradient_dtype} | extra
    ddp = client.post("/v1/plan", json=plan_body("ddp", d, parameter_count=p, precision=spec)).json()
    zero1 = client.post("/v1/plan", json=plan_body("zero1", d, parameter_count=p, precision=spec)).json()
    assert ddp["memory"]["model_state_bytes"] == plain * p
    assert zero1["memory"]["model_state_bytes"] == replicated * p + sharded * p // d
