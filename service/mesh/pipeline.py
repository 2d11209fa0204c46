"""Pipeline schedules: which layers each stage holds, micro-batches in flight, and the bubble.

Only schedules some framework runs are offered (SCHEDULE_SOURCES names it; a plan shows it as
time.schedule_source):

- Layers per stage: L / p; when p does not divide L the last L mod p stages take one more layer
  (the first stage already holds the input embedding and the most activations). The interleaved
  schedule (Narayanan et al. 2021, section 2.2.2) gives stage i the v chunks i, i + p, ... of
  L / (p v) layers each, the last L mod (p v) chunks one more. A split of the request's own
  (parallelism.pipeline_layers, or the embedding and loss counted as layers) replaces either
  (chunk_layers); memory, compute and the bubble are then each stage's own and the busiest or
  slowest stage decides. ZB-V's two chunks per stage sit in a V (device i holds chunks i and
  2p - 1 - i, chunk_stages): device 0 holds the input embedding and the output layer.
- Micro-batches in flight at the peak on stage i, counted in micro-batches of the stage's layers
  (Megatron-LM megatron/core/pipeline_parallel/schedules.py, the warm-up counts):
  1F1B (PipeDream-Flush, Narayanan et al. 2021, section 2.2.1) p - i; interleaved
  ((p - i - 1) x 2 + (v - 1) x p + 1) / v, on the first stage p (1 + (p - 1) / (p v)) as
  Korthikanti et al. 2022, section 4.2.3, state; GPipe (Huang et al. 2019) all m. Zero bubble
  (Qi et al. 2023, table 2): ZB-H1 as 1F1B (p M_B), ZB-H2 2 (p - i) - 1 ((2p - 1) M_B on the first
  stage, about 2x); ZB-V p on every stage (Qi et al. 2024, "Pipeline Parallelism with Controllable
  Memory", V-ZB: 1F1B's peak, spread evenly by the V). None holds more than the m micro-batches of a step.
- The bubble, idle seconds of a step. 1F1B and GPipe (p - 1)(T_F + T_B + T_W), interleaved that over
  v (Narayanan et al. 2021, sections 2.2.1-2.2.2): (p - 1) / (v m) of the compute, whatever the pass
  times. The zero-bubble schedules split the backward into B (input gradients) and W (weight
  gradients) and read the pass times (Qi et al. 2023, section 2.3 and table 2): ZB-H1 (p - 1)(T_F +
  T_B - T_W), over v when it runs v chunks per stage (torch.distributed.pipelining's
  ScheduleInterleavedZeroBubble, whose passes are chunks of 1/v; its memory then interleaving's);
  ZB-H2 (p - 1)(T_F + T_B - 2 T_W), zero only when T_F + T_B <= 2 T_W (equal F, B and W) and only
  with optimizer post-validation (section 4): without it the optimizer step's all-reduce (global
  gradient norm, inf/NaN check) is a barrier that turns ZB-H2's parallelogram back into a trapezoid,
  and the p - 1 forward passes of its warm-up skew, (p - 1) T_F, are idle again. ZB-H2 never idles
  more than ZB-H1: the paper's fork builds its schedules with the automatic scheduler of section 3
  from profiled pass times under the memory limit, and ZB-H1's schedule fits within ZB-H2's. ZB-V
  (Qi et al. 2024) is bubble-free when W + 2B >= 2F and W + 2F >= 2B (its necessary condition);
  where one fails we charge the excess on each of the p - 1 hops at chunk size (half a stage), and
  its warm-up skew of p - 1 chunk forwards, (p - 1) T_F / 2, without post-validation
  (torch.distributed.pipelining steps the optimizer after the schedule, so torchtitan's ZB-V pays it;
  the paper's fork offers post-validation). The all-reduce's own latency (one scalar) is not counted.
- Pass times: T_F is the efficiency model's forward of a micro-batch on the stage; T_W the
  weight-gradient half of the backward without its recomputed forward (dW = x^T dy has the shape
  and FLOPs of dx = dy W^T, Qi et al. 2023, section 2 and table 1), T_B the rest (the input
  gradients and any recomputation, which B needs first).
"""

from collections.abc import Sequence
from fractions import Fraction
from itertools import accumulate
from typing import Any

from models.parallelism import PipelineSchedule
from models.presets import PrecisionPresetName
from service.numeric import FloatLike, IntLike, maximum, minimum, select

SCHEDULES: tuple[PipelineSchedule, ...] = tuple(PipelineSchedule)  # a schedule array's codes
_CODES = {schedule: code for code, schedule in enumerate(SCHEDULES)}
_ZB_V = _CODES[PipelineSchedule.zero_bubble_v]
_MASKS: dict[tuple[PipelineSchedule, ...], int] = {}  # a set of schedules as the bits of their codes

# Which framework runs each schedule (a plan's time.schedule_source). Sources: Megatron-LM
# megatron/core/pipeline_parallel/schedules.py (forward_backward_pipelining_without_interleaving,
# ..._with_interleaving); PyTorch torch/distributed/pipelining/schedules.py (torch 2.13: ScheduleGPipe,
# Schedule1F1B, ScheduleInterleaved1F1B, ScheduleInterleavedZeroBubble "implementing the ZB1P schedule",
# ScheduleZBVZeroBubble "exactly two stages per rank"), which torchtitan runs by name; Qi et al.'s
# Megatron-LM fork github.com/sail-sg/zero-bubble-pipeline-parallelism (ZB-2p, optimizer post-validation).
SCHEDULE_SOURCES: dict[PipelineSchedule, str] = {
    PipelineSchedule.one_f_one_b: "Megatron-Core 1F1B; torch.distributed.pipelining Schedule1F1B (torchtitan)",
    PipelineSchedule.interleaved: "Megatron-Core interleaved 1F1B; torch.distributed.pipelining "
    "ScheduleInterleaved1F1B (torchtitan)",
    PipelineSchedule.gpipe: "torch.distributed.pipelining ScheduleGPipe (torchtitan)",
    PipelineSchedule.zero_bubble_h1: "ZB-H1 (Qi et al. 2023): torch.distributed.pipelining "
    "ScheduleInterleavedZeroBubble (torchtitan), ZB-1p of sail-sg/zero-bubble-pipeline-parallelism",
    PipelineSchedule.zero_bubble: "ZB-H2 (Qi et al. 2023): ZB-2p of sail-sg/zero-bubble-pipeline-parallelism "
    "(a Megatron-LM fork; --enable-optimizer-post-validation)",
    PipelineSchedule.zero_bubble_v: "ZB-V (Qi et al. 2024): torch.distributed.pipelining ScheduleZBVZeroBubble "
    "(torchtitan), ZB-V of sail-sg/zero-bubble-pipeline-parallelism",
}
# The schedules whose bubble reads the forward, input-gradient and weight-gradient pass times.
SPLIT_BACKWARD = (PipelineSchedule.zero_bubble_h1, PipelineSchedule.zero_bubble, PipelineSchedule.zero_bubble_v)


def chunk_layers(
    layers: int,
    pipeline: int,
    virtual_stages: int = 1,
    pipeline_layers: Sequence[int] | None = None,
    embedding_layers: int = 0,
    loss_layers: int = 0,
    v_shape: bool = False,
) -> list[int]:
    """Transformer layers of each of the p x v model chunks, in the model's order (chunk k runs on stage k mod p;
    with ``v_shape``, ZB-V's two chunks a stage, on stage k for k < p and 2p - 1 - k after: chunk_stages).

    - ``pipeline_layers`` as given: p x v entries, or p whose entries split evenly over each stage's v chunks
      (Megatron-LM megatron/core/transformer/transformer_config.py @d98e8a64: the first and last stage's layers
      must divide by the virtual pipeline size).
    - With the embedding or the loss counted as layers: layers + embedding + loss split over the chunks, the
      first (layers + embedding + loss) mod (p v) one more, the embedding's taken from the first chunk and the
      loss's from the last (torchtitan torchtitan/distributed/pipeline_parallel.py @b5bcd76c,
      generate_llm_fqn_per_model_part's input_weight and output_weight; Megatron-LM's
      --account-for-embedding-in-pipeline-split / --account-for-loss-in-pipeline-split, get_num_layers_to_build in
      megatron/core/transformer/transformer_block.py @d98e8a64, where they must divide).
    - Else layers / (p v) each, the last layers mod (p v) chunks one more.
    Checked by service.mesh.degrees.pipeline_problems; here only arithmetic.
    """
    p, v = pipeline, virtual_stages
    count = p * v
    if pipeline_layers is not None:
        if len(pipeline_layers) == count:
            return list(pipeline_layers)
        owners = chunk_stages(p, v, v_shape)
        return [pipeline_layers[owners[k]] // v for k in range(count)]  # p entries over v chunks each
    if embedding_layers or loss_layers:
        base, extra = divmod(layers + embedding_layers + loss_layers, count)
        sizes = [base + (1 if k < extra else 0) for k in range(count)]
        sizes[0] -= embedding_layers
        sizes[-1] -= loss_layers
        return sizes
    base, extra = divmod(layers, count)
    return [base + (1 if k >= count - extra else 0) for k in range(count)]


def chunk_stages(pipeline: int, virtual_stages: int, v_shape: bool = False) -> list[int]:
    """The stage each model chunk runs on, in the model's order: k mod p, looping (Megatron-Core, torchtitan's
    "loop" style), or ZB-V's V, stage k then 2p - 1 - k (torchtitan stage_ids_this_rank style "v",
    torch.distributed.pipelining ScheduleZBVZeroBubble: "exactly two stages per rank"), so stage 0 holds the first
    and the last chunk, the embedding and the output layer."""
    p, count = pipeline, pipeline * virtual_stages
    if v_shape:
        return [k if k < p else 2 * p - 1 - k for k in range(count)]
    return [k % p for k in range(count)]


def schedule_code(schedule: Any) -> Any:
    """A schedule as its code into SCHEDULES: a PipelineSchedule's int; a code or an array of codes as it is."""
    return _CODES[schedule] if isinstance(schedule, PipelineSchedule) else schedule


def schedule_in(schedule: Any, names: tuple[PipelineSchedule, ...]) -> Any:
    """Whether a schedule (a PipelineSchedule, or a code or an array of codes into SCHEDULES) is one of ``names``:
    a bool for one layout, a bool per cell for arrays of layouts."""
    code = schedule_code(schedule)
    mask = _MASKS.get(names)
    if mask is None:
        mask = _MASKS[names] = sum(1 << _CODES[name] for name in set(names))
    return ((1 << code) & mask) != 0  # the code's bit among the names' bits


def v_shaped(schedule: Any, pipeline: Any) -> Any:
    """Whether the stages hold their chunks in ZB-V's V: zb_v on more than one stage (a schedule or codes, a
    degree or degrees)."""
    return (schedule_code(schedule) == _ZB_V) & (pipeline > 1)


def stage_chunks(v_shape: Any, virtual_stages: Any) -> Any:
    """Model chunks a stage's layers split into, given whether they sit in ZB-V's V: its two, else v."""
    return select(v_shape, 2, virtual_stages)


def split_chunks(schedule: Any, pipeline: Any, virtual_stages: Any) -> Any:
    """Model chunks a stage's layers split into: ZB-V's two, else v (1 for the schedules without chunks)."""
    return stage_chunks(v_shaped(schedule, pipeline), virtual_stages)


def output_stage(v_shape: Any, pipeline: Any) -> Any:
    """The stage that holds the output layer: the last, or stage 0 in ZB-V's V (its chunk 2p - 1)."""
    return select(v_shape, 0, pipeline - 1)


def stage_layer_indices(
    layers: int,
    pipeline: int,
    virtual_stages: int = 1,
    pipeline_layers: Sequence[int] | None = None,
    embedding_layers: int = 0,
    loss_layers: int = 0,
    v_shape: bool = False,
) -> list[list[int]]:
    """Indices of the layers each stage holds, stage 0 first: its chunks (chunk_stages) in order (chunk_layers).
    With ``v_shape`` the layers split into 2p chunks whatever ``virtual_stages`` says (ZB-V's two a stage)."""
    p = pipeline
    v = stage_chunks(v_shape, virtual_stages)
    sizes = chunk_layers(layers, p, v, pipeline_layers, embedding_layers, loss_layers, v_shape)
    return held_layers(sizes, chunk_stages(p, v, v_shape), p)


def held_layers(sizes: Sequence[int], owners: Sequence[int], pipeline: int) -> list[list[int]]:
    """Indices of the layers each stage holds, from each chunk's layers and the stage it runs on."""
    starts = [0, *accumulate(sizes)]  # running sums: linear in the chunk count
    held: list[list[int]] = [[] for _ in range(pipeline)]
    for k, stage in enumerate(owners):
        held[stage].extend(range(starts[k], starts[k] + sizes[k]))
    return held


def deepspeed_convention(precision: object) -> bool:
    """Whether a request follows DeepSpeed's conventions: the deepspeed precision preset names its engine (its
    pipeline engine's limits, its estimators)."""
    return precision == PrecisionPresetName.deepspeed


def framework_pipeline_problems(deepspeed: bool, shard_gradients: Any, pipeline: Any) -> list[tuple[str, str, Any]]:
    """What a framework refuses to pipeline, as (detail, pointer, refused): DeepSpeed's pipeline engine runs ZeRO-1
    at most ("ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism", deepspeed/runtime/pipe/engine.py
    @edaa7221, PipelineEngine.__init__), so the deepspeed precision (DeepSpeed's convention) with gradients sharded
    on more than one stage is refused. ``refused`` is a bool, or an array for many layouts."""
    refused = (pipeline > 1) & bool(deepspeed) & shard_gradients
    detail = (
        "DeepSpeed's pipeline engine supports ZeRO-1 at most (deepspeed/runtime/pipe/engine.py: ZeRO-2 and ZeRO-3 "
        "are incompatible with pipeline parallelism): with precision deepspeed and parallelism.pipeline above 1 "
        "choose arrangement ddp or zero1, or FSDP's convention (precision fsdp2) for zero3"
    )
    return [(detail, "/arrangement", refused)]


HYBRID_ON_A_MESH = "hybrid sharding with tensor, pipeline, context or expert parallelism is not modelled"
ZEROPP_ON_A_MESH = "levers.zeropp with a model-parallel layout is not modelled"


def mesh_plan_problems(
    model_parallel: Any, hybrid: Any, zeropp: bool, deepspeed: bool, shard_gradients: Any, pipeline: Any
) -> list[tuple[str, str, Any]]:
    """What a plan refuses to run on a mesh with a model-parallel degree above 1 (``model_parallel``), as (detail,
    pointer, refused) in the order /v1/plan reports them: hybrid sharding and ZeRO++ are modelled over data
    parallelism alone, and a framework may refuse to pipeline an arrangement (framework_pipeline_problems).
    ``refused`` is a bool, or an array for many layouts."""
    return [
        (HYBRID_ON_A_MESH, "/arrangement", model_parallel & hybrid),
        *framework_pipeline_problems(deepspeed, shard_gradients, pipeline),
        (ZEROPP_ON_A_MESH, "/levers/zeropp", model_parallel & zeropp),
    ]


def in_flight_ratio(
    schedule: PipelineSchedule, stage: IntLike, pipeline: IntLike, virtual_stages: IntLike, micro_batches: IntLike
) -> tuple[IntLike, IntLike]:
    """(numerator, denominator) of the micro-batches held at the peak on stage ``stage``: ints for one
    plan, int64 arrays for many layouts at once (service.engine.layout_grid)."""
    p, v, m, i = pipeline, virtual_stages, micro_batches, stage
    if schedule is PipelineSchedule.gpipe:
        return m + 0 * i, 1 + 0 * i
    if schedule is PipelineSchedule.zero_bubble:  # ZB-H2: (2p - 1) M_B on the first stage
        return minimum(2 * (p - i) - 1, m), 1 + 0 * i
    if schedule is PipelineSchedule.zero_bubble_v:  # V-ZB: p M_B on every stage
        return minimum(p + 0 * i, m), 1 + 0 * i
    if schedule in (PipelineSchedule.interleaved, PipelineSchedule.zero_bubble_h1):  # v = 1: 1F1B's p - i
        chunks = (p - i - 1) * 2 + (v - 1) * p + 1
        interleaved = minimum(chunks, m * v)
        plain = minimum(p - i, m)
        return select(v > 1, interleaved, plain), select(v > 1, v, 1)
    return minimum(p - i, m), 1 + 0 * i  # 1F1B and ZB-H1


def in_flight(
    schedule: PipelineSchedule, stage: int, pipeline: int, virtual_stages: int, micro_batches: int
) -> Fraction:
    """Micro-batches of the stage's layers held at the peak on stage ``stage``."""
    numerator, denominator = in_flight_ratio(schedule, stage, pipeline, virtual_stages, micro_batches)
    return Fraction(int(numerator), int(denominator))


def chunk_warmup(stage: IntLike, pipeline: IntLike, virtual_stages: IntLike, micro_batches: IntLike) -> IntLike:
    """W = min((p - i - 1) x 2 + (v - 1) x p + 1, m v): the warm-up forwards of stage ``stage`` in the interleaved
    schedule (chunk_in_flight). Ints, or arrays for many layouts."""
    p, v, m, i = pipeline, virtual_stages, micro_batches, stage
    return minimum((p - i - 1) * 2 + (v - 1) * p + 1, m * v)


def chunk_in_flight(
    stage: IntLike,
    pipeline: IntLike,
    virtual_stages: IntLike,
    micro_batches: IntLike,
    chunk: IntLike,
    warm: IntLike | None = None,
) -> IntLike:
    """Micro-batches of chunk ``chunk`` (0..v-1) a stage holds at the peak of the interleaved schedule: of its
    W = min((p - i - 1) x 2 + (v - 1) x p + 1, m v) warm-up forwards, Megatron-Core runs them in groups of p
    micro-batches, chunk 0 first (schedules.py, get_model_chunk_id: (k // p) mod v), so chunk j holds
    min(p, W - j p) of the first round and min(p, W - (v + j) p) of the second. Ints, or arrays for many layouts.
    ``warm``: W where the caller has it already (chunk_warmup; the same for every chunk of the stage)."""
    p, v = pipeline, virtual_stages
    warm = chunk_warmup(stage, p, v, micro_batches) if warm is None else warm
    first = minimum(maximum(warm - chunk * p, 0), p)
    second = minimum(maximum(warm - (v + chunk) * p, 0), p)
    return first + second


def stage_in_flight(
    schedule: PipelineSchedule,
    stage: int,
    pipeline: int,
    virtual_stages: int,
    micro_batches: int,
    chunk_sizes: Sequence[int] = (),
) -> Fraction:
    """Micro-batches of the stage's layers held at the peak (in_flight); with model chunks of unequal layers
    (``chunk_sizes``, the stage's v chunks in order) each chunk's micro-batches weighted by its layers:
    sum_j chunk_in_flight(j) x L_j / sum_j L_j, what equal chunks make W / v."""
    v = virtual_stages
    chunked = schedule in (PipelineSchedule.interleaved, PipelineSchedule.zero_bubble_h1) and v > 1
    if not chunked or len(set(chunk_sizes)) < 2 or not sum(chunk_sizes):
        return in_flight(schedule, stage, pipeline, v, micro_batches)
    held = sum(int(chunk_in_flight(stage, pipeline, v, micro_batches, j)) * size for j, size in enumerate(chunk_sizes))
    return Fraction(held, sum(chunk_sizes))


def end_chunk_in_flight(
    schedule: PipelineSchedule,
    stage: IntLike,
    pipeline: IntLike,
    virtual_stages: IntLike,
    micro_batches: IntLike,
    chunk: IntLike,
) -> tuple[IntLike, IntLike]:
    """(numerator, denominator) of the micro-batches held of model chunk ``chunk`` of stage ``stage``: what the
    input embedding's chunk (chunk 0 of stage 0) and the output layer's (chunk v - 1 of stage p - 1) hold. On an
    interleaved stage (interleaved, or ZB-H1 over v chunks) that chunk's own count (chunk_in_flight: the output
    layer's chunk on the last stage runs each micro-batch's backward right after its forward, 1; the embedding's
    holds 2p - 1 once m >= 2p), else the stage's (in_flight_ratio). Ints, or arrays for many layouts."""
    numerator, denominator = in_flight_ratio(schedule, stage, pipeline, virtual_stages, micro_batches)
    if schedule not in (PipelineSchedule.interleaved, PipelineSchedule.zero_bubble_h1):
        return numerator, denominator
    own = chunk_in_flight(stage, pipeline, virtual_stages, micro_batches, chunk)
    chunked = virtual_stages > 1
    return select(chunked, own, numerator), select(chunked, 1 + 0 * own, denominator)


def bubble_ratio(
    schedule: PipelineSchedule, pipeline: IntLike, virtual_stages: IntLike, micro_batches: IntLike
) -> tuple[IntLike, IntLike]:
    """(numerator, denominator) of the idle time over the ideal compute time of a step, for the schedules
    whose bubble does not depend on the pass times (1F1B, interleaved, GPipe)."""
    if schedule in SPLIT_BACKWARD:
        raise ValueError(f"the {schedule.value} bubble depends on the pass times: use bubble_seconds")
    p, v, m = pipeline, virtual_stages, micro_batches
    if schedule is PipelineSchedule.gpipe:
        return p - 1, m
    return p - 1, v * m  # p = 1: no bubble, 0 / (v m)


def bubble_fraction(schedule: PipelineSchedule, pipeline: int, virtual_stages: int, micro_batches: int) -> Fraction:
    """Idle time over the ideal compute time of a step (1F1B, interleaved, GPipe)."""
    numerator, denominator = bubble_ratio(schedule, pipeline, virtual_stages, micro_batches)
    return Fraction(int(numerator), int(denominator))


def pass_seconds(
    forward_s: FloatLike, backward_s: FloatLike, recomputed_s: FloatLike = 0.0
) -> tuple[FloatLike, FloatLike, FloatLike]:
    """(T_F, T_B, T_W) from a forward and a backward (recomputation included) of the same micro-batches:
    W the weight-gradient half of the backward beyond the recomputed forward, B the rest."""
    weight_s = (backward_s - recomputed_s) / 2
    return forward_s, backward_s - weight_s, weight_s


def bubble_seconds(
    schedule: PipelineSchedule,
    pipeline: IntLike,
    virtual_stages: IntLike,
    micro_batches: IntLike,
    forward_s: FloatLike,
    backward_s: FloatLike,
    recomputed_s: FloatLike = 0.0,
    post_validation: bool = False,
) -> FloatLike:
    """Idle seconds of a step on the slowest stage, whose ``forward_s`` and ``backward_s`` (with
    ``recomputed_s`` of recomputed forward in it) are the totals of its ``micro_batches`` micro-batches:
    floats for one plan, arrays for many layouts (service.engine.layout_grid) through the same lines."""
    p, v, m = pipeline, virtual_stages, micro_batches
    if schedule not in SPLIT_BACKWARD:
        numerator, denominator = bubble_ratio(schedule, p, v, m)
        return (forward_s + backward_s) * numerator / denominator
    # Qi et al. 2023, table 2, per micro-batch on the stage; hops = p - 1.
    f, b, w = (x / m for x in pass_seconds(forward_s, backward_s, recomputed_s))
    hops = p - 1
    h1 = hops * (f + b - w)
    if schedule is PipelineSchedule.zero_bubble_h1:  # over v chunks of 1/v the passes (ScheduleInterleavedZeroBubble)
        return h1 / v
    if schedule is PipelineSchedule.zero_bubble:  # never above ZB-H1's, a schedule within ZB-H2's memory
        residual = hops * maximum(f + b - 2 * w, 0.0 * f)
        return minimum(residual + (0.0 if post_validation else 1.0) * hops * f, h1)
    # ZB-V (Qi et al. 2024): zero when W + 2B >= 2F and W + 2F >= 2B; the excess at chunk size (half a stage).
    excess = maximum(maximum(2 * f - w - 2 * b, 2 * b - w - 2 * f), 0.0 * f)
    return hops * excess / 2 + (0.0 if post_validation else 1.0) * hops * f / 2


def lighter_ends_layers(layers: int, count: int, lighter: int) -> tuple[int, ...] | None:
    """Each of ``count`` model chunks' layers with the first and the last chunk ``lighter`` layers below the even
    split's layers // count (they also hold the input embedding and the output layer and loss), the rest spread
    over the middle chunks as the even split spreads them (the later ones one more): a per-chunk layout as
    Megatron-Core's --pipeline-model-parallel-layout takes it (without model chunks and with even middle stages,
    Megatron-LM's --decoder-first-pipeline-num-layers and --decoder-last-pipeline-num-layers). None where there is
    no middle chunk to take the layers, or the ends would hold fewer than none."""
    ends, middle = layers // count - lighter, count - 2
    if middle < 1 or ends < 0:
        return None
    base, extra = divmod(layers - 2 * ends, middle)
    return (ends, *(base + (1 if j >= middle - extra else 0) for j in range(middle)), ends)


def lighter_ends_fit(layers: int, count: IntLike, lighter: int) -> Any:
    """Where lighter_ends_layers gives a split (a bool, or an array for many layouts)."""
    return (count >= 3) & (layers // maximum(count, 1) >= lighter)
