from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.link_preset_name import LinkPresetName

if TYPE_CHECKING:
    from ..models.link_spec import LinkSpec


T = TypeVar("T", bound="LinkPreset")


@_attrs_define
class LinkPreset:
    """
    Attributes:
        description (str):
        name (LinkPresetName):
        source (str):
        spec (LinkSpec): Links of a GPU, per direction, and the per-hop latency (the alpha of alpha-beta).
    """

    description: str
    name: LinkPresetName
    source: str
    spec: LinkSpec
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        description = self.description

        name = self.name.value

        source = self.source

        spec = self.spec.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "description": description,
                "name": name,
                "source": source,
                "spec": spec,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.link_spec import LinkSpec  # noqa: PLC0415

        d = dict(src_dict)
        description = d.pop("description")

        name = LinkPresetName(d.pop("name"))

        source = d.pop("source")

        spec = LinkSpec.from_dict(d.pop("spec"))

        link_preset = cls(
            description=description,
            name=name,
            source=source,
            spec=spec,
        )

        link_preset.additional_properties = d
        return link_preset

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
