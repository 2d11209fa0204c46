from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.activation_model import ActivationModel

if TYPE_CHECKING:
    from ..models.activation_component import ActivationComponent


T = TypeVar("T", bound="ActivationMemory")


@_attrs_define
class ActivationMemory:
    """
    Attributes:
        bytes_ (int): Activation bytes on every GPU (replicated; sharding never touches them).
        components (list[ActivationComponent]):
        fudge (float | None): The fudge factor of the fudge model: a fudge, not a measurement.
        model (ActivationModel): How activation memory is estimated.
        source (str):
    """

    bytes_: int
    components: list[ActivationComponent]
    fudge: float | None
    model: ActivationModel
    source: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        bytes_ = self.bytes_

        components = []
        for components_item_data in self.components:
            components_item = components_item_data.to_dict()
            components.append(components_item)

        fudge: float | None
        fudge = self.fudge

        model = self.model.value

        source = self.source

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "bytes": bytes_,
                "components": components,
                "fudge": fudge,
                "model": model,
                "source": source,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.activation_component import ActivationComponent  # noqa: PLC0415

        d = dict(src_dict)
        bytes_ = d.pop("bytes")

        components = []
        _components = d.pop("components")
        for components_item_data in _components:
            components_item = ActivationComponent.from_dict(components_item_data)

            components.append(components_item)

        def _parse_fudge(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        fudge = _parse_fudge(d.pop("fudge"))

        model = ActivationModel(d.pop("model"))

        source = d.pop("source")

        activation_memory = cls(
            bytes_=bytes_,
            components=components,
            fudge=fudge,
            model=model,
            source=source,
        )

        activation_memory.additional_properties = d
        return activation_memory

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
