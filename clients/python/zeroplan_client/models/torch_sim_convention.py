from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.torch_sim_convention_bytes_by_class import TorchSimConventionBytesByClass


T = TypeVar("T", bound="TorchSimConvention")


@_attrs_define
class TorchSimConvention:
    """
    Attributes:
        bytes_by_class (TorchSimConventionBytesByClass):
        name (str):
        reason (str):
    """

    bytes_by_class: TorchSimConventionBytesByClass
    name: str
    reason: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        bytes_by_class = self.bytes_by_class.to_dict()

        name = self.name

        reason = self.reason

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "bytes_by_class": bytes_by_class,
                "name": name,
                "reason": reason,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.torch_sim_convention_bytes_by_class import TorchSimConventionBytesByClass  # noqa: PLC0415

        d = dict(src_dict)
        bytes_by_class = TorchSimConventionBytesByClass.from_dict(d.pop("bytes_by_class"))

        name = d.pop("name")

        reason = d.pop("reason")

        torch_sim_convention = cls(
            bytes_by_class=bytes_by_class,
            name=name,
            reason=reason,
        )

        torch_sim_convention.additional_properties = d
        return torch_sim_convention

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
