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
        per_gpu_bytes (int):
        world_size (int): The GPU count, as /v1/plan's cluster.world_size.
    """

    fits: bool
    per_gpu_bytes: int
    world_size: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        fits = self.fits

        per_gpu_bytes = self.per_gpu_bytes

        world_size = self.world_size

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "fits": fits,
                "per_gpu_bytes": per_gpu_bytes,
                "world_size": world_size,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        fits = d.pop("fits")

        per_gpu_bytes = d.pop("per_gpu_bytes")

        world_size = d.pop("world_size")

        fit_cell = cls(
            fits=fits,
            per_gpu_bytes=per_gpu_bytes,
            world_size=world_size,
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
