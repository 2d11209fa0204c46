"""The corpus's Blackwell rows: Megatron-Bridge's published DGX-B200 pre-training runs whose every input can be stated.

- BRIDGE_B200: NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md @067f987d, section '25.11 NeMo
  Container', 'Pre-Training Performance', 'System: DGX-B200', lines 578 and 579 (bench.calibration.
  layout_groups_zoo gives the recipes, the transcription checks and every assumption): Llama 3 8B on 8 B200 and
  Llama 3.1 405B on 128 B200, each with FP8 current scaling and with MXFP8 (the figure in parentheses), four runs.
  In corpus order the FP8-CS runs are fitted and the MXFP8 runs held out.
- B200_MOE_HELD_OUT, held out and never fitted (outside bench.calibration's CORPUS, so its alternate split and
  the Blackwell fit are the Llama rows' alone): the same section's lines 582 and 583, Qwen3 30B-A3B on 8 B200 (EP8)
  and Qwen3 235B-A22B on 64 (PP8 VP2 EP8), MXFP8, force-balanced, token-dropless, the recipes at @97ad8cc6 (below,
  with B200_MOE_HELD_OUT). Both are predicted far too fast (+247.2% and +114.0%): the measured step less the
  predicted is 6.5 and 7.0 ms per MoE layer pass of the paced stage, the per-layer-pass cost the plan does not
  price (docs/moe-host-overhead.md); the 30B's recipe CUDA-graphs the router and preprocessing alone.

Left out, and why:
- The 25.09 DGX-B200 table (performance-summary.md @fa0315ae2, the same two Llama jobs, 29,994 (29,388) and 664
  (622)): it prints no precision, and its recipes take the precision on the command line (scripts/performance/
  argument_parser.py @fa0315ae2: --compute_dtype bf16 or fp8, --fp8_recipe defaulting to ds, delayed scaling).
- The 25.11 B200 table's DeepSeek-V3 row (runs multi-token prediction, which the plan does not price) and the MoE
  rows of 25.09 (marked 'tokendrop': token-dropping routing, its capacity not printed) and of 26.02 to 26.06.01
  (not yet stated row by row; the recipes move between releases: Qwen3-30B-A3B on 8 B200, 9,691 tokens/s/GPU
  in 26.02 at MBS 1, 26,695 in 26.02.01 at MBS 4). Llama 3 70B and Mixtral have no DGX-B200 row in 25.11.
  GPT-OSS 120B (bf16) and the Nemotron models have no model preset.
- torchao's B200 table (pytorch/ao docs/source/workflows/training.md @36027d82): power-limited cards, the limit not
  given; it stays an ordering group (bench.calibration.layout_groups_zoo).
- GB200 and GB300 rows: no card preset (a 1,200 W B200 in a 72-GPU NVLink domain).
"""

from bench.calibration.corpus import Metric, Run

BRIDGE_B200 = "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md @067f987d"

# DGX B200: NVLink 5 at 1.8 TB/s both directions (900 GB/s a direction) and 8 x 400 Gb/s ConnectX-7, one a GPU:
# 400 Gb/s = 50 GB/s a GPU (the b200 preset's own datasheet figures; the generation's link preset assumes 800 Gb/s)
DGX_B200_LINKS: dict[str, object] = {"link_spec": {"intra_node_bytes_per_s": 900e9, "inter_node_bytes_per_s": 50e9}}

BRIDGE_UNPUBLISHED = ("the exact Megatron-Core and Transformer Engine kernels of the 25.11 container",)
BRIDGE_ASSUMED: dict[str, object] = {
    "gpu": "b200: DGX-B200 (HGX B200 peaks)",
    "links": "link_spec: NVLink 5 900 GB/s a direction, 8 x 400 Gb/s ConnectX-7 (DGX B200)",
    "arrangement": "zero1: the distributed optimizer (distributed_fused_adam_with_cosine_annealing)",
    "precision": "mixed_bf16_adam: bf16 parameters and gradients (grad_reduce_in_fp32 False: the main-gradient "
    "buffer and its reduction in bf16), fp32 master weights and Adam moments",
    "recompute": "none: no recomputation in _llama3_common nor in the B200 workload configs",
    "overlap_grad_reduce": "on (_llama3_common's DistributedDataParallelConfig)",
    "attention_backend": "Transformer Engine's choice (the request's default)",
    "not_planned": "CUDA graphs of the whole iteration (the 8B's cuda_graph_scope full_iteration), Transformer "
    "Engine's fused cross entropy and RoPE fusion, manual garbage collection: no plan lever; both runs of a pair "
    "alike",
}
FP8_CS_ASSUMED = (
    "transformer_engine_current_scaling: bf16_with_fp8_current_scaling_mixed, per-tensor current scaling "
    "('tensorwise', format hybrid), fp8_param_gather; first_last_layers_bf16 False (utils/precision.py), so every "
    "layer in FP8"
)
FP8_MX_ASSUMED = (
    "mxfp8 with fp8_weights: bf16_with_mxfp8_mixed (recipe 'mxfp8', format e4m3), fp8_param_gather: MXFP8 weight "
    "copies and parameter all-gathers in 8 bits, bf16/fp32 state unchanged"
)


def bridge_b200(
    label: str,
    line: int,
    preset: str,
    gpus: int,
    global_batch: int,
    micro_batch: int,
    tensor: int,
    pipeline: int,
    context: int,
    virtual: int,
    mxfp8: bool,
    tokens_per_s_per_gpu: float,
) -> Run:
    """One run of a DGX-B200 row of Megatron-Bridge's 25.11 table: FP8-CS, or FP8-MX (the figure in parentheses)."""
    levers: dict[str, object] = {"overlap_grad_reduce": True}
    assumed = dict(BRIDGE_ASSUMED)
    if mxfp8:
        levers |= {"mxfp8": True, "mxfp8_recipe": "fp8_weights"}
        assumed["mxfp8"] = FP8_MX_ASSUMED
    else:
        levers |= {"fp8": "transformer_engine_current_scaling", "fp8_param_gather": True}
        assumed["fp8"] = FP8_CS_ASSUMED
    # llama31_405b_pretrain_config_b200 turns overlap_param_gather off for fp8_mx only; the 8B keeps _llama3_common's on
    param_gather = not (mxfp8 and preset == "llama-3.1-405b")
    levers["overlap_param_gather"] = param_gather
    assumed["overlap_param_gather"] = (
        "on (_llama3_common)" if param_gather else "off: llama31_405b_pretrain_config_b200 turns it off for fp8_mx"
    )
    parallelism: dict[str, object] = {}
    if tensor > 1:
        # CommOverlapConfig(tp_comm_overlap=True) with userbuffers_fp8_b200_h16384_tp4_cp2_mbs1_seqlen8192
        levers["tp_comm_overlap"] = True
        assumed["tp_comm_overlap"] = "on: the 405B's userbuffers config (llama31_405b_pretrain_config_b200)"
    if pipeline > 1:
        parallelism |= {
            "pipeline_schedule": "interleaved",
            "virtual_stages": virtual,
            "pipeline_embedding_layers": 1,
            "pipeline_loss_layers": 1,
        }
        assumed["pipeline_layers"] = (
            "account_for_embedding_in_pipeline_split and account_for_loss_in_pipeline_split (llama31_405b_pretrain_"
            "config): 126 layers + 2 over 8 x 8 chunks, 2 a chunk"
        )
    if context > 1:
        assumed["context_attention"] = "ring: Megatron-Core's default cp_comm_type p2p (the recipe sets none)"
    return Run(
        name=f"{label} {'MXFP8' if mxfp8 else 'FP8-CS'}",
        source=BRIDGE_B200,
        where=f"section '25.11 NeMo Container', 'System: DGX-B200', line {line} "
        f"({'FP8-MX, the figure in parentheses' if mxfp8 else 'FP8-CS'})",
        gpu="b200",
        world_size=gpus,
        model={"preset": preset},
        sequence_length=8192,
        global_batch_size=global_batch,
        micro_batch_size=micro_batch,
        arrangement="zero1",
        recompute="none",
        metric=Metric.tokens_per_s_per_gpu,
        measured=tokens_per_s_per_gpu,
        tensor=tensor,
        pipeline=pipeline,
        context=context,
        sequence_parallel=tensor > 1,
        parallelism=parallelism,
        levers=levers,
        precision="mixed_bf16_adam",
        unpublished=BRIDGE_UNPUBLISHED,
        assumed=assumed,
        cluster=DGX_B200_LINKS,
    )


# Line 578: LLAMA3_8B, 8 GPUs, GBS 128, MBS 2, TP1 PP1 CP1, 30,624 (29,521); line 579: LLAMA3.1_405B, 128 GPUs, GBS
# 64, MBS 1, TP4 PP8 CP2 VP8, 661 (624) tokens/s/GPU
B200_RUNS: list[Run] = [
    bridge_b200("Llama 3 8B TP1", 578, "llama-3-8b", 8, 128, 2, 1, 1, 1, 1, False, 30624),
    bridge_b200("Llama 3 8B TP1", 578, "llama-3-8b", 8, 128, 2, 1, 1, 1, 1, True, 29521),
    bridge_b200("Llama 3.1 405B TP4 PP8 CP2 VP8", 579, "llama-3.1-405b", 128, 64, 1, 4, 8, 2, 8, False, 661),
    bridge_b200("Llama 3.1 405B TP4 PP8 CP2 VP8", 579, "llama-3.1-405b", 128, 64, 1, 4, 8, 2, 8, True, 624),
]


# The held-out MoE rows: the same table's Qwen3 jobs (lines 582 and 583), never fitted. The recipes are Megatron-
# Bridge's performance harness at @97ad8cc6 ('Added 25.11 starter pack'), where the Llama rows' recipes are read:
# scripts/performance/configs/qwen/qwen3_workload_base_configs.py (QWEN3_30B_A3B_PRETRAIN_CONFIG_B200_FP8_MX_BASE_CONFIG
# and QWEN3_235B_A22B_PRETRAIN_CONFIG_B200_FP8_MX_BASE_CONFIG), scripts/performance/configs/qwen/qwen3_llm_pretrain.py
# (qwen3_*_pretrain_config_b200 and set_qwen3_common_configs), src/megatron/bridge/recipes/qwen/qwen3_moe.py
# (_qwen3_moe_common) and src/megatron/bridge/models/qwen/qwen_provider.py (Qwen3MoEModelProvider).
QWEN3_B200_UNPUBLISHED = BRIDGE_UNPUBLISHED + (
    "the host (CPU) time of the eager MoE layers outside the CUDA-graphed router and preprocessing",
)
QWEN3_B200_ASSUMED: dict[str, object] = {
    "gpu": BRIDGE_ASSUMED["gpu"],
    "links": BRIDGE_ASSUMED["links"],
    "arrangement": "zero1: the distributed optimizer (_qwen3_moe_common: use_distributed_optimizer True)",
    "precision": "mixed_bf16_adam: bf16 parameters and gradients (set_qwen3_common_configs: grad_reduce_in_fp32 "
    "False), fp32 master weights and Adam moments",
    "recompute": "none: set_qwen3_common_configs clears recompute_granularity (the 30B recipe's full recompute off)",
    "overlap_grad_reduce": "on (_qwen3_moe_common's DistributedDataParallelConfig)",
    "moe_token_dispatcher": "alltoall: no moe_flex_dispatcher_backend in the B200 base configs, so "
    "Qwen3MoEModelProvider's moe_token_dispatcher_type 'alltoall'",
    "moe_permute_fusion": "on: Qwen3MoEModelProvider's moe_permute_fusion True",
    "routing": "force-balanced (moe_router_force_load_balancing True), token-dropless, as the table's note says",
    "mxfp8": FP8_MX_ASSUMED,
    "attention_backend": BRIDGE_ASSUMED["attention_backend"],
    "not_planned": "Transformer Engine's fused cross entropy and RoPE fusion, the router fusion, manual garbage "
    "collection: no plan lever",
}


def bridge_b200_qwen3(
    label: str,
    line: int,
    preset: str,
    gpus: int,
    global_batch: int,
    pipeline: int,
    virtual: int,
    expert: int,
    tokens_per_s_per_gpu: float,
) -> Run:
    """A Qwen3 MoE row of Megatron-Bridge's 25.11 DGX-B200 table (FP8-MX, MBS 1, sequence 4,096, TP1 CP1, expert
    tensor parallelism 1), held out: the Blackwell constants never see it."""
    levers: dict[str, object] = {
        "mxfp8": True,
        "mxfp8_recipe": "fp8_weights",
        "moe_token_dispatcher": "alltoall",
        "moe_permute_fusion": True,
        "overlap_grad_reduce": True,
    }
    assumed = dict(QWEN3_B200_ASSUMED)
    parallelism: dict[str, object] = {"expert_tensor": 1}
    if pipeline > 1:
        # the 235B: moe_a2a_overlap=True sets comm_overlap.overlap_moe_expert_parallel_comm (overrides.py); fp8_mx
        # turns overlap_param_gather off (qwen3_235b_a22b_pretrain_config_b200)
        levers |= {"overlap_moe_expert_parallel_comm": True, "overlap_param_gather": False}
        assumed["overlap_moe_expert_parallel_comm"] = (
            "on: the B200 base config's moe_a2a_overlap True (overrides.py _set_moe_a2a_overlap_overrides); its "
            "delay_wgrad_compute has no plan lever"
        )
        assumed["overlap_param_gather"] = "off: qwen3_235b_a22b_pretrain_config_b200 turns it off for fp8_mx"
        assumed["cuda_graphs"] = "none: the 235B's B200 base config names no cuda_graph_impl"
        parallelism |= {
            "pipeline_schedule": "interleaved",
            "virtual_stages": virtual,
            "pipeline_embedding_layers": 1,
            "pipeline_loss_layers": 1,
        }
        assumed["pipeline_layers"] = (
            "account_for_embedding_in_pipeline_split and account_for_loss_in_pipeline_split "
            "(qwen3_235b_a22b_pretrain_config): 94 layers + 2 over 8 x 2 chunks, 6 a chunk"
        )
        assumed["virtual_stages"] = (
            "2 as printed; the base config at @97ad8cc6 sets 4, so the run's recipe differs from that commit's"
        )
    else:
        levers["overlap_param_gather"] = True
        assumed["overlap_param_gather"] = "on (_qwen3_moe_common)"
        assumed["cuda_graphs"] = (
            "Transformer Engine CUDA graphs over moe_router and moe_preprocess alone (the 30B's B200 base config): "
            "no plan lever; the rest of each layer launches eagerly"
        )
    return Run(
        name=f"{label} MXFP8",
        source=BRIDGE_B200,
        where=f"section '25.11 NeMo Container', 'System: DGX-B200', line {line} (FP8-MX)",
        gpu="b200",
        world_size=gpus,
        model={"preset": preset},
        sequence_length=4096,
        global_batch_size=global_batch,
        micro_batch_size=1,
        arrangement="zero1",
        recompute="none",
        metric=Metric.tokens_per_s_per_gpu,
        measured=tokens_per_s_per_gpu,
        pipeline=pipeline,
        expert=expert,
        parallelism=parallelism,
        levers=levers,
        precision="mixed_bf16_adam",
        unpublished=QWEN3_B200_UNPUBLISHED,
        assumed=assumed,
        cluster=DGX_B200_LINKS,
    )


# Line 582: Qwen3_30B_a3B, 8 GPUs, FP8-MX, GBS 512, MBS 1, sequence 4096, TP1 PP1 CP1 VP1 EP8, GA 64, 9,299; line 583:
# Qwen3_235B_a22B, 64 GPUs, FP8-MX, GBS 1024, MBS 1, sequence 4096, TP1 PP8 CP1 VP2 EP8, GA 128, 3,269 tokens/s/GPU.
# Outside CORPUS, so the split and the Blackwell fit are the Llama rows' alone.
B200_MOE_HELD_OUT: list[Run] = [
    bridge_b200_qwen3("Qwen3 30B-A3B EP8", 582, "qwen3-30b-a3b", 8, 512, 1, 1, 8, 9299),
    bridge_b200_qwen3("Qwen3 235B-A22B PP8 VP2 EP8", 583, "qwen3-235b-a22b", 64, 1024, 8, 2, 8, 3269),
]


def held_out_report() -> None:
    """Each held-out B200 row under the committed constants, and the held-out median and max with and without the
    MoE rows (python -m bench.calibration.corpus_b200)."""
    import statistics

    from bench.calibration.__main__ import split
    from bench.calibration.model import relative_error

    _, held = split(B200_RUNS)
    errors = {run.name: relative_error(run) for run in held + B200_MOE_HELD_OUT}
    for name, error in errors.items():
        print(f"{name:48s} {100 * error:+7.1f}%")
    for label, rows in (("Llama MXFP8 rows", held), ("with the MoE rows", held + B200_MOE_HELD_OUT)):
        sizes = [abs(errors[run.name]) for run in rows]
        print(f"{label}: median |error| {100 * statistics.median(sizes):.1f}%, max {100 * max(sizes):.1f}%")


if __name__ == "__main__":
    held_out_report()
