from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="TorchSimLearning")


@_attrs_define
class TorchSimLearning:
    """
    Attributes:
        losses (list[float]):
        max_abs_diff (float):
        reference (str):
        reference_losses (list[float]):
        tolerance (float):
        within_tolerance (bool):
    """

    losses: list[float]
    max_abs_diff: float
    reference: str
    reference_losses: list[float]
    tolerance: float
    within_tolerance: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        losses = self.losses

        max_abs_diff = self.max_abs_diff

        reference = self.reference

        reference_losses = self.reference_losses

        tolerance = self.tolerance

        within_tolerance = self.within_tolerance

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "losses": losses,
                "max_abs_diff": max_abs_diff,
                "reference": reference,
                "reference_losses": reference_losses,
                "tolerance": tolerance,
                "within_tolerance": within_tolerance,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        losses = cast(list[float], d.pop("losses"))

        max_abs_diff = d.pop("max_abs_diff")

        reference = d.pop("reference")

        reference_losses = cast(list[float], d.pop("reference_losses"))

        tolerance = d.pop("tolerance")

        within_tolerance = d.pop("within_tolerance")

        torch_sim_learning = cls(
            losses=losses,
            max_abs_diff=max_abs_diff,
            reference=reference,
            reference_losses=reference_losses,
            tolerance=tolerance,
            within_tolerance=within_tolerance,
        )

        torch_sim_learning.additional_properties = d
        return torch_sim_learning

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
