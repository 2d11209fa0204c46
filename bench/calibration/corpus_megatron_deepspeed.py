"""Megatron-DeepSpeed's published A100 pre-training runs: held out and never fitted, printed beside the plan's
prediction.

    python -m bench.calibration.corpus_megatron_deepspeed

- BLOOM: BigScience Workshop (Le Scao et al.) 2022, "BLOOM: A 176B-Parameter Open-Access Multilingual Language
  Model" (arXiv 2211.05100), section 3.4 (Engineering): 48 nodes of 8 A100 80GB on Jean Zay, each node with four
  100 Gb/s Omni-Path links; Megatron-DeepSpeed with tensor parallelism 4, pipeline parallelism 12 and ZeRO stage 1
  over the 8 replicas, bfloat16; 156 teraFLOP/s per GPU in the fastest configuration. The model (section 3.2 and
  the released config.json of bigscience/bloom): 70 layers, hidden 14,336, 112 heads, GELU MLP of 4h, vocabulary
  250,880, tied embeddings, ALiBi (no position embeddings), sequence 2,048, global batch 2,048. The training
  script (bigscience-workshop/bigscience, train/tr11-176B-ml/tr11-176B-ml.slurm): MICRO_BATCH_SIZE 2,
  --checkpoint-activations, the 1F1B pipeline of DeepSpeed's engine.
- MT-NLG: Smith et al. 2022, "Using DeepSpeed and Megatron to Train Megatron-Turing NLG 530B" (arXiv 2201.11990),
  sections 2.3 and 2.4: DGX A100 80GB nodes of Selene (eight 200 Gb/s HDR InfiniBand NICs a node), tensor
  parallelism 8, pipeline parallelism 35, global batch 1,920 of 2,048 tokens; 280, 350 and 420 nodes took 60.1,
  50.2 and 44.4 s an iteration, 126, 121 and 113 teraFLOP/s per GPU. The model (section 3.1): 105 layers, hidden
  20,480, 128 heads, sequence 2,048, learned position embeddings, the GPT-2 vocabulary (51,200 as Megatron pads it).

Both count teraFLOP/s as Megatron-DeepSpeed's throughput calculator does, Narayanan et al. 2021's section 5.1:
96 B s l h^2 (1 + s / 6h + V / 16lh) per iteration with activation recomputation (Metric.narayanan_tflops_per_gpu).

They sit outside bench.calibration's CORPUS, so no split and no fit reads them. BLOOM, on its own Omni-Path links,
is predicted 8.4% slow (143 teraFLOP/s against 156), as the corpus's Megatron-LM A100 rows of 2021 are (-2% to
-10%). MT-NLG is predicted 23-29% fast: the plan prices it as Megatron-LM runs the same model on the same machine
(Narayanan et al.'s 530B row, t8 p35 on Selene, 163 teraFLOP/s, which the corpus fits within 3.2%), while MT-NLG's
2021 Megatron-DeepSpeed measured 113-126. Its step times at 280 and 350 nodes (240 and 192 micro-batches a replica)
give 0.206 s a micro-batch and 10.6 s a step beside them; the plan's, 0.179 s and 5.9 s: a cost of that engine's
pipeline the plan does not price, and no published configuration says which.
"""

from typing import Any

from bench.calibration.corpus import Metric, Run, measured_tokens_per_s_per_gpu
from bench.calibration.model import predicted_tokens_per_s_per_gpu

BLOOM_SOURCE = "Le Scao et al. 2022 (arXiv 2211.05100), section 3.4; bigscience tr11-176B-ml.slurm"
MT_NLG_SOURCE = "Smith et al. 2022 (arXiv 2201.11990), sections 2.3 and 2.4"

BLOOM_176B: dict[str, object] = {
    "layers": 70,
    "hidden_size": 14336,
    "attention_heads": 112,
    "ffn_hidden_size": 4 * 14336,
    "vocab_size": 250880,
    "mlp": "gelu",
    "linear_bias": True,
    "normalization": "layernorm",
    "tied_embeddings": True,
}
MT_NLG_530B: dict[str, object] = {
    "layers": 105,
    "hidden_size": 20480,
    "attention_heads": 128,
    "ffn_hidden_size": 4 * 20480,
    "vocab_size": 51200,
    "mlp": "gelu",
    "linear_bias": True,
    "normalization": "layernorm",
    "tied_embeddings": True,
    "position_embeddings": 2048,
}

MEGATRON_DEEPSPEED_UNPUBLISHED = ("overlap settings", "the data-parallel gradients' dtype")
MEGATRON_DEEPSPEED_ASSUMED: dict[str, object] = {
    "precision": "megatron: bf16 weights, fp32 gradients, master weights and Adam moments (DeepSpeed's bf16 "
    "optimizer accumulates and reduces gradients in fp32)",
    "pipeline_schedule": "1f1b: DeepSpeed's pipeline engine (deepspeed/runtime/pipe/schedule.py, TrainSchedule)",
    "flash_attention": "off: 2021-2022 Megatron-DeepSpeed, fused softmax",
}

# Jean Zay's A100 nodes: NVLink 3 inside (the A100 preset's), four 100 Gb/s Omni-Path links a node of 8 GPUs
JEAN_ZAY_LINKS: dict[str, object] = {
    "link_spec": {
        "intra_node_bytes_per_s": 300e9,
        "inter_node_bytes_per_s": 4 * 100e9 / 8 / 8,  # 400 Gb/s a node: 6.25 GB/s a GPU
        "host_bytes_per_s": 25e9,
    }
}


def megatron_deepspeed(name: str, tensor: int, pipeline: int, **run: Any) -> Run:
    """A Megatron-DeepSpeed A100 run: ZeRO-1 over the replicas, full recomputation, DeepSpeed's 1F1B pipeline,
    Megatron's mixed precision, no flash attention, 2,048-token sequences, teraFLOP/s by section 5.1's count;
    ``run``: the rest of its Run fields."""
    run = {"unpublished": MEGATRON_DEEPSPEED_UNPUBLISHED, "assumed": MEGATRON_DEEPSPEED_ASSUMED} | run
    return Run(
        name=f"{name} t{tensor} p{pipeline} x{run['world_size']} (Megatron-DeepSpeed)",
        gpu="a100-80gb",
        sequence_length=2048,
        arrangement="zero1",
        recompute="full",
        metric=Metric.narayanan_tflops_per_gpu,
        tensor=tensor,
        pipeline=pipeline,
        flash_attention=False,
        parallelism={"pipeline_schedule": "1f1b"},
        precision="megatron",
        **run,
    )


def bloom() -> Run:
    """BLOOM 176B on 384 A100 80GB: t4 p12 d8, micro-batch 2, 156 teraFLOP/s, on Jean Zay's links."""
    return megatron_deepspeed(
        "BLOOM-176B",
        4,
        12,
        source=BLOOM_SOURCE,
        where="section 3.4: 156 TFLOPs in the fastest configuration",
        world_size=384,
        model=BLOOM_176B,
        global_batch_size=2048,
        micro_batch_size=2,
        measured=156,
        cluster=JEAN_ZAY_LINKS,
    )


def mt_nlg(nodes: int, tflops: int) -> Run:
    """MT-NLG 530B on Selene: t8 p35 over ``nodes`` DGX A100, batch 1,920, micro-batch 1."""
    return megatron_deepspeed(
        "MT-NLG-530B",
        8,
        35,
        source=MT_NLG_SOURCE,
        where=f"section 2.4: {nodes} nodes, {tflops} teraFLOP/s per GPU",
        world_size=8 * nodes,
        model=MT_NLG_530B,
        global_batch_size=1920,
        micro_batch_size=1,
        measured=tflops,
        unpublished=MEGATRON_DEEPSPEED_UNPUBLISHED + ("micro-batch size",),
        assumed=MEGATRON_DEEPSPEED_ASSUMED | {"micro_batch_size": "1, as Megatron-LM's 530B (Narayanan et al.)"},
    )


MEGATRON_DEEPSPEED_RUNS: list[Run] = [bloom(), mt_nlg(280, 126), mt_nlg(350, 121), mt_nlg(420, 113)]


def report() -> None:
    """Each row under the committed constants: measured and predicted tokens per second per GPU, the error."""
    for run in MEGATRON_DEEPSPEED_RUNS:
        measured, predicted = measured_tokens_per_s_per_gpu(run), predicted_tokens_per_s_per_gpu(run)
        print(f"{run.name:48s} {measured:8.1f} {predicted:8.1f} {100 * (predicted / measured - 1):+7.1f}%  {run.where}")


if __name__ == "__main__":
    report()
