"""Presets as data: GPUs, precisions and models, each naming its source.

A preset is a plain value; the service resolves a name to one of these and never hard-codes a
figure elsewhere.
"""

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from models.enums import Dtype, MlpKind, OptimizerKind

GIB_BYTES = 2**30
MIB_BYTES = 2**20

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
    a100_40gb = "a100-40gb"
    a100_80gb = "a100-80gb"
    h100_80gb = "h100-80gb"
    h200 = "h200"
    b200 = "b200"
    mi300x = "mi300x"
    seed_80gb = "seed-80gb"


class PrecisionPresetName(StrEnum):
    mixed_bf16_adam = "mixed_bf16_adam"
    mixed_fp16_adam = "mixed_fp16_adam"
    fp32_adam = "fp32_adam"
    megatron = "megatron"
    deepspeed = "deepspeed"
    seed_sketch = "seed_sketch"


class ModelPresetName(StrEnum):
    seed_30b = "seed-30b"
    llama2_7b = "llama-2-7b"
    llama2_13b = "llama-2-13b"
    llama2_70b = "llama-2-70b"
    llama3_8b = "llama-3-8b"
    llama3_70b = "llama-3-70b"
    llama3_405b = "llama-3.1-405b"


class LinkPresetName(StrEnum):
    seed = "seed"
    nvlink3_ib200 = "nvlink3-ib200"
    nvlink4_ib400 = "nvlink4-ib400"
    nvlink5_ib800 = "nvlink5-ib800"


class LinkSpec(BaseModel):
    """Links of a GPU, per direction, and the per-hop latency (the alpha of alpha-beta)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    intra_node_bytes_per_s: float = Field(default=450e9, gt=0, le=1e15, description="NVLink-class, per direction.")
    inter_node_bytes_per_s: float = Field(default=50e9, gt=0, le=1e15, description="InfiniBand-class, per GPU.")
    host_bytes_per_s: float = Field(default=60e9, gt=0, le=1e15, description="PCIe to host memory, per GPU.")
    intra_node_latency_s: float = Field(default=3e-6, ge=0, le=1, description="Per ring hop inside a node.")
    inter_node_latency_s: float = Field(default=10e-6, ge=0, le=1, description="Per ring hop across nodes.")


class LinkPreset(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: LinkPresetName
    description: str
    spec: LinkSpec
    source: str


class GpuPreset(BaseModel):
    """A card: the memory the device reports, its dense bf16 peak, and what a job cannot use of it.

    ``reserve_bytes`` and ``fragmentation`` left null take DEFAULT_RESERVE_BYTES (CUDA context +
    NCCL buffers) and DEFAULT_FRAGMENTATION; a preset with its own measurement sets them.
    """

    model_config = ConfigDict(frozen=True)

    name: GpuPresetName
    description: str
    memory_bytes: int = Field(description="Device memory in bytes, as the device reports it.")
    peak_bf16_flops: float = Field(description="Dense (no sparsity) bf16 tensor-core peak, FLOP/s.")
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

    def reserve(self) -> tuple[int, float]:
        """(reserve_bytes, fragmentation) with the defaults applied."""
        reserve = DEFAULT_RESERVE_BYTES if self.reserve_bytes is None else self.reserve_bytes
        fragmentation = DEFAULT_FRAGMENTATION if self.fragmentation is None else self.fragmentation
        return reserve, fragmentation


class PrecisionSpec(BaseModel):
    """Dtypes of every state class and the optimizer: together they fix the bytes of one weight.

    ``optimizer_gradient_dtype`` is an extra gradient copy the optimizer keeps beside its master
    weights (DeepSpeed's fp32 gradient partition); null for none.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    parameter_dtype: Dtype = Dtype.bf16
    gradient_dtype: Dtype = Dtype.bf16
    master_dtype: Dtype | None = Field(
        default=Dtype.fp32, description="Master copy of the weights kept by the optimizer; null for none."
    )
    optimizer: OptimizerKind = OptimizerKind.adam
    optimizer_state_dtype: Dtype = Dtype.fp32
    optimizer_gradient_dtype: Dtype | None = None


class PrecisionPreset(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: PrecisionPresetName
    description: str
    spec: PrecisionSpec
    source: str


class ModelPreset(BaseModel):
    """A published model: its exact parameter count and, where published, its architecture."""

    model_config = ConfigDict(frozen=True)

    name: ModelPresetName
    description: str
    parameter_count: int
    layers: int | None = None
    hidden_size: int | None = None
    attention_heads: int | None = None
    kv_heads: int | None = None
    ffn_hidden_size: int | None = None
    vocab_size: int | None = None
    mlp: MlpKind | None = None
    tied_embeddings: bool | None = None
    source: str


GPU_PRESETS: dict[GpuPresetName, GpuPreset] = {
    p.name: p
    for p in (
        GpuPreset(
            name=GpuPresetName.a100_40gb,
            description="NVIDIA A100 SXM4 40 GB",
            memory_bytes=40_960 * MIB_BYTES,
            peak_bf16_flops=312e12,
            blackwell_class=False,
            source="nvidia-smi reports 40960 MiB; NVIDIA A100 datasheet: 312 TFLOPS dense BF16",
        ),
        GpuPreset(
            name=GpuPresetName.a100_80gb,
            description="NVIDIA A100 SXM4 80 GB",
            memory_bytes=81_920 * MIB_BYTES,
            peak_bf16_flops=312e12,
            blackwell_class=False,
            source="nvidia-smi reports 81920 MiB; NVIDIA A100 datasheet: 312 TFLOPS dense BF16",
        ),
        GpuPreset(
            name=GpuPresetName.h100_80gb,
            description="NVIDIA H100 SXM5 80 GB HBM3",
            memory_bytes=81_559 * MIB_BYTES,
            peak_bf16_flops=989.4e12,
            blackwell_class=False,
            source="nvidia-smi reports 81559 MiB; NVIDIA H100 datasheet: 1,979 TFLOPS BF16 with sparsity, 989.4 dense",
        ),
        GpuPreset(
            name=GpuPresetName.h200,
            description="NVIDIA H200 SXM 141 GB HBM3e",
            memory_bytes=143_771 * MIB_BYTES,
            peak_bf16_flops=989.4e12,
            blackwell_class=False,
            source="nvidia-smi reports 143771 MiB; NVIDIA H200 datasheet: 1,979 TFLOPS BF16 with sparsity, 989.4 dense",
        ),
        GpuPreset(
            name=GpuPresetName.b200,
            description="NVIDIA B200 180 GB HBM3e",
            memory_bytes=183_359 * MIB_BYTES,
            peak_bf16_flops=2.25e15,
            blackwell_class=True,
            source="nvidia-smi reports 183359 MiB; NVIDIA HGX B200 datasheet: 2.25 PFLOPS dense BF16 per GPU",
        ),
        GpuPreset(
            name=GpuPresetName.mi300x,
            description="AMD Instinct MI300X 192 GB HBM3",
            memory_bytes=196_592 * MIB_BYTES,
            peak_bf16_flops=1307.4e12,
            blackwell_class=False,
            source="rocm-smi reports 196592 MiB of VRAM; AMD MI300X datasheet: 1307.4 TFLOPS dense BF16",
        ),
        GpuPreset(
            name=GpuPresetName.seed_80gb,
            description="The seeds' card: 80 GB counted as 80e9 bytes (74.5 GiB)",
            memory_bytes=80_000_000_000,
            peak_bf16_flops=989.4e12,
            blackwell_class=False,
            reserve_bytes=0,
            fragmentation=0.0,
            source="seeds/000: 'The largest cards available to us hold 80 GB', counted as 80e9 bytes = 74.5 GiB, "
            "all of it usable (no reserve, no fragmentation: the textbook card); "
            "peak assumed H100-class (989.4 TFLOP/s dense bf16)",
        ),
    )
}

_LATENCY = "per-hop latencies 3 us inside a node and 10 us across nodes are assumptions of this service"

LINK_PRESETS: dict[LinkPresetName, LinkPreset] = {
    p.name: p
    for p in (
        LinkPreset(
            name=LinkPresetName.seed,
            description="The seeds' links: 450 GB/s NVLink, 50 GB/s InfiniBand per GPU (nine-fold gap), 60 GB/s PCIe",
            spec=LinkSpec(),
            source="seeds/003: 'a nine-fold difference between the two interconnects'; PCIe at 60 GB/s; " + _LATENCY,
        ),
        LinkPreset(
            name=LinkPresetName.nvlink3_ib200,
            description="A100 class: NVLink 3 (300 GB/s per direction), 200 Gb/s HDR InfiniBand per GPU, PCIe 4",
            spec=LinkSpec(intra_node_bytes_per_s=300e9, inter_node_bytes_per_s=25e9, host_bytes_per_s=25e9),
            source="NVIDIA A100 datasheet (600 GB/s NVLink both directions); HDR 200 Gb/s; PCIe 4.0 x16; " + _LATENCY,
        ),
        LinkPreset(
            name=LinkPresetName.nvlink4_ib400,
            description="H100/H200 class: NVLink 4 (450 GB/s per direction), 400 Gb/s NDR InfiniBand per GPU, PCIe 5",
            spec=LinkSpec(),
            source="NVIDIA H100 datasheet (900 GB/s NVLink both directions); NDR 400 Gb/s; PCIe 5.0 x16; " + _LATENCY,
        ),
        LinkPreset(
            name=LinkPresetName.nvlink5_ib800,
            description="B200 class: NVLink 5 (900 GB/s per direction), 800 Gb/s XDR InfiniBand per GPU, PCIe 5",
            spec=LinkSpec(intra_node_bytes_per_s=900e9, inter_node_bytes_per_s=100e9),
            source="NVIDIA B200 datasheet (1.8 TB/s NVLink both directions); 800 Gb/s; PCIe 5.0 x16; " + _LATENCY,
        ),
    )
}

PRECISION_PRESETS: dict[PrecisionPresetName, PrecisionPreset] = {
    p.name: p
    for p in (
        PrecisionPreset(
            name=PrecisionPresetName.mixed_bf16_adam,
            description="Mixed precision Adam: bf16 parameters and gradients, fp32 master and moments (16 B/weight)",
            spec=PrecisionSpec(),
            source="Rajbhandari et al. 2020 (ZeRO), section 3.1: 2 + 2 + K bytes with K = 12",
        ),
        PrecisionPreset(
            name=PrecisionPresetName.mixed_fp16_adam,
            description="Mixed precision Adam with fp16 instead of bf16 (16 B/weight)",
            spec=PrecisionSpec(parameter_dtype=Dtype.fp16, gradient_dtype=Dtype.fp16),
            source="Micikevicius et al. 2018 (Mixed Precision Training); ZeRO section 3.1",
        ),
        PrecisionPreset(
            name=PrecisionPresetName.fp32_adam,
            description="Plain fp32 Adam: fp32 parameters, gradients and moments, no master copy (16 B/weight)",
            spec=PrecisionSpec(parameter_dtype=Dtype.fp32, gradient_dtype=Dtype.fp32, master_dtype=None),
            source="torch.optim.Adam on fp32 parameters: exp_avg and exp_avg_sq of the parameter's dtype",
        ),
        PrecisionPreset(
            name=PrecisionPresetName.megatron,
            description="Megatron-LM: bf16 parameters, an fp32 gradient buffer, fp32 master and moments (18 B/weight)",
            spec=PrecisionSpec(gradient_dtype=Dtype.fp32),
            source="Megatron-LM megatron/training/theoretical_memory_usage.py: 18 bytes per parameter, "
            "6 + 12/N with the distributed optimizer",
        ),
        PrecisionPreset(
            name=PrecisionPresetName.deepspeed,
            description="DeepSpeed ZeRO-2 estimator: fp16 parameters and gradients plus an fp32 gradient "
            "partition beside fp32 master and moments (2 + 18/N B/weight under ZeRO-2)",
            spec=PrecisionSpec(
                parameter_dtype=Dtype.fp16,
                gradient_dtype=Dtype.fp16,
                optimizer_gradient_dtype=Dtype.fp32,
            ),
            source="DeepSpeed deepspeed/runtime/zero/stage_1_and_2.py, estimate_zero2_model_states_mem_needs",
        ),
        PrecisionPreset(
            name=PrecisionPresetName.seed_sketch,
            description="The seeds' rough sketch: fp16 parameters and gradients, two 8-byte Adam moments, "
            "no master copy (20 B/weight)",
            spec=PrecisionSpec(
                parameter_dtype=Dtype.fp16,
                gradient_dtype=Dtype.fp16,
                master_dtype=None,
                optimizer_state_dtype=Dtype.fp64,
            ),
            source="seeds/001: optim = params * 8 * 2, 'two fp32 moments, rough'",
        ),
    )
}

_HF = "Hugging Face config.json of meta-llama/"


def _llama(
    name: ModelPresetName,
    description: str,
    parameter_count: int,
    layers: int,
    hidden_size: int,
    attention_heads: int,
    kv_heads: int,
    ffn_hidden_size: int,
    vocab_size: int,
    repo: str,
) -> ModelPreset:
    return ModelPreset(
        name=name,
        description=description,
        parameter_count=parameter_count,
        layers=layers,
        hidden_size=hidden_size,
        attention_heads=attention_heads,
        kv_heads=kv_heads,
        ffn_hidden_size=ffn_hidden_size,
        vocab_size=vocab_size,
        mlp=MlpKind.swiglu,
        tied_embeddings=False,
        source=_HF + repo + " (architecture); parameter count as published on its model card",
    )


MODEL_PRESETS: dict[ModelPresetName, ModelPreset] = {
    p.name: p
    for p in (
        ModelPreset(
            name=ModelPresetName.seed_30b,
            description="The seeds' model: 30 billion weights",
            parameter_count=30_000_000_000,
            source="seeds/000: 'The model has 30 billion numbers in it'",
        ),
        _llama(ModelPresetName.llama2_7b, "Llama 2 7B", 6_738_415_616, 32, 4096, 32, 32, 11008, 32000, "Llama-2-7b-hf"),
        _llama(
            ModelPresetName.llama2_13b, "Llama 2 13B", 13_015_864_320, 40, 5120, 40, 40, 13824, 32000, "Llama-2-13b-hf"
        ),
        _llama(
            ModelPresetName.llama2_70b, "Llama 2 70B", 68_976_648_192, 80, 8192, 64, 8, 28672, 32000, "Llama-2-70b-hf"
        ),
        _llama(
            ModelPresetName.llama3_8b, "Llama 3 8B", 8_030_261_248, 32, 4096, 32, 8, 14336, 128256, "Meta-Llama-3-8B"
        ),
        _llama(
            ModelPresetName.llama3_70b,
            "Llama 3 70B",
            70_553_706_496,
            80,
            8192,
            64,
            8,
            28672,
            128256,
            "Meta-Llama-3-70B",
        ),
        _llama(
            ModelPresetName.llama3_405b,
            "Llama 3.1 405B",
            405_853_388_800,
            126,
            16384,
            128,
            8,
            53248,
            128256,
            "Llama-3.1-405B",
        ),
    )
}


class PrecisionPresetInfo(PrecisionPreset):
    bytes_per_weight: float = Field(description="Bytes of one weight with nothing sharded.")


class GpuPresetInfo(GpuPreset):
    memory_gib: float = Field(description="memory_bytes / 2**30 (presentation).")
    usable_bytes: int = Field(description="memory_bytes - reserve_bytes - fragmentation x memory_bytes (rounded up).")
    reserve_source: str = Field(description="Where the reserve and fragmentation figures come from.")


class PresetsResponse(BaseModel):
    links: list[LinkPreset]
    gpus: list[GpuPresetInfo]
    precisions: list[PrecisionPresetInfo]
    models: list[ModelPreset]
