from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="SimTransient")


@_attrs_define
class SimTransient:
    """
    Attributes:
        note (str):
        peak_gathered_parameter_bytes (list[int]):
        peak_gradient_buffer_bytes (list[int]):
        peak_parameter_bytes (list[int]): Persistent parameters plus the peak of gathered units.
    """

    note: str
    peak_gathered_parameter_bytes: list[int]
    peak_gradient_buffer_bytes: list[int]
    peak_parameter_bytes: list[int]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        note = self.note

        peak_gathered_parameter_bytes = self.peak_gathered_parameter_bytes

        peak_gradient_buffer_bytes = self.peak_gradient_buffer_bytes

        peak_parameter_bytes = self.peak_parameter_bytes

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "note": note,
                "peak_gathered_parameter_bytes": peak_gathered_parameter_bytes,
                "peak_gradient_buffer_bytes": peak_gradient_buffer_bytes,
                "peak_parameter_bytes": peak_parameter_bytes,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        note = d.pop("note")

        peak_gathered_parameter_bytes = cast(list[int], d.pop("peak_gathered_parameter_bytes"))

        peak_gradient_buffer_bytes = cast(list[int], d.pop("peak_gradient_buffer_bytes"))

        peak_parameter_bytes = cast(list[int], d.pop("peak_parameter_bytes"))

        sim_transient = cls(
            note=note,
            peak_gathered_parameter_bytes=peak_gathered_parameter_bytes,
            peak_gradient_buffer_bytes=peak_gradient_buffer_bytes,
            peak_parameter_bytes=peak_parameter_bytes,
        )

        sim_transient.additional_properties = d
        return sim_transient

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
