"""Published H100 jobs measured with one lever changed: Megatron-Core mixture-of-experts steps on 16 H100.

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

The two groups are the same job on the same 16 H100 two months apart: other containers, another dispatcher
(alltoall against HybridEP), permutation fusion off against on, CUDA graphs off against on. They are scored apart;
only the overlap changes inside each.

Searched without a further H100 group this time: the Megatron-MoE-ModelZoo's DeepSeek-V3 and Mixtral pages (no H100
table of several layouts), Megatron-Bridge's performance summaries (one H100 row a model a release; rows of one job
across releases differ in software), its other skills' H100 tables (Moonlight 16B and Llama 3 70B recomputation
modules: mla_up_proj, moe_act, mlp and layernorm recomputation are not plan levers, and core_attn under fused
attention is planned as recomputing nothing), NeMo's and NeMo Automodel's performance pages (one row a job; the
Llama 3 70B AsyncTP row replaces the earlier row), torchtitan's benchmarks (all H100 tables already used; its 2024
A100 tables compare torchtitan's layer- and op-level checkpointing, which the plan cannot express) and llm-foundry's
tables (each H100 job once per precision).
"""

from bench.calibration.corpus import Metric, Run
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
]


if __name__ == "__main__":
    from bench.calibration.layout_groups_more import print_terms

    print_terms(GROUPS)
