from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.arrangement_name import ArrangementName
from ..models.pipeline_schedule import PipelineSchedule
from ..models.pipeline_split import PipelineSplit
from ..models.recompute import Recompute
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.axis_bounds import AxisBounds


T = TypeVar("T", bound="SearchRestrict")


@_attrs_define
class SearchRestrict:
    """Restrictions on the search space; a field left out searches its default candidates.

    Attributes:
        arrangement (list[ArrangementName] | None | Unset): Arrangements allowed (no_shard is ddp, full_shard zero3).
            Default: ddp, zero1, zero2, zero3, shard_grad_op, hybrid (hybrid only without model parallelism, as /v1/plan
            models it).
        context (AxisBounds | list[int] | None | Unset): Context-parallel degrees allowed. Default: 1, 2, 4, 8, 16. A
            list fixes the values (each distinct); {min, max} bounds the default candidates.
        expert (AxisBounds | list[int] | None | Unset): Expert-parallel degrees allowed. Default: 1 for a dense model;
            the powers of two dividing the experts for a mixture of experts. A list fixes the values (each distinct); {min,
            max} bounds the default candidates.
        micro_batch_size (AxisBounds | list[int] | None | Unset): Micro-batch sizes allowed. Default: the powers of two
            up to 64 (and the global batch). A list fixes the values (each distinct); {min, max} bounds the default
            candidates.
        offload_optimizer (list[bool] | None | Unset): Optimizer offload off/on. Default: both.
        pipeline (AxisBounds | list[int] | None | Unset): Pipeline-parallel degrees allowed. Default: the powers of two
            up to the model's layers and the divisors of its layers. A list fixes the values (each distinct); {min, max}
            bounds the default candidates.
        pipeline_schedule (list[PipelineSchedule] | None | Unset): Pipeline schedules allowed for layouts with pipeline
            parallelism. Default: all six.
        pipeline_split (list[PipelineSplit] | None | Unset): Splits of the layers tried on every layout with pipeline
            parallelism, each written into the row's request: even (layers / (pipeline x virtual stages) a model chunk, the
            last chunks one more); embedding_loss (the input embedding and the loss each counted as a layer:
            pipeline_embedding_layers and pipeline_loss_layers 1, Megatron-LM's --account-for-embedding-in-pipeline-split
            and --account-for-loss-in-pipeline-split, as Llama 3.1 405B ran); lighter_ends_1, lighter_ends_2 (the first and
            the last model chunk one or two layers below layers // chunks, the others spreading the rest: pipeline_layers
            per chunk, as Megatron-Core's --pipeline-model-parallel-layout places them; without model chunks and with the
            middle stages even, Megatron-LM's --decoder-first-pipeline-num-layers and --decoder-last-pipeline-num-layers).
            Default: the request's own split (parallelism.pipeline_layers, or its pipeline_embedding_layers and
            pipeline_loss_layers, kept by every pipelined layout), else each pipelined layout under the one of the four
            whose slowest stage does the least of the model's FLOPs a token (the output layer's FLOPs on its stage; the
            first of equals, in this order).
        recompute (list[Recompute] | None | Unset): Recomputation modes allowed. Default: none, selective, full.
        sequence_parallel (list[bool] | None | Unset): Sequence parallelism off/on for layouts with tensor parallelism.
            Default: both.
        tensor (AxisBounds | list[int] | None | Unset): Tensor-parallel degrees allowed. Default: the powers of two up
            to gpus_per_node. A list fixes the values (each distinct); {min, max} bounds the default candidates.
        virtual_stages (AxisBounds | list[int] | None | Unset): Virtual stages of the interleaved schedule and of zb_h1
            allowed. Default: 2 to 8 (interleaved with 1 is 1F1B; zb_h1 is also offered without, unless a restriction here
            leaves out 1). A list fixes the values (each distinct); {min, max} bounds the default candidates.
        world_size (AxisBounds | list[int] | None | Unset): World sizes allowed, of cluster.world_size's. A list fixes
            the values (each distinct); {min, max} bounds the default candidates.
    """

    arrangement: list[ArrangementName] | None | Unset = UNSET
    context: AxisBounds | list[int] | None | Unset = UNSET
    expert: AxisBounds | list[int] | None | Unset = UNSET
    micro_batch_size: AxisBounds | list[int] | None | Unset = UNSET
    offload_optimizer: list[bool] | None | Unset = UNSET
    pipeline: AxisBounds | list[int] | None | Unset = UNSET
    pipeline_schedule: list[PipelineSchedule] | None | Unset = UNSET
    pipeline_split: list[PipelineSplit] | None | Unset = UNSET
    recompute: list[Recompute] | None | Unset = UNSET
    sequence_parallel: list[bool] | None | Unset = UNSET
    tensor: AxisBounds | list[int] | None | Unset = UNSET
    virtual_stages: AxisBounds | list[int] | None | Unset = UNSET
    world_size: AxisBounds | list[int] | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.axis_bounds import AxisBounds  # noqa: PLC0415

        arrangement: list[str] | None | Unset
        if isinstance(self.arrangement, Unset):
            arrangement = UNSET
        elif isinstance(self.arrangement, list):
            arrangement = []
            for arrangement_type_0_item_data in self.arrangement:
                arrangement_type_0_item = arrangement_type_0_item_data.value
                arrangement.append(arrangement_type_0_item)

        else:
            arrangement = self.arrangement

        context: dict[str, Any] | list[int] | None | Unset
        if isinstance(self.context, Unset):
            context = UNSET
        elif isinstance(self.context, list):
            context = self.context

        elif isinstance(self.context, AxisBounds):
            context = self.context.to_dict()
        else:
            context = self.context

        expert: dict[str, Any] | list[int] | None | Unset
        if isinstance(self.expert, Unset):
            expert = UNSET
        elif isinstance(self.expert, list):
            expert = self.expert

        elif isinstance(self.expert, AxisBounds):
            expert = self.expert.to_dict()
        else:
            expert = self.expert

        micro_batch_size: dict[str, Any] | list[int] | None | Unset
        if isinstance(self.micro_batch_size, Unset):
            micro_batch_size = UNSET
        elif isinstance(self.micro_batch_size, list):
            micro_batch_size = self.micro_batch_size

        elif isinstance(self.micro_batch_size, AxisBounds):
            micro_batch_size = self.micro_batch_size.to_dict()
        else:
            micro_batch_size = self.micro_batch_size

        offload_optimizer: list[bool] | None | Unset
        if isinstance(self.offload_optimizer, Unset):
            offload_optimizer = UNSET
        elif isinstance(self.offload_optimizer, list):
            offload_optimizer = self.offload_optimizer

        else:
            offload_optimizer = self.offload_optimizer

        pipeline: dict[str, Any] | list[int] | None | Unset
        if isinstance(self.pipeline, Unset):
            pipeline = UNSET
        elif isinstance(self.pipeline, list):
            pipeline = self.pipeline

        elif isinstance(self.pipeline, AxisBounds):
            pipeline = self.pipeline.to_dict()
        else:
            pipeline = self.pipeline

        pipeline_schedule: list[str] | None | Unset
        if isinstance(self.pipeline_schedule, Unset):
            pipeline_schedule = UNSET
        elif isinstance(self.pipeline_schedule, list):
            pipeline_schedule = []
            for pipeline_schedule_type_0_item_data in self.pipeline_schedule:
                pipeline_schedule_type_0_item = pipeline_schedule_type_0_item_data.value
                pipeline_schedule.append(pipeline_schedule_type_0_item)

        else:
            pipeline_schedule = self.pipeline_schedule

        pipeline_split: list[str] | None | Unset
        if isinstance(self.pipeline_split, Unset):
            pipeline_split = UNSET
        elif isinstance(self.pipeline_split, list):
            pipeline_split = []
            for pipeline_split_type_0_item_data in self.pipeline_split:
                pipeline_split_type_0_item = pipeline_split_type_0_item_data.value
                pipeline_split.append(pipeline_split_type_0_item)

        else:
            pipeline_split = self.pipeline_split

        recompute: list[str] | None | Unset
        if isinstance(self.recompute, Unset):
            recompute = UNSET
        elif isinstance(self.recompute, list):
            recompute = []
            for recompute_type_0_item_data in self.recompute:
                recompute_type_0_item = recompute_type_0_item_data.value
                recompute.append(recompute_type_0_item)

        else:
            recompute = self.recompute

        sequence_parallel: list[bool] | None | Unset
        if isinstance(self.sequence_parallel, Unset):
            sequence_parallel = UNSET
        elif isinstance(self.sequence_parallel, list):
            sequence_parallel = self.sequence_parallel

        else:
            sequence_parallel = self.sequence_parallel

        tensor: dict[str, Any] | list[int] | None | Unset
        if isinstance(self.tensor, Unset):
            tensor = UNSET
        elif isinstance(self.tensor, list):
            tensor = self.tensor

        elif isinstance(self.tensor, AxisBounds):
            tensor = self.tensor.to_dict()
        else:
            tensor = self.tensor

        virtual_stages: dict[str, Any] | list[int] | None | Unset
        if isinstance(self.virtual_stages, Unset):
            virtual_stages = UNSET
        elif isinstance(self.virtual_stages, list):
            virtual_stages = self.virtual_stages

        elif isinstance(self.virtual_stages, AxisBounds):
            virtual_stages = self.virtual_stages.to_dict()
        else:
            virtual_stages = self.virtual_stages

        world_size: dict[str, Any] | list[int] | None | Unset
        if isinstance(self.world_size, Unset):
            world_size = UNSET
        elif isinstance(self.world_size, list):
            world_size = self.world_size

        elif isinstance(self.world_size, AxisBounds):
            world_size = self.world_size.to_dict()
        else:
            world_size = self.world_size

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if arrangement is not UNSET:
            field_dict["arrangement"] = arrangement
        if context is not UNSET:
            field_dict["context"] = context
        if expert is not UNSET:
            field_dict["expert"] = expert
        if micro_batch_size is not UNSET:
            field_dict["micro_batch_size"] = micro_batch_size
        if offload_optimizer is not UNSET:
            field_dict["offload_optimizer"] = offload_optimizer
        if pipeline is not UNSET:
            field_dict["pipeline"] = pipeline
        if pipeline_schedule is not UNSET:
            field_dict["pipeline_schedule"] = pipeline_schedule
        if pipeline_split is not UNSET:
            field_dict["pipeline_split"] = pipeline_split
        if recompute is not UNSET:
            field_dict["recompute"] = recompute
        if sequence_parallel is not UNSET:
            field_dict["sequence_parallel"] = sequence_parallel
        if tensor is not UNSET:
            field_dict["tensor"] = tensor
        if virtual_stages is not UNSET:
            field_dict["virtual_stages"] = virtual_stages
        if world_size is not UNSET:
            field_dict["world_size"] = world_size

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.axis_bounds import AxisBounds  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_arrangement(data: object) -> list[ArrangementName] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                arrangement_type_0 = []
                _arrangement_type_0 = data
                for arrangement_type_0_item_data in _arrangement_type_0:
                    arrangement_type_0_item = ArrangementName(arrangement_type_0_item_data)

                    arrangement_type_0.append(arrangement_type_0_item)

                return arrangement_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ArrangementName] | None | Unset, data)

        arrangement = _parse_arrangement(d.pop("arrangement", UNSET))

        def _parse_context(data: object) -> AxisBounds | list[int] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                context_type_0 = cast(list[int], data)

                return context_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                context_type_1 = AxisBounds.from_dict(data)

                return context_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AxisBounds | list[int] | None | Unset, data)

        context = _parse_context(d.pop("context", UNSET))

        def _parse_expert(data: object) -> AxisBounds | list[int] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                expert_type_0 = cast(list[int], data)

                return expert_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                expert_type_1 = AxisBounds.from_dict(data)

                return expert_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AxisBounds | list[int] | None | Unset, data)

        expert = _parse_expert(d.pop("expert", UNSET))

        def _parse_micro_batch_size(data: object) -> AxisBounds | list[int] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                micro_batch_size_type_0 = cast(list[int], data)

                return micro_batch_size_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                micro_batch_size_type_1 = AxisBounds.from_dict(data)

                return micro_batch_size_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AxisBounds | list[int] | None | Unset, data)

        micro_batch_size = _parse_micro_batch_size(d.pop("micro_batch_size", UNSET))

        def _parse_offload_optimizer(data: object) -> list[bool] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                offload_optimizer_type_0 = cast(list[bool], data)

                return offload_optimizer_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[bool] | None | Unset, data)

        offload_optimizer = _parse_offload_optimizer(d.pop("offload_optimizer", UNSET))

        def _parse_pipeline(data: object) -> AxisBounds | list[int] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                pipeline_type_0 = cast(list[int], data)

                return pipeline_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                pipeline_type_1 = AxisBounds.from_dict(data)

                return pipeline_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AxisBounds | list[int] | None | Unset, data)

        pipeline = _parse_pipeline(d.pop("pipeline", UNSET))

        def _parse_pipeline_schedule(data: object) -> list[PipelineSchedule] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                pipeline_schedule_type_0 = []
                _pipeline_schedule_type_0 = data
                for pipeline_schedule_type_0_item_data in _pipeline_schedule_type_0:
                    pipeline_schedule_type_0_item = PipelineSchedule(pipeline_schedule_type_0_item_data)

                    pipeline_schedule_type_0.append(pipeline_schedule_type_0_item)

                return pipeline_schedule_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[PipelineSchedule] | None | Unset, data)

        pipeline_schedule = _parse_pipeline_schedule(d.pop("pipeline_schedule", UNSET))

        def _parse_pipeline_split(data: object) -> list[PipelineSplit] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                pipeline_split_type_0 = []
                _pipeline_split_type_0 = data
                for pipeline_split_type_0_item_data in _pipeline_split_type_0:
                    pipeline_split_type_0_item = PipelineSplit(pipeline_split_type_0_item_data)

                    pipeline_split_type_0.append(pipeline_split_type_0_item)

                return pipeline_split_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[PipelineSplit] | None | Unset, data)

        pipeline_split = _parse_pipeline_split(d.pop("pipeline_split", UNSET))

        def _parse_recompute(data: object) -> list[Recompute] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                recompute_type_0 = []
                _recompute_type_0 = data
                for recompute_type_0_item_data in _recompute_type_0:
                    recompute_type_0_item = Recompute(recompute_type_0_item_data)

                    recompute_type_0.append(recompute_type_0_item)

                return recompute_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Recompute] | None | Unset, data)

        recompute = _parse_recompute(d.pop("recompute", UNSET))

        def _parse_sequence_parallel(data: object) -> list[bool] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                sequence_parallel_type_0 = cast(list[bool], data)

                return sequence_parallel_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[bool] | None | Unset, data)

        sequence_parallel = _parse_sequence_parallel(d.pop("sequence_parallel", UNSET))

        def _parse_tensor(data: object) -> AxisBounds | list[int] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                tensor_type_0 = cast(list[int], data)

                return tensor_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                tensor_type_1 = AxisBounds.from_dict(data)

                return tensor_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AxisBounds | list[int] | None | Unset, data)

        tensor = _parse_tensor(d.pop("tensor", UNSET))

        def _parse_virtual_stages(data: object) -> AxisBounds | list[int] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                virtual_stages_type_0 = cast(list[int], data)

                return virtual_stages_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                virtual_stages_type_1 = AxisBounds.from_dict(data)

                return virtual_stages_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AxisBounds | list[int] | None | Unset, data)

        virtual_stages = _parse_virtual_stages(d.pop("virtual_stages", UNSET))

        def _parse_world_size(data: object) -> AxisBounds | list[int] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                world_size_type_0 = cast(list[int], data)

                return world_size_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                world_size_type_1 = AxisBounds.from_dict(data)

                return world_size_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AxisBounds | list[int] | None | Unset, data)

        world_size = _parse_world_size(d.pop("world_size", UNSET))

        search_restrict = cls(
            arrangement=arrangement,
            context=context,
            expert=expert,
            micro_batch_size=micro_batch_size,
            offload_optimizer=offload_optimizer,
            pipeline=pipeline,
            pipeline_schedule=pipeline_schedule,
            pipeline_split=pipeline_split,
            recompute=recompute,
            sequence_parallel=sequence_parallel,
            tensor=tensor,
            virtual_stages=virtual_stages,
            world_size=world_size,
        )

        return search_restrict
