from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="SimLearning")


@_attrs_define
class SimLearning:
    """
    Attributes:
        bitwise_equal_ring_order (bool):
        identical (bool):
        max_abs_diff_one_pass (float):
        max_abs_diff_ring_order (float):
        one_pass_tolerance (float):
        reference (str):
    """

    bitwise_equal_ring_order: bool
    identical: bool
    max_abs_diff_one_pass: float
    max_abs_diff_ring_order: float
    one_pass_tolerance: float
    reference: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        bitwise_equal_ring_order = self.bitwise_equal_ring_order

        identical = self.identical

        max_abs_diff_one_pass = self.max_abs_diff_one_pass

        max_abs_diff_ring_order = self.max_abs_diff_ring_order

        one_pass_tolerance = self.one_pass_tolerance

        reference = self.reference

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "bitwise_equal_ring_order": bitwise_equal_ring_order,
                "identical": identical,
                "max_abs_diff_one_pass": max_abs_diff_one_pass,
                "max_abs_diff_ring_order": max_abs_diff_ring_order,
                "one_pass_tolerance": one_pass_tolerance,
                "reference": reference,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        bitwise_equal_ring_order = d.pop("bitwise_equal_ring_order")

        identical = d.pop("identical")

        max_abs_diff_one_pass = d.pop("max_abs_diff_one_pass")

        max_abs_diff_ring_order = d.pop("max_abs_diff_ring_order")

        one_pass_tolerance = d.pop("one_pass_tolerance")

        reference = d.pop("reference")

        sim_learning = cls(
            bitwise_equal_ring_order=bitwise_equal_ring_order,
            identical=identical,
            max_abs_diff_one_pass=max_abs_diff_one_pass,
            max_abs_diff_ring_order=max_abs_diff_ring_order,
            one_pass_tolerance=one_pass_tolerance,
            reference=reference,
        )

        sim_learning.additional_properties = d
        return sim_learning

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
