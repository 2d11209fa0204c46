from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="FrameworkEstimate")


@_attrs_define
class FrameworkEstimate:
    """A framework's own estimator for this plan, computed as its code computes it.

    Attributes:
        additional_buffer_factor (float):
        arithmetic (str):
        cpu_bytes_per_node (int): Its per-node host figure (with the buffer factor), bytes.
        function (str): The estimator, by its module path.
        gpu_bytes (int): Its per-GPU figure, bytes.
        largest_layer_bytes (int): 4 x largest_layer_parameters (ZeRO-3), else 0.
        largest_layer_parameters (int):
        note (str): How the figure relates to this plan's own count.
        options (str): The estimator's options, as it prints them.
    """

    additional_buffer_factor: float
    arithmetic: str
    cpu_bytes_per_node: int
    function: str
    gpu_bytes: int
    largest_layer_bytes: int
    largest_layer_parameters: int
    note: str
    options: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        additional_buffer_factor = self.additional_buffer_factor

        arithmetic = self.arithmetic

        cpu_bytes_per_node = self.cpu_bytes_per_node

        function = self.function

        gpu_bytes = self.gpu_bytes

        largest_layer_bytes = self.largest_layer_bytes

        largest_layer_parameters = self.largest_layer_parameters

        note = self.note

        options = self.options

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "additional_buffer_factor": additional_buffer_factor,
                "arithmetic": arithmetic,
                "cpu_bytes_per_node": cpu_bytes_per_node,
                "function": function,
                "gpu_bytes": gpu_bytes,
                "largest_layer_bytes": largest_layer_bytes,
                "largest_layer_parameters": largest_layer_parameters,
                "note": note,
                "options": options,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        additional_buffer_factor = d.pop("additional_buffer_factor")

        arithmetic = d.pop("arithmetic")

        cpu_bytes_per_node = d.pop("cpu_bytes_per_node")

        function = d.pop("function")

        gpu_bytes = d.pop("gpu_bytes")

        largest_layer_bytes = d.pop("largest_layer_bytes")

        largest_layer_parameters = d.pop("largest_layer_parameters")

        note = d.pop("note")

        options = d.pop("options")

        framework_estimate = cls(
            additional_buffer_factor=additional_buffer_factor,
            arithmetic=arithmetic,
            cpu_bytes_per_node=cpu_bytes_per_node,
            function=function,
            gpu_bytes=gpu_bytes,
            largest_layer_bytes=largest_layer_bytes,
            largest_layer_parameters=largest_layer_parameters,
            note=note,
            options=options,
        )

        framework_estimate.additional_properties = d
        return framework_estimate

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
