from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="TorchSimLayout")


@_attrs_define
class TorchSimLayout:
    """
    Attributes:
        data (int):
        data_rank_of_rank (list[int]):
        mesh_dims (list[str]): The DeviceMesh's dimensions, outermost first (tensor innermost).
        micro_batches (int):
        pipeline (int):
        pipeline_schedule (str):
        stage_of_rank (list[int]):
        tensor (int):
        tensor_rank_of_rank (list[int]):
    """

    data: int
    data_rank_of_rank: list[int]
    mesh_dims: list[str]
    micro_batches: int
    pipeline: int
    pipeline_schedule: str
    stage_of_rank: list[int]
    tensor: int
    tensor_rank_of_rank: list[int]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = self.data

        data_rank_of_rank = self.data_rank_of_rank

        mesh_dims = self.mesh_dims

        micro_batches = self.micro_batches

        pipeline = self.pipeline

        pipeline_schedule = self.pipeline_schedule

        stage_of_rank = self.stage_of_rank

        tensor = self.tensor

        tensor_rank_of_rank = self.tensor_rank_of_rank

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "data": data,
                "data_rank_of_rank": data_rank_of_rank,
                "mesh_dims": mesh_dims,
                "micro_batches": micro_batches,
                "pipeline": pipeline,
                "pipeline_schedule": pipeline_schedule,
                "stage_of_rank": stage_of_rank,
                "tensor": tensor,
                "tensor_rank_of_rank": tensor_rank_of_rank,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        data = d.pop("data")

        data_rank_of_rank = cast(list[int], d.pop("data_rank_of_rank"))

        mesh_dims = cast(list[str], d.pop("mesh_dims"))

        micro_batches = d.pop("micro_batches")

        pipeline = d.pop("pipeline")

        pipeline_schedule = d.pop("pipeline_schedule")

        stage_of_rank = cast(list[int], d.pop("stage_of_rank"))

        tensor = d.pop("tensor")

        tensor_rank_of_rank = cast(list[int], d.pop("tensor_rank_of_rank"))

        torch_sim_layout = cls(
            data=data,
            data_rank_of_rank=data_rank_of_rank,
            mesh_dims=mesh_dims,
            micro_batches=micro_batches,
            pipeline=pipeline,
            pipeline_schedule=pipeline_schedule,
            stage_of_rank=stage_of_rank,
            tensor=tensor,
            tensor_rank_of_rank=tensor_rank_of_rank,
        )

        torch_sim_layout.additional_properties = d
        return torch_sim_layout

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
