"""Further published jobs measured with several levers or layouts: H100 groups, and B200 groups reported apart.

    python -m bench.calibration --layout-groups        # these groups with the others: H100 first, then other cards
    python -m bench.calibration.layout_groups_zoo      # these groups alone, each layout's terms beside its figures

A group is one job (model, GPUs, global batch, sequence) its source measured more than once, with only the layout
or a lever changed (bench.calibration.layout_groups says how a group is scored). Every figure is copied as printed;
what a source leaves out is in each row's ``unpublished`` and the value used instead in ``assumed``.

Sources
- OLMO_CORE: allenai/OLMo-core README.md @7e58d128, section 'Official training scripts', lines 50-64 (the last
  version of the table): OLMo 2 1B, 7B and 13B and a Llama 3 8B, each trained by its script in
  src/scripts/train/ at that commit in bf16 and again with --train_module.float8_config.enabled=true, 'measured on
  a cluster with NVIDIA H100 GPUs', context 4,096, 'Throughput reported in tokens per second per device' (footnote
  1): 55,000 and 65,000 (1B), 10,000 and 13,000 (7B), 9,500 and 12,500 (8B), 4,600 and 5,500 (13B), printed rounded.
  The scripts give the rest: rank_microbatch_size 8, 2, 2 and 1 sequences of 4,096 (1B, 7B, 8B, 13B), global batch
  1,024 x 4,096 tokens (2,048 x 4,096 for the 13B), compile_model True, HSDP with param_dtype bfloat16 and
  reduce_dtype float32, no activation checkpointing, Float8Config (torchao's dynamic tensorwise scaling with the
  float8 FSDP all-gather, olmo_core/float8/__init__.py). The models are olmo_core/nn/transformer/config.py's
  olmo2_1B (llama2_1B: 18 layers, d_model 2,048, 16 heads), olmo2_7B (32, 4,096, 32), olmo2_13B (40, 5,120, 40) and
  llama3_8B (32, 4,096, 32 heads, 8 KV heads), all with the FFN hidden size of llama_like (int(8 d / 3), times
  hidden_size_multiplier 1.3 for llama3_8B, rounded up to a multiple of 256, of 1,024 for llama3_8B: 5,632, 11,008,
  13,824, 14,336), no biases, untied embeddings, the OLMo 2 ones with QK-norm, and the dolma2 tokenizer's 100,278
  tokens padded to a multiple of 128 (olmo_core/data/tokenizer.py padded_vocab_size: 100,352). The GPU count is not
  printed: the scripts launch 1 node of 8 GPUs unless told otherwise (olmo_core/internal/experiment.py
  build_common_components num_nodes=1, internal/common.py build_launch_config num_gpus=8), and the table lists no
  node override; HSDP over one node (num_replicas = the node count) shards over all 8.
- TORCHAO_B200: pytorch/ao docs/source/workflows/training.md @36027d82 (last changed @b8708a2d), section 'Training
  e2e benchmarks on NVIDIA B200', lines 306-315: Llama3-8b on one node of 8 power-limited B200s under torchtitan
  commit 6fc499f6 (torch 2.9.0.dev20250815, torchao 0.13.0+gite4e681be6), FSDP2, batch size 1 per GPU, sequence
  8,192, torch.compile, per-op selective activation checkpointing, 100 steps; the 'Median tokens/second' column is
  torchtitan's logged tps, 'tokens per second per device' (torchtitan/components/metrics.py @6fc499f6, a rank's
  tokens since the last log over the time), so it is tokens per second per GPU as printed. The rows taken: none
  (bfloat16) 8,307.5, float8 tensorwise with float8 all-gather 10,417.0 and mxfp8_cublas 9,969.0 (the 'Speedup
  over baseline' column checks the transcription: 10,417.0 / 8,307.5 = 1.254, printed +25.4%; 9,969.0 / 8,307.5 =
  1.200, printed +20.0%).
  Left out: mxfp8_cublas_rceil (the same MXFP8 lever with another rounding of the scales: the plan cannot tell it
  from mxfp8_cublas, so the pair would be a predicted tie) and float8 rowwise (a scaling the plan does not take).
  The same table is torchtitan's torchtitan/components/quantization/mxfp8.md @b5bcd76c, section 'Dense Models'.
- BRIDGE_B200: NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md @067f987d, section '25.11 NeMo
  Container', 'Pre-Training Performance', 'System: DGX-B200', lines 578 and 579 (first published in
  docs/performance-summary.md @97ad8cc6, lines 77 and 78): each row prints one layout and two runs, 'FP8-CS
  (FP8-MX)', FP8 with per-tensor current scaling and MXFP8, the MXFP8 figure in parentheses; 'Tokens / sec / GPU'
  as printed (Megatron-Bridge: global batch x sequence / step time / GPUs). LLAMA3_8B on 8 B200: GBS 128, MBS 2,
  sequence 8,192, TP1 PP1 CP1, GA 8, 30,624 (29,521); LLAMA3.1_405B on 128 B200: GBS 64, MBS 1, sequence 8,192,
  TP4 PP8 CP2 VP8, GA 32, 661 (624). The 'Model TFLOP / sec / GPU' column checks the transcription: both runs of a
  row count the same FLOPs per token (30,624 / 1,576 = 19.43 = 29,521 / 1,519; 661 / 1,667 = 0.3965 and 624 /
  1,576 = 0.3959, equal to the printed figures' rounding). The runs are the performance recipes at @97ad8cc6:
  scripts/performance/configs/llama/llama3_llm_pretrain.py (llama3_8b_pretrain_config_b200) and
  llama31_llm_pretrain.py (llama31_405b_pretrain_config_b200) over src/megatron/bridge/recipes/llama/llama3.py
  (_llama3_common: the distributed optimizer, overlap_grad_reduce and overlap_param_gather on, no recomputation),
  with utils/precision.py (fp8_cs: bf16_with_fp8_current_scaling_mixed, fp8 'hybrid', recipe 'tensorwise', the
  first and last layers' bf16 switched off; fp8_mx: bf16_with_mxfp8_mixed, recipe 'mxfp8'; both with
  fp8_param_gather) and set_llama3(1)_common_configs (grad_reduce_in_fp32 False). The 405B's MXFP8 run turns
  overlap_param_gather off ('keeping this enabled causes NaN grad norm'); its FP8-CS run keeps it on. The four runs
  are also the corpus's B200 rows (bench.calibration.corpus_b200, which builds them), fitted for Blackwell's
  constants.

Searched without a further group: Megatron-MoE-ModelZoo's readmes and design docs at every commit, Megatron-LM's
docs and MoE README history, Megatron-Bridge's and NeMo Automodel's performance summaries at every commit, NeMo's
performance pages, torchtitan's benchmarks and docs, FlagPerf's NVIDIA cases and llm-foundry's tables list each
H100 job once, or vary the sequence with the layout (torchtitan's context-parallel tables 2 and 6, the Model Zoo's
Qwen3 long-context table, NeMo's long-sequence page, whose runs without context parallelism have no published
layout), or compare releases whose software differs (Megatron-Bridge: Qwen3-30B-A3B on 16 H100 moved from 5,113 to
9,058 tokens/s/GPU in one layout between 26.02 and 26.02.01). GB200 and GB300 groups (Megatron-Bridge 25.09 to
26.08: Llama 3 70B on 64 GB200 as Megatron-FSDP with FP8-CS against TP2 PP4 VP5 with MXFP8, Llama 3.1 405B on 256,
DeepSeek-V3 on 256) are left out: no card preset is a GB200 or GB300 (a B200 at 1,200 W with a 72-GPU NVLink
domain), and a 256-GPU job is no whole number of 72-GPU domains.
"""

from bench.calibration.corpus import FLASH_ATTENTION_2, Metric, Run
from bench.calibration.corpus_b200 import BRIDGE_B200, DGX_B200_LINKS, bridge_b200
from bench.calibration.layout_groups import Group
from bench.calibration.layout_groups_more import print_terms

OLMO_CORE = "allenai/OLMo-core README.md @7e58d128"


def olmo_model(layers: int, hidden: int, heads: int, ffn: int, kv_heads: int | None = None) -> dict[str, object]:
    """An OLMo-core llama_like model with the dolma2 tokenizer: SwiGLU, no biases, untied, vocabulary 100,352."""
    model: dict[str, object] = {
        "layers": layers,
        "hidden_size": hidden,
        "attention_heads": heads,
        "ffn_hidden_size": ffn,
        "vocab_size": 100352,  # 128 x ceil(100,278 / 128)
        "mlp": "swiglu",
        "tied_embeddings": False,
        "qk_norm": kv_heads is None,  # the OLMo 2 blocks; the Llama 3 8B has none
    }
    if kv_heads is not None:
        model["kv_heads"] = kv_heads
    return model


# script, its model, rank micro-batch (sequences), global batch (sequences); FFN: 256 x ceil(int(8 d / 3) / 256), for
# llama3_8B 1,024 x ceil(int(1.3 x int(8 x 4,096 / 3)) / 1,024) = 1,024 x ceil(14,198 / 1,024) = 14,336
OLMO_SCRIPTS: dict[str, tuple[str, dict[str, object], int, int]] = {
    "1B": ("OLMo2-1B.py", olmo_model(18, 2048, 16, 5632), 8, 1024),
    "7B": ("OLMo2-7B.py", olmo_model(32, 4096, 32, 11008), 2, 1024),
    "8B": ("Llama3-8B.py", olmo_model(32, 4096, 32, 14336, kv_heads=8), 2, 1024),
    "13B": ("OLMo2-13B.py", olmo_model(40, 5120, 40, 13824), 1, 2048),
}
OLMO_UNPUBLISHED = (
    "the GPU count ('a cluster with NVIDIA H100 GPUs')",
    "the exact throughput (printed rounded to 500 or 100 tokens/s)",
    "torch's and torchao's versions",
)
OLMO_ASSUMED: dict[str, object] = {
    "world_size": "8: one node of 8 GPUs, the scripts' default (build_common_components num_nodes=1, "
    "build_launch_config num_gpus=8); the table's overrides name no other",
    "gpu": "h100-80gb: the SXM preset (the cluster's H100 variant is not printed)",
    "arrangement": "full_shard: HSDP with num_replicas = the node count, 1: one shard group of 8",
    "precision": "fsdp2: FSDP2 with param_dtype bfloat16 (fp32 sharded parameters and Adam); the scripts reduce "
    "gradients in float32 (reduce_dtype), the preset in bf16: both rows of a pair alike",
    "recompute": "none: the scripts set no activation checkpointing",
    "attention_backend": "flash_attention_2: llama_like's use_flash False runs PyTorch's scaled_dot_product_attention",
    "not_planned": "torch.compile (compile_model True in both rows), the z-loss",
}


def olmo_row(size: str, fp8: bool, line: int, tokens_per_s_per_gpu: float) -> Run:
    """One row of OLMo-core's H100 table: the script's model and batch on 8 GPUs, bf16 or with its Float8Config."""
    script, model, micro_batch, global_batch = OLMO_SCRIPTS[size]
    levers: dict[str, object] = dict(FLASH_ATTENTION_2)
    assumed = dict(OLMO_ASSUMED)
    if fp8:
        levers["fp8"] = "torchao"
        assumed["fp8"] = (
            "torchao: Float8Config's dynamic tensorwise scaling of inputs, weights and output gradients, "
            "enable_fsdp_float8_all_gather, precompute_float8_dynamic_scale_for_fsdp"
        )
    return Run(
        name=f"{size} FSDP8 {'float8' if fp8 else 'bf16'}",
        source=OLMO_CORE,
        where=f"section 'Official training scripts', line {line} ({script}{', float8' if fp8 else ''})",
        gpu="h100-80gb",
        world_size=8,
        model=model,
        sequence_length=4096,
        global_batch_size=global_batch,
        micro_batch_size=micro_batch,
        arrangement="full_shard",
        recompute="none",
        metric=Metric.tokens_per_s_per_gpu,
        measured=tokens_per_s_per_gpu,
        levers=levers,
        precision="fsdp2",
        unpublished=OLMO_UNPUBLISHED,
        assumed=assumed,
    )


def olmo_pair(size: str, line: int, tokens: tuple[int, int]) -> Group:
    """The bf16 row at ``line`` and the float8 row below it."""
    runs = (olmo_row(size, False, line, tokens[0]), olmo_row(size, True, line + 1, tokens[1]))
    model = "Llama 3 8B (OLMo-core)" if size == "8B" else f"OLMo 2 {size}"
    _, _, _, global_batch = OLMO_SCRIPTS[size]
    return Group(
        f"{model}, 8 H100, batch {global_batch} x 4096, OLMo-core FSDP2: bf16 or float8",
        OLMO_CORE,
        f"section 'Official training scripts', lines {line} and {line + 1}",
        runs,
    )


TORCHAO_B200 = "pytorch/ao docs/source/workflows/training.md @36027d82"

TORCHAO_B200_UNPUBLISHED = ("the B200s' power limit ('power limited', not given)", "the host's NICs")
TORCHAO_B200_ASSUMED: dict[str, object] = {
    "gpu": "b200: the HGX B200 preset's peaks; the cards ran power-limited below them, every row alike",
    "model": "llama-3-8b: Llama3-8b (torchtitan's llama3 8B: 32 layers, hidden 4,096, 8 KV heads, vocabulary 128,256)",
    "arrangement": "full_shard: FSDP2 over the 8 GPUs (torchtitan's default data_parallel_shard_degree -1)",
    "recompute": "selective: torchtitan's per-op SAC (saves the matrix multiplications' outputs, recomputes the rest)",
    "precision": "fsdp2: bf16 parameters and gradients under FSDP2's mixed precision, fp32 master and optimizer",
    "attention_backend": "flash_attention_2: torchtitan's scaled_dot_product_attention",
    "global_batch": "8: batch size 1 per GPU, no gradient accumulation",
}


def torchao_b200(scaling: str, line: int, tokens_per_s_per_gpu: float) -> Run:
    """One row of torchao's B200 table: Llama3-8b, FSDP2 on 8 B200, 1 x 8,192 tokens a GPU, with the row's scaling."""
    levers: dict[str, object] = dict(FLASH_ATTENTION_2)
    assumed = dict(TORCHAO_B200_ASSUMED)
    name = "Llama 3 8B FSDP8 bf16"
    if scaling == "float8 tensorwise (f8 all-gather)":
        levers["fp8"] = "torchao"
        assumed["fp8"] = "torchao: torchtitan's float8 converter, tensorwise scaling, float8 all-gather"
        name = "Llama 3 8B FSDP8 float8 tensorwise"
    elif scaling == "mxfp8_cublas":
        levers |= {"mxfp8": True, "mxfp8_recipe": "torchao"}
        assumed["mxfp8"] = (
            "torchao: torchao's MX linear (cuBLAS kernels), bf16/fp32 state unchanged and gathered in bf16, each "
            "operand cast along both dimensions every micro-batch; torchtitan's mx converter leaves the output layer "
            "in bf16, as the plan does"
        )
        name = "Llama 3 8B FSDP8 mxfp8"
    return Run(
        name=name,
        source=TORCHAO_B200,
        where=f"section 'Training e2e benchmarks on NVIDIA B200', line {line} ({scaling})",
        gpu="b200",
        world_size=8,
        model={"preset": "llama-3-8b"},
        sequence_length=8192,
        global_batch_size=8,
        micro_batch_size=1,
        arrangement="full_shard",
        recompute="selective",
        metric=Metric.tokens_per_s_per_gpu,
        measured=tokens_per_s_per_gpu,
        levers=levers,
        precision="fsdp2",
        unpublished=TORCHAO_B200_UNPUBLISHED,
        assumed=assumed,
        cluster=DGX_B200_LINKS,
    )


def bridge_pair(
    label: str, line: int, preset: str, gpus: int, shape: tuple[int, ...], tokens: tuple[int, int]
) -> Group:
    """A DGX-B200 row: (global batch, micro-batch, TP, PP, CP, VP) and its (FP8-CS, FP8-MX) tokens/s/GPU."""
    gbs, mbs, tensor, pipeline, context, virtual = shape
    runs = tuple(
        bridge_b200(label, line, preset, gpus, gbs, mbs, tensor, pipeline, context, virtual, mx, figure)
        for mx, figure in zip((False, True), tokens, strict=True)
    )
    return Group(
        f"{label}, {gpus} B200, batch {gbs} x 8192, Megatron-Bridge 25.11: FP8 current scaling or MXFP8",
        BRIDGE_B200,
        f"section '25.11 NeMo Container', 'System: DGX-B200', line {line}",
        runs,
    )


# H100: bf16 against float8 in four OLMo-core scripts (README lines 54-61)
GROUPS: list[Group] = [
    olmo_pair("1B", 54, (55000, 65000)),
    olmo_pair("7B", 56, (10000, 13000)),
    olmo_pair("8B", 58, (9500, 12500)),
    olmo_pair("13B", 60, (4600, 5500)),
]

NEIGHBOUR_GROUPS: list[Group] = [
    Group(
        "Llama 3 8B, 8 B200, batch 8 x 8192, torchtitan FSDP2: bf16, float8 or mxfp8",
        TORCHAO_B200,
        "section 'Training e2e benchmarks on NVIDIA B200', lines 313-315",
        (
            torchao_b200("none (bfloat16)", 313, 8307.5),
            torchao_b200("float8 tensorwise (f8 all-gather)", 314, 10417.0),
            torchao_b200("mxfp8_cublas", 315, 9969.0),
        ),
    ),
    bridge_pair("Llama 3 8B TP1", 578, "llama-3-8b", 8, (128, 2, 1, 1, 1, 1), (30624, 29521)),
    bridge_pair("Llama 3.1 405B TP4 PP8 CP2 VP8", 579, "llama-3.1-405b", 128, (64, 1, 4, 8, 2, 8), (661, 624)),
]


if __name__ == "__main__":
    print_terms(GROUPS + NEIGHBOUR_GROUPS)
