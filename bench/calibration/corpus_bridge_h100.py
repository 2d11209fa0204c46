"""Megatron-Bridge's published DGX-H100 pre-training runs of the dense Llama jobs whose B200 runs the corpus fits:
held out and never fitted, printed beside the plan's prediction.

    python -m bench.calibration.corpus_bridge_h100

- NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md @067f987d, section '25.11 NeMo Container',
  'Pre-Training Performance', 'System: DGX-H100': line 590, LLAMA3_70B, 64 GPUs, FP8-CS, GBS 128, MBS 1, sequence
  8,192, TP4 PP8 CP1 VP5, 1,602 tokens/s/GPU; line 591, LLAMA3.1_405B, 1,024 GPUs, FP8-CS, GBS 512, MBS 1, TP8 PP8
  CP2 VP8, 292 tokens/s/GPU.
- The recipes are the performance harness at @97ad8cc6, as for the B200 rows (bench.calibration.corpus_b200):
  scripts/performance/configs/llama/llama3_llm_pretrain.py llama3_70b_pretrain_config_h100 and
  llama31_llm_pretrain.py llama31_405b_pretrain_config_h100 over their workload base configs
  (LLAMA3_70B_PRETRAIN_CONFIG_H100_FP8_CS_BASE_CONFIG, LLAMA31_405B_PRETRAIN_CONFIG_H100_FP8_CS_BASE_CONFIG), the
  same common configs, precision (FP8 current scaling with fp8_param_gather) and overlaps as the B200 runs,
  Transformer Engine's userbuffers tensor-parallel overlap; only the 405B's recipe accounts the embedding and the
  loss in the pipeline split (src/megatron/bridge/recipes/llama/llama3.py).

Left out: the same table's LLAMA3_8B row (Megatron-FSDP, whose FP8 parameter handling differs from the distributed
optimizer's), and its MoE rows (their host time is not priced: docs/moe-host-overhead.md).

They sit outside bench.calibration's CORPUS, so no split and no fit reads them. The 405B is predicted within a few
percent; the 70B too slow by about a fifth, a miss the plan does not explain: its compute alone is priced above the
measured step (the attention at 8,192 tokens and the FP8 GEMMs at TP4), where the same recipe family's B200 runs and
the 405B's H100 run, at shorter local sequences (context parallelism) or wider tensor parallelism, are met.
"""

from dataclasses import replace

from bench.calibration.corpus import Run
from bench.calibration.corpus_b200 import BRIDGE_B200, bridge_b200
from bench.calibration.model import measured_tokens_per_s_per_gpu, predicted_tokens_per_s_per_gpu

H100_ASSUMED: dict[str, object] = {
    "gpu": "h100-80gb: DGX-H100 (H100 SXM peaks)",
    "links": "nvlink4_ib400 (the generation's default): NVLink 4, 8 x 400 Gb/s ConnectX-7, one a GPU (DGX H100)",
}


def bridge_h100(
    label: str,
    line: int,
    preset: str,
    gpus: int,
    global_batch: int,
    tensor: int,
    pipeline: int,
    context: int,
    virtual: int,
    tokens_per_s_per_gpu: float,
) -> Run:
    """An FP8-CS row of the 25.11 DGX-H100 table: the B200 rows' recipe (corpus_b200.bridge_b200) on DGX-H100."""
    run = bridge_b200(
        label, line, preset, gpus, global_batch, 1, tensor, pipeline, context, virtual, False, tokens_per_s_per_gpu
    )
    parallelism = dict(run.parallelism)
    if preset != "llama-3.1-405b":  # only llama31_405b_pretrain_config accounts the embedding and the loss
        parallelism.pop("pipeline_embedding_layers", None)
        parallelism.pop("pipeline_loss_layers", None)
    assumed = {k: v for k, v in run.assumed.items() if k != "pipeline_layers" or preset == "llama-3.1-405b"}
    assumed["tp_comm_overlap"] = (
        "on: the H100 recipe's userbuffers config (userbuffers_fp8_h100_h8192_tp4_mbs1_seqlen8192 for the 70B, "
        "userbuffers_fp8_h100_h16384_tp8_cp2_mbs1_seqlen8192 for the 405B)"
    )
    assumed["overlap_param_gather"] = "on (_llama3_common)"
    assumed["not_planned"] = (
        "Transformer Engine's fused cross entropy and RoPE fusion, manual garbage collection: no plan lever"
    )
    return replace(
        run,
        where=f"section '25.11 NeMo Container', 'System: DGX-H100', line {line} (FP8-CS)",
        gpu="h100-80gb",
        cluster={},
        parallelism=parallelism,
        assumed=assumed | H100_ASSUMED,
    )


BRIDGE_H100_HELD_OUT: list[Run] = [
    bridge_h100("Llama 3 70B TP4 PP8 VP5 H100", 590, "llama-3-70b", 64, 128, 4, 8, 1, 5, 1602),
    bridge_h100("Llama 3.1 405B TP8 PP8 CP2 VP8 H100", 591, "llama-3.1-405b", 1024, 512, 8, 8, 2, 8, 292),
]


def main() -> None:
    print(f"Held out, never fitted ({BRIDGE_B200}, 'System: DGX-H100'):")
    for run in BRIDGE_H100_HELD_OUT:
        measured, predicted = measured_tokens_per_s_per_gpu(run), predicted_tokens_per_s_per_gpu(run)
        print(f"{run.name:40s} {measured:8.0f} {predicted:8.0f} {100 * (predicted / measured - 1):+7.1f}%")


if __name__ == "__main__":
    main()
