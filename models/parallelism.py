"""Contract of a layout: the mesh of tensor, pipeline, context, expert and data parallelism."""

from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, Field, StrictBool

from models.base import StrictValue

MAX_DEGREE = 1_000_000
MAX_VIRTUAL_STAGES = 1_000
MAX_PIPELINE_RUNS = 1_000_000  # training.gradient_accumulation_steps' own bound: runs divide the micro-batches
MAX_PIPELINE_LAYERS = 10_000  # ModelSpec.layers' own bound: no stage list is longer than the model's layers + 2


class PipelineSchedule(StrEnum):
    """How micro-batches flow through the pipeline stages: each one a framework runs."""

    one_f_one_b = "1f1b"
    interleaved = "interleaved"
    gpipe = "gpipe"
    zero_bubble = "zero_bubble"  # ZB-H2 (Qi et al. 2023)
    zero_bubble_h1 = "zb_h1"
    zero_bubble_v = "zb_v"


class ContextAttention(StrEnum):
    """How a context-parallel group exchanges each layer's keys and values."""

    ring = "ring"
    all_gather = "all_gather"


class ParallelGroup(StrEnum):
    """A dimension of the mesh: the ranks that talk to each other for it."""

    data = "data"
    tensor = "tensor"
    context = "context"
    pipeline = "pipeline"
    expert = "expert"


class Parallelism(StrictValue):
    """Degrees of the mesh beside data parallelism (torchtitan's ParallelDims, Megatron-LM's PTD-P).

    The data-parallel degree is what is left: d = cluster.world_size / (tensor x pipeline x context).
    Ranks are placed tensor innermost, then context, data, pipeline outermost (Megatron-LM's order),
    so a tensor group of up to gpus_per_node GPUs stays inside a node. The arrangement (ddp, zero1,
    zero2, zero3, ...) shards over the data-parallel group x context, as Megatron's distributed
    optimizer does; expert weights shard over the expert-data-parallel group (d x context / expert, or
    world / (pipeline x expert_tensor x expert) with an expert tensor degree of its own, Megatron-Core's
    expert grid).
    """

    tensor: int = Field(default=1, ge=1, le=MAX_DEGREE, description="Tensor-parallel degree (t).")
    pipeline: int = Field(default=1, ge=1, le=MAX_DEGREE, description="Pipeline stages (p).")
    context: int = Field(default=1, ge=1, le=MAX_DEGREE, description="Context-parallel degree (c): the sequence / c.")
    expert: int = Field(
        default=1,
        ge=1,
        le=MAX_DEGREE,
        description="Expert-parallel degree (e), carved out of data x context for the expert weights.",
    )
    expert_tensor: int | None = Field(
        default=None,
        ge=1,
        le=MAX_DEGREE,
        description="Expert tensor-parallel degree: each routed expert's matrices split over this many ranks "
        "(Megatron-LM's --expert-tensor-parallel-size). Omitted: the tensor degree. The expert weights then "
        "lay out as pipeline x expert_tensor x expert x expert-data = world_size, and their model states shard "
        "over the expert-data-parallel group of world_size / (pipeline x expert_tensor x expert) ranks.",
    )
    context_attention: ContextAttention = Field(
        default=ContextAttention.ring,
        description="How the context group exchanges keys and values: ring (Megatron-Core's and TransformerEngine's "
        "p2p ring attention, Liu et al. 2023: c - 1 steps per layer, each step's K/V transfer hidden only behind "
        "that step's attention core) or all_gather (Llama 3's, Dubey et al. 2024 section 3.3.2: K and V "
        "all-gathered once per layer before attention, their gradients reduce-scattered, not overlapped). "
        "No effect with context 1.",
    )
    sequence_parallel: StrictBool = Field(
        default=False,
        description="Sequence parallelism with tensor parallelism (Korthikanti et al. 2022): norms and dropout "
        "split along the sequence, all-reduces become all-gather + reduce-scatter.",
    )
    pipeline_schedule: PipelineSchedule = Field(
        default=PipelineSchedule.one_f_one_b,
        description="1f1b (PipeDream-Flush: Megatron-Core, torch.distributed.pipelining Schedule1F1B), interleaved "
        "(virtual_stages chunks per stage: Megatron-Core, ScheduleInterleaved1F1B), gpipe (ScheduleGPipe), and the "
        "zero-bubble schedules of Qi et al. 2023, which split the backward into input and weight gradients: zb_h1 "
        "(ZB-H1, 1F1B's memory, bubble (p - 1)(T_F + T_B - T_W), over v with virtual_stages: "
        "ScheduleInterleavedZeroBubble), zero_bubble (ZB-H2, "
        "2p - 1 micro-batches in flight on the first stage, so at least 2p - 1 per step; bubble (p - 1)(T_F + T_B - "
        "2 T_W), plus its warm-up skew unless optimizer_post_validation: the paper's Megatron-LM fork "
        "sail-sg/zero-bubble-pipeline-parallelism) and zb_v (ZB-V of Qi et al. 2024, two chunks per stage in a V, "
        "1F1B's memory: ScheduleZBVZeroBubble, torchtitan). Pass times come from the efficiency model.",
    )
    optimizer_post_validation: StrictBool = Field(
        default=False,
        description="Step the optimizer before the global gradient-norm and inf/NaN all-reduce and roll back if it "
        "says so (Qi et al. 2023, section 4; the sail-sg fork's --enable-optimizer-post-validation). Without it that "
        "all-reduce is a barrier at every step and zero_bubble and zb_v pay their warm-up skew as a bubble. Read only "
        "by those two schedules.",
    )
    virtual_stages: int = Field(
        default=1,
        ge=1,
        le=MAX_VIRTUAL_STAGES,
        description="Model chunks per pipeline stage (v) of the interleaved schedule, or of zb_h1 over several "
        "stages per rank (torch.distributed.pipelining's ScheduleInterleavedZeroBubble); 1 otherwise.",
    )
    pipeline_runs: int = Field(
        default=1,
        ge=1,
        le=MAX_PIPELINE_RUNS,
        description="Times the pipeline schedule runs in one optimizer step, each over micro_batches / pipeline_runs "
        "micro-batches with its own fill and drain, and, with parameters sharded (FSDP), its own gather of the "
        "stage's parameters and reduce-scatter of its gradients. torchtitan and NeMo Automodel accumulate "
        "gradients over local batches, running the schedule once per local batch: pipeline_runs is their gradient "
        "accumulation steps, global batch / (local batch x d), and micro_batch_size their pipeline micro-batch "
        "size. 1: one schedule over every micro-batch of the step, as Megatron-Core runs it. Must divide the "
        "micro-batches; read only with pipeline parallelism.",
    )
    pipeline_layers: list[Annotated[int, Field(ge=0, le=MAX_PIPELINE_LAYERS)]] | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_PIPELINE_LAYERS + 2,
        description="Transformer layers of each pipeline stage, stage 0 first (p entries), or of each model chunk "
        "in the model's order (p x virtual_stages entries: chunk k runs on stage k mod p, Megatron-Core's "
        "--pipeline-model-parallel-layout order; 2p for zb_v, whose V puts chunk k on stage k and then on "
        "2p - 1 - k); they sum to the model's layers. Only the first and the last "
        "chunk may hold none (the input embedding alone, or the output layer and loss alone). With p entries and "
        "virtual_stages v > 1 each stage's layers split evenly over its v chunks (Megatron-LM requires each "
        "divisible by v). Megatron-LM's --decoder-first-pipeline-num-layers F and --decoder-last-pipeline-num-layers "
        "K are [F, M, ..., M, K] with M = (layers - F - K) / (p - 2). Omitted: an even split, the last "
        "layers mod (p x v) chunks one layer more, or as pipeline_embedding_layers and pipeline_loss_layers say.",
    )
    pipeline_embedding_layers: int = Field(
        default=0,
        ge=0,
        le=MAX_PIPELINE_LAYERS,
        description="Layers the input embedding counts as when the layers are split over the pipeline: the "
        "layers + embedding + loss layers split evenly over the p x v chunks (the first chunks one more where they "
        "do not divide), the first chunk then holding that many transformer layers fewer. 1 is Megatron-LM's "
        "--account-for-embedding-in-pipeline-split and torchtitan's default "
        "pipeline_parallel_first_stage_less_layers. Not with pipeline_layers.",
    )
    pipeline_loss_layers: int = Field(
        default=0,
        ge=0,
        le=MAX_PIPELINE_LAYERS,
        description="Layers the output layer and loss count as in the split, taken from the last chunk: 1 is "
        "Megatron-LM's --account-for-loss-in-pipeline-split and torchtitan's default "
        "pipeline_parallel_last_stage_less_layers. Not with pipeline_layers.",
    )

    @property
    def model_parallel(self) -> bool:
        """Some model-parallel degree above 1 (an expert tensor degree given above 1 included): a layout, not data
        parallelism alone."""
        degrees = (self.tensor, self.pipeline, self.context, self.expert)
        return degrees != (1, 1, 1, 1) or self.expert_tensor not in (None, 1)


class ParallelismEcho(BaseModel):
    """The layout as planned: the request's degrees with what follows from them."""

    tensor: int
    pipeline: int
    context: int
    expert: int
    expert_tensor: int = Field(description="Expert tensor-parallel degree: as requested, else the tensor degree.")
    data: int = Field(description="Data-parallel degree d = world_size / (tensor x pipeline x context).")
    context_attention: ContextAttention = Field(description="How the context group exchanges keys and values.")
    sequence_parallel: bool
    pipeline_schedule: PipelineSchedule
    virtual_stages: int
    pipeline_layers: list[int] = Field(
        default_factory=list,
        description="Transformer layers of each model chunk in the model's order (p x v entries; p with one chunk "
        "per stage), as split; empty without pipelining.",
    )
    optimizer_post_validation: bool = Field(default=False, description="As requested.")
    micro_batches: int = Field(
        description="Micro-batches per optimizer step on each pipeline: global_batch_size / (micro_batch_size x d), "
        "or training.gradient_accumulation_steps."
    )
    pipeline_runs: int = Field(
        default=1,
        description="Runs of the pipeline schedule per optimizer step, each over micro_batches / pipeline_runs "
        "micro-batches: as requested.",
    )
    global_batch_size: int = Field(description="Sequences per optimizer step: micro_batches x micro_batch_size x d.")
    expert_data: int = Field(
        description="Ranks sharing one copy of the expert weights: world_size / (pipeline x expert_tensor x "
        "expert), data x context / expert when expert_tensor is the tensor degree."
    )
    groups: list["GroupPlacement"] = Field(description="Where each group's ranks sit: inside a node or across nodes.")


class GroupPlacement(BaseModel):
    group: ParallelGroup
    ranks: int = Field(description="GPUs in one group.")
    stride: int = Field(description="Rank distance between neighbours in the group (tensor innermost).")
    spans_nodes: bool = Field(description="Whether one group's ranks sit on more than one node.")


class StageMemory(BaseModel):
    """One pipeline stage: the bytes of each of its GPUs."""

    stage: int = Field(description="0 for the first stage (with the input embedding).")
    layers: int = Field(description="Transformer layers on the stage (all its virtual chunks).")
    parameters_per_gpu: int = Field(description="Parameters each GPU of the stage holds (its tensor/expert share).")
    model_state_bytes: int = Field(description="Model states on each GPU of the stage, sharded over the data group.")
    working_set_bytes: int
    activations_bytes: int = Field(description="Activations of the micro-batches the stage holds in flight.")
    in_flight_micro_batches: float = Field(description="Micro-batches of the stage's layers held at the peak.")
    per_gpu_bytes: int
    fits: bool


ParallelismEcho.model_rebuild()
