"""Published H100 jobs measured in several layouts or with one lever changed: Megatron-Bridge on 16 and 32 H100,
torchtitan eager on 8.

    python -m bench.calibration --layout-groups        # these groups with the others (H100)
    python -m bench.calibration.layout_groups_h100     # these groups alone, each layout's terms beside its figures

A group is one job (model, GPUs, global batch, sequence) its source measured more than once, with only the layout
or a lever changed (bench.calibration.layout_groups says how a group is scored). Every figure is copied as printed;
what a source leaves out is in each row's ``unpublished`` and the value used instead in ``assumed``.

Sources
- BRIDGE_A2A: NVIDIA-NeMo/Megatron-Bridge skills/perf-expert-parallel-overlap/SKILL.md @750d0d32 (commit 'Record
  MoE overlap smoke results', 2026-05-18), section 'Measured Short-Run Evidence', lines 125-140 (the same figures in
  docs/training/communication-overlap.md at that commit, lines 74-79): Qwen3 30B-A3B mock pretraining on 16 H100,
  EP=16, the alltoall dispatcher, BF16, global batch 1,024, CUDA graphs disabled, moe_permute_fusion=false, steady
  mean over iterations 3-8: no EP overlap 41.25 s, EP overlap 31.31 s, EP overlap plus delay_wgrad_compute 31.20 s.
  The command (lines 148-166): scripts/performance/run_script.py -m qwen -mr qwen3_30b_a3b --task pretrain -g h100 -c
  bf16 -ng 16 -gn 8 --config_variant v1 --cuda_graph_impl none --moe_flex_dispatcher_backend None --moe_a2a_overlap
  false, varying comm_overlap.overlap_moe_expert_parallel_comm and comm_overlap.delay_wgrad_compute. The rest is the
  harness at that commit: scripts/performance/configs/qwen/qwen3_workload_base_configs.py
  (QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_BF16_V1: 16 GPUs, global batch 1,024, EP 16, expert tensor parallelism 1, the
  defaults TP 1, PP 1, CP 1, micro-batch 1), scripts/performance/configs/qwen/qwen3_llm_pretrain.py
  (qwen3_30b_a3b_pretrain_config_h100 and set_qwen3_common_configs: no recomputation, sequence 4,096,
  grad_reduce_in_fp32 False, moe_router_force_load_balancing True) over src/megatron/bridge/recipes/qwen/qwen3_moe.py
  (qwen3_30b_a3b_pretrain_config: the distributed optimizer with fp32 main parameters and Adam moments,
  overlap_grad_reduce and overlap_param_gather on, grouped GEMMs, Transformer Engine's fused cross entropy), and
  scripts/performance/utils/overrides.py (with no flex backend given, moe_token_dispatcher_type 'alltoall').
  Left out: the delay_wgrad_compute row. Delaying the experts' weight-gradient GEMMs reorders the overlapped
  schedule; the plan has no lever for it, so that row and the overlap-only row would be one prediction (a tie
  scored out of order against a 0.4% measured difference).
- BRIDGE_HYBRIDEP: NVIDIA-NeMo/Megatron-Bridge skills/nemo-mbridge-perf-expert-parallel-overlap/SKILL.md @067f987d
  (added in commit 7ded17da, 'overlap Qwen3 expert communication on H100', 2026-07-25), section 'HybridEP
  Production-Shape Benchmark', lines 92-126: Qwen3 30B-A3B pretraining on 16 H100, BF16, sequence 4,096, TP1 PP1 CP1
  EP16, MBS 1, GBS 1,024, force-balanced routing, the flex dispatcher with HybridEP, Transformer Engine CUDA graphs
  over moe_router and moe_preprocess, delayed wgrad disabled; 'the dispatcher, graph scopes, routing, parallelism,
  batch shape, and runtime were held fixed while only plain EP overlap changed'. Step time over iterations 5-20:
  overlap off 24.7138 s, overlap on 21.0725 s. The recipe is src/megatron/bridge/perf_recipes/qwen/h100/qwen3_moe.py
  @7ded17da (qwen3_30b_a3b_pretrain_16gpu_h100_bf16_config, which that commit changes only by turning the overlap
  on) over src/megatron/bridge/recipes/qwen/h100/qwen3_moe.py (qwen3_30b_a3b_pretrain_16gpu_h100_bf16_config: no
  recomputation, grad_reduce_in_fp32 False, the distributed optimizer with fp32 main parameters and Adam moments,
  moe_permute_fusion from qwen3_30b_a3b_pretrain_8gpu_h100_bf16_config) and perf_recipes/_common.py
  (_benchmark_common: HybridEP on 32 SMs). Left out: the 'independent validation' run of the overlap (20.9920 s over
  iterations 41-50: the same setting measured again), and the later canonical recipe (20.14729 s, commit d398aaca),
  which also retunes HybridEP's SM count and combine chunks, levers the plan does not take.
- BRIDGE_MEMORY: NVIDIA-NeMo/Megatron-Bridge skills/nemo-mbridge-perf-memory-tuning/SKILL.md @067f987d, section
  'Measured Results', lines 176-188 (measured in Megatron-Bridge PR #3107, 'validated_on 2026-04-06' in the skill's
  card.yaml): Llama 3 70B SFT on 32 H100 80GB, FP8 current scaling, sequence 4,096, MBS 1, GBS 32, in three layouts
  with their model TFLOP/s per GPU: TP4 PP4 VPP5 DP2 ~704 (the baseline; 'Baseline + expandable_segments' the same
  ~704), TP4 PP8 VPP5 DP1 668.0 and TP8 PP4 VPP5 DP1 508.7. The job is the performance harness's
  llama3_70b_sft_config_h100 @ebca8936 (scripts/performance/configs/llama/llama3_llm_finetune.py: packed SQuAD
  sequences of 4,096, tp_comm_overlap when TP > 1, defer_embedding_wgrad_compute; llama3_workload_base_configs.py
  LLAMA3_70B_SFT_CONFIG_H100_FP8_CS_V1: TP4 PP4 VP5, MBS 1, GBS 32, Transformer Engine CUDA graphs over the MLP;
  set_llama3_common_peft_configs: the distributed optimizer, grad_reduce_in_fp32 False; utils/precision.py fp8_cs:
  bf16_with_fp8_current_scaling_mixed with first_last_layers_bf16 False and fp8_param_gather) over
  src/megatron/bridge/recipes/llama/llama3.py llama3_70b_sft_config (overlap_grad_reduce and overlap_param_gather
  off, TE's fused cross entropy). TFLOP/s are Bridge's model FLOPs (src/megatron/bridge/training/utils/flop_utils.py
  @ebca8936, transformer_flops, corpus.bridge_flops_per_token): 32 sequences of 4,096 a step by the dense formula
  (its packed-SQuAD averages, line 268, apply to LoRA only), 433.13 GFLOPs a token at TP4 and 433.15 at TP8 (the
  vocabulary padded to 128 x TP: 128,512 and 129,024 entries), so the printed order is the throughput order. Left
  out: the same PR's recomputation rows (skills/nemo-mbridge-perf-activation-recompute/SKILL.md lines 211-219: mlp,
  mlp + core_attn, core_attn + layernorm), levers the plan does not take.
- TORCHAO_NOCOMPILE: pytorch/ao torchao/prototype/float8nocompile/README.md @36027d82 (last changed d99785c0),
  section 'Performance Comparison of Different Configurations on 8 H100s': Llama 3 8B at 4,096 tokens on 8 H100
  under torchtitan's experimental integration (pytorch/torchtitan PR #778, commits a4a1f748-8b297983, January 2025),
  eager, 'No AC' (lines 39-45) and 'Full AC' (lines 59-65): bfloat16 eager 5,339.0 and 4,502.0 tokens/s, the
  float8nocompile prototype (torchao's Float8Linear math with handwritten Triton casts, dynamic tensorwise scaling
  of every matmul's operands, forward and backward) 5,871.4 and 4,773.4. The rest is the integration at
  8b297983: train_configs/llama3_8b.toml (batch_size 1, FSDP over every rank: data_parallel_shard_degree -1,
  compile false) and torchtitan/float8.py (the prototype converts every linear layer but the output, and under full
  AC recomputes its casts in the backward: no_precompute_for_backward). Scored as two pairs, AC none against full at
  one precision each. Left out: the pairs across precisions (the prototype's eager casts and its gather of weights,
  in bf16 unless --float8.enable_fsdp_float8_all_gather was given, which the page does not say, are not the torchao
  recipe the plan prices: compiled casts and FP8 gathers; priced as that recipe, bf16 without AC and float8 with
  full AC come out level, 8,825 and 8,861 tokens/s, measured 5,339.0 and 4,773.4), the per-layer AC rows (every
  second layer checkpointed, not a plan lever) and the 'float8 + torch.compile' rows (compilation is not a lever).

The first two groups are the same job on the same 16 H100 two months apart: other containers, another dispatcher
(alltoall against HybridEP), permutation fusion off against on, CUDA graphs off against on. They are scored apart;
only the overlap changes inside each.

Searched without a further H100 group this time: the Megatron-MoE-ModelZoo's DeepSeek-V3 and Mixtral pages (no H100
table of several layouts), Megatron-Bridge's performance summaries (one H100 row a model a release; rows of one job
across releases differ in software), its other skills' H100 tables (Moonlight 16B and Llama 3 70B recomputation
modules: mla_up_proj, moe_act, mlp and layernorm recomputation are not plan levers, core_attn under fused attention
is planned as recomputing nothing, and no preset is Moonlight; a 2026-05-17 alltoall smoke of the Qwen3-30B-A3B job,
45.65 s, differs from the 41.25 s row in CUDA graphs over the router, not a plan lever), NeMo's and NeMo Automodel's
performance pages (one row a job; the Llama 3 70B AsyncTP row replaces the earlier row), torchtitan's benchmarks
(all H100 tables already used; its 2024 A100 tables compare torchtitan's layer- and op-level checkpointing, which
the plan cannot express) and llm-foundry's tables (each H100 job once per precision).
"""

from bench.calibration.corpus import FLASH_ATTENTION_2, Metric, Run
from bench.calibration.layout_groups import Group

BRIDGE_A2A = "NVIDIA-NeMo/Megatron-Bridge skills/perf-expert-parallel-overlap/SKILL.md @750d0d32"
BRIDGE_HYBRIDEP = "NVIDIA-NeMo/Megatron-Bridge skills/nemo-mbridge-perf-expert-parallel-overlap/SKILL.md @067f987d"

QWEN3_30B_UNPUBLISHED = (
    "the container's Megatron-Core and Transformer Engine kernels",
    "the hosts' network (two DGX-class H100 nodes assumed)",
)
QWEN3_30B_ASSUMED: dict[str, object] = {
    "links": "nvlink4_ib400: two nodes of 8 H100 (-gn 8), 400 Gb/s per GPU as on a DGX H100 (not printed)",
    "precision": "mixed_bf16_adam: bf16 parameters and gradients (grad_reduce_in_fp32 False: the main-gradient buffer "
    "and its reduction in bf16), fp32 master weights and Adam moments (main_params_dtype, exp_avg_dtype float32)",
    "arrangement": "zero1: the distributed optimizer (use_distributed_optimizer True)",
    "layout": "TP1 PP1 CP1 EP16, expert tensor parallelism 1: 16 data-parallel ranks, one expert-data-parallel rank",
    "micro_batches": "64 a step: global batch 1,024 over 16 ranks at micro-batch 1",
    "recompute": "none: set_qwen3_common_configs and the 16-GPU recipe clear recompute_granularity",
    "routing": "balanced: moe_router_force_load_balancing True",
    "overlaps": "overlap_grad_reduce and overlap_param_gather on (the recipe's DDP config)",
    "attention_backend": "Transformer Engine's choice (the request's default)",
    "not_planned": "Transformer Engine's fused cross entropy, RoPE and router fusions, manual garbage collection: "
    "both rows of a group alike",
}


def qwen3_30b_16_h100(
    label: str,
    source: str,
    where: str,
    step_s: float,
    *,
    ep_overlap: bool,
    dispatcher: str,
    permute_fusion: bool,
    assumed: dict[str, object],
) -> Run:
    """Qwen3 30B-A3B on 16 H100, Megatron-Bridge's performance shape: TP1 PP1 EP16, sequence 4,096, MBS 1, GBS 1,024,
    the step time as printed."""
    levers: dict[str, object] = {
        "moe_token_dispatcher": dispatcher,
        "moe_permute_fusion": permute_fusion,
        "overlap_grad_reduce": True,
        "overlap_param_gather": True,
        "overlap_moe_expert_parallel_comm": ep_overlap,
    }
    return Run(
        name=label,
        source=source,
        where=where,
        gpu="h100-80gb",
        world_size=16,
        model={"preset": "qwen3-30b-a3b"},
        sequence_length=4096,
        global_batch_size=1024,
        micro_batch_size=1,
        arrangement="zero1",
        recompute="none",
        metric=Metric.step_s,
        measured=step_s,
        expert=16,
        parallelism={"expert_tensor": 1},
        levers=levers,
        precision="mixed_bf16_adam",
        unpublished=QWEN3_30B_UNPUBLISHED,
        assumed=QWEN3_30B_ASSUMED | assumed,
    )


A2A_ASSUMED: dict[str, object] = {
    "moe_token_dispatcher": "alltoall: --moe_flex_dispatcher_backend None, so overrides.py sets 'alltoall'",
    "moe_permute_fusion": "off: model.moe_permute_fusion=false (the container's fused permutation failed)",
    "cuda_graphs": "none: --cuda_graph_impl none, as the plan prices every step",
}
HYBRIDEP_ASSUMED: dict[str, object] = {
    "moe_token_dispatcher": "deepep: the flex dispatcher with HybridEP, which the plan does not name; DeepEP is the "
    "flex dispatcher it prices (one row per token and destination rank, then a permutation to the local experts)",
    "moe_permute_fusion": "on: qwen3_30b_a3b_pretrain_8gpu_h100_bf16_config sets moe_permute_fusion True",
    "not_planned_graphs": "Transformer Engine CUDA graphs over moe_router and moe_preprocess, HybridEP on 32 SMs: "
    "both rows alike",
}

QWEN3_30B_A2A = (
    qwen3_30b_16_h100(
        "EP16 alltoall",
        BRIDGE_A2A,
        "section 'Measured Short-Run Evidence', line 133 (no EP overlap)",
        41.25,
        ep_overlap=False,
        dispatcher="alltoall",
        permute_fusion=False,
        assumed=A2A_ASSUMED,
    ),
    qwen3_30b_16_h100(
        "EP16 alltoall EP overlap",
        BRIDGE_A2A,
        "section 'Measured Short-Run Evidence', line 134 (EP overlap)",
        31.31,
        ep_overlap=True,
        dispatcher="alltoall",
        permute_fusion=False,
        assumed=A2A_ASSUMED
        | {"overlap_moe_expert_parallel_comm": "comm_overlap.overlap_moe_expert_parallel_comm=true, delay_wgrad false"},
    ),
)
QWEN3_30B_HYBRIDEP = (
    qwen3_30b_16_h100(
        "EP16 HybridEP",
        BRIDGE_HYBRIDEP,
        "section 'HybridEP Production-Shape Benchmark', line 111 (overlap off)",
        24.7138,
        ep_overlap=False,
        dispatcher="deepep",
        permute_fusion=True,
        assumed=HYBRIDEP_ASSUMED,
    ),
    qwen3_30b_16_h100(
        "EP16 HybridEP EP overlap",
        BRIDGE_HYBRIDEP,
        "section 'HybridEP Production-Shape Benchmark', line 112 (overlap on, search run)",
        21.0725,
        ep_overlap=True,
        dispatcher="deepep",
        permute_fusion=True,
        assumed=HYBRIDEP_ASSUMED
        | {"overlap_moe_expert_parallel_comm": "cfg.comm_overlap.overlap_moe_expert_parallel_comm = True (7ded17da)"},
    ),
)

BRIDGE_MEMORY = "NVIDIA-NeMo/Megatron-Bridge skills/nemo-mbridge-perf-memory-tuning/SKILL.md @067f987d"
LLAMA3_70B_SFT_UNPUBLISHED = (
    "the commands of the TP8 and PP8 rows (only the degrees are printed)",
    "the hosts' network",
)
LLAMA3_70B_SFT_ASSUMED: dict[str, object] = {
    "flops": "Bridge's count of a full SFT step (flop_utils.py transformer_flops at seq_length 4,096, the vocabulary "
    "padded to 128 x TP): the printed TFLOP/s over it are the tokens/s",
    "sequences": "4,096-token packed SQuAD sequences planned as 4,096-token sequences (the plan's attention is one "
    "causal sequence, where packing attends within each document): the same in the three rows",
    "links": "nvlink4_ib400: four nodes of 8 H100 80GB (not printed)",
    "precision": "mixed_bf16_adam: bf16 parameters and gradients (grad_reduce_in_fp32 False), fp32 master weights "
    "and Adam moments; fp8 transformer_engine_current_scaling: per-tensor current scaling ('tensorwise', hybrid), "
    "every layer in FP8",
    "arrangement": "zero1: the distributed optimizer (set_llama3_common_peft_configs)",
    "overlaps": "overlap_grad_reduce and overlap_param_gather off (llama3_70b_sft_config); tp_comm_overlap on (TP > 1) "
    "with sequence parallelism (set_workload_base_configs: sequence_parallel = TP > 1)",
    "recompute": "selective: the PR's baseline recomputed core_attn (activation-recompute SKILL.md line 215), which "
    "the plan prices as nothing recomputed under fused attention; the harness's recipe sets none: the same time",
    "pipeline": "interleaved, 5 virtual stages, 80 layers evenly: 4 a chunk at PP4, 2 at PP8",
    "other_rows": "the TP8 and PP8 rows change the degrees alone (the table's columns), CUDA graphs and overlaps kept",
    "not_planned": "Transformer Engine CUDA graphs over the MLP, the deferred embedding wgrad, TE's fused cross "
    "entropy: the three rows alike",
}


def llama3_70b_sft(tensor: int, pipeline: int, line: int, tflops: float) -> Run:
    """A row of the memory-tuning table: Llama 3 70B SFT on 32 H100, FP8 current scaling, 1 x 4,096 a micro-batch,
    32 sequences a step, 5 virtual stages."""
    return Run(
        name=f"Llama 3 70B TP{tensor} PP{pipeline} VP5 DP{32 // (tensor * pipeline)}",
        source=BRIDGE_MEMORY,
        where=f"section 'Measured Results', line {line}",
        gpu="h100-80gb",
        world_size=32,
        model={"preset": "llama-3-70b"},
        sequence_length=4096,
        global_batch_size=32,
        micro_batch_size=1,
        arrangement="zero1",
        recompute="selective",
        metric=Metric.bridge_tflops_per_gpu,
        measured=tflops,
        tensor=tensor,
        pipeline=pipeline,
        sequence_parallel=True,
        parallelism={"pipeline_schedule": "interleaved", "virtual_stages": 5},
        levers={
            "fp8": "transformer_engine_current_scaling",
            "fp8_param_gather": True,
            "tp_comm_overlap": True,
            "overlap_grad_reduce": False,
            "overlap_param_gather": False,
        },
        precision="mixed_bf16_adam",
        unpublished=LLAMA3_70B_SFT_UNPUBLISHED,
        assumed=LLAMA3_70B_SFT_ASSUMED,
    )


LLAMA3_70B_SFT_LAYOUTS = (
    llama3_70b_sft(4, 4, 185, 704),
    llama3_70b_sft(4, 8, 186, 668.0),
    llama3_70b_sft(8, 4, 187, 508.7),
)

TORCHAO_NOCOMPILE = "pytorch/ao torchao/prototype/float8nocompile/README.md @36027d82"
NOCOMPILE_UNPUBLISHED = (
    "the batch size (the integration's train config has batch_size 1)",
    "the H100 variant (torchtitan's own runs use 96 GB HBM2e H100s at 500 W)",
    "whether the prototype's weights were gathered in FP8",
)
NOCOMPILE_ASSUMED: dict[str, object] = {
    "model": "llama-3-8b: torchtitan's llama3 8B (32 layers, hidden 4,096, 8 KV heads, vocabulary 128,256)",
    "batch": "1 sequence of 4,096 a GPU, 8 a step: train_configs/llama3_8b.toml batch_size 1 (torchtitan 8b297983), "
    "seq_len overridden to 4,096 as the page's headings say",
    "gpu": "h100-80gb: the SXM preset (not printed)",
    "arrangement": "full_shard: FSDP2 over the 8 GPUs (data_parallel_shard_degree -1)",
    "precision": "fsdp2: bf16 parameters and gradients under FSDP2's mixed precision, fp32 master and optimizer",
    "recompute": "none ('No AC') or full ('Full AC': activation_checkpoint.mode full)",
    "attention_backend": "flash_attention_2: torchtitan's scaled_dot_product_attention",
    "not_planned": "eager mode (compile false): both rows of a pair alike",
}


def nocompile_row(fp8: bool, full_ac: bool, line: int, tokens_per_s_per_gpu: float) -> Run:
    """One row of the float8nocompile page: Llama 3 8B, FSDP2 on 8 H100, 1 x 4,096 tokens a GPU, eager."""
    levers: dict[str, object] = dict(FLASH_ATTENTION_2)
    assumed = dict(NOCOMPILE_ASSUMED)
    if fp8:
        levers["fp8"] = "torchao"
        assumed["fp8"] = (
            "torchao: dynamic tensorwise scaling of every linear layer but the output, as torchao's float8 recipe; "
            "the plan's recipe gathers weights in FP8 and casts at compiled speed, the prototype casts eagerly: both "
            "rows of the pair alike"
        )
    return Run(
        name=f"8B FSDP8 {'float8nocompile' if fp8 else 'bf16'} {'full AC' if full_ac else 'no AC'}",
        source=TORCHAO_NOCOMPILE,
        where=f"section '{'Full AC' if full_ac else 'No AC'} (seq len 4096) - 8 H100s', line {line}",
        gpu="h100-80gb",
        world_size=8,
        model={"preset": "llama-3-8b"},
        sequence_length=4096,
        global_batch_size=8,
        micro_batch_size=1,
        arrangement="full_shard",
        recompute="full" if full_ac else "none",
        metric=Metric.tokens_per_s_per_gpu,
        measured=tokens_per_s_per_gpu,
        levers=levers,
        precision="fsdp2",
        unpublished=NOCOMPILE_UNPUBLISHED,
        assumed=assumed,
    )


GROUPS: list[Group] = [
    Group(
        "Qwen3-30B-A3B, 16 H100, batch 1024 x 4096, Megatron-Bridge EP16 alltoall: EP overlap",
        BRIDGE_A2A,
        "section 'Measured Short-Run Evidence', lines 133 and 134",
        QWEN3_30B_A2A,
    ),
    Group(
        "Qwen3-30B-A3B, 16 H100, batch 1024 x 4096, Megatron-Bridge EP16 HybridEP: EP overlap",
        BRIDGE_HYBRIDEP,
        "section 'HybridEP Production-Shape Benchmark', lines 111 and 112",
        QWEN3_30B_HYBRIDEP,
    ),
    Group(
        "Llama 3 70B SFT, 32 H100, batch 32 x 4096, Megatron-Bridge FP8-CS: TP4 PP4, TP4 PP8 or TP8 PP4",
        BRIDGE_MEMORY,
        "section 'Measured Results', lines 185-187",
        LLAMA3_70B_SFT_LAYOUTS,
    ),
    Group(
        "Llama 3 8B, 8 H100, batch 8 x 4096, torchtitan eager FSDP2 bf16: AC none or full",
        TORCHAO_NOCOMPILE,
        "lines 43 and 63",
        (nocompile_row(False, False, 43, 5339.0), nocompile_row(False, True, 63, 4502.0)),
    ),
    Group(
        "Llama 3 8B, 8 H100, batch 8 x 4096, torchtitan eager FSDP2 float8nocompile: AC none or full",
        TORCHAO_NOCOMPILE,
        "lines 44 and 64",
        (nocompile_row(True, False, 44, 5871.4), nocompile_row(True, True, 64, 4773.4)),
    ),
]


if __name__ == "__main__":
    from bench.calibration.layout_groups_more import print_terms

    print_terms(GROUPS)
