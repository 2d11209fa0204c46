from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="SimCheck")


@_attrs_define
class SimCheck:
    """
    Attributes:
        arrangement (str):
        check (str): What was compared: traffic, wire, memory, learning, gradient, activations, ...
        detail (str):
        passed (bool | None): null where the engine cannot measure it (wire bytes under NCCL).
    """

    arrangement: str
    check: str
    detail: str
    passed: bool | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        arrangement = self.arrangement

        check = self.check

        detail = self.detail

        passed: bool | None
        passed = self.passed

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "arrangement": arrangement,
                "check": check,
                "detail": detail,
                "passed": passed,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        arrangement = d.pop("arrangement")

        check = d.pop("check")

        detail = d.pop("detail")

        def _parse_passed(data: object) -> bool | None:
            if data is None:
                return data
            return cast(bool | None, data)

        passed = _parse_passed(d.pop("passed"))

        sim_check = cls(
            arrangement=arrangement,
            check=check,
            detail=detail,
            passed=passed,
        )

        sim_check.additional_properties = d
        return sim_check

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
