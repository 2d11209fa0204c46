from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="TorchSimPlanStage")


@_attrs_define
class TorchSimPlanStage:
    """
    Attributes:
        layers (int):
        model_state_bytes (int):
        parameters_per_gpu (int):
        stage (int):
    """

    layers: int
    model_state_bytes: int
    parameters_per_gpu: int
    stage: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        layers = self.layers

        model_state_bytes = self.model_state_bytes

        parameters_per_gpu = self.parameters_per_gpu

        stage = self.stage

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "layers": layers,
                "model_state_bytes": model_state_bytes,
                "parameters_per_gpu": parameters_per_gpu,
                "stage": stage,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        layers = d.pop("layers")

        model_state_bytes = d.pop("model_state_bytes")

        parameters_per_gpu = d.pop("parameters_per_gpu")

        stage = d.pop("stage")

        torch_sim_plan_stage = cls(
            layers=layers,
            model_state_bytes=model_state_bytes,
            parameters_per_gpu=parameters_per_gpu,
            stage=stage,
        )

        torch_sim_plan_stage.additional_properties = d
        return torch_sim_plan_stage

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
