"""Published measured training runs with their full configuration: the calibration corpus.

Every number is copied as its source prints it; where a source leaves a field out, the row says so
in ``unpublished`` and the value used instead (and why) in ``assumed``. Each row names its source
and the place in it (table, file and line at a commit).

Sources
- MOSAIC: mosaicml/llm-foundry, scripts/train/benchmarking/README.md at commit 8c8dd48f (MPT
  training benchmarks on the MosaicML platform; sections "H100 80GB BF16 (Large Scale, >= 128
  GPUs)" (lines 72-92), "H100 80GB BF16" (lines 95-149), "A100 80GB with 1600 Gbps node-node
  interconnect (RoCE)" (lines 162-226), "A100 40GB with 1600 Gbps node-node interconnect (RoCE)"
  (lines 228-309)). Columns used: SeqLen, # GPUs, GPU, MicroBatchSize, GradAccum,
  GlobalBatchSize, Throughput (T/s/GPU), Sharding Strategy, Activation Checkpointing. The MPT
  architectures are scripts/train/yamls/pretrain/mpt-<size>.yaml (d_model, n_heads, n_layers,
  expansion_ratio 4, vocab_size 50368, attn_impl flash).
- TITAN: pytorch/torchtitan, benchmarks/llama3_h100_202412_torchtitan.md at commit b5bcd76c, tables
  1 and 3 (Llama 3.1 8B, FSDP, local batch 2, selective activation checkpointing, TPS/GPU). Its
  H100s are 96 GB HBM2e parts at a 500 W power limit (line 13-15), slower than the SXM preset.
- NARAYANAN: Narayanan et al. 2021 (arXiv 2104.04473), table 1, as reproduced in the
  NVIDIA/Megatron-LM README until commit fd5cfec0 (images/cases_april2021.png): hidden size,
  layers, model-parallel size (t x p), GPUs, batch size, achieved teraFLOP/s per GPU, A100 80GB,
  vocabulary 51,200, sequence 2048 (README "Training Speed and Scalability"). The t and p split
  and the attention heads are the paper's table 1. TFLOP/s count the paper's formula (section
  5.1): F = 96 B s l h^2 (1 + s / 6h + V / 16lh), with activation recomputation.
- MEGATRON_H100: NVIDIA/Megatron-LM README at commit d98e8a64, images/model_table.png (added in
  commit f2e5db40): GPT models 1.7B-462B on H100, vocabulary 131,072, sequence 4,096, tensor,
  pipeline and data-parallel sizes, batch size, per-GPU teraFLOP/s counted by
  megatron/training/training.py ``num_floating_point_operations`` (the model FLOPs of
  12 B s L h^2 ((2 + s / h) + 4 + V / 2Lh) for a GPT with 4h MLP).
- LLAMA3: Dubey et al. 2024 (arXiv 2407.21783), "The Llama 3 Herd of Models", table 4 (Llama 3.1 405B
  on 8,192 and 16,384 H100, t8 c1 p16, d64 and d128, 8,192-token sequences, 16M tokens a batch,
  430 and 400 teraFLOP/s per GPU) and section 3.3.2 (interleaved pipeline, the embedding and the
  loss each a chunk of their own). TFLOP/s converted by 6N + 12 l h s per token (PaLM appendix B):
  the paper does not print its FLOP count.
- AUTOMODEL: NVIDIA-NeMo/Automodel docs/performance-summary.md at commit e4581201, table "System:
  DGX-H100, Precision: BF16" (PyTorch FSDP2 with expert parallelism, DeepEP and grouped GEMMs):
  DeepSeek-V3 on 256 and 1,024 GPUs (p4 v8 e64), Qwen3-30B-A3B on 8 (e8), Llama 3.1 70B on 64
  (c2); the recipes the table names (examples/llm_benchmark/ at that commit) give the
  recomputation.
"""

from dataclasses import dataclass, field
from enum import StrEnum

from models.model_presets import MODEL_PRESETS, ModelPresetName


class Metric(StrEnum):
    tokens_per_s_per_gpu = "tokens_per_s_per_gpu"
    narayanan_tflops_per_gpu = "narayanan_tflops_per_gpu"  # Narayanan et al. 2021, section 5.1
    megatron_tflops_per_gpu = "megatron_tflops_per_gpu"  # Megatron-LM num_floating_point_operations
    # 6N + 12 l h s per token (Chowdhery et al. 2022, PaLM, appendix B), N = Run.flop_parameters
    palm_tflops_per_gpu = "palm_tflops_per_gpu"
    # seconds per optimizer step as printed: global batch x sequence / step / world size tokens per second per GPU
    step_s = "step_s"
    # Megatron-Bridge's model FLOPs of a dense model (flops_per_sequence), its "Model TFLOP/s/GPU" columns
    bridge_tflops_per_gpu = "bridge_tflops_per_gpu"


MOSAIC = "mosaicml/llm-foundry scripts/train/benchmarking/README.md @8c8dd48f"
TITAN = "pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md @b5bcd76c"
NARAYANAN = "Narayanan et al. 2021 (arXiv 2104.04473) table 1; Megatron-LM README @fd5cfec0 cases_april2021.png"
MEGATRON_H100 = "NVIDIA/Megatron-LM README @d98e8a64, images/model_table.png"


@dataclass(frozen=True)
class Run:
    """One published measurement and the configuration it was measured with."""

    name: str
    source: str
    where: str
    gpu: str  # a GPU preset name
    world_size: int
    model: dict[str, object]  # a /v1/plan model block
    sequence_length: int
    global_batch_size: int  # sequences per optimizer step
    micro_batch_size: int
    arrangement: str  # ddp, zero1, zero2 (FSDP SHARD_GRAD_OP as planned here: shard_grad_op), zero3/full_shard
    recompute: str  # none, selective, full
    metric: Metric
    measured: float
    tensor: int = 1
    pipeline: int = 1
    gpus_per_node: int = 8
    unpublished: tuple[str, ...] = ()
    assumed: dict[str, object] = field(default_factory=dict)
    flash_attention: bool = True
    cross_entropy: str | None = None  # a /v1/plan activations.cross_entropy; None: the request's default
    sequence_parallel: bool = False
    excluded: str = ""  # why the row stays out of the fit and the summary (a field it depends on is unpublished)
    levers: dict[str, object] = field(default_factory=dict)  # the run's overlap levers, as /v1/plan takes them
    context: int = 1
    expert: int = 1
    # the rest of the run's /v1/plan parallelism block: schedule, virtual stages, the pipeline split
    parallelism: dict[str, object] = field(default_factory=dict)
    precision: str | None = None  # a /v1/plan precision; None: the request's default
    # N, l and h of the 6N + 12 l h s FLOPs per token (Metric.palm_tflops_per_gpu)
    flop_parameters: int = 0
    flop_layers_hidden: tuple[int, int] = (0, 0)
    # the rest of the run's /v1/plan cluster block (links or link_spec where the card's reference links differ)
    cluster: dict[str, object] = field(default_factory=dict)

    @property
    def data_parallel(self) -> int:
        return self.world_size // (self.tensor * self.pipeline * self.context)

    @property
    def accumulation_steps(self) -> int:
        return self.global_batch_size // (self.micro_batch_size * self.data_parallel)

    @property
    def needs_layouts(self) -> bool:
        """Tensor, pipeline, context or expert parallelism: predicted through the layout evaluation
        (service.engine.layout)."""
        return self.tensor > 1 or self.pipeline > 1 or self.context > 1 or self.expert > 1


def mpt(d_model: int, n_heads: int, n_layers: int) -> dict[str, object]:
    """An MPT model (llm-foundry yamls/pretrain/mpt-*.yaml): GELU MLP of 4 x d_model, vocab 50368,
    tied embeddings, biases on every linear layer (the table's NumParams count them)."""
    return {
        "layers": n_layers,
        "hidden_size": d_model,
        "attention_heads": n_heads,
        "ffn_hidden_size": 4 * d_model,
        "vocab_size": 50368,
        "mlp": "gelu",
        "tied_embeddings": True,
    }


MPT = {
    "125m": mpt(768, 12, 12),
    "350m": mpt(1024, 16, 24),
    "760m": mpt(1536, 12, 24),
    "1b": mpt(2048, 16, 24),
    "3b": mpt(2560, 20, 32),
    "7b": mpt(4096, 32, 32),
    "13b": mpt(5120, 40, 40),
    "30b": mpt(7168, 56, 48),
    "70b": mpt(8192, 64, 80),
}
MOSAIC_SECTIONS = {
    "h100-80gb-large": "section 'H100 80GB BF16 (Large Scale, >= 128 GPUs)'",
    "h100-80gb": "section 'H100 80GB BF16'",
    "a100-80gb": "section 'A100 80GB with 1600 Gbps node-node interconnect (RoCE)'",
    "a100-40gb": "section 'A100 40GB with 1600 Gbps node-node interconnect (RoCE)'",
}
H100_NIC_UNPUBLISHED = ("node-to-node interconnect of the H100 runs",)
H100_NIC_ASSUMED = {"links": "nvlink4_ib400: the DGX H100 reference, 400 Gb/s per GPU"}
# llm-foundry's attn_impl flash (the MPT yamls) runs the flash-attn package's kernel, not Transformer Engine's
# cuDNN attention; torchtitan's attention is PyTorch's scaled_dot_product_attention, its FlashAttention-2 kernel
FLASH_ATTENTION_2: dict[str, object] = {"attention_backend": "flash_attention_2"}


def mosaic(
    section: str,
    line: int,
    size: str,
    seq: int,
    gpus: int,
    micro: int,
    accumulation: int,
    global_batch: int,
    tokens_per_s_per_gpu: int,
    sharding: str,
    checkpointing: bool,
) -> Run:
    """One row of the MPT benchmark tables (FULL_SHARD is ZeRO-3; SHARD_GRAD_OP FSDP's ZeRO-2-like strategy)."""
    gpu = "h100-80gb" if section.startswith("h100") else section
    assert global_batch == micro * accumulation * gpus, (size, line)
    h100 = section.startswith("h100")
    return Run(
        name=f"MPT-{size} {gpu} x{gpus} s{seq}",
        source=MOSAIC,
        where=f"{MOSAIC_SECTIONS[section]}, line {line}",
        gpu=gpu,
        world_size=gpus,
        model=MPT[size],
        sequence_length=seq,
        global_batch_size=global_batch,
        micro_batch_size=micro,
        arrangement={"FULL_SHARD": "full_shard", "SHARD_GRAD_OP": "shard_grad_op"}[sharding],
        recompute="full" if checkpointing else "none",
        metric=Metric.tokens_per_s_per_gpu,
        measured=tokens_per_s_per_gpu,
        unpublished=H100_NIC_UNPUBLISHED if h100 else (),
        assumed=H100_NIC_ASSUMED if h100 else {},
        levers=FLASH_ATTENTION_2,
    )


RUNS: list[Run] = [
    # MosaicML MPT, H100 80GB bf16, 128-512 GPUs
    mosaic("h100-80gb-large", 75, "70b", 2048, 512, 8, 1, 4096, 1007, "FULL_SHARD", True),
    mosaic("h100-80gb-large", 77, "70b", 2048, 128, 8, 1, 1024, 1058, "FULL_SHARD", True),
    mosaic("h100-80gb-large", 78, "30b", 2048, 512, 8, 1, 4096, 2115, "FULL_SHARD", True),
    mosaic("h100-80gb-large", 80, "30b", 2048, 128, 8, 1, 1024, 2199, "FULL_SHARD", True),
    mosaic("h100-80gb-large", 81, "13b", 2048, 512, 16, 1, 8192, 4952, "FULL_SHARD", True),
    mosaic("h100-80gb-large", 83, "13b", 2048, 128, 16, 1, 2048, 5080, "FULL_SHARD", True),
    mosaic("h100-80gb-large", 84, "7b", 2048, 512, 6, 1, 3072, 9670, "FULL_SHARD", False),
    mosaic("h100-80gb-large", 86, "7b", 2048, 128, 6, 1, 768, 10475, "FULL_SHARD", False),
    mosaic("h100-80gb-large", 87, "3b", 2048, 512, 8, 1, 4096, 21664, "SHARD_GRAD_OP", False),
    mosaic("h100-80gb-large", 90, "1b", 2048, 512, 12, 1, 6144, 39837, "SHARD_GRAD_OP", False),
    # MosaicML MPT, H100 80GB bf16, 8-64 GPUs
    mosaic("h100-80gb", 98, "70b", 2048, 64, 8, 4, 2048, 1039, "FULL_SHARD", True),
    mosaic("h100-80gb", 104, "30b", 2048, 8, 3, 21, 504, 2002, "FULL_SHARD", True),
    mosaic("h100-80gb", 107, "13b", 16384, 8, 3, 3, 72, 2985, "FULL_SHARD", True),
    mosaic("h100-80gb", 112, "13b", 2048, 8, 2, 1, 16, 4792, "FULL_SHARD", False),
    mosaic("h100-80gb", 116, "7b", 8192, 8, 8, 2, 128, 6935, "FULL_SHARD", True),
    mosaic("h100-80gb", 118, "7b", 2048, 8, 6, 1, 48, 10643, "FULL_SHARD", False),
    mosaic("h100-80gb", 125, "3b", 2048, 64, 6, 3, 1152, 22525, "FULL_SHARD", False),
    mosaic("h100-80gb", 135, "1b", 2048, 64, 20, 1, 1280, 44402, "FULL_SHARD", False),
    mosaic("h100-80gb", 145, "760m", 2048, 32, 24, 1, 768, 67971, "FULL_SHARD", False),
    # MosaicML MPT, A100 80GB bf16, 8-64 GPUs
    mosaic("a100-80gb", 166, "70b", 2048, 64, 8, 4, 2048, 410, "FULL_SHARD", True),
    mosaic("a100-80gb", 170, "30b", 2048, 8, 3, 21, 504, 916, "FULL_SHARD", True),
    mosaic("a100-80gb", 175, "13b", 8192, 8, 5, 3, 120, 1795, "FULL_SHARD", True),
    mosaic("a100-80gb", 184, "7b", 2048, 8, 6, 2, 96, 4641, "FULL_SHARD", False),
    mosaic("a100-80gb", 191, "3b", 2048, 8, 10, 2, 160, 10811, "FULL_SHARD", False),
    mosaic("a100-80gb", 199, "1b", 2048, 8, 14, 4, 448, 20513, "FULL_SHARD", False),
    mosaic("a100-80gb", 215, "350m", 2048, 8, 32, 2, 512, 58782, "FULL_SHARD", False),
    # MosaicML MPT, A100 40GB bf16, 8-128 GPUs
    mosaic("a100-40gb", 232, "70b", 2048, 128, 4, 1, 512, 376, "FULL_SHARD", True),
    mosaic("a100-40gb", 234, "30b", 2048, 128, 6, 1, 768, 865, "FULL_SHARD", True),
    mosaic("a100-40gb", 238, "13b", 2048, 128, 16, 1, 2048, 1972, "FULL_SHARD", True),
    mosaic("a100-40gb", 242, "13b", 2048, 8, 4, 16, 512, 1668, "FULL_SHARD", True),
    mosaic("a100-40gb", 245, "7b", 16384, 8, 1, 4, 32, 2249, "FULL_SHARD", True),
    mosaic("a100-40gb", 248, "7b", 2048, 128, 18, 1, 2304, 3623, "FULL_SHARD", True),
    mosaic("a100-40gb", 252, "7b", 2048, 8, 12, 4, 384, 3679, "FULL_SHARD", True),
    mosaic("a100-40gb", 259, "3b", 2048, 128, 6, 1, 768, 9538, "FULL_SHARD", False),
    mosaic("a100-40gb", 270, "1b", 2048, 128, 10, 1, 1280, 18647, "FULL_SHARD", False),
    mosaic("a100-40gb", 281, "760m", 2048, 128, 12, 1, 1536, 28940, "FULL_SHARD", False),
    mosaic("a100-40gb", 296, "350m", 2048, 8, 16, 4, 512, 55995, "FULL_SHARD", False),
    mosaic("a100-40gb", 307, "125m", 2048, 8, 26, 3, 624, 136334, "FULL_SHARD", False),
]

TITAN_SEQUENCE = {
    "sequence_length": "8192: train_configs/llama3_8b.toml line 30 (seq_len) at torchtitan commit 9dec370a, "
    "the commit the benchmark names"
}
TITAN_HARDWARE = {"gpu": "h100-80gb: the SXM preset, though the runs used 96 GB HBM2e H100s at 500 W (lines 13-15)"}


def titan(line: int, gpus: int, tokens_per_s_per_gpu: int) -> Run:
    """torchtitan's 1D FSDP rows (tables 1 and 3): Llama 3.1 8B, local batch 2, selective checkpointing."""
    return Run(
        name=f"Llama-3.1-8B FSDP x{gpus} (torchtitan)",
        source=TITAN,
        where=f"table {'1' if gpus == 8 else '3'}, row FSDP, line {line}",
        gpu="h100-80gb",
        world_size=gpus,
        model={"preset": "llama-3.1-8b"},
        sequence_length=8192,
        global_batch_size=2 * gpus,
        micro_batch_size=2,
        arrangement="full_shard",
        recompute="selective",
        metric=Metric.tokens_per_s_per_gpu,
        measured=tokens_per_s_per_gpu,
        unpublished=("sequence length (in the config, not the page)", "the exact H100 variant's peak FLOP/s"),
        assumed=TITAN_SEQUENCE | TITAN_HARDWARE,
        levers=FLASH_ATTENTION_2,
        excluded="the GPU's peak is unpublished: 96 GB HBM2e H100s at 500 W, 'between SXM and NVL' (footnote 2)",
    )


RUNS += [titan(27, 8, 5762), titan(44, 128, 5605)]


def gpt(layers: int, hidden: int, heads: int, vocab: int) -> dict[str, object]:
    """A Megatron GPT: LayerNorm and GELU MLP of 4h (Megatron's default ffn_hidden_size), untied output layer."""
    return {
        "layers": layers,
        "hidden_size": hidden,
        "attention_heads": heads,
        "ffn_hidden_size": 4 * hidden,
        "vocab_size": vocab,
        "mlp": "gelu",
        "tied_embeddings": False,
    }


NARAYANAN_UNPUBLISHED = ("micro-batch size", "pipeline schedule", "data-parallel arrangement details")
NARAYANAN_ASSUMED = {
    "micro_batch_size": "1 (not in table 1)",
    "pipeline_schedule": "1F1B (not in table 1)",
    "arrangement": "ddp: 2021 Megatron-LM all-reduces gradients, no distributed optimizer",
}


def narayanan(
    size: str, hidden: int, layers: int, heads: int, t: int, p: int, gpus: int, batch: int, tflops: int
) -> Run:
    """Table 1 of Narayanan et al. 2021: A100 80GB (Selene), s = 2048, V = 51,200, full recomputation."""
    return Run(
        name=f"GPT-{size} t{t} p{p} x{gpus} (Narayanan)",
        source=NARAYANAN,
        where=f"table 1, row {size}",
        gpu="a100-80gb",
        world_size=gpus,
        model=gpt(layers, hidden, heads, 51200),
        sequence_length=2048,
        global_batch_size=batch,
        micro_batch_size=1,
        arrangement="ddp",
        recompute="full",
        metric=Metric.narayanan_tflops_per_gpu,
        measured=tflops,
        tensor=t,
        pipeline=p,
        unpublished=NARAYANAN_UNPUBLISHED,
        assumed=NARAYANAN_ASSUMED,
        flash_attention=False,  # 2021: Megatron's fused softmax, before flash attention
    )


RUNS += [
    narayanan("1.7B", 2304, 24, 24, 1, 1, 32, 512, 137),
    narayanan("3.6B", 3072, 30, 32, 2, 1, 64, 512, 138),
    narayanan("7.5B", 4096, 36, 32, 4, 1, 128, 512, 142),
    narayanan("18B", 6144, 40, 48, 8, 1, 256, 1024, 135),
    narayanan("39B", 8192, 48, 64, 8, 2, 512, 1536, 138),
    narayanan("76B", 10240, 60, 80, 8, 4, 1024, 1792, 140),
    narayanan("145B", 12288, 80, 96, 8, 8, 1536, 2304, 148),
    narayanan("310B", 16384, 96, 128, 8, 16, 1920, 2160, 155),
    narayanan("530B", 20480, 105, 128, 8, 35, 2520, 2520, 163),
    narayanan("1T", 25600, 128, 160, 8, 64, 3072, 3072, 163),
]

MEGATRON_UNPUBLISHED = ("micro-batch size", "ffn_hidden_size", "recomputation", "interconnect")
MEGATRON_ASSUMED = {
    "micro_batch_size": "1 (not in the table)",
    "ffn_hidden_size": "4h, Megatron's default",
    "arrangement": "zero1: the distributed optimizer that --overlap-param-gather needs (README)",
    "recompute": "none (not stated)",
    "links": "nvlink4_ib400",
    "sequence_parallel": "on: --tp-comm-overlap, which the README lists, requires it",
}


# The README's H100 runs: --overlap-grad-reduce --overlap-param-gather --tp-comm-overlap
MEGATRON_H100_OVERLAPS: dict[str, object] = {
    "overlap_grad_reduce": True,
    "overlap_param_gather": True,
    "tp_comm_overlap": True,
}


# In the fit and the summary since 2026-12-01. They were left out while the tensor-parallel rows came out 10-37%
# slow, compute alone above the measured step (GPT-32B t8: 0.96 s against 0.89 s): the layer norms and residual
# adds were priced on the whole sequence on every tensor-parallel rank, where sequence parallelism (which
# --tp-comm-overlap requires) runs them on s / t of it (Korthikanti et al. 2022, section 4.2.2): 0.20 s of that
# row's 0.96 s. With that priced as Megatron runs it, one Hopper GEMM ceiling fitted on these rows and the FSDP
# runs together meets the held-out targets.


def megatron_h100(
    size: str, heads: int, hidden: int, layers: int, t: int, p: int, gpus: int, batch: int, tflops: float
) -> Run:
    """Megatron-LM's H100 table: vocabulary 131,072, sequence 4,096, data-parallel size 48 throughout."""
    return Run(
        name=f"GPT-{size} t{t} p{p} x{gpus} (Megatron H100)",
        source=MEGATRON_H100,
        where=f"model table, row {size}",
        gpu="h100-80gb",
        world_size=gpus,
        model=gpt(layers, hidden, heads, 131072),
        sequence_length=4096,
        global_batch_size=batch,
        micro_batch_size=1,
        arrangement="zero1",
        recompute="none",
        metric=Metric.megatron_tflops_per_gpu,
        measured=tflops,
        tensor=t,
        pipeline=p,
        unpublished=MEGATRON_UNPUBLISHED,
        assumed=MEGATRON_ASSUMED,
        sequence_parallel=t > 1,
        levers=MEGATRON_H100_OVERLAPS,
    )


RUNS += [
    megatron_h100("1.7B", 16, 2048, 24, 1, 1, 48, 192, 408.8),
    megatron_h100("7.1B", 32, 4096, 30, 2, 1, 96, 192, 465.9),
    megatron_h100("16B", 48, 6144, 32, 4, 1, 192, 192, 489.1),
    megatron_h100("32B", 56, 7168, 48, 8, 1, 384, 192, 459.6),
    megatron_h100("70B", 64, 8192, 84, 8, 2, 768, 384, 419.7),
    megatron_h100("119B", 80, 10240, 92, 8, 4, 1536, 768, 420.5),
    megatron_h100("177B", 96, 12288, 96, 8, 6, 2304, 1152, 432.8),
    megatron_h100("314B", 128, 16384, 96, 8, 8, 3072, 1536, 474.4),
    megatron_h100("462B", 144, 18432, 112, 8, 16, 6144, 3072, 459.9),
]


def bridge_flops_per_token(model: dict[str, object], sequence: int, tensor: int) -> int:
    """Megatron-Bridge's model FLOPs a token of a dense GQA model (src/megatron/bridge/training/utils/flop_utils.py
    @ebca8936, num_floating_point_operations' transformer_flops): 6 h (3 f) L for a gated SiLU MLP (2 f otherwise),
    6 L (h (q + 2 kv) + q h + q s) for attention (the causal core, q s / 2 x 2) and 6 h V for the logits, with
    q = heads x head dim, kv = KV heads x head dim and V the vocabulary padded to a multiple of 128 x TP
    (calculate_padded_vocab_size, make_vocab_size_divisible_by 128)."""
    fields: dict[str, object] = dict(model)
    gated = model.get("mlp") in ("swiglu", "geglu")
    if "preset" in model:
        preset = MODEL_PRESETS[ModelPresetName(str(model["preset"]))]
        fields = preset.model_dump()
        gated = True  # the presets given this metric are Llama-like (SwiGLU)
    h, layers, heads = (int(str(fields[k])) for k in ("hidden_size", "layers", "attention_heads"))
    ffn, vocab = int(str(fields["ffn_hidden_size"])), int(str(fields["vocab_size"]))
    kv_heads = int(str(fields.get("kv_heads") or heads))
    head_dim = h // heads
    q, kv = heads * head_dim, kv_heads * head_dim
    multiple = 128 * tensor
    padded_vocab = -(-vocab // multiple) * multiple
    mlp = 6 * h * ffn * (3 if gated else 2) * layers
    attention = 6 * layers * (h * (q + 2 * kv) + q * h + q * sequence)
    return mlp + attention + 6 * h * padded_vocab


def flops_per_sequence(run: Run) -> float:
    """The FLOPs the source counts per sequence, for a metric given in FLOP/s."""
    s = run.sequence_length
    if run.metric is Metric.bridge_tflops_per_gpu:
        return s * bridge_flops_per_token(run.model, s, run.tensor)
    if run.metric is Metric.palm_tflops_per_gpu:
        # Chowdhery et al. 2022 (PaLM), appendix B: 6N + 12 l h s per token (attention without the causal half)
        layers, h = run.flop_layers_hidden
        return s * (6 * run.flop_parameters + 12 * layers * h * s)
    m = run.model
    h, layers, vocab = int(m["hidden_size"]), int(m["layers"]), int(m["vocab_size"])  # type: ignore[call-overload]
    if run.metric is Metric.narayanan_tflops_per_gpu:
        # Narayanan et al. 2021, section 5.1: 96 B s l h^2 (1 + s / 6h + V / 16lh), per sequence (B = 1)
        return 96 * s * layers * h**2 * (1 + s / (6 * h) + vocab / (16 * layers * h))
    # Megatron-LM num_floating_point_operations, GPT with MHA and a 4h GELU MLP, per sequence
    return 12 * s * layers * h**2 * ((1 + 1 + s / h) + 4 + vocab / (2 * layers * h))


def measured_tokens_per_s_per_gpu(run: Run) -> float:
    """The measurement as tokens per second per GPU: FLOP/s per GPU over the source's FLOPs per token."""
    if run.metric is Metric.tokens_per_s_per_gpu:
        return run.measured
    if run.metric is Metric.step_s:
        return run.global_batch_size * run.sequence_length / (run.measured * run.world_size)
    return run.measured * 1e12 * run.sequence_length / flops_per_sequence(run)


# Llama 3.1 405B as Meta trained it: Dubey et al. 2024 (arXiv 2407.21783), table 4 (8,192 and 16,384 H100, t8 c1 p16,
# d64 and d128, 8,192-token sequences, 16M tokens a batch, 430 and 400 teraFLOP/s per GPU) and section 3.3.2 (the
# interleaved schedule; "the first model chunk on the first stage has only the embedding, and the last model chunk
# on the last stage has only output projection and loss calculation": one layer fewer on the first and last stage).
LLAMA3 = "Dubey et al. 2024 (arXiv 2407.21783), table 4 and section 3.3.2"
LLAMA3_UNPUBLISHED = (
    "the FLOPs counted per token",
    "virtual stages per rank",
    "data-parallel arrangement",
    "overlap settings",
)
LLAMA3_ASSUMED = {
    "flops": "6N + 12 l h s per token (PaLM appendix B), N = 405,853,388,800 (the released checkpoint's count)",
    "virtual_stages": "8: 126 layers + the embedding and loss chunks over 16 stages, 1 layer a chunk",
    "arrangement": "zero1: sharded optimizer states (section 3.3.2 cites FSDP's ZeRO-1-like sharding of them)",
    "micro_batch_size": "1: table 4's batch size per data-parallel rank is the micro-batches of one step",
    "precision": "megatron",
}
LLAMA3_405B_PARAMETERS = 405_853_388_800


def llama3_405b(gpus: int, tflops: int) -> Run:
    """A row of table 4 at 8,192 tokens: t8 c1 p16, d = gpus / 128, 2,048 sequences (16M tokens) a batch."""
    return Run(
        name=f"Llama-3.1-405B t8 p16 x{gpus} (Llama 3)",
        source=LLAMA3,
        where=f"table 4, row {gpus:,} GPUs",
        gpu="h100-80gb",
        world_size=gpus,
        model={"preset": "llama-3.1-405b"},
        sequence_length=8192,
        global_batch_size=2048,
        micro_batch_size=1,
        arrangement="zero1",
        recompute="none",
        metric=Metric.palm_tflops_per_gpu,
        measured=tflops,
        tensor=8,
        pipeline=16,
        sequence_parallel=True,
        parallelism={
            "pipeline_schedule": "interleaved",
            "virtual_stages": 8,
            "pipeline_embedding_layers": 1,
            "pipeline_loss_layers": 1,
        },
        precision="megatron",
        flop_parameters=LLAMA3_405B_PARAMETERS,
        flop_layers_hidden=(126, 16384),  # Dubey et al. 2024, table 3
        unpublished=LLAMA3_UNPUBLISHED,
        assumed=LLAMA3_ASSUMED,
    )


RUNS += [llama3_405b(8192, 430), llama3_405b(16384, 400)]


# NeMo Automodel's H100 pre-training table (PyTorch FSDP2, expert parallelism with DeepEP's dispatcher, grouped GEMMs,
# force-balanced routing): tokens per second per GPU as printed (global batch x sequence / step time / GPUs). The
# layouts and recomputation are the table's columns and the recipes it names (examples/llm_benchmark/ at the same
# commit).
AUTOMODEL = "NVIDIA-NeMo/Automodel docs/performance-summary.md @e4581201"
AUTOMODEL_UNPUBLISHED = ("interconnect", "the pipeline's split of the layers into chunks")
AUTOMODEL_ASSUMED = {
    "links": "nvlink4_ib400: DGX-H100",
    "arrangement": "full_shard: strategy fsdp2",
    "precision": "bf16_adam: the recipes keep NeMo Automodel's bf16 model storage and torch.optim.Adam (bf16 "
    "moments), FSDP2 reducing in fp32",
    "pipeline_layers": "the plan's own split of the layers over p x v chunks (the recipe sets layers_per_stage)",
    "routing": "balanced: the recipes' fake_balanced_gate, as the plan assumes",
    "recompute": "the recipe's activation_checkpointing (absent: none)",
}
# The 1,024-GPU recipe's local batch of 8 per data-parallel rank and 4 accumulation steps run the pipeline schedule
# 4 times a step, 8 micro-batches each: parallelism.pipeline_runs 4.
DSV3_1024_ASSUMED = AUTOMODEL_ASSUMED | {
    "micro_batches": "32 a step in 4 runs of the schedule of 8 each (local_batch_size 8, GA 4: the recipe's "
    "benchmark loop calls schedule.step once per local batch): parallelism.pipeline_runs 4"
}


def automodel(
    line: int,
    name: str,
    model: dict[str, object],
    gpus: int,
    global_batch: int,
    micro: int,
    seq: int,
    tokens_per_s_per_gpu: float,
    recompute: str,
    recipe: str,
    *,
    pipeline: int = 1,
    context: int = 1,
    expert: int = 1,
    parallelism: dict[str, object] | None = None,
    assumed: dict[str, object] | None = None,
) -> Run:
    # The recipes' experts are GroupedExpertsDeepEP (backend dispatcher: deepep), whose token dispatcher fuses the
    # permutation (nemo_automodel/components/moe/experts.py @e4581201: moe_permute_fusion=True).
    moe = {"moe_token_dispatcher": "deepep", "moe_permute_fusion": True} if expert > 1 else {}
    return Run(
        name=f"{name} x{gpus} (Automodel)",
        source=AUTOMODEL,
        where=f"table 'DGX-H100, Precision: BF16', line {line}; recipe {recipe}",
        gpu="h100-80gb",
        world_size=gpus,
        model=model,
        sequence_length=seq,
        global_batch_size=global_batch,
        micro_batch_size=micro,
        arrangement="full_shard",
        recompute=recompute,
        metric=Metric.tokens_per_s_per_gpu,
        measured=tokens_per_s_per_gpu,
        pipeline=pipeline,
        context=context,
        expert=expert,
        parallelism=parallelism or {},
        precision="bf16_adam",
        levers=moe,
        unpublished=AUTOMODEL_UNPUBLISHED,
        assumed=assumed or AUTOMODEL_ASSUMED,
    )


DSV3_AUTOMODEL = {"pipeline_schedule": "interleaved", "virtual_stages": 8}
RUNS += [
    automodel(
        15,
        "DeepSeek-V3 p4 e64",
        {"preset": "deepseek-v3"},
        1024,
        8192,
        1,
        4096,
        865,
        "none",
        "deepseek/deepseek_v3_te_deepep_1024.yaml",
        pipeline=4,
        expert=64,
        parallelism=DSV3_AUTOMODEL | {"pipeline_runs": 4},
        assumed=DSV3_1024_ASSUMED,
    ),
    automodel(
        16,
        "DeepSeek-V3 p4 e64",
        {"preset": "deepseek-v3"},
        256,
        512,
        1,
        4096,
        1002,
        "none",
        "deepseek/deepseek_v3_te_deepep.yaml",
        pipeline=4,
        expert=64,
        parallelism=DSV3_AUTOMODEL,
    ),
    automodel(
        18,
        "Qwen3-30B-A3B e8",
        {"preset": "qwen3-30b-a3b"},
        8,
        512,
        4,
        4096,
        12040,
        "full",
        "qwen/qwen3_moe_30b_te_deepep.yaml",
        expert=8,
    ),
    automodel(
        21,
        "Llama-3.1-70B c2",
        {"preset": "llama-3.1-70b"},
        64,
        128,
        1,
        8192,
        866.77,
        "full",
        "llama3_3/custom_llama3_1_70b_pretrain_benchmark_8nodes.yaml",
        context=2,
    ),
]
