from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="CheckpointObservation")


@_attrs_define
class CheckpointObservation:
    """
    Attributes:
        missing (list[str]):
        partial_refused (bool):
        resumed_equal (bool):
        saved_at_step (int):
    """

    missing: list[str]
    partial_refused: bool
    resumed_equal: bool
    saved_at_step: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        missing = self.missing

        partial_refused = self.partial_refused

        resumed_equal = self.resumed_equal

        saved_at_step = self.saved_at_step

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "missing": missing,
                "partial_refused": partial_refused,
                "resumed_equal": resumed_equal,
                "saved_at_step": saved_at_step,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        missing = cast(list[str], d.pop("missing"))

        partial_refused = d.pop("partial_refused")

        resumed_equal = d.pop("resumed_equal")

        saved_at_step = d.pop("saved_at_step")

        checkpoint_observation = cls(
            missing=missing,
            partial_refused=partial_refused,
            resumed_equal=resumed_equal,
            saved_at_step=saved_at_step,
        )

        checkpoint_observation.additional_properties = d
        return checkpoint_observation

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
