from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.arrangement_name import ArrangementName
from ..models.recompute import Recompute
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.model_spec import ModelSpec


T = TypeVar("T", bound="SweepAxes")


@_attrs_define
class SweepAxes:
    """Each axis lists distinct values to sweep; an axis left out keeps the base request's value.

    Attributes:
        arrangement (list[ArrangementName] | None | Unset): Arrangement names.
        context (list[int] | None | Unset): Context-parallel degrees.
        expert (list[int] | None | Unset): Expert-parallel degrees.
        gpus_per_node (list[int] | None | Unset): GPUs per node (G).
        gradient_accumulation_steps (list[int] | None | Unset): Micro-batches per step.
        micro_batch_size (list[int] | None | Unset): Micro-batch sizes.
        model (list[ModelSpec] | None | Unset): Models, each as in /v1/plan: a preset, a parameter count or an
            architecture; replaces base.model.
        mxfp8 (list[bool] | None | Unset): MXFP8 off/on.
        offload_optimizer (list[bool] | None | Unset): Optimizer offload off/on.
        parameter_count (list[int] | None | Unset): Parameter counts, each a model given by its count alone; replaces
            base.model. Not with `model` (write counts there as {"parameter_count": ...}).
        pipeline (list[int] | None | Unset): Pipeline-parallel degrees.
        recompute (list[Recompute] | None | Unset): Recomputation modes.
        sequence_length (list[int] | None | Unset): Sequence lengths.
        tensor (list[int] | None | Unset): Tensor-parallel degrees; replaces base.parallelism.tensor. A cell with any
            degree above 1 is evaluated as /v1/plan plans its layout, every such cell of a model at once (with or without a
            given training.utilisation).
        virtual_stages (list[int] | None | Unset): Virtual stages of the interleaved schedule
            (base.parallelism.pipeline_schedule interleaved).
        world_size (list[int] | None | Unset): GPU counts (N).
    """

    arrangement: list[ArrangementName] | None | Unset = UNSET
    context: list[int] | None | Unset = UNSET
    expert: list[int] | None | Unset = UNSET
    gpus_per_node: list[int] | None | Unset = UNSET
    gradient_accumulation_steps: list[int] | None | Unset = UNSET
    micro_batch_size: list[int] | None | Unset = UNSET
    model: list[ModelSpec] | None | Unset = UNSET
    mxfp8: list[bool] | None | Unset = UNSET
    offload_optimizer: list[bool] | None | Unset = UNSET
    parameter_count: list[int] | None | Unset = UNSET
    pipeline: list[int] | None | Unset = UNSET
    recompute: list[Recompute] | None | Unset = UNSET
    sequence_length: list[int] | None | Unset = UNSET
    tensor: list[int] | None | Unset = UNSET
    virtual_stages: list[int] | None | Unset = UNSET
    world_size: list[int] | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
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

        context: list[int] | None | Unset
        if isinstance(self.context, Unset):
            context = UNSET
        elif isinstance(self.context, list):
            context = self.context

        else:
            context = self.context

        expert: list[int] | None | Unset
        if isinstance(self.expert, Unset):
            expert = UNSET
        elif isinstance(self.expert, list):
            expert = self.expert

        else:
            expert = self.expert

        gpus_per_node: list[int] | None | Unset
        if isinstance(self.gpus_per_node, Unset):
            gpus_per_node = UNSET
        elif isinstance(self.gpus_per_node, list):
            gpus_per_node = self.gpus_per_node

        else:
            gpus_per_node = self.gpus_per_node

        gradient_accumulation_steps: list[int] | None | Unset
        if isinstance(self.gradient_accumulation_steps, Unset):
            gradient_accumulation_steps = UNSET
        elif isinstance(self.gradient_accumulation_steps, list):
            gradient_accumulation_steps = self.gradient_accumulation_steps

        else:
            gradient_accumulation_steps = self.gradient_accumulation_steps

        micro_batch_size: list[int] | None | Unset
        if isinstance(self.micro_batch_size, Unset):
            micro_batch_size = UNSET
        elif isinstance(self.micro_batch_size, list):
            micro_batch_size = self.micro_batch_size

        else:
            micro_batch_size = self.micro_batch_size

        model: list[dict[str, Any]] | None | Unset
        if isinstance(self.model, Unset):
            model = UNSET
        elif isinstance(self.model, list):
            model = []
            for model_type_0_item_data in self.model:
                model_type_0_item = model_type_0_item_data.to_dict()
                model.append(model_type_0_item)

        else:
            model = self.model

        mxfp8: list[bool] | None | Unset
        if isinstance(self.mxfp8, Unset):
            mxfp8 = UNSET
        elif isinstance(self.mxfp8, list):
            mxfp8 = self.mxfp8

        else:
            mxfp8 = self.mxfp8

        offload_optimizer: list[bool] | None | Unset
        if isinstance(self.offload_optimizer, Unset):
            offload_optimizer = UNSET
        elif isinstance(self.offload_optimizer, list):
            offload_optimizer = self.offload_optimizer

        else:
            offload_optimizer = self.offload_optimizer

        parameter_count: list[int] | None | Unset
        if isinstance(self.parameter_count, Unset):
            parameter_count = UNSET
        elif isinstance(self.parameter_count, list):
            parameter_count = self.parameter_count

        else:
            parameter_count = self.parameter_count

        pipeline: list[int] | None | Unset
        if isinstance(self.pipeline, Unset):
            pipeline = UNSET
        elif isinstance(self.pipeline, list):
            pipeline = self.pipeline

        else:
            pipeline = self.pipeline

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

        sequence_length: list[int] | None | Unset
        if isinstance(self.sequence_length, Unset):
            sequence_length = UNSET
        elif isinstance(self.sequence_length, list):
            sequence_length = self.sequence_length

        else:
            sequence_length = self.sequence_length

        tensor: list[int] | None | Unset
        if isinstance(self.tensor, Unset):
            tensor = UNSET
        elif isinstance(self.tensor, list):
            tensor = self.tensor

        else:
            tensor = self.tensor

        virtual_stages: list[int] | None | Unset
        if isinstance(self.virtual_stages, Unset):
            virtual_stages = UNSET
        elif isinstance(self.virtual_stages, list):
            virtual_stages = self.virtual_stages

        else:
            virtual_stages = self.virtual_stages

        world_size: list[int] | None | Unset
        if isinstance(self.world_size, Unset):
            world_size = UNSET
        elif isinstance(self.world_size, list):
            world_size = self.world_size

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
        if gpus_per_node is not UNSET:
            field_dict["gpus_per_node"] = gpus_per_node
        if gradient_accumulation_steps is not UNSET:
            field_dict["gradient_accumulation_steps"] = gradient_accumulation_steps
        if micro_batch_size is not UNSET:
            field_dict["micro_batch_size"] = micro_batch_size
        if model is not UNSET:
            field_dict["model"] = model
        if mxfp8 is not UNSET:
            field_dict["mxfp8"] = mxfp8
        if offload_optimizer is not UNSET:
            field_dict["offload_optimizer"] = offload_optimizer
        if parameter_count is not UNSET:
            field_dict["parameter_count"] = parameter_count
        if pipeline is not UNSET:
            field_dict["pipeline"] = pipeline
        if recompute is not UNSET:
            field_dict["recompute"] = recompute
        if sequence_length is not UNSET:
            field_dict["sequence_length"] = sequence_length
        if tensor is not UNSET:
            field_dict["tensor"] = tensor
        if virtual_stages is not UNSET:
            field_dict["virtual_stages"] = virtual_stages
        if world_size is not UNSET:
            field_dict["world_size"] = world_size

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.model_spec import ModelSpec  # noqa: PLC0415

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

        def _parse_context(data: object) -> list[int] | None | Unset:
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
            return cast(list[int] | None | Unset, data)

        context = _parse_context(d.pop("context", UNSET))

        def _parse_expert(data: object) -> list[int] | None | Unset:
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
            return cast(list[int] | None | Unset, data)

        expert = _parse_expert(d.pop("expert", UNSET))

        def _parse_gpus_per_node(data: object) -> list[int] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                gpus_per_node_type_0 = cast(list[int], data)

                return gpus_per_node_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[int] | None | Unset, data)

        gpus_per_node = _parse_gpus_per_node(d.pop("gpus_per_node", UNSET))

        def _parse_gradient_accumulation_steps(data: object) -> list[int] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                gradient_accumulation_steps_type_0 = cast(list[int], data)

                return gradient_accumulation_steps_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[int] | None | Unset, data)

        gradient_accumulation_steps = _parse_gradient_accumulation_steps(d.pop("gradient_accumulation_steps", UNSET))

        def _parse_micro_batch_size(data: object) -> list[int] | None | Unset:
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
            return cast(list[int] | None | Unset, data)

        micro_batch_size = _parse_micro_batch_size(d.pop("micro_batch_size", UNSET))

        def _parse_model(data: object) -> list[ModelSpec] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                model_type_0 = []
                _model_type_0 = data
                for model_type_0_item_data in _model_type_0:
                    model_type_0_item = ModelSpec.from_dict(model_type_0_item_data)

                    model_type_0.append(model_type_0_item)

                return model_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ModelSpec] | None | Unset, data)

        model = _parse_model(d.pop("model", UNSET))

        def _parse_mxfp8(data: object) -> list[bool] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                mxfp8_type_0 = cast(list[bool], data)

                return mxfp8_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[bool] | None | Unset, data)

        mxfp8 = _parse_mxfp8(d.pop("mxfp8", UNSET))

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

        def _parse_parameter_count(data: object) -> list[int] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                parameter_count_type_0 = cast(list[int], data)

                return parameter_count_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[int] | None | Unset, data)

        parameter_count = _parse_parameter_count(d.pop("parameter_count", UNSET))

        def _parse_pipeline(data: object) -> list[int] | None | Unset:
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
            return cast(list[int] | None | Unset, data)

        pipeline = _parse_pipeline(d.pop("pipeline", UNSET))

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

        def _parse_sequence_length(data: object) -> list[int] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                sequence_length_type_0 = cast(list[int], data)

                return sequence_length_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[int] | None | Unset, data)

        sequence_length = _parse_sequence_length(d.pop("sequence_length", UNSET))

        def _parse_tensor(data: object) -> list[int] | None | Unset:
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
            return cast(list[int] | None | Unset, data)

        tensor = _parse_tensor(d.pop("tensor", UNSET))

        def _parse_virtual_stages(data: object) -> list[int] | None | Unset:
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
            return cast(list[int] | None | Unset, data)

        virtual_stages = _parse_virtual_stages(d.pop("virtual_stages", UNSET))

        def _parse_world_size(data: object) -> list[int] | None | Unset:
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
            return cast(list[int] | None | Unset, data)

        world_size = _parse_world_size(d.pop("world_size", UNSET))

        sweep_axes = cls(
            arrangement=arrangement,
            context=context,
            expert=expert,
            gpus_per_node=gpus_per_node,
            gradient_accumulation_steps=gradient_accumulation_steps,
            micro_batch_size=micro_batch_size,
            model=model,
            mxfp8=mxfp8,
            offload_optimizer=offload_optimizer,
            parameter_count=parameter_count,
            pipeline=pipeline,
            recompute=recompute,
            sequence_length=sequence_length,
            tensor=tensor,
            virtual_stages=virtual_stages,
            world_size=world_size,
        )

        return sweep_axes
