from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.state_class import StateClass

T = TypeVar("T", bound="SimMemory")


@_attrs_define
class SimMemory:
    """
    Attributes:
        formula_bytes (int): Persistent bytes per rank by the core's memory breakdown.
        matches (bool):
        resident_bytes (list[int]): Per rank: bytes of the tensors the rank really holds.
        state (StateClass): A class of per-weight training state, in the order a breakdown lists them, then the working
            set:
            what a step holds unsharded for a moment (gathered units and their gradients, reduction buckets).
    """

    formula_bytes: int
    matches: bool
    resident_bytes: list[int]
    state: StateClass
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        formula_bytes = self.formula_bytes

        matches = self.matches

        resident_bytes = self.resident_bytes

        state = self.state.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "formula_bytes": formula_bytes,
                "matches": matches,
                "resident_bytes": resident_bytes,
                "state": state,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        formula_bytes = d.pop("formula_bytes")

        matches = d.pop("matches")

        resident_bytes = cast(list[int], d.pop("resident_bytes"))

        state = StateClass(d.pop("state"))

        sim_memory = cls(
            formula_bytes=formula_bytes,
            matches=matches,
            resident_bytes=resident_bytes,
            state=state,
        )

        sim_memory.additional_properties = d
        return sim_memory

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
