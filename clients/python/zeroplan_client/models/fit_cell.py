from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="FitCell")


@_attrs_define
class FitCell:
    """
    Attributes:
        fits (bool):
        gpus (int):
        per_gpu_bytes (int):
    """

    fits: bool
    gpus: int
    per_gpu_bytes: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        fits = self.fits

        gpus = self.gpus

        per_gpu_bytes = self.per_gpu_bytes

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "fits": fits,
                "gpus": gpus,
                "per_gpu_bytes": per_gpu_bytes,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        fits = d.pop("fits")

        gpus = d.pop("gpus")

        per_gpu_bytes = d.pop("per_gpu_bytes")

        fit_cell = cls(
            fits=fits,
            gpus=gpus,
            per_gpu_bytes=per_gpu_bytes,
        )

        fit_cell.additional_properties = d
        return fit_cell

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
