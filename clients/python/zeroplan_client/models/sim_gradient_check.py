from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="SimGradientCheck")


@_attrs_define
class SimGradientCheck:
    """
    Attributes:
        max_abs_error (float):
        method (str):
        passed (bool):
        points (int):
        rtol (float):
        scale (float):
    """

    max_abs_error: float
    method: str
    passed: bool
    points: int
    rtol: float
    scale: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        max_abs_error = self.max_abs_error

        method = self.method

        passed = self.passed

        points = self.points

        rtol = self.rtol

        scale = self.scale

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "max_abs_error": max_abs_error,
                "method": method,
                "passed": passed,
                "points": points,
                "rtol": rtol,
                "scale": scale,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        max_abs_error = d.pop("max_abs_error")

        method = d.pop("method")

        passed = d.pop("passed")

        points = d.pop("points")

        rtol = d.pop("rtol")

        scale = d.pop("scale")

        sim_gradient_check = cls(
            max_abs_error=max_abs_error,
            method=method,
            passed=passed,
            points=points,
            rtol=rtol,
            scale=scale,
        )

        sim_gradient_check.additional_properties = d
        return sim_gradient_check

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
