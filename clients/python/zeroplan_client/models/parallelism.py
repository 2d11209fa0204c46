from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.context_attention import ContextAttention
from ..models.pipeline_schedule import PipelineSchedule
from ..types import UNSET, Unset

T = TypeVar("T", bound="Parallelism")


@_attrs_define
class Parallelism:
    """Degrees of the mesh beside data parallelism (torchtitan's ParallelDims, Megatron-LM's PTD-P).

    The data-parallel degree is what is left: d = cluster.world_size / (tensor x pipeline x context).
    Ranks are placed tensor innermost, then context, data, pipeline outermost (Megatron-LM's order),
    so a tensor group of up to gpus_per_node GPUs stays inside a node. The arrangement (ddp, zero1,
    zero2, zero3, ...) shards over the data-parallel group x context, as Megatron's distributed
    optimizer does; expert weights shard over the expert-data-parallel group (d x context / expert, or
    world / (pipeline x expert_tensor x expert) with an expert tensor degree of its own, Megatron-Core's
    expert grid).

        Attributes:
            context (int | Unset): Context-parallel degree (c): the sequence / c. Default: 1.
            context_attention (ContextAttention | Unset): How a context-parallel group exchanges each layer's keys and
                values.
            expert (int | Unset): Expert-parallel degree (e), carved out of data x context for the expert weights. Default:
                1.
            expert_tensor (int | None | Unset): Expert tensor-parallel degree: each routed expert's matrices split over this
                many ranks (Megatron-LM's --expert-tensor-parallel-size). Omitted: the tensor degree. The expert weights then
                lay out as pipeline x expert_tensor x expert x expert-data = world_size, and their model states shard over the
                expert-data-parallel group of world_size / (pipeline x expert_tensor x expert) ranks.
            optimizer_post_validation (bool | Unset): Step the optimizer before the global gradient-norm and inf/NaN all-
                reduce and roll back if it says so (Qi et al. 2023, section 4; the sail-sg fork's --enable-optimizer-post-
                validation). Without it that all-reduce is a barrier at every step and zero_bubble and zb_v pay their warm-up
                skew as a bubble. Read only by those two schedules. Default: False.
            pipeline (int | Unset): Pipeline stages (p). Default: 1.
            pipeline_embedding_layers (int | Unset): Layers the input embedding counts as when the layers are split over the
                pipeline: the layers + embedding + loss layers split evenly over the p x v chunks (the first chunks one more
                where they do not divide), the first chunk then holding that many transformer layers fewer. 1 is Megatron-LM's
                --account-for-embedding-in-pipeline-split and torchtitan's default pipeline_parallel_first_stage_less_layers.
                Not with pipeline_layers. Default: 0.
            pipeline_layers (list[int] | None | Unset): Transformer layers of each pipeline stage, stage 0 first (p
                entries), or of each model chunk in the model's order (p x virtual_stages entries: chunk k runs on stage k mod
                p, Megatron-Core's --pipeline-model-parallel-layout order; 2p for zb_v, whose V puts chunk k on stage k and then
                on 2p - 1 - k); they sum to the model's layers. Only the first and the last chunk may hold none (the input
                embedding alone, or the output layer and loss alone). With p entries and virtual_stages v > 1 each stage's
                layers split evenly over its v chunks (Megatron-LM requires each divisible by v). Megatron-LM's --decoder-first-
                pipeline-num-layers F and --decoder-last-pipeline-num-layers K are [F, M, ..., M, K] with M = (layers - F - K) /
                (p - 2). Omitted: an even split, the last layers mod (p x v) chunks one layer more, or as
                pipeline_embedding_layers and pipeline_loss_layers say.
            pipeline_loss_layers (int | Unset): Layers the output layer and loss count as in the split, taken from the last
                chunk: 1 is Megatron-LM's --account-for-loss-in-pipeline-split and torchtitan's default
                pipeline_parallel_last_stage_less_layers. Not with pipeline_layers. Default: 0.
            pipeline_runs (int | Unset): Times the pipeline schedule runs in one optimizer step, each over micro_batches /
                pipeline_runs micro-batches with its own fill and drain, and, with parameters sharded (FSDP), its own gather of
                the stage's parameters and reduce-scatter of its gradients. torchtitan and NeMo Automodel accumulate gradients
                over local batches, running the schedule once per local batch: pipeline_runs is their gradient accumulation
                steps, global batch / (local batch x d), and micro_batch_size their pipeline micro-batch size. 1: one schedule
                over every micro-batch of the step, as Megatron-Core runs it. Must divide the micro-batches; read only with
                pipeline parallelism. Default: 1.
            pipeline_schedule (PipelineSchedule | Unset): How micro-batches flow through the pipeline stages: each one a
                framework runs.
            sequence_parallel (bool | Unset): Sequence parallelism with tensor parallelism (Korthikanti et al. 2022): norms
                and dropout split along the sequence, all-reduces become all-gather + reduce-scatter. Default: False.
            tensor (int | Unset): Tensor-parallel degree (t). Default: 1.
            virtual_stages (int | Unset): Model chunks per pipeline stage (v) of the interleaved schedule, or of zb_h1 over
                several stages per rank (torch.distributed.pipelining's ScheduleInterleavedZeroBubble); 1 otherwise. Default: 1.
    """

    context: int | Unset = 1
    context_attention: ContextAttention | Unset = UNSET
    expert: int | Unset = 1
    expert_tensor: int | None | Unset = UNSET
    optimizer_post_validation: bool | Unset = False
    pipeline: int | Unset = 1
    pipeline_embedding_layers: int | Unset = 0
    pipeline_layers: list[int] | None | Unset = UNSET
    pipeline_loss_layers: int | Unset = 0
    pipeline_runs: int | Unset = 1
    pipeline_schedule: PipelineSchedule | Unset = UNSET
    sequence_parallel: bool | Unset = False
    tensor: int | Unset = 1
    virtual_stages: int | Unset = 1

    def to_dict(self) -> dict[str, Any]:
        context = self.context

        context_attention: str | Unset = UNSET
        if not isinstance(self.context_attention, Unset):
            context_attention = self.context_attention.value

        expert = self.expert

        expert_tensor: int | None | Unset
        if isinstance(self.expert_tensor, Unset):
            expert_tensor = UNSET
        else:
            expert_tensor = self.expert_tensor

        optimizer_post_validation = self.optimizer_post_validation

        pipeline = self.pipeline

        pipeline_embedding_layers = self.pipeline_embedding_layers

        pipeline_layers: list[int] | None | Unset
        if isinstance(self.pipeline_layers, Unset):
            pipeline_layers = UNSET
        elif isinstance(self.pipeline_layers, list):
            pipeline_layers = self.pipeline_layers

        else:
            pipeline_layers = self.pipeline_layers

        pipeline_loss_layers = self.pipeline_loss_layers

        pipeline_runs = self.pipeline_runs

        pipeline_schedule: str | Unset = UNSET
        if not isinstance(self.pipeline_schedule, Unset):
            pipeline_schedule = self.pipeline_schedule.value

        sequence_parallel = self.sequence_parallel

        tensor = self.tensor

        virtual_stages = self.virtual_stages

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if context is not UNSET:
            field_dict["context"] = context
        if context_attention is not UNSET:
            field_dict["context_attention"] = context_attention
        if expert is not UNSET:
            field_dict["expert"] = expert
        if expert_tensor is not UNSET:
            field_dict["expert_tensor"] = expert_tensor
        if optimizer_post_validation is not UNSET:
            field_dict["optimizer_post_validation"] = optimizer_post_validation
        if pipeline is not UNSET:
            field_dict["pipeline"] = pipeline
        if pipeline_embedding_layers is not UNSET:
            field_dict["pipeline_embedding_layers"] = pipeline_embedding_layers
        if pipeline_layers is not UNSET:
            field_dict["pipeline_layers"] = pipeline_layers
        if pipeline_loss_layers is not UNSET:
            field_dict["pipeline_loss_layers"] = pipeline_loss_layers
        if pipeline_runs is not UNSET:
            field_dict["pipeline_runs"] = pipeline_runs
        if pipeline_schedule is not UNSET:
            field_dict["pipeline_schedule"] = pipeline_schedule
        if sequence_parallel is not UNSET:
            field_dict["sequence_parallel"] = sequence_parallel
        if tensor is not UNSET:
            field_dict["tensor"] = tensor
        if virtual_stages is not UNSET:
            field_dict["virtual_stages"] = virtual_stages

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        context = d.pop("context", UNSET)

        _context_attention = d.pop("context_attention", UNSET)
        context_attention: ContextAttention | Unset
        if isinstance(_context_attention, Unset):
            context_attention = UNSET
        else:
            context_attention = ContextAttention(_context_attention)

        expert = d.pop("expert", UNSET)

        def _parse_expert_tensor(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        expert_tensor = _parse_expert_tensor(d.pop("expert_tensor", UNSET))

        optimizer_post_validation = d.pop("optimizer_post_validation", UNSET)

        pipeline = d.pop("pipeline", UNSET)

        pipeline_embedding_layers = d.pop("pipeline_embedding_layers", UNSET)

        def _parse_pipeline_layers(data: object) -> list[int] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                pipeline_layers_type_0 = cast(list[int], data)

                return pipeline_layers_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[int] | None | Unset, data)

        pipeline_layers = _parse_pipeline_layers(d.pop("pipeline_layers", UNSET))

        pipeline_loss_layers = d.pop("pipeline_loss_layers", UNSET)

        pipeline_runs = d.pop("pipeline_runs", UNSET)

        _pipeline_schedule = d.pop("pipeline_schedule", UNSET)
        pipeline_schedule: PipelineSchedule | Unset
        if isinstance(_pipeline_schedule, Unset):
            pipeline_schedule = UNSET
        else:
            pipeline_schedule = PipelineSchedule(_pipeline_schedule)

        sequence_parallel = d.pop("sequence_parallel", UNSET)

        tensor = d.pop("tensor", UNSET)

        virtual_stages = d.pop("virtual_stages", UNSET)

        parallelism = cls(
            context=context,
            context_attention=context_attention,
            expert=expert,
            expert_tensor=expert_tensor,
            optimizer_post_validation=optimizer_post_validation,
            pipeline=pipeline,
            pipeline_embedding_layers=pipeline_embedding_layers,
            pipeline_layers=pipeline_layers,
            pipeline_loss_layers=pipeline_loss_layers,
            pipeline_runs=pipeline_runs,
            pipeline_schedule=pipeline_schedule,
            sequence_parallel=sequence_parallel,
            tensor=tensor,
            virtual_stages=virtual_stages,
        )

        return parallelism
