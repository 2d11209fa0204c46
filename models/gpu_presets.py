"""GPU presets as data: memory as the device reports it, dense peaks, HBM, links; each cited.

Bandwidths are per GPU and per direction (vendors quote NVLink and Infinity Fabric both ways:
H100's "900 GB/s" is 450e9 B/s each way). ``nic_bytes_per_s`` is the scale-out NIC a typical
system gives each GPU (DGX/HGX reference designs, or the cloud instance named), not a limit of
the chip. Peaks are dense, without structured sparsity (datasheets print the sparse figure with
an asterisk: dense is half of it). ``host_bytes_per_s`` is the datasheet's host interface (PCIe
x16 of its generation; GH200's NVLink-C2C to Grace); null where the datasheet leaves it open (B300).
"""

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from models.enums import GpuGeneration, ScaleUpLink

MIB_BYTES = 2**20
GIB_BYTES = 2**30
GBIT_BYTES_PER_S = 1e9 / 8

# What a training process cannot use of a card (DESIGN.md, 'What "fits" means for a real job').
# A GPU preset may carry its own reserve_bytes and fragmentation; one that leaves them null gets
# these defaults, so a new preset is never planned against the bare card.
CUDA_CONTEXT_BYTES = 723 * MIB_BYTES
CUDA_CONTEXT_SOURCE = (
    "CUDA context: 723 MiB measured by nvidia-smi after the first CUDA call of a PyTorch process "
    "(discuss.pytorch.org, 'What is the reason for pytorch's GPU memory floor?'; 'about 700+ MB depending on "
    "the CUDA version and device', 'High gpu memory overhead')"
)
NCCL_BUFFER_BYTES = 688 * MIB_BYTES
NCCL_BUFFER_SOURCE = (
    "NCCL buffers: 688 MiB for one communicator of more than two GPUs after an all-reduce, measured on 4 x A100 "
    "with NVLink (NVIDIA/nccl issue 964); per channel and peer NCCL allocates its Simple (4 MiB), LL and LL128 "
    "buffers (src/init.cc defaults), so the figure grows with the channels a topology uses"
)
DEFAULT_RESERVE_BYTES = CUDA_CONTEXT_BYTES + NCCL_BUFFER_BYTES
DEFAULT_FRAGMENTATION = 0.1
FRAGMENTATION_SOURCE = (
    "allocator fragmentation: the PyTorch caching allocator left on average 9.2 GB of an 80 GB A100 unusable "
    "across eight LLM training setups (GMLake, Guo et al., ASPLOS 2024: 11.5%), rounded down to 10%"
)


class GpuPresetName(StrEnum):
    v100_32gb = "v100-32gb"
    a10g = "a10g"
    l40s = "l40s"
    a100_40gb = "a100-40gb"
    a100_80gb = "a100-80gb"
    h100_80gb = "h100-80gb"
    h100_pcie = "h100-pcie"
    h100_nvl = "h100-nvl"
    h200 = "h200"
    h20 = "h20"
    gh200 = "gh200"
    b200 = "b200"
    b300 = "b300"
    mi250x = "mi250x"
    mi300x = "mi300x"
    mi325x = "mi325x"
    mi355x = "mi355x"
    seed_80gb = "seed-80gb"


class GpuPreset(BaseModel):
    """A card: the memory the device reports, its dense peaks, HBM and links, and what a job cannot use of it.

    ``reserve_bytes`` and ``fragmentation`` left null take DEFAULT_RESERVE_BYTES (CUDA context +
    NCCL buffers) and DEFAULT_FRAGMENTATION; a preset with its own measurement sets them.
    """

    model_config = ConfigDict(frozen=True)

    name: GpuPresetName
    description: str
    memory_bytes: int = Field(description="Device memory in bytes, as the device reports it.")
    peak_bf16_flops: float | None = Field(
        description="Dense (no sparsity) bf16 tensor-core peak, FLOP/s; null without bf16 tensor cores (V100)."
    )
    blackwell_class: bool = Field(description="Has native MXFP8 tensor-core support.")
    reserve_bytes: int | None = Field(
        default=None,
        ge=0,
        description="CUDA context + NCCL buffers, bytes; null: the default "
        f"{DEFAULT_RESERVE_BYTES:,} B ({CUDA_CONTEXT_BYTES // MIB_BYTES} MiB context + "
        f"{NCCL_BUFFER_BYTES // MIB_BYTES} MiB NCCL).",
    )
    fragmentation: float | None = Field(
        default=None,
        ge=0,
        lt=1,
        description=f"Fraction of the card the allocator cannot use; null: the default {DEFAULT_FRAGMENTATION:g}.",
    )
    source: str
    vendor: str | None = Field(default=None, description="nvidia or amd.")
    generation: GpuGeneration | None = Field(default=None, description="Architecture generation.")
    peak_fp16_flops: float | None = Field(default=None, description="Dense fp16 tensor-core peak, FLOP/s.")
    peak_fp8_flops: float | None = Field(
        default=None, description="Dense fp8 tensor-core peak, FLOP/s; null without fp8 tensor cores."
    )
    hbm_bytes_per_s: float | None = Field(default=None, description="Device memory bandwidth, bytes/s.")
    scale_up: ScaleUpLink | None = Field(default=None, description="GPU-to-GPU link inside a node.")
    scale_up_bytes_per_s: float | None = Field(
        default=None, description="That link's bandwidth per GPU, per direction (all links together), bytes/s."
    )
    nic_bytes_per_s: float | None = Field(
        default=None, description="Typical scale-out NIC bandwidth per GPU, per direction, bytes/s."
    )
    host_bytes_per_s: float | None = Field(
        default=None,
        description="Link to host memory per GPU, per direction, bytes/s: PCIe x16 of the card's generation "
        "(GH200: NVLink-C2C to Grace).",
    )

    def reserve(self) -> tuple[int, float]:
        """(reserve_bytes, fragmentation) with the defaults applied."""
        reserve = DEFAULT_RESERVE_BYTES if self.reserve_bytes is None else self.reserve_bytes
        fragmentation = DEFAULT_FRAGMENTATION if self.fragmentation is None else self.fragmentation
        return reserve, fragmentation


_DGX_A100_NIC = "DGX A100: 8 x 200 Gb/s HDR InfiniBand, one per GPU"
_DGX_H100_NIC = "DGX H100/H200: 8 x 400 Gb/s ConnectX-7, one per GPU"
_MI300_NIC = "AMD Instinct MI300X platform reference: one 400 Gb/s NIC per GPU"


def _nvidia(
    name: GpuPresetName,
    description: str,
    memory_bytes: int,
    peaks: tuple[float | None, float | None, float | None],
    hbm: float,
    scale_up: tuple[ScaleUpLink, float],
    nic_gbit: float,
    generation: GpuGeneration,
    source: str,
    vendor: str = "nvidia",
    host: float | None = None,
) -> GpuPreset:
    """peaks: dense bf16, fp16, fp8 FLOP/s; scale_up: kind and bytes/s per direction; NIC in Gb/s;
    host: bytes/s per direction to host memory."""
    bf16, fp16, fp8 = peaks
    return GpuPreset(
        name=name,
        description=description,
        memory_bytes=memory_bytes,
        peak_bf16_flops=bf16,
        peak_fp16_flops=fp16,
        peak_fp8_flops=fp8,
        blackwell_class=generation in (GpuGeneration.blackwell, GpuGeneration.blackwell_ultra, GpuGeneration.cdna4),
        hbm_bytes_per_s=hbm,
        scale_up=scale_up[0],
        scale_up_bytes_per_s=scale_up[1],
        nic_bytes_per_s=nic_gbit * GBIT_BYTES_PER_S,
        host_bytes_per_s=host,
        vendor=vendor,
        generation=generation,
        source=source,
    )


NV, IF, PCIE = ScaleUpLink.nvlink, ScaleUpLink.infinity_fabric, ScaleUpLink.pcie
# PCIe x16 per direction, as datasheets quote it both ways: Gen3 32 GB/s, Gen4 64 GB/s, Gen5 128 GB/s.
PCIE3, PCIE4, PCIE5 = 16e9, 32e9, 64e9

GPU_PRESETS: dict[GpuPresetName, GpuPreset] = {
    p.name: p
    for p in (
        _nvidia(
            GpuPresetName.v100_32gb,
            "NVIDIA V100 SXM2 32 GB HBM2 (no bf16 tensor cores: trains in fp16)",
            32_510 * MIB_BYTES,
            (None, 125e12, None),
            900e9,
            (NV, 150e9),
            50,
            GpuGeneration.volta,
            "nvidia-smi reports 32510 MiB; NVIDIA V100 datasheet (SXM2): 125 TFLOPS tensor (fp16), 900 GB/s, "
            "NVLink 300 GB/s; DGX-1 (V100): 4 x 100 Gb/s EDR InfiniBand for 8 GPUs",
            host=PCIE3,
        ),
        _nvidia(
            GpuPresetName.a10g,
            "NVIDIA A10G 24 GB GDDR6 (AWS G5)",
            23_028 * MIB_BYTES,
            (70e12, 70e12, None),
            600e9,
            (PCIE, PCIE4),
            12.5,
            GpuGeneration.ampere,
            "nvidia-smi reports 23028 MiB; Baseten, 'NVIDIA A10 vs A10G for ML model inference' (spec table: "
            "70 TFLOPS bf16 tensor, 600 GB/s); no NVLink: PCIe 4.0 x16; AWS g5.48xlarge: 100 Gb/s for 8 GPUs",
            host=PCIE4,
        ),
        _nvidia(
            GpuPresetName.l40s,
            "NVIDIA L40S 48 GB GDDR6",
            46_068 * MIB_BYTES,
            (362.05e12, 362.05e12, 733e12),
            864e9,
            (PCIE, PCIE4),
            50,
            GpuGeneration.ada,
            "nvidia-smi reports 46068 MiB; NVIDIA L40S datasheet: BF16 362.05 | 733 TFLOPS (dense | sparse), "
            "FP8 733 | 1,466, 864 GB/s, PCIe 4.0 x16, no NVLink; AWS g6e.48xlarge: 400 Gb/s for 8 GPUs",
            host=PCIE4,
        ),
        _nvidia(
            GpuPresetName.a100_40gb,
            "NVIDIA A100 SXM4 40 GB",
            40_960 * MIB_BYTES,
            (312e12, 312e12, None),
            1555e9,
            (NV, 300e9),
            200,
            GpuGeneration.ampere,
            "nvidia-smi reports 40960 MiB; NVIDIA A100 datasheet: 312 TFLOPS dense BF16, 1,555 GB/s, NVLink "
            "600 GB/s; " + _DGX_A100_NIC,
            host=PCIE4,
        ),
        _nvidia(
            GpuPresetName.a100_80gb,
            "NVIDIA A100 SXM4 80 GB",
            81_920 * MIB_BYTES,
            (312e12, 312e12, None),
            2039e9,
            (NV, 300e9),
            200,
            GpuGeneration.ampere,
            "nvidia-smi reports 81920 MiB; NVIDIA A100 datasheet: 312 TFLOPS dense BF16, 2,039 GB/s, NVLink "
            "600 GB/s; " + _DGX_A100_NIC,
            host=PCIE4,
        ),
        _nvidia(
            GpuPresetName.h100_80gb,
            "NVIDIA H100 SXM5 80 GB HBM3",
            81_559 * MIB_BYTES,
            (989.4e12, 989.4e12, 1978.9e12),
            3.35e12,
            (NV, 450e9),
            400,
            GpuGeneration.hopper,
            "nvidia-smi reports 81559 MiB; NVIDIA H100 datasheet (SXM): 1,979 TFLOPS BF16 and 3,958 FP8 with "
            "sparsity (989.4 and 1,978.9 dense, H100 whitepaper), 3.35 TB/s, NVLink 900 GB/s; " + _DGX_H100_NIC,
            host=PCIE5,
        ),
        _nvidia(
            GpuPresetName.h100_pcie,
            "NVIDIA H100 PCIe 80 GB HBM2e",
            81_559 * MIB_BYTES,
            (756.5e12, 756.5e12, 1513e12),
            2.0e12,
            (NV, 300e9),
            400,
            GpuGeneration.hopper,
            "nvidia-smi reports 81559 MiB; NVIDIA H100 datasheet (PCIe): 1,513 TFLOPS BF16 and 3,026 FP8 with "
            "sparsity, 2 TB/s, NVLink bridge 600 GB/s (pairs); one 400 Gb/s ConnectX-7 per GPU",
            host=PCIE5,
        ),
        _nvidia(
            GpuPresetName.h100_nvl,
            "NVIDIA H100 NVL 94 GB HBM3",
            95_830 * MIB_BYTES,
            (835.5e12, 835.5e12, 1670.5e12),
            3.9e12,
            (NV, 300e9),
            400,
            GpuGeneration.hopper,
            "nvidia-smi reports 95830 MiB; NVIDIA H100 datasheet (NVL): 1,671 TFLOPS BF16 and 3,341 FP8 with "
            "sparsity, 3.9 TB/s, NVLink bridge 600 GB/s; one 400 Gb/s ConnectX-7 per GPU",
            host=PCIE5,
        ),
        _nvidia(
            GpuPresetName.h200,
            "NVIDIA H200 SXM 141 GB HBM3e",
            143_771 * MIB_BYTES,
            (989.4e12, 989.4e12, 1978.9e12),
            4.8e12,
            (NV, 450e9),
            400,
            GpuGeneration.hopper,
            "nvidia-smi reports 143771 MiB; NVIDIA H200 datasheet: 1,979 TFLOPS BF16 and 3,958 FP8 with "
            "sparsity, 4.8 TB/s, NVLink 900 GB/s; " + _DGX_H100_NIC,
            host=PCIE5,
        ),
        _nvidia(
            GpuPresetName.h20,
            "NVIDIA H20 96 GB HBM3",
            97_871 * MIB_BYTES,
            (148e12, 148e12, 296e12),
            4.0e12,
            (NV, 450e9),
            400,
            GpuGeneration.hopper,
            "nvidia-smi reports 97871 MiB; NVIDIA HGX H20 product brief: 148 TFLOPS BF16 and 296 FP8 dense, "
            "4.0 TB/s, NVLink 900 GB/s; one 400 Gb/s ConnectX-7 per GPU",
            host=PCIE5,
        ),
        _nvidia(
            GpuPresetName.gh200,
            "NVIDIA GH200 Grace Hopper, 96 GB HBM3 (the GPU of the superchip)",
            97_871 * MIB_BYTES,
            (989.4e12, 989.4e12, 1978.9e12),
            4.0e12,
            (NV, 450e9),
            400,
            GpuGeneration.hopper,
            "nvidia-smi reports 97871 MiB ('NVIDIA GH200 480GB'); NVIDIA GH200 datasheet: 1,979 TFLOPS BF16 "
            "and 3,958 FP8 with sparsity, 4 TB/s HBM3, NVLink 900 GB/s, NVLink-C2C 900 GB/s to Grace; one "
            "400 Gb/s NIC per superchip",
            host=450e9,
        ),
        _nvidia(
            GpuPresetName.b200,
            "NVIDIA B200 180 GB HBM3e",
            183_359 * MIB_BYTES,
            (2.25e15, 2.25e15, 4.5e15),
            8.0e12,
            (NV, 900e9),
            400,
            GpuGeneration.blackwell,
            "nvidia-smi reports 183359 MiB; NVIDIA HGX B200 datasheet: 2.25 PFLOPS dense BF16 and 4.5 dense FP8 "
            "per GPU, 8 TB/s, NVLink 5 1.8 TB/s; DGX B200: 8 x 400 Gb/s ConnectX-7",
            host=PCIE5,
        ),
        _nvidia(
            GpuPresetName.b300,
            "NVIDIA B300 (Blackwell Ultra) 288 GB HBM3e",
            275_040 * MIB_BYTES,
            (2.25e15, 2.25e15, 4.5e15),
            8.0e12,
            (NV, 900e9),
            800,
            GpuGeneration.blackwell_ultra,
            "nvidia-smi reports 275040 MiB ('NVIDIA B300 SXM6 AC'); NVIDIA HGX B300 datasheet: 36 PFLOPS BF16 and "
            "72 FP8 per 8 GPUs with sparsity (2.25 and 4.5 dense per GPU), 8 TB/s, NVLink 5 1.8 TB/s; "
            "8 x 800 Gb/s ConnectX-8",
        ),
        _nvidia(
            GpuPresetName.mi250x,
            "AMD Instinct MI250X, one of its two GCDs (the device a framework sees): 64 GB HBM2e",
            68_702_699_520,
            (191.5e12, 191.5e12, None),
            1.6384e12,
            (IF, 200e9),
            100,
            GpuGeneration.cdna2,
            "rocm-smi reports 68702699520 B of VRAM per GCD; AMD MI250X datasheet: 383 TFLOPS BF16/FP16 and "
            "3.2768 TB/s per module of two GCDs, 800 GB/s peak Infinity Fabric I/O per module; Frontier (OLCF "
            "user guide): 4 x 200 Gb/s Slingshot NICs per node of 8 GCDs",
            vendor="amd",
            host=PCIE4,
        ),
        _nvidia(
            GpuPresetName.mi300x,
            "AMD Instinct MI300X 192 GB HBM3",
            196_592 * MIB_BYTES,
            (1307.4e12, 1307.4e12, 2614.9e12),
            5.3e12,
            (IF, 448e9),
            400,
            GpuGeneration.cdna3,
            "rocm-smi reports 196592 MiB of VRAM; AMD MI300X datasheet: 1,307.4 TFLOPS dense BF16, 2,614.9 FP8, "
            "5.3 TB/s, 896 GB/s aggregate Infinity Fabric (7 links); " + _MI300_NIC,
            vendor="amd",
            host=PCIE5,
        ),
        _nvidia(
            GpuPresetName.mi325x,
            "AMD Instinct MI325X 256 GB HBM3e",
            256 * GIB_BYTES,
            (1307.4e12, 1307.4e12, 2614.9e12),
            6.0e12,
            (IF, 448e9),
            400,
            GpuGeneration.cdna3,
            "AMD MI325X datasheet: 256 GB HBM3E (counted as 256 GiB, as rocm-smi counts the MI300X's 192 GB), "
            "1,307.4 TFLOPS dense BF16, 2,614.9 FP8, 6 TB/s, 896 GB/s Infinity Fabric; " + _MI300_NIC,
            vendor="amd",
            host=PCIE5,
        ),
        _nvidia(
            GpuPresetName.mi355x,
            "AMD Instinct MI355X 288 GB HBM3e",
            288 * GIB_BYTES,
            (2516.6e12, 2516.6e12, 5033.2e12),
            8.0e12,
            (IF, 537.6e9),
            400,
            GpuGeneration.cdna4,
            "AMD MI355X datasheet: 288 GB HBM3E (counted as 288 GiB, as rocm-smi counts the MI300X's 192 GB), "
            "2.5 PFLOPS dense BF16 (2,516.6 TFLOPS), 5.0 FP8, 8 TB/s, 7 Infinity Fabric links of 153.6 GB/s; "
            "native MX formats (MXFP8); AMD Pensando Pollara 400 Gb/s NIC per GPU",
            vendor="amd",
            host=PCIE5,
        ),
        GpuPreset(
            name=GpuPresetName.seed_80gb,
            description="The textbook card: 80 GB counted as 80e9 bytes (74.5 GiB), all of it usable",
            memory_bytes=80_000_000_000,
            peak_bf16_flops=989.4e12,
            blackwell_class=False,
            reserve_bytes=0,
            fragmentation=0.0,
            source="An idealised card for the textbook case of data parallel and ZeRO (Rajbhandari et al. 2020, "
            "ZeRO, sections 3 and 5 reason per GPU on such round cards): the 80 GB of an A100/H100 80GB counted as "
            "80e9 bytes = 74.5 GiB, all of it usable (no reserve, no fragmentation), so that the arithmetic comes "
            "out exact; peak assumed H100-class (989.4 TFLOP/s dense bf16, NVIDIA H100 SXM datasheet)",
        ),
    )
}
