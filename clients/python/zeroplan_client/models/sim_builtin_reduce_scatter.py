from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="SimBuiltinReduceScatter")


@_attrs_define
class SimBuiltinReduceScatter:
    """
    Attributes:
        elements (int):
        note (str):
        ratio_to_ring (list[float]):
        ring_formula_bytes (int):
        wire_bytes (list[int]):
    """

    elements: int
    note: str
    ratio_to_ring: list[float]
    ring_formula_bytes: int
    wire_bytes: list[int]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        elements = self.elements

        note = self.note

        ratio_to_ring = self.ratio_to_ring

        ring_formula_bytes = self.ring_formula_bytes

        wire_bytes = self.wire_bytes

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "elements": elements,
                "note": note,
                "ratio_to_ring": ratio_to_ring,
                "ring_formula_bytes": ring_formula_bytes,
                "wire_bytes": wire_bytes,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        elements = d.pop("elements")

        note = d.pop("note")

        ratio_to_ring = cast(list[float], d.pop("ratio_to_ring"))

        ring_formula_bytes = d.pop("ring_formula_bytes")

        wire_bytes = cast(list[int], d.pop("wire_bytes"))

        sim_builtin_reduce_scatter = cls(
            elements=elements,
            note=note,
            ratio_to_ring=ratio_to_ring,
            ring_formula_bytes=ring_formula_bytes,
            wire_bytes=wire_bytes,
        )

        sim_builtin_reduce_scatter.additional_properties = d
        return sim_builtin_reduce_scatter

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
