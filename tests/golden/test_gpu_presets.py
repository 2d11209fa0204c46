"""GPU presets against their published figures: device-reported memory, dense peaks, HBM, links."""

import pytest

from models.enums import GpuGeneration
from models.presets import GPU_PRESETS, GpuPresetName
from tests.conftest import plan_body

G = GpuPresetName
MIB = 2**20
GB_PER_S = 1e9

# The issue's list, under the names the service uses (h100-80gb is the H100 SXM's historical name).
ISSUE_GPUS = [
    "v100-32gb", "a10g", "l40s", "a100-40gb", "a100-80gb", "h100-80gb", "h100-pcie", "h100-nvl", "h200",
    "h20", "gh200", "b200", "b300", "mi250x", "mi300x", "mi325x", "mi355x",
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "reported_bytes"),
    [
        # nvidia-smi "Memory-Usage" totals, in MiB, as the driver prints them.
        (G.v100_32gb, 32_510 * MIB),
        (G.a10g, 23_028 * MIB),
        (G.l40s, 46_068 * MIB),
        (G.a100_40gb, 40_960 * MIB),
        (G.a100_80gb, 81_920 * MIB),
        (G.h100_80gb, 81_559 * MIB),
        (G.h100_pcie, 81_559 * MIB),
        (G.h100_nvl, 95_830 * MIB),
        (G.h200, 143_771 * MIB),
        (G.h20, 97_871 * MIB),
        (G.gh200, 97_871 * MIB),
        (G.b200, 183_359 * MIB),
        (G.b300, 275_040 * MIB),
        # rocm-smi "VRAM Total Memory (B)", per GCD for the MI250X.
        (G.mi250x, 68_702_699_520),
        (G.mi300x, 196_592 * MIB),
    ],
)
def test_memory_as_the_device_reports_it(name, reported_bytes):
    assert GPU_PRESETS[name].memory_bytes == reported_bytes


@pytest.mark.parametrize(
    ("name", "bf16_sparse_tflops", "fp8_sparse_tflops"),
    [
        # Datasheets print "with sparsity"; the dense peak is half (NVIDIA H100/H200/GH200/L40S datasheets).
        (G.h100_80gb, 1979, 3958),
        (G.h100_pcie, 1513, 3026),
        (G.h100_nvl, 1671, 3341),
        (G.h200, 1979, 3958),
        (G.gh200, 1979, 3958),
        (G.b200, 4500, 9000),  # HGX B200 datasheet: 36 PF bf16 and 72 PF fp8 sparse for 8 GPUs
        (G.b300, 4500, 9000),  # HGX B300 datasheet: the same per 8 GPUs
        (G.mi300x, 2614.9, 5229.8),  # AMD MI300X datasheet: 2,614.9 TF bf16 with sparsity
    ],
)
def test_dense_peaks_are_half_the_sparse_figures(name, bf16_sparse_tflops, fp8_sparse_tflops):
    gpu = GPU_PRESETS[name]
    assert gpu.peak_bf16_flops == pytest.approx(bf16_sparse_tflops * 1e12 / 2, rel=1e-3)
    assert gpu.peak_fp8_flops == pytest.approx(fp8_sparse_tflops * 1e12 / 2, rel=1e-3)


def test_l40s_prints_its_dense_peaks():
    # NVIDIA L40S datasheet prints dense | sparse: BF16 362.05 | 733, FP8 733 | 1,466 TFLOPS.
    gpu = GPU_PRESETS[G.l40s]
    assert (gpu.peak_bf16_flops, gpu.peak_fp8_flops) == (362.05e12, 733e12)


@pytest.mark.parametrize(
    ("name", "both_ways_gb_per_s"),
    # Vendors quote the GPU-to-GPU link both ways; the presets hold one direction.
    [(G.v100_32gb, 300), (G.a100_80gb, 600), (G.h100_80gb, 900), (G.h200, 900), (G.b200, 1800), (G.mi300x, 896)],
)
def test_scale_up_is_per_direction(name, both_ways_gb_per_s):
    assert GPU_PRESETS[name].scale_up_bytes_per_s == both_ways_gb_per_s * GB_PER_S / 2


def test_generations_and_vendors():
    gen = {name.value: GPU_PRESETS[name].generation for name in GPU_PRESETS}
    assert gen["v100-32gb"] is GpuGeneration.volta
    assert {gen[n] for n in ("a10g", "a100-40gb", "a100-80gb")} == {GpuGeneration.ampere}
    assert gen["l40s"] is GpuGeneration.ada
    assert {gen[n] for n in ("h100-80gb", "h100-pcie", "h100-nvl", "h200", "h20", "gh200")} == {GpuGeneration.hopper}
    assert (gen["b200"], gen["b300"]) == (GpuGeneration.blackwell, GpuGeneration.blackwell_ultra)
    assert (gen["mi250x"], gen["mi300x"], gen["mi325x"], gen["mi355x"]) == (
        GpuGeneration.cdna2,
        GpuGeneration.cdna3,
        GpuGeneration.cdna3,
        GpuGeneration.cdna4,
    )
    assert {GPU_PRESETS[G(n)].vendor for n in ISSUE_GPUS} == {"nvidia", "amd"}


def test_every_issue_gpu_is_listed_with_its_figures(client):
    gpus = {g["name"]: g for g in client.get("/v1/presets").json()["gpus"]}
    for name in ISSUE_GPUS:
        gpu = gpus[name]
        assert gpu["source"] and gpu["generation"] and gpu["hbm_bytes_per_s"] > 0, name
        assert gpu["scale_up_bytes_per_s"] > 0 and gpu["nic_bytes_per_s"] > 0, name
        assert gpu["peak_fp16_flops"] > 0, name
    assert gpus["v100-32gb"]["peak_bf16_flops"] is None  # no bf16 tensor cores
    assert gpus["a100-80gb"]["peak_fp8_flops"] is None  # no fp8 tensor cores before Ada/Hopper


def test_fp8_doubles_bf16_where_both_exist():
    for name in ISSUE_GPUS:
        gpu = GPU_PRESETS[G(name)]
        if gpu.peak_fp8_flops is not None and gpu.peak_bf16_flops is not None:
            assert gpu.peak_fp8_flops == pytest.approx(2 * gpu.peak_bf16_flops, rel=0.015), name


def test_v100_plans_at_its_fp16_peak(client):
    body = plan_body("zero3", world_size=8)
    body["cluster"] = {"world_size": 8, "gpus_per_node": 8, "gpu": "v100-32gb"}
    body["training"] = body.get("training", {}) | {"utilisation": 0.4}
    plan = client.post("/v1/plan", json=body).json()
    time = plan["time"]
    assert time["compute_s"] == pytest.approx(time["compute_flops"] / (8 * 125e12 * 0.4))
    assert plan["memory"]["card_bytes"] == 32_510 * MIB


@pytest.mark.parametrize("name", ["a100-40gb", "a100-80gb", "h100-80gb", "h200", "b200", "mi300x", "seed-80gb"])
def test_earlier_names_still_work(client, name):
    body = plan_body("zero3")
    body["cluster"]["gpu"] = name
    assert client.post("/v1/plan", json=body).status_code == 200


@pytest.mark.parametrize(
    ("name", "both_ways_gb_per_s"),
    # Datasheets quote the host interface both ways: PCIe Gen3 x16 32 GB/s (V100), Gen4 64 GB/s
    # (A100, A10, L40S, MI250X), Gen5 128 GB/s (H100, MI300X); GH200's NVLink-C2C 900 GB/s.
    [(G.v100_32gb, 32), (G.a100_80gb, 64), (G.l40s, 64), (G.h100_80gb, 128), (G.mi300x, 128), (G.gh200, 900)],
)
def test_host_link_is_per_direction(name, both_ways_gb_per_s):
    assert GPU_PRESETS[name].host_bytes_per_s == both_ways_gb_per_s * GB_PER_S / 2
