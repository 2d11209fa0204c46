"""More published groups of one job measured in several layouts, and the priced terms of each layout.

    python -m bench.calibration --layout-groups        # these groups with the others (H100), then the neighbours
    python -m bench.calibration.layout_groups_more     # these groups alone, each layout's terms beside its figures

Source
- FLAGPERF: FlagOpen/FlagPerf @1b5a0303 (BAAI's vendor benchmark suite; each case's README prints, per card and
  layout, tokens per second per GPU ("token/p/s"), computed by run_pretraining.py as global batch x sequence over
  Megatron's "elapsed time per iteration" and the GPU count):
  - training/nvidia/llama3_8B-megatron/README.md, section '性能指标' (results) and its ablation table 'A100单机8卡
    消融实验' (8-GPU ablation): Llama 3 8B, Megatron-Core core_v0.6.0, sequence 8,192, global batch 512, micro-batch
    1 (config_*x1x8.py: localbs 1; pretrain_llama3.sh: --global-batch-size 512), --bf16, --sequence-parallel,
    --use-distributed-optimizer, --transformer-impl transformer_engine, --use-flash-attn, no recomputation flag and
    no overlap flag. The FP8 rows add training_adapter_H100_fp8.sh: --fp8-format hybrid, delayed scaling (amax
    history 1,024). The "A100" rows ran on DGX A800 80GB (the README's hardware section: NVIDIA_A800-SXM4-80GB,
    InfiniBand 200 Gb/s): A100 compute with NVLink at 400 GB/s both directions.
  - training/nvidia/llama2_70B-megatron/README.md, section '性能指标': Llama 2 70B on 32 H800 (4 nodes, InfiniBand
    200 Gb/s), FlagScale @26cd664 (a Megatron-LM fork, training/benchmarks/llama2_70B/megatron/megatron_main.sh):
    sequence 4,096, micro-batch 1, 44 accumulation steps (config_H800x4x8.py), global batch 1 x 32 x 44 / (t x p)
    = 44 in both layouts, --bf16, --use-distributed-optimizer, --sequence-parallel, --use-flash-attn, no
    recomputation (recompute = False), TP8 PP4 against TP4 PP8. The first row ('fp32' with recompute=True) is
    left out: the script passes --bf16 to every run, so its precision is not what the row says; the fourth row is
    another job (global batch 1,024).
  - training/nvidia/aquila2_7b-flagscale/README.md, section '性能指标': Aquila2 7B on one DGX A800, FlagScale @ed55532
    (training/benchmarks/aquila2_7b/flagscale/flagscale_main.sh: 32 layers, hidden 4,096, 32 heads, SwiGLU at
    --multiple-of 256 (11,008), vocabulary 100,008, untied output layer), sequence 2,048, 9 accumulation steps,
    global batch LBS x 8 x 9 / (t x p), --bf16, --use-distributed-optimizer, --use-flash-attn, no sequence
    parallelism, no recomputation; the README notes that FlagScale at that commit overlaps no communication with
    compute. TP1 PP1 DP8 (LBS 1), TP8 (LBS 8) and TP2 PP2 DP2 (LBS 4) are one job (global batch 72); TP1 PP8 (LBS 4,
    global batch 36) is another and is left out.
  - training/nvidia/gpt3_6.7B-paddle/README.md and training/nvidia/llama1_7B-paddle/README.md, section '性能指标':
    GPT-3 6.7B and LLaMA 7B on one DGX A100 80GB (and 40GB), PaddlePaddle 2.5.1 (PaddleNLP's trainer), sequence
    2,048, fp16 at level O2 (fp16 weights, fp32 master weights and Adam), flash attention, global batch 2M and 4M
    tokens (1,024 and 2,048 sequences) in four layouts each: sharding stage 2 over 8 ranks (ZeRO-2, DP8), TP2 with
    stage-1 or stage-2 sharding over 4 ranks, TP2 PP4; once without recomputation (micro-batch 4) and once with
    full recomputation (micro-batch 2; 4 at TP2 PP4), as each row's config_*.py gives it. The model is
    training/benchmarks/gpt3_6.7B/paddle/config/_base.py (32 layers, hidden 4,096, 32 heads, GELU MLP 16,384,
    vocabulary 50,304, untied) and facebook/llama-7b (32 layers, hidden 4,096, 32 heads, SwiGLU 11,008, vocabulary
    32,000). Each figure is the README's samples per second x 2,048 / 8 as it prints the product. A group holds one
    card and one recomputation setting: the rows with and without recomputation are the same job, but their pair
    would compare the recomputation lever (a published 2.5-fold slowdown), not the layouts.

The H100 groups (GROUPS) are lever pairs: the acceptance's hidden set is H100, and FlagPerf's H100 rows compare
bf16 with FP8 at one layout. The layout groups (TP x PP x DP and ZeRO stage of one job) ran on H800 and A800 cards
(an H100 and an A100 with NVLink cut to 400 GB/s both directions) and on DGX A100; they are NEIGHBOUR_GROUPS,
reported apart so that the H100 figure stays an H100 figure. The export cards' links are given as a link_spec:
NVLink 200 GB/s per direction (the export parts' 400 GB/s both directions), InfiniBand 200 Gb/s (25 GB/s) per GPU
as the README prints it (one NIC per GPU assumed: unpublished).
"""

from bench.calibration.corpus import Metric, Run
from bench.calibration.layout_groups import Group, evaluate
from bench.calibration.model import layout_evaluation, plan_request
from service.inputs import resolve

FLAGPERF = "FlagOpen/FlagPerf @1b5a0303"
LLAMA3_8B = "training/nvidia/llama3_8B-megatron/README.md"
LLAMA2_70B = "training/nvidia/llama2_70B-megatron/README.md"

# NVLink of the export parts (400 GB/s both directions: 200 GB/s a direction) and the README's 200 Gb/s InfiniBand
EXPORT_LINKS: dict[str, object] = {"link_spec": {"intra_node_bytes_per_s": 200e9, "inter_node_bytes_per_s": 25e9}}

MEGATRON_LEVERS: dict[str, object] = {
    # no --overlap-grad-reduce / --overlap-param-gather in the scripts: Megatron-LM's defaults, both off
    "overlap_grad_reduce": False,
    "overlap_param_gather": False,
}

LLAMA3_UNPUBLISHED = ("the H100 nodes' links (the README describes the A800 host only)", "the Transformer Engine build")
LLAMA3_ASSUMED: dict[str, object] = {
    "recompute": "none: pretrain_llama3.sh passes no recomputation flag (the README's strategy list names "
    "recompute-activations, which the script does not pass; PP1 DP8 TP1 running out of memory fits no recomputation)",
    "precision": "megatron: --bf16 with --use-distributed-optimizer (fp32 main gradients and master weights)",
    "attention_backend": "Transformer Engine's choice (--transformer-impl transformer_engine): the default",
    "pipeline": "1F1B, 32 layers split evenly, embedding on the first stage and output layer on the last "
    "(no virtual stages, no split flags)",
}


def llama3_8b(
    label: str,
    where: str,
    gpu: str,
    gpus: int,
    tensor: int,
    pipeline: int,
    tokens_per_s_per_gpu: float,
    *,
    fp8: bool = False,
    export_links: bool = False,
) -> Run:
    """One row of FlagPerf's Llama 3 8B Megatron-Core case: sequence 8,192, global batch 512, micro-batch 1."""
    levers = dict(MEGATRON_LEVERS)
    assumed = dict(LLAMA3_ASSUMED)
    if fp8:
        levers["fp8"] = "transformer_engine"
        assumed["fp8"] = "transformer_engine: --fp8-format hybrid, delayed scaling (training_adapter_H100_fp8.sh)"
    if export_links:
        assumed["gpu"] = "a100-80gb: the A800-SXM4-80GB has the A100's compute and memory, NVLink cut to 400 GB/s"
        assumed["links"] = "link_spec: NVLink 200 GB/s a direction, InfiniBand 200 Gb/s (the README's host)"
    return Run(
        name=label,
        source=FLAGPERF,
        where=f"{LLAMA3_8B}, {where}",
        gpu=gpu,
        world_size=gpus,
        model={"preset": "llama-3-8b"},
        sequence_length=8192,
        global_batch_size=512,
        micro_batch_size=1,
        arrangement="zero1",
        recompute="none",
        metric=Metric.tokens_per_s_per_gpu,
        measured=tokens_per_s_per_gpu,
        tensor=tensor,
        pipeline=pipeline,
        sequence_parallel=tensor > 1,
        levers=levers,
        precision="megatron",
        unpublished=LLAMA3_UNPUBLISHED if not export_links else ("the Transformer Engine build",),
        assumed=assumed,
        cluster=EXPORT_LINKS if export_links else {},
    )


def llama3_8b_h100(gpus: int, fp8: bool, tokens_per_s_per_gpu: float, line: int) -> Run:
    precision = "bf16+fp8" if fp8 else "bf16"
    data = gpus // 2
    return llama3_8b(
        f"Llama 3 8B TP2 DP{data} {precision}",
        f"section '性能指标', line {line} (H100, {precision}, PP1DP{data}TP2)",
        "h100-80gb",
        gpus,
        2,
        1,
        tokens_per_s_per_gpu,
        fp8=fp8,
    )


def llama3_8b_a800(pipeline: int, data: int, tensor: int, tokens_per_s_per_gpu: float, line: int) -> Run:
    table = "section '性能指标' (the baseline)" if line < 68 else "table 'A100单机8卡 消融实验'"
    return llama3_8b(
        f"Llama 3 8B PP{pipeline} DP{data} TP{tensor}",
        f"{table}, line {line} (PP{pipeline}DP{data}TP{tensor})",
        "a100-80gb",
        8,
        tensor,
        pipeline,
        tokens_per_s_per_gpu,
        export_links=True,
    )


LLAMA2_ASSUMED: dict[str, object] = {
    "gpu": "h100-80gb: the H800 has the H100 SXM's compute and memory, NVLink cut to 400 GB/s",
    "links": "link_spec: NVLink 200 GB/s a direction, InfiniBand 200 Gb/s per GPU (the README's host)",
    "precision": "megatron: --bf16 with --use-distributed-optimizer (one data-parallel rank: nothing sharded)",
    "attention_backend": "flash_attention_2: --use-flash-attn in FlagScale's Megatron-LM fork runs the flash-attn "
    "package",
    "pipeline": "1F1B, 80 layers split evenly, embedding on the first stage and output layer on the last",
}


def llama2_70b_h800(tensor: int, pipeline: int, tokens_per_s_per_gpu: float, line: int) -> Run:
    return Run(
        name=f"Llama 2 70B TP{tensor} PP{pipeline}",
        source=FLAGPERF,
        where=f"{LLAMA2_70B}, section '性能指标', line {line} (amp, TP{tensor}PP{pipeline}DP1)",
        gpu="h100-80gb",
        world_size=32,
        model={"preset": "llama-2-70b"},
        sequence_length=4096,
        global_batch_size=44,
        micro_batch_size=1,
        arrangement="zero1",
        recompute="none",
        metric=Metric.tokens_per_s_per_gpu,
        measured=tokens_per_s_per_gpu,
        tensor=tensor,
        pipeline=pipeline,
        sequence_parallel=True,
        levers=MEGATRON_LEVERS | {"attention_backend": "flash_attention_2"},
        precision="megatron",
        unpublished=("the FlagScale commit's exact kernels", "the NIC count per host"),
        assumed=LLAMA2_ASSUMED,
        cluster=EXPORT_LINKS,
    )


AQUILA2_7B = "training/nvidia/aquila2_7b-flagscale/README.md"
AQUILA2_ASSUMED: dict[str, object] = {
    "gpu": "a100-80gb: the A800-SXM4-80GB has the A100's compute and memory, NVLink cut to 400 GB/s",
    "links": "link_spec: NVLink 200 GB/s a direction, InfiniBand 200 Gb/s (the README's host)",
    "precision": "megatron: --bf16 with --use-distributed-optimizer (fp32 main gradients and master weights)",
    "overlap": "off: 'FlagScale at ed55532 does not yet overlap computation and communication' (the README)",
    "attention_backend": "flash_attention_2: --use-flash-attn runs the flash-attn package",
    "vocab_size": "100,008 as --vocab-size gives it (Megatron pads the embedding to a multiple of 128 x t)",
}
AQUILA2_7B_MODEL: dict[str, object] = {
    "layers": 32,
    "hidden_size": 4096,
    "attention_heads": 32,
    "ffn_hidden_size": 11008,  # SwiGLU: 256 x ceil(int(2 x 4 x 4096 / 3) / 256)
    "vocab_size": 100008,
    "mlp": "swiglu",
    "tied_embeddings": False,
}


def aquila2_7b_a800(tensor: int, pipeline: int, local_batch: int, tokens_per_s_per_gpu: float, line: int) -> Run:
    """One row of FlagPerf's Aquila2 7B FlagScale case on 8 A800: global batch local x 8 x 9 / (t x p)."""
    data = 8 // (tensor * pipeline)
    return Run(
        name=f"Aquila2 7B TP{tensor} PP{pipeline} DP{data} b{local_batch}",
        source=FLAGPERF,
        where=f"{AQUILA2_7B}, section '性能指标', line {line} (TP{tensor}PP{pipeline}DP{data}, LBS {local_batch})",
        gpu="a100-80gb",
        world_size=8,
        model=AQUILA2_7B_MODEL,
        sequence_length=2048,
        global_batch_size=local_batch * 8 * 9 // (tensor * pipeline),
        micro_batch_size=local_batch,
        arrangement="zero1",
        recompute="none",
        metric=Metric.tokens_per_s_per_gpu,
        measured=tokens_per_s_per_gpu,
        tensor=tensor,
        pipeline=pipeline,
        sequence_parallel=False,
        levers=MEGATRON_LEVERS | {"overlap": False, "attention_backend": "flash_attention_2"},
        precision="megatron",
        unpublished=("the FlagScale commit's exact kernels",),
        assumed=AQUILA2_ASSUMED,
        cluster=EXPORT_LINKS,
    )


GPT3_PADDLE = "training/nvidia/gpt3_6.7B-paddle/README.md"
LLAMA1_PADDLE = "training/nvidia/llama1_7B-paddle/README.md"
PADDLE_MODELS: dict[str, dict[str, object]] = {
    GPT3_PADDLE: {
        "layers": 32,
        "hidden_size": 4096,
        "attention_heads": 32,
        "ffn_hidden_size": 16384,
        "vocab_size": 50304,
        "mlp": "gelu",
        "tied_embeddings": False,
    },
    LLAMA1_PADDLE: {
        "layers": 32,
        "hidden_size": 4096,
        "attention_heads": 32,
        "ffn_hidden_size": 11008,
        "vocab_size": 32000,
        "mlp": "swiglu",
        "tied_embeddings": False,
    },
}
PADDLE_ASSUMED: dict[str, object] = {
    "precision": "mixed_fp16_adam: fp16 at level O2 (fp16 parameters and gradients, fp32 master weights and Adam)",
    "arrangement": "sharding stage1: zero1, stage2: zero2, over the sharding degree (the data-parallel ranks)",
    "attention_backend": "flash_attention_2: use_flash_attention = 1 (Paddle 2.5's flash-attention kernel)",
    "pipeline": "1F1B, 32 layers split evenly over four stages",
    "overlap_grad_reduce": "off: Paddle's sharding stage 2 reduces each gradient bucket with dist.reduce(sync_op=not "
    "self._reduce_overlap), _reduce_overlap False unless set (PaddlePaddle/Paddle group_sharded_stage2.py @03eadcf3, "
    "_get_reduce_fn); PaddleNLP sets it only when sharding_parallel_config names enable_stage2_overlap, and stage 1 "
    "overlaps only under enable_stage1_overlap (paddlenlp/trainer/training_args.py @536f3c34); FlagPerf's configs "
    "name neither",
}
PADDLE_UNPUBLISHED = ("PaddleNLP's commit (the overlap options are read from a later one)",)


def paddle_row(
    readme: str,
    line: int,
    gpu: str,
    tensor: int,
    pipeline: int,
    stage: int,
    micro_batch: int,
    accumulation: int,
    recompute: bool,
    tokens_per_s_per_gpu: float,
) -> Run:
    """One row of FlagPerf's PaddlePaddle cases on 8 A100: the config's TP, PP, sharding stage and degree (8 / (t x
    p)), per-device batch and accumulation; global batch = per-device batch x accumulation x sharding degree."""
    data = 8 // (tensor * pipeline)
    model = "GPT-3 6.7B" if readme == GPT3_PADDLE else "LLaMA 7B"
    layout = f"TP{tensor} ZeRO-{stage} DP{data}" if pipeline == 1 else f"TP{tensor} PP{pipeline}"
    return Run(
        name=f"{model} {layout} b{micro_batch}{' full' if recompute else ''}",
        source=FLAGPERF,
        where=f"{readme}, section '性能指标', line {line} (TP{tensor}PP{pipeline}, sharding stage{stage} over {data})",
        gpu=gpu,
        world_size=8,
        model=PADDLE_MODELS[readme],
        sequence_length=2048,
        global_batch_size=micro_batch * accumulation * data,
        micro_batch_size=micro_batch,
        arrangement=f"zero{stage}",
        recompute="full" if recompute else "none",
        metric=Metric.tokens_per_s_per_gpu,
        measured=tokens_per_s_per_gpu,
        tensor=tensor,
        pipeline=pipeline,
        levers={"attention_backend": "flash_attention_2", "overlap_grad_reduce": False},
        precision="mixed_fp16_adam",
        unpublished=PADDLE_UNPUBLISHED,
        assumed=PADDLE_ASSUMED,
    )


def paddle_group(readme: str, gpu: str, recompute: bool, lines: int, rows: list[tuple[int, int]]) -> Group:
    """Four layouts of one job as the README lists them from line ``lines``: (micro-batch, tokens/s/GPU) each, in
    the order DP8 ZeRO-2, TP2 ZeRO-1, TP2 ZeRO-2, TP2 PP4."""
    layouts = ((1, 1, 2), (2, 1, 1), (2, 1, 2), (2, 4, 1))
    sequences = 1024 if readme == GPT3_PADDLE else 2048
    runs = tuple(
        paddle_row(readme, lines + i, gpu, t, p, stage, b, sequences // (b * (8 // (t * p))), recompute, figure)
        for i, ((t, p, stage), (b, figure)) in enumerate(zip(layouts, rows, strict=True))
    )
    model = "GPT-3 6.7B" if readme == GPT3_PADDLE else "LLaMA 7B"
    card = "A100 40GB" if gpu == "a100-40gb" else "A100 80GB"
    setting = "full recomputation" if recompute else "no recomputation"
    return Group(
        f"{model}, 8 {card}, batch {sequences} x 2048, Paddle, {setting}: ZeRO-2 DP8, TP2 ZeRO-1/2, TP2 PP4",
        FLAGPERF,
        f"{readme}, lines {lines}-{lines + 3}",
        runs,
    )


# H100: one layout, bf16 against Transformer Engine's FP8 (README lines 61-64)
GROUPS: list[Group] = [
    Group(
        "Llama 3 8B, 8 H100, TP2 DP4, Megatron-Core: bf16 or fp8",
        FLAGPERF,
        f"{LLAMA3_8B}, lines 61 and 62",
        (llama3_8b_h100(8, False, 8103, 61), llama3_8b_h100(8, True, 10486, 62)),
    ),
    Group(
        "Llama 3 8B, 16 H100, TP2 DP8, Megatron-Core: bf16 or fp8",
        FLAGPERF,
        f"{LLAMA3_8B}, lines 63 and 64",
        (llama3_8b_h100(16, False, 7914, 63), llama3_8b_h100(16, True, 10280, 64)),
    ),
]

# The layouts of one job on the export cards (README lines 60 and 71-77; the OOM row, PP1 DP8 TP1, has no figure)
LLAMA3_8B_A800_LAYOUTS = (
    llama3_8b_a800(2, 4, 1, 3698.7, 60),
    llama3_8b_a800(4, 2, 1, 3306.5, 71),
    llama3_8b_a800(2, 2, 2, 3409.2, 73),
    llama3_8b_a800(2, 1, 4, 3006.1, 74),
    llama3_8b_a800(8, 1, 1, 2690.3, 75),
    llama3_8b_a800(1, 1, 8, 2451.2, 76),
    llama3_8b_a800(4, 1, 2, 3042.7, 77),
)
NEIGHBOUR_GROUPS: list[Group] = [
    Group(
        "Llama 2 70B, 32 H800, batch 44 x 4096, FlagScale: TP8 PP4 or TP4 PP8",
        FLAGPERF,
        f"{LLAMA2_70B}, lines 58 and 59",
        (llama2_70b_h800(8, 4, 641.93, 58), llama2_70b_h800(4, 8, 791.37, 59)),
    ),
    Group(
        "Llama 3 8B, 8 A800, batch 512 x 8192, Megatron-Core: seven TP x PP x DP layouts",
        FLAGPERF,
        f"{LLAMA3_8B}, line 60 and the ablation table",
        LLAMA3_8B_A800_LAYOUTS,
    ),
    Group(
        "Aquila2 7B, 8 A800, batch 72 x 2048, FlagScale: DP8, TP8 or TP2 PP2 DP2",
        FLAGPERF,
        f"{AQUILA2_7B}, lines 55, 56 and 58",
        (
            aquila2_7b_a800(1, 1, 1, 3936.8, 55),
            aquila2_7b_a800(8, 1, 8, 2866.3, 56),
            aquila2_7b_a800(2, 2, 4, 3468.3, 58),
        ),
    ),
    paddle_group(GPT3_PADDLE, "a100-80gb", False, 86, [(4, 4410), (4, 4024), (4, 3811), (4, 3791)]),
    paddle_group(GPT3_PADDLE, "a100-80gb", True, 91, [(2, 1784), (2, 1648), (2, 1518), (4, 1643)]),
    paddle_group(LLAMA1_PADDLE, "a100-80gb", False, 49, [(4, 4267), (4, 3888), (4, 3650), (4, 3722)]),
    paddle_group(LLAMA1_PADDLE, "a100-40gb", True, 54, [(2, 2744), (2, 2163), (2, 2160), (2, 2232)]),
    paddle_group(LLAMA1_PADDLE, "a100-80gb", True, 59, [(2, 1707), (2, 1605), (2, 1489), (4, 1597)]),
]

TERMS = (
    "compute_s",
    "pipeline_bubble_s",
    "tensor_parallel_s",
    "pipeline_p2p_s",
    "context_parallel_s",
    "expert_parallel_s",
    "data_parallel_exposed_s",
    "overlap_slowdown_s",
    "optimizer_s",
    "step_s",
)


def terms(run: Run) -> dict[str, float]:
    """A layout's step and its terms in seconds, as /v1/plan prices them (service.engine.layout)."""
    layout = layout_evaluation(run)
    return {name: float(getattr(layout, name)) for name in TERMS}


def granularity(run: Run) -> tuple[int, float]:
    """(layer passes per GPU per step, tokens per local expert per micro-batch): how finely a layout cuts the work.

    A layer pass is one layer's forward and backward on one micro-batch: micro-batches x the layers a pipeline
    stage holds, each with its fixed costs (kernel launches, the token dispatcher's device-to-host sync of the
    routing counts). Tokens per expert (mixtures only, balanced routing as --moe-router-force-load-balancing runs
    it): a rank's tokens (b x s over the tensor ranks under sequence parallelism) gathered from the expert group
    and spread over the experts, top_k copies each: the M of every grouped GEMM. 0 for a dense model."""
    request = plan_request(run)
    scene = resolve.scenario(
        request.model, request.precision, request.training, request.activations, request.levers, request.cluster
    )
    arch = scene.model.architecture
    assert arch is not None
    passes = run.accumulation_steps * arch.layers // run.pipeline
    if arch.moe is None:
        return passes, 0.0
    rank_tokens = run.micro_batch_size * run.sequence_length / (run.tensor if run.sequence_parallel else 1)
    return passes, rank_tokens * run.expert * arch.moe.top_k / arch.moe.experts


def print_terms(groups: list[Group]) -> None:
    """Each group's layouts with their measured and predicted figures and the priced terms of a step."""
    short = [name.removesuffix("_s").replace("data_parallel_exposed", "dp_exposed") for name in TERMS]
    for group in groups:
        result = evaluate(group)
        print(f"\n{group.name}  [{group.source}, {group.where}]")
        header = " ".join(f"{n[:11]:>11s}" for n in short)
        print(f"  {'layout':30s} {'meas.':>8s} {'pred.':>8s}  {header} {'passes':>7s} {'tok/expert':>10s}")
        for run, m, p in zip(group.runs, result.measured, result.predicted, strict=True):
            priced = terms(run) if run.needs_layouts else {}
            cells = " ".join(f"{priced[n]:11.3f}" if n in priced else f"{'-':>11s}" for n in TERMS)
            passes, per_expert = granularity(run)
            print(f"  {run.name:30s} {m:8.1f} {p:8.1f}  {cells} {passes:7d} {per_expert:10.0f}")
        print(f"  pairs in order: {result.pairs_in_order} / {result.pairs}")
        for faster, slower in result.out_of_order:
            print(f"    out of order: {faster} measured faster than {slower}")


if __name__ == "__main__":
    from bench.calibration.layout_groups import GROUPS as PUBLISHED

    print_terms(GROUPS + NEIGHBOUR_GROUPS + [g for g in PUBLISHED if g.runs[0].expert > 1])
