"""Presets as data: links and precisions here; GPUs (models/gpu_presets.py) and models
(models/model_presets.py) re-exported, each naming its source.

A preset is a plain value; the service resolves a name to one of these and never hard-codes a
figure elsewhere.
"""

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from models.base import Strict
from models.enums import ArrangementName, Dtype, GpuGeneration, OptimizerKind
from models.gpu_presets import (
    CUDA_CONTEXT_BYTES,
    CUDA_CONTEXT_SOURCE,
    DEFAULT_FRAGMENTATION,
    DEFAULT_RESERVE_BYTES,
    FRAGMENTATION_SOURCE,
    GPU_PRESETS,
    NCCL_BUFFER_BYTES,
    NCCL_BUFFER_SOURCE,
    GpuPreset,
    GpuPresetName,
)
from models.model_presets import MODEL_PRESETS, ModelPreset, ModelPresetName

__all__ = [
    "CUDA_CONTEXT_BYTES",
    "CUDA_CONTEXT_SOURCE",
    "DEFAULT_FRAGMENTATION",
    "DEFAULT_RESERVE_BYTES",
    "FRAGMENTATION_SOURCE",
    "NCCL_BUFFER_BYTES",
    "NCCL_BUFFER_SOURCE",
    "GENERATION_LINKS",
    "GPU_PRESETS",
    "LINK_PRESETS",
    "MODEL_PRESETS",
    "PRECISION_PRESETS",
    "GpuPreset",
    "GpuPresetName",
    "ModelPreset",
    "ModelPresetName",
]

GIB_BYTES = 2**30
MIB_BYTES = 2**20
# Links are at least 1 MB/s: a slower one would push transfer times towards infinity.
MIN_LINK_BYTES_PER_S = 1e6


class PrecisionPresetName(StrEnum):
    mixed_bf16_adam = "mixed_bf16_adam"
    mixed_fp16_adam = "mixed_fp16_adam"
    fp32_adam = "fp32_adam"
    megatron = "megatron"
    deepspeed = "deepspeed"
    fsdp2 = "fsdp2"
    bf16_adam = "bf16_adam"
    seed_sketch = "seed_sketch"


class LinkPresetName(StrEnum):
    seed = "seed"
    nvlink3_ib200 = "nvlink3-ib200"
    nvlink4_ib400 = "nvlink4-ib400"
    nvlink5_ib800 = "nvlink5-ib800"


class LinkSpec(Strict):
    """Links of a GPU, per direction, and the per-hop latency (the alpha of alpha-beta)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)  # numbers only, never a boolean

    intra_node_bytes_per_s: float = Field(
        default=450e9, ge=MIN_LINK_BYTES_PER_S, le=1e15, description="NVLink-class, per direction."
    )
    inter_node_bytes_per_s: float = Field(
        default=50e9, ge=MIN_LINK_BYTES_PER_S, le=1e15, description="InfiniBand-class, per GPU."
    )
    host_bytes_per_s: float = Field(
        default=60e9, ge=MIN_LINK_BYTES_PER_S, le=1e15, description="PCIe to host memory, per GPU."
    )
    intra_node_latency_s: float = Field(default=3e-6, ge=0, le=1, description="Per ring hop inside a node.")
    inter_node_latency_s: float = Field(default=10e-6, ge=0, le=1, description="Per ring hop across nodes.")


class LinkPreset(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: LinkPresetName
    description: str
    spec: LinkSpec
    source: str


class PrecisionSpec(Strict):
    """Dtypes of every state class and the optimizer: together they fix the bytes of one weight.

    ``optimizer_gradient_dtype`` is an extra gradient copy the optimizer keeps beside its master
    weights (DeepSpeed's fp32 gradient partition); null for none. ``compute_parameter_dtype`` is an
    unsharded copy of the parameters that forward and backward read (FSDP2's
    ``MixedPrecisionPolicy.param_dtype``); the two wire dtypes say what the collectives send when it
    differs from what is stored (FSDP2's ``reduce_dtype``, DeepSpeed's ``communication_data_type``).
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
    compute_parameter_dtype: Dtype | None = Field(
        default=None,
        description="An unsharded copy of the parameters in this dtype for forward and backward (FSDP2 "
        "param_dtype): on every GPU when parameters are not sharded; under zero3/full_shard only the units in "
        "flight hold it. Null: compute reads the parameters as stored.",
    )
    compute_parameter_copies: int = Field(
        default=1,
        ge=1,
        le=2,
        description="Copies of the compute parameters held: 2 when a rowwise and a columnwise quantised copy are "
        "both cached (Transformer Engine's MXFP8 weights: forward and the transposed use in the backward).",
    )
    parameter_gather_dtype: Dtype | None = Field(
        default=None,
        description="Dtype the parameter all-gathers send; default compute_parameter_dtype, else parameter_dtype.",
    )
    gradient_reduce_dtype: Dtype | None = Field(
        default=None, description="Dtype the gradient reduction sends; default gradient_dtype."
    )


class PrecisionPreset(BaseModel):
    """A named layout. ``stages`` overrides ``spec`` for an arrangement whose framework keeps
    different state at that stage (DeepSpeed's ZeRO-3 keeps no 16-bit gradient partition)."""

    model_config = ConfigDict(frozen=True)

    name: PrecisionPresetName
    description: str
    spec: PrecisionSpec
    stages: dict[ArrangementName, PrecisionSpec] = Field(
        default_factory=dict, description="Per-arrangement layouts that replace spec at that arrangement."
    )
    source: str


_LATENCY = "per-hop latencies 3 us inside a node and 10 us across nodes are assumptions of this service"

LINK_PRESETS: dict[LinkPresetName, LinkPreset] = {
    p.name: p
    for p in (
        LinkPreset(
            name=LinkPresetName.seed,
            description="The textbook links: 450 GB/s NVLink-class, 50 GB/s InfiniBand-class per GPU (a nine-fold "
            "gap), 60 GB/s PCIe; the default for seed-80gb and for a card given by its memory",
            spec=LinkSpec(),
            source="NVIDIA H100 datasheet (NVLink 4: 900 GB/s both directions, 450 per direction); 400 Gb/s NDR "
            "InfiniBand, one NIC per GPU (50 GB/s); PCIe 5.0 x16 (about 60 GB/s achieved); " + _LATENCY,
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

# The links a GPU generation ships with in its reference systems (DGX A100: NVLink 3 and one 200 Gb/s
# HDR NIC per GPU; DGX H100/H200: NVLink 4 and 400 Gb/s NDR; DGX B200/B300: NVLink 5 and 800 Gb/s), the
# default of cluster.links for a GPU preset of that generation. Other generations use the preset's own
# scale-up and NIC figures (models/gpu_presets.py).
GENERATION_LINKS: dict[GpuGeneration, LinkPresetName] = {
    GpuGeneration.ampere: LinkPresetName.nvlink3_ib200,
    GpuGeneration.hopper: LinkPresetName.nvlink4_ib400,
    GpuGeneration.blackwell: LinkPresetName.nvlink5_ib800,
    GpuGeneration.blackwell_ultra: LinkPresetName.nvlink5_ib800,
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
            description="DeepSpeed's estimators: under ddp, zero1 and zero2 fp16 parameters and gradients plus an "
            "fp32 gradient partition beside fp32 master and moments (2 + 18/N B/weight under ZeRO-2); under "
            "ZeRO-3 fp16 parameters, fp32 gradients, master and moments, all partitioned (18/N), the fp16 "
            "gradients only in flight",
            spec=PrecisionSpec(
                parameter_dtype=Dtype.fp16,
                gradient_dtype=Dtype.fp16,
                optimizer_gradient_dtype=Dtype.fp32,
            ),
            stages={
                stage: PrecisionSpec(
                    parameter_dtype=Dtype.fp16, gradient_dtype=Dtype.fp32, gradient_reduce_dtype=Dtype.fp16
                )
                for stage in (ArrangementName.zero3, ArrangementName.hybrid)
            },
            source="DeepSpeed deepspeed/runtime/zero/stage_1_and_2.py, estimate_zero2_model_states_mem_needs "
            "(2 + 18/N: 2 fp16 grads + 4 fp32 grads + 4 fp32 params + 8 moments); deepspeed/runtime/zero/stage3.py, "
            "estimate_zero3_model_states_mem_needs (18/N plus 4 x the largest layer), its fp32 "
            "grad_partitions_flat_buffer (gradient_accumulation_dtype) and fp16 reduce-scatter",
        ),
        PrecisionPreset(
            name=PrecisionPresetName.fsdp2,
            description="PyTorch FSDP2 mixed precision (param_dtype bf16, reduce_dtype unset): fp32 sharded "
            "parameters (the optimizer's copy), bf16 unsharded parameters during compute, fp32 sharded "
            "gradients reduced in bf16, fp32 moments (16/N B/weight under full_shard)",
            spec=PrecisionSpec(
                parameter_dtype=Dtype.fp32,
                gradient_dtype=Dtype.fp32,
                master_dtype=None,
                compute_parameter_dtype=Dtype.bf16,
                gradient_reduce_dtype=Dtype.bf16,
            ),
            source="PyTorch torch/distributed/fsdp/_fully_shard/_fsdp_api.py, MixedPrecisionPolicy: param_dtype is "
            "the dtype of the unsharded parameter and of the all-gather, the optimizer steps the sharded parameter "
            "in its original dtype, reduce_dtype None reduces in the compute dtype; _fsdp_collectives.py, "
            "foreach_reduce, casts the reduce-scattered gradient back to the sharded parameter's dtype",
        ),
        PrecisionPreset(
            name=PrecisionPresetName.bf16_adam,
            description="Adam over bf16 parameters: bf16 parameters, gradients and moments, no fp32 master, "
            "gradients reduced in fp32 (8 B/weight): torch.optim.Adam(W) on a model stored in bf16 under FSDP2 "
            "with reduce_dtype float32, NeMo Automodel's defaults",
            spec=PrecisionSpec(
                parameter_dtype=Dtype.bf16,
                gradient_dtype=Dtype.bf16,
                master_dtype=None,
                optimizer_state_dtype=Dtype.bf16,
                gradient_reduce_dtype=Dtype.fp32,
            ),
            source="NeMo Automodel @36044ad3: docs/guides/mixed-precision-training.mdx ('When model.torch_dtype: "
            "bfloat16 is used with torch.optim.AdamW, the AdamW EMA buffers are also stored in bf16'), "
            "nemo_automodel/_transformers/auto_model.py (torch_dtype 'auto' loads bfloat16) and "
            "components/distributed/config.py (MixedPrecisionPolicy param_dtype bfloat16, reduce_dtype float32); "
            "FSDP2 casts the reduce-scattered gradient back to the sharded parameter's dtype "
            "(torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py, foreach_reduce)",
        ),
        PrecisionPreset(
            name=PrecisionPresetName.seed_sketch,
            description="A rough sketch of Adam's cost: fp16 parameters and gradients, two 8-byte moments, "
            "no master copy (2 + 2 + 16 = 20 B/weight): any dtype set is expressible",
            spec=PrecisionSpec(
                parameter_dtype=Dtype.fp16,
                gradient_dtype=Dtype.fp16,
                master_dtype=None,
                optimizer_state_dtype=Dtype.fp64,
            ),
            source="A back-of-the-envelope count (two moments at 8 bytes each, no master weights) set beside "
            "Rajbhandari et al. 2020 (ZeRO), section 3.1, whose mixed-precision Adam needs 2 + 2 + 12 = 16",
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
