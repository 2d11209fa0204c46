"""Published groups of one job measured in several layouts: are the layouts ordered as measured?

    python -m bench.calibration --layout-groups   # each group's measured and predicted order, pairs in order

A group is ONE job (the same model, GPUs, global batch and sequence) that its source measured in
several layouts or with several levers (schedule, asynchronous tensor parallelism, FP8). Each row
is a full corpus ``Run`` (model, precision, cluster, training, parallelism, levers) with its
measured tokens per second per GPU; it is predicted exactly as the calibration predicts a run
(``bench.calibration.model``). Within a group every pair of rows whose measurements differ is
counted: in order when the predicted throughputs rank the two as the measurements do.

Sources (every figure copied as the source prints it)
- TITAN_2412: pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md @b5bcd76c, tables 4
  and 5 (runs at torchtitan 9dec370a). Table 5: Llama 3.1 405B on 512 H100 (FSDP 8, TP 8, PP 8),
  local batch 32, global batch 256, full activation checkpointing, torch.compile, Float8, AsyncTP;
  1F1B 100 and interleaved 1F1B 128 TPS/GPU. Table 4: Llama 3.1 70B on 256 H100 (FSDP 32, TP 8),
  local batch 16, global batch 512, full activation checkpointing, torch.compile, Float8; 2D 829
  and 2D + AsyncTP 876 TPS/GPU.
- TITAN_ASYNC_TP: pytorch/torchtitan benchmarks/asyncTP_llama3_h100_2025-06_torchtitan.md
  @b5bcd76c (runs at torchtitan 820504e): Llama 3.1 70B on 256 H100 (FSDP 32, TP 8, full AC,
  local batch 16) and Llama 3.1 8B on 64 H100 (FSDP 8, TP 8, per-op selective AC, local batch 12),
  each with vanilla and async TP, in bfloat16 and float8 tensorwise. The float8 rowwise rows are
  left out: torchao's rowwise scaling is not a recipe the plan takes.
- TITAN_2412 tables 1 and 3 again: Llama 3.1 8B on 8 and 128 H100 under FSDP, local batch 2, selective
  checkpointing, FSDP + torch.compile against FSDP + torch.compile + Float8 (6,667 and 8,532; 6,514 and 8,380
  TPS/GPU). The uncompiled FSDP row is left out: torch.compile is not a lever the plan takes.
- TORCHAO_FLOAT8: pytorch/ao torchao/float8/README.md @49cb18a6, "e2e training benchmarks", NVIDIA H100:
  Llama3-8b on 8 H100 with torchtitan (FSDP2, batch 1, sequence 8,192, torch.compile, per-op SAC), bfloat16
  6,150 and tensorwise float8 with float8 all-gather 7,689.5 median tokens/s (rowwise left out as above).

- MOSAIC: mosaicml/llm-foundry scripts/train/benchmarking/README.md @8c8dd48f, the MPT jobs on 8 H100 that its
  sections 'H100 80GB BF16' and 'H100 80GB FP8' both list with the same sequence, micro-batch, accumulation,
  global batch, sharding and checkpointing (3b at 32,768, 8,192 and 512 tokens; 1b at 32,768 and 512):
  bf16 against Composer's amp_fp8.
- MOE_ZOO: yanring/Megatron-MoE-ModelZoo (NVIDIA's Megatron-Core MoE configurations) best_practice/qwen3/readme.md
  @e8650517, section 'H100' (the same table since examples/qwen3/readme.md @8017e112): Qwen3-235B-A22B on 256 H100
  (NVLink 4th generation, InfiniBand 8 x 50 GB/s), bf16, sequence 4,096, global batch 2,048, in five layouts with
  their step times: TP2 EP32 PP8 VPP4 with and without the 1F1B all-to-all overlap, TP2 EP8 under Megatron-FSDP,
  TP2 EP8 PP32 VPP3 with the alltoall dispatcher and TP4 EP8 PP8 VPP4. The commands are examples/qwen3/run_235b.sh
  and the arguments model_configs/benchmarking/Qwen3-235B-A22B.yaml, both @8017e112.

What the pages leave out, and the value used instead, is in each row's ``unpublished`` and
``assumed``. The hardware is common to all of them: Grand Teton hosts of 8 H100s with 96 GB HBM2e at
500 W, 400 Gb/s RDMA per GPU; the rows use the h100-80gb preset (SXM peaks) because the exact peak
is unpublished (footnote 2 of the 2024 page). Within one group every row shares that card, so the
order does not depend on it.
"""

import itertools
from dataclasses import dataclass, replace

from bench.calibration.corpus import FLASH_ATTENTION_2, MOSAIC, Metric, Run, measured_tokens_per_s_per_gpu, mosaic
from bench.calibration.model import predicted_tokens_per_s_per_gpu

TITAN_2412 = "pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md @b5bcd76c"
TITAN_ASYNC_TP = "pytorch/torchtitan benchmarks/asyncTP_llama3_h100_2025-06_torchtitan.md @b5bcd76c"

TITAN_UNPUBLISHED = ("the exact H100 variant's peak FLOP/s", "sequence length (in the config, not the page)")
TITAN_ASSUMED: dict[str, object] = {
    "gpu": "h100-80gb: the runs used 96 GB HBM2e H100s at 500 W, peak between SXM and NVL (footnote 2)",
    "sequence_length": "8192: seq_len of train_configs/llama3_{8b,70b,405b}.toml at the run's torchtitan commit",
    "precision": "fsdp2: bf16 parameters and gradients under FSDP2's mixed precision, fp32 master and optimizer",
    "sequence_parallel": "on: torchtitan's tensor plan shards the norms along the sequence (SequenceParallel)",
    "tp_comm_overlap": "AsyncTP (SymmetricMemory micro-pipelined all-gather/reduce-scatter matmuls) as "
    "Megatron's --tp-comm-overlap: each collective hidden behind the GEMM beside it",
    "fp8": "torchao: torchtitan's float8 converter with tensorwise scaling",
}


@dataclass(frozen=True)
class Group:
    """One job measured in several layouts: its rows share model, GPUs, global batch and sequence."""

    name: str
    source: str
    where: str
    runs: tuple[Run, ...]

    def __post_init__(self) -> None:
        first = self.runs[0]
        for run in self.runs:
            same = (run.model, run.world_size, run.global_batch_size, run.sequence_length, run.gpu)
            if same != (first.model, first.world_size, first.global_batch_size, first.sequence_length, first.gpu):
                raise ValueError(f"{self.name}: {run.name} is not the same job as {first.name}")


def titan_row(
    label: str,
    source: str,
    where: str,
    preset: str,
    gpus: int,
    local_batch: int,
    micro_batch: int,
    recompute: str,
    tokens_per_s_per_gpu: float,
    *,
    tensor: int,
    pipeline: int = 1,
    parallelism: dict[str, object] | None = None,
    async_tp: bool,
    fp8: bool,
    assumed: dict[str, object] | None = None,
) -> Run:
    """A torchtitan run: FSDP2 over the data-parallel ranks (full_shard), tensor parallelism with sequence
    parallelism, global batch = local batch x FSDP degree."""
    data_parallel = gpus // (tensor * pipeline)
    levers: dict[str, object] = {"tp_comm_overlap": async_tp} | FLASH_ATTENTION_2
    if fp8:
        levers["fp8"] = "torchao"
    return Run(
        name=label,
        source=source,
        where=where,
        gpu="h100-80gb",
        world_size=gpus,
        model={"preset": preset},
        sequence_length=8192,
        global_batch_size=local_batch * data_parallel,
        micro_batch_size=micro_batch,
        arrangement="full_shard",
        recompute=recompute,
        metric=Metric.tokens_per_s_per_gpu,
        measured=tokens_per_s_per_gpu,
        tensor=tensor,
        pipeline=pipeline,
        sequence_parallel=tensor > 1,
        parallelism=parallelism or {},
        levers=levers,
        precision="fsdp2",
        unpublished=TITAN_UNPUBLISHED,
        assumed=TITAN_ASSUMED | (assumed or {}),
    )


# torchtitan 9dec370a, torchtitan/parallelisms/pipelining_utils.py generate_split_points: with no split points
# given, p x (1 for a single-stage schedule, 2 for a multi-stage one) chunks; the first chunk gets layers // chunks,
# the middle ones one more while layers % chunks lasts, the last chunk the rest. 126 layers: 1F1B over 8 stages is
# [15, 16 x 6, 15]; interleaved 1F1B, two chunks per rank over 16 chunks, [7, 8 x 14, 7]. The micro-batches are
# pipeline_parallel_microbatches, by default the pipeline degree: 8 micro-batches of 4 from a local batch of 32.
TITAN_405B_PIPELINE = {
    "micro_batches": "8 of 4 sequences: pipeline_parallel_microbatches defaults to the pipeline degree "
    "(torchtitan 9dec370a, pipelining_utils.py build_pipeline_schedule)",
    "pipeline_layers": "torchtitan 9dec370a generate_split_points: [15, 16 x 6, 15]; interleaved [7, 8 x 14, 7]",
}


def split_points(layers: int, chunks: int) -> list[int]:
    """torchtitan 9dec370a generate_split_points, as layers per chunk."""
    base, extra = divmod(layers, chunks)
    split = [base]
    for _ in range(chunks - 2):
        split.append(base + 1 if extra > 0 else base)
        extra -= 1 if extra > 0 else 0
    return split + [layers - sum(split)]


def titan_405b(schedule: str, tokens_per_s_per_gpu: float) -> Run:
    interleaved = schedule == "interleaved"
    chunks = 16 if interleaved else 8
    parallelism: dict[str, object] = {
        "pipeline_schedule": schedule,
        "virtual_stages": 2 if interleaved else 1,
        "pipeline_layers": split_points(126, chunks),
    }
    return titan_row(
        f"405B FSDP8 TP8 PP8 {'interleaved 1F1B' if interleaved else '1F1B'}",
        TITAN_2412,
        f"table 5, row {'Interleaved 1F1B' if interleaved else '1F1B'}",
        "llama-3.1-405b",
        512,
        32,
        4,
        "full",
        tokens_per_s_per_gpu,
        tensor=8,
        pipeline=8,
        parallelism=parallelism,
        async_tp=True,
        fp8=True,
        assumed=TITAN_405B_PIPELINE,
    )


def titan_70b_2412(async_tp: bool, tokens_per_s_per_gpu: float) -> Run:
    return titan_row(
        f"70B FSDP32 TP8 float8{' AsyncTP' if async_tp else ''}",
        TITAN_2412,
        f"table 4, row {'2D + AsyncTP' if async_tp else '2D'}",
        "llama-3.1-70b",
        256,
        16,
        16,
        "full",
        tokens_per_s_per_gpu,
        tensor=8,
        async_tp=async_tp,
        fp8=True,
    )


def titan_async_tp(size: str, async_tp: bool, fp8: bool, tokens_per_s_per_gpu: float) -> Run:
    big = size == "70B"
    column = "Async TP" if async_tp else "Vanilla TP"
    quantization = "float8 tensorwise" if fp8 else "None (bfloat16)"
    return titan_row(
        f"{size} FSDP{32 if big else 8} TP8 {'float8' if fp8 else 'bf16'}{' AsyncTP' if async_tp else ''}",
        TITAN_ASYNC_TP,
        f"table '{'Llama3 70b on 256' if big else 'Llama3 8b on 64'} H100s', row {quantization}, column {column}",
        "llama-3.1-70b" if big else "llama-3.1-8b",
        256 if big else 64,
        16 if big else 12,
        16 if big else 12,
        "full" if big else "selective",
        tokens_per_s_per_gpu,
        tensor=8,
        async_tp=async_tp,
        fp8=fp8,
    )


def titan_8b_fsdp(
    where: str,
    gpus: int,
    local_batch: int,
    fp8: bool,
    tokens_per_s_per_gpu: float,
    source: str,
    assumed: dict[str, object] | None = None,
) -> Run:
    """Llama 3.1 8B under FSDP alone (one rank a replica of nothing: full_shard over every GPU), torch.compile on in
    both rows of the pair, with and without torchao's tensorwise float8."""
    return titan_row(
        f"8B FSDP{gpus} {'float8' if fp8 else 'bf16'}",
        source,
        where,
        "llama-3.1-8b",
        gpus,
        local_batch,
        local_batch,
        "selective",
        tokens_per_s_per_gpu,
        tensor=1,
        async_tp=False,
        fp8=fp8,
        assumed=assumed,
    )


TORCHAO_FLOAT8 = "pytorch/ao torchao/float8/README.md @49cb18a6"
TORCHAO_ASSUMED: dict[str, object] = {
    "model": "llama-3.1-8b: Llama3-8b's architecture (the two differ in RoPE scaling and context, not in FLOPs)",
    "runs": "torchtitan 0.0.2, torch 2.7.0a0, torchao 0.10.0, FSDP2, torch.compile, per-op SAC, batch 1 x 8,192 "
    "(section 'e2e training benchmarks', NVIDIA H100)",
}


MOSAIC_FP8 = "section 'H100 80GB FP8'"


def mpt_precision_pair(
    size: str,
    seq: int,
    micro: int,
    accumulation: int,
    batch: int,
    checkpointing: bool,
    lines: tuple[int, int],
    tokens: tuple[int, int],
) -> Group:
    """One MPT job on 8 H100 measured in bf16 (section 'H100 80GB BF16') and in FP8 (section 'H100 80GB FP8', Composer's
    amp_fp8: Transformer Engine's per-tensor scaled FP8 layers), the same micro-batch, accumulation and sharding."""
    bf16 = mosaic(
        "h100-80gb", lines[0], size, seq, 8, micro, accumulation, batch, tokens[0], "FULL_SHARD", checkpointing
    )
    fp8 = mosaic(
        "h100-80gb", lines[1], size, seq, 8, micro, accumulation, batch, tokens[1], "FULL_SHARD", checkpointing
    )
    fp8 = replace(
        fp8,
        name=f"{fp8.name} fp8",
        where=f"{MOSAIC_FP8}, line {lines[1]}",
        levers={"fp8": "transformer_engine"} | FLASH_ATTENTION_2,
        assumed=fp8.assumed | {"fp8": "transformer_engine: Composer's amp_fp8 runs Transformer Engine's FP8 layers"},
    )
    bf16 = replace(bf16, name=f"{bf16.name} bf16")
    return Group(f"MPT-{size}, 8 H100, s{seq}: bf16 or fp8", MOSAIC, f"lines {lines[0]} and {lines[1]}", (bf16, fp8))


MOE_ZOO = "yanring/Megatron-MoE-ModelZoo best_practice/qwen3/readme.md @e8650517"
MOE_ZOO_UNPUBLISHED = ("memory per GPU and MFU (the columns are empty)", "the Megatron-LM commits' exact kernels")
MOE_ZOO_ASSUMED: dict[str, object] = {
    "links": "nvlink4_ib400: 'NVLink 4th Generation, InfiniBand 8x50 GB/s' (the section's setup)",
    "precision": "megatron: --bf16 with the distributed optimizer (fp32 main gradients and master weights)",
    "expert_tensor": "1: --expert-tensor-parallel-size 1 (Qwen3-235B-A22B.yaml @8017e112)",
    "overlaps": "--overlap-grad-reduce, --overlap-param-gather, --sequence-parallel (the yaml)",
    "pipeline_layers": "--account-for-embedding-in-pipeline-split and --account-for-loss-in-pipeline-split (the "
    "yaml): 94 layers + 2 over p x v chunks",
    "routing": "balanced: every command of run_235b.sh @8017e112 passes --moe-router-force-load-balancing",
    "recompute": "the table's 'norm, act' is --recompute-granularity selective --recompute-modules moe_act layernorm "
    "(run_235b.sh): recomputes no matrix multiplication, planned as selective (under flash attention nothing "
    "recomputed); 'full' is --recompute-method uniform --recompute-num-layers 1; empty is none",
    "vocab_size": "151,936 (the preset; the run pads the tokenizer's vocabulary with --make-vocab-size-divisible-by)",
    "cross_entropy": "vocab_parallel: Megatron-LM's vocabulary-parallel cross entropy, unfused (the yaml passes no "
    "--cross-entropy-loss-fusion)",
}


def moe_zoo_qwen3(
    label: str,
    row: str,
    tensor: int,
    expert: int,
    pipeline: int,
    virtual: int,
    micro_batch: int,
    recompute: str,
    step_s: float,
    *,
    dispatcher: str = "deepep",
    a2a_overlap: bool = False,
    fsdp: bool = False,
    assumed: dict[str, object] | None = None,
) -> Run:
    """One row of the Model Zoo's Qwen3-235B-A22B table on 256 H100: Megatron-Core, 4,096 tokens, global batch 2,048,
    expert tensor parallelism 1, the step time as printed."""
    parallelism: dict[str, object] = {"expert_tensor": 1}
    if pipeline > 1:
        parallelism |= {"pipeline_embedding_layers": 1, "pipeline_loss_layers": 1}
    if virtual > 1:
        parallelism |= {"pipeline_schedule": "interleaved", "virtual_stages": virtual}
    levers: dict[str, object] = {
        "moe_token_dispatcher": dispatcher,
        "moe_permute_fusion": True,  # --moe-permute-fusion (the yaml)
        "overlap_grad_reduce": True,
        "overlap_param_gather": not fsdp,
        "overlap_moe_expert_parallel_comm": a2a_overlap,
    }
    return Run(
        name=label,
        source=MOE_ZOO,
        where=f"section 'H100', {row}",
        gpu="h100-80gb",
        world_size=256,
        model={"preset": "qwen3-235b-a22b"},
        sequence_length=4096,
        global_batch_size=2048,
        micro_batch_size=micro_batch,
        arrangement="full_shard" if fsdp else "zero1",
        recompute=recompute,
        metric=Metric.step_s,
        measured=step_s,
        tensor=tensor,
        pipeline=pipeline,
        expert=expert,
        sequence_parallel=tensor > 1,
        parallelism=parallelism,
        levers=levers,
        precision="megatron",
        cross_entropy="vocab_parallel",
        unpublished=MOE_ZOO_UNPUBLISHED,
        assumed=MOE_ZOO_ASSUMED | (assumed or {}),
    )


QWEN3_235B_LAYOUTS = (
    moe_zoo_qwen3("TP2 EP32 PP8 VPP4 DeepEP", "'Cross-node EP strategy' row 1", 2, 32, 8, 4, 1, "selective", 19.7),
    moe_zoo_qwen3(
        "TP2 EP32 PP8 VPP4 DeepEP 1F1B overlap",
        "'Cross-node EP strategy' row 2 (Notes '+1f1b overlap')",
        2,
        32,
        8,
        4,
        1,
        "selective",
        17.6,
        a2a_overlap=True,
        assumed={
            "overlap_moe_expert_parallel_comm": "the note '+1f1b overlap': --combined-1f1b --combined-1f1b-recipe "
            "ep_a2a (run_235b.sh, Megatron-LM's moe_dev branch), released as --overlap-moe-expert-parallel-comm"
        },
    ),
    moe_zoo_qwen3(
        "TP2 EP8 FSDP DeepEP",
        "'Intra-node EP strategy' row 1 (FSDP 'On')",
        2,
        8,
        1,
        1,
        4,
        "full",
        17.6,
        fsdp=True,
        assumed={
            "arrangement": "full_shard: --use-custom-fsdp --data-parallel-sharding-strategy optim_grads_params "
            "(run_235b.sh, which sets TP=1 where the table prints TP 2 and DP 128; the table's layout is used)"
        },
    ),
    moe_zoo_qwen3(
        "TP2 EP8 PP32 VPP3 A2A",
        "'Intra-node EP strategy' row 2 (Dispatcher 'A2A')",
        2,
        8,
        32,
        3,
        1,
        "selective",
        24.2,
        dispatcher="alltoall",
        assumed={"moe_token_dispatcher": "alltoall: the table's Dispatcher column 'A2A'"},
    ),
    moe_zoo_qwen3("TP4 EP8 PP8 VPP4 DeepEP", "'Intra-node EP strategy' row 3", 4, 8, 8, 4, 1, "none", 29.0),
)


GROUPS: list[Group] = [
    Group(
        "Llama 3.1 405B, 512 H100, FSDP8 TP8 PP8: pipeline schedule",
        TITAN_2412,
        "table 5",
        (titan_405b("1f1b", 100), titan_405b("interleaved", 128)),
    ),
    Group(
        "Llama 3.1 70B, 256 H100, FSDP32 TP8 float8: AsyncTP",
        TITAN_2412,
        "table 4",
        (titan_70b_2412(False, 829), titan_70b_2412(True, 876)),
    ),
    Group(
        "Llama 3.1 70B, 256 H100, FSDP32 TP8: AsyncTP and float8",
        TITAN_ASYNC_TP,
        "table 'Llama3 70b on 256 H100s'",
        (
            titan_async_tp("70B", False, False, 597.3),
            titan_async_tp("70B", True, False, 652.4),
            titan_async_tp("70B", False, True, 809.8),
            titan_async_tp("70B", True, True, 942.4),
        ),
    ),
    Group(
        "Llama 3.1 8B, 64 H100, FSDP8 TP8: AsyncTP and float8",
        TITAN_ASYNC_TP,
        "table 'Llama3 8b on 64 H100s'",
        (
            titan_async_tp("8B", False, False, 4378),
            titan_async_tp("8B", True, False, 4809.4),
            titan_async_tp("8B", False, True, 5078.1),
            titan_async_tp("8B", True, True, 5570.1),
        ),
    ),
    Group(
        "Llama 3.1 8B, 8 H100, FSDP, torch.compile: float8",
        TITAN_2412,
        "table 1",
        (
            titan_8b_fsdp("table 1, row FSDP + torch.compile", 8, 2, False, 6667, TITAN_2412),
            titan_8b_fsdp("table 1, row FSDP + torch.compile + Float8", 8, 2, True, 8532, TITAN_2412),
        ),
    ),
    Group(
        "Llama 3.1 8B, 128 H100, FSDP, torch.compile: float8",
        TITAN_2412,
        "table 3",
        (
            titan_8b_fsdp("table 3, row FSDP + torch.compile", 128, 2, False, 6514, TITAN_2412),
            titan_8b_fsdp("table 3, row FSDP + torch.compile + Float8", 128, 2, True, 8380, TITAN_2412),
        ),
    ),
    Group(
        "Llama 3 8B, 8 H100, FSDP2: float8 tensorwise",
        TORCHAO_FLOAT8,
        "section 'e2e training benchmarks', NVIDIA H100",
        (
            titan_8b_fsdp("row 'none (bfloat16)'", 8, 1, False, 6150, TORCHAO_FLOAT8, TORCHAO_ASSUMED),
            titan_8b_fsdp(
                "row 'tensorwise with float8 all-gather'", 8, 1, True, 7689.5, TORCHAO_FLOAT8, TORCHAO_ASSUMED
            ),
        ),
    ),
    mpt_precision_pair("3b", 32768, 3, 6, 144, True, (121, 154), (5873, 5856)),
    mpt_precision_pair("3b", 8192, 3, 6, 144, False, (123, 155), (16578, 19146)),
    mpt_precision_pair("3b", 512, 40, 6, 1920, False, (129, 157), (27965, 36527)),
    mpt_precision_pair("1b", 32768, 1, 4, 32, False, (131, 158), (12025, 12580)),
    mpt_precision_pair("1b", 512, 56, 4, 1792, False, (140, 160), (52275, 70315)),
    Group(
        "Qwen3-235B-A22B, 256 H100, s4096, batch 2048: MoE layouts",
        MOE_ZOO,
        "section 'H100'",
        QWEN3_235B_LAYOUTS,
    ),
]


@dataclass(frozen=True)
class GroupResult:
    group: Group
    measured: tuple[float, ...]
    predicted: tuple[float, ...]
    pairs_in_order: int
    pairs: int
    out_of_order: tuple[tuple[str, str], ...]  # (measured faster, measured slower) predicted the other way


def pairs_in_order(measured: tuple[float, ...], predicted: tuple[float, ...]) -> tuple[int, int, list[tuple[int, int]]]:
    """(in order, pairs, the index pairs out of order): every pair whose measurements differ; a pair is in order
    when the predictions differ the same way (a predicted tie is out of order)."""
    good, total, wrong = 0, 0, []
    for i, j in itertools.combinations(range(len(measured)), 2):
        if measured[i] == measured[j]:
            continue
        total += 1
        if (measured[i] - measured[j]) * (predicted[i] - predicted[j]) > 0:
            good += 1
        else:
            wrong.append((i, j) if measured[i] > measured[j] else (j, i))
    return good, total, wrong


def evaluate(group: Group) -> GroupResult:
    measured = tuple(measured_tokens_per_s_per_gpu(r) for r in group.runs)
    predicted = tuple(predicted_tokens_per_s_per_gpu(r) for r in group.runs)
    good, total, wrong = pairs_in_order(measured, predicted)
    names = tuple((group.runs[i].name, group.runs[j].name) for i, j in wrong)
    return GroupResult(group, measured, predicted, good, total, names)


def order(values: tuple[float, ...], runs: tuple[Run, ...]) -> str:
    ranked = sorted(range(len(runs)), key=lambda i: -values[i])
    return " > ".join(runs[i].name for i in ranked)


def report(groups: list[Group] = GROUPS, label: str = "target >= 90%") -> tuple[int, int]:
    """Print each group's measured and predicted order and its pairs in order; returns (in order, pairs)."""
    good_all, total_all = 0, 0
    for group in groups:
        result = evaluate(group)
        good_all += result.pairs_in_order
        total_all += result.pairs
        print(f"\n{group.name}  [{group.source}, {group.where}]")
        print(f"  {'layout':40s} {'measured':>10s} {'predicted':>10s}  (tokens/s/GPU)")
        for run, m, p in zip(group.runs, result.measured, result.predicted, strict=True):
            print(f"  {run.name:40s} {m:10.1f} {p:10.1f}")
        print(f"  measured order:  {order(result.measured, group.runs)}")
        print(f"  predicted order: {order(result.predicted, group.runs)}")
        print(f"  pairs in order: {result.pairs_in_order} / {result.pairs}")
        for faster, slower in result.out_of_order:
            print(f"    out of order: {faster} measured faster than {slower}")
    share = good_all / total_all if total_all else 1.0
    print(f"\n{len(groups)} groups: {good_all} / {total_all} pairs in order ({100 * share:.0f}%, {label})")
    return good_all, total_all
