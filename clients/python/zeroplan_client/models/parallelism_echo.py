from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.context_attention import ContextAttention
from ..models.pipeline_schedule import PipelineSchedule
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.group_placement import GroupPlacement


T = TypeVar("T", bound="ParallelismEcho")


@_attrs_define
class ParallelismEcho:
    """The layout as planned: the request's degrees with what follows from them.

    Attributes:
        context (int):
        context_attention (ContextAttention): How a context-parallel group exchanges each layer's keys and values.
        data (int): Data-parallel degree d = world_size / (tensor x pipeline x context).
        expert (int):
        expert_data (int): Ranks sharing one copy of the expert weights: world_size / (pipeline x expert_tensor x
            expert), data x context / expert when expert_tensor is the tensor degree.
        expert_tensor (int): Expert tensor-parallel degree: as requested, else the tensor degree.
        global_batch_size (int): Sequences per optimizer step: micro_batches x micro_batch_size x d.
        groups (list[GroupPlacement]): Where each group's ranks sit: inside a node or across nodes.
        micro_batches (int): Micro-batches per optimizer step on each pipeline: global_batch_size / (micro_batch_size x
            d), or training.gradient_accumulation_steps.
        pipeline (int):
        pipeline_schedule (PipelineSchedule): How micro-batches flow through the pipeline stages: each one a framework
            runs.
        sequence_parallel (bool):
        tensor (int):
        virtual_stages (int):
        optimizer_post_validation (bool | Unset): As requested. Default: False.
        pipeline_layers (list[int] | Unset): Transformer layers of each model chunk in the model's order (p x v entries;
            p with one chunk per stage), as split; empty without pipelining.
        pipeline_runs (int | Unset): Runs of the pipeline schedule per optimizer step, each over micro_batches /
            pipeline_runs micro-batches: as requested. Default: 1.
    """

    context: int
    context_attention: ContextAttention
    data: int
    expert: int
    expert_data: int
    expert_tensor: int
    global_batch_size: int
    groups: list[GroupPlacement]
    micro_batches: int
    pipeline: int
    pipeline_schedule: PipelineSchedule
    sequence_parallel: bool
    tensor: int
    virtual_stages: int
    optimizer_post_validation: bool | Unset = False
    pipeline_layers: list[int] | Unset = UNSET
    pipeline_runs: int | Unset = 1
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        context = self.context

        context_attention = self.context_attention.value

        data = self.data

        expert = self.expert

        expert_data = self.expert_data

        expert_tensor = self.expert_tensor

        global_batch_size = self.global_batch_size

        groups = []
        for groups_item_data in self.groups:
            groups_item = groups_item_data.to_dict()
            groups.append(groups_item)

        micro_batches = self.micro_batches

        pipeline = self.pipeline

        pipeline_schedule = self.pipeline_schedule.value

        sequence_parallel = self.sequence_parallel

        tensor = self.tensor

        virtual_stages = self.virtual_stages

        optimizer_post_validation = self.optimizer_post_validation

        pipeline_layers: list[int] | Unset = UNSET
        if not isinstance(self.pipeline_layers, Unset):
            pipeline_layers = self.pipeline_layers

        pipeline_runs = self.pipeline_runs

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "context": context,
                "context_attention": context_attention,
                "data": data,
                "expert": expert,
                "expert_data": expert_data,
                "expert_tensor": expert_tensor,
                "global_batch_size": global_batch_size,
                "groups": groups,
                "micro_batches": micro_batches,
                "pipeline": pipeline,
                "pipeline_schedule": pipeline_schedule,
                "sequence_parallel": sequence_parallel,
                "tensor": tensor,
                "virtual_stages": virtual_stages,
            }
        )
        if optimizer_post_validation is not UNSET:
            field_dict["optimizer_post_validation"] = optimizer_post_validation
        if pipeline_layers is not UNSET:
            field_dict["pipeline_layers"] = pipeline_layers
        if pipeline_runs is not UNSET:
            field_dict["pipeline_runs"] = pipeline_runs

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.group_placement import GroupPlacement  # noqa: PLC0415

        d = dict(src_dict)
        context = d.pop("context")

        context_attention = ContextAttention(d.pop("context_attention"))

        data = d.pop("data")

        expert = d.pop("expert")

        expert_data = d.pop("expert_data")

        expert_tensor = d.pop("expert_tensor")

        global_batch_size = d.pop("global_batch_size")

        groups = []
        _groups = d.pop("groups")
        for groups_item_data in _groups:
            groups_item = GroupPlacement.from_dict(groups_item_data)

            groups.append(groups_item)

        micro_batches = d.pop("micro_batches")

        pipeline = d.pop("pipeline")

        pipeline_schedule = PipelineSchedule(d.pop("pipeline_schedule"))

        sequence_parallel = d.pop("sequence_parallel")

        tensor = d.pop("tensor")

        virtual_stages = d.pop("virtual_stages")

        optimizer_post_validation = d.pop("optimizer_post_validation", UNSET)

        pipeline_layers = cast(list[int], d.pop("pipeline_layers", UNSET))

        pipeline_runs = d.pop("pipeline_runs", UNSET)

        parallelism_echo = cls(
            context=context,
            context_attention=context_attention,
            data=data,
            expert=expert,
            expert_data=expert_data,
            expert_tensor=expert_tensor,
            global_batch_size=global_batch_size,
            groups=groups,
            micro_batches=micro_batches,
            pipeline=pipeline,
            pipeline_schedule=pipeline_schedule,
            sequence_parallel=sequence_parallel,
            tensor=tensor,
            virtual_stages=virtual_stages,
            optimizer_post_validation=optimizer_post_validation,
            pipeline_layers=pipeline_layers,
            pipeline_runs=pipeline_runs,
        )

        parallelism_echo.additional_properties = d
        return parallelism_echo

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
