from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.gpu_preset_info import GpuPresetInfo
    from ..models.link_preset import LinkPreset
    from ..models.model_preset import ModelPreset
    from ..models.precision_preset_info import PrecisionPresetInfo


T = TypeVar("T", bound="PresetsResponse")


@_attrs_define
class PresetsResponse:
    """
    Attributes:
        gpus (list[GpuPresetInfo]):
        links (list[LinkPreset]):
        models (list[ModelPreset]):
        precisions (list[PrecisionPresetInfo]):
    """

    gpus: list[GpuPresetInfo]
    links: list[LinkPreset]
    models: list[ModelPreset]
    precisions: list[PrecisionPresetInfo]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        gpus = []
        for gpus_item_data in self.gpus:
            gpus_item = gpus_item_data.to_dict()
            gpus.append(gpus_item)

        links = []
        for links_item_data in self.links:
            links_item = links_item_data.to_dict()
            links.append(links_item)

        models = []
        for models_item_data in self.models:
            models_item = models_item_data.to_dict()
            models.append(models_item)

        precisions = []
        for precisions_item_data in self.precisions:
            precisions_item = precisions_item_data.to_dict()
            precisions.append(precisions_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "gpus": gpus,
                "links": links,
                "models": models,
                "precisions": precisions,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.gpu_preset_info import GpuPresetInfo  # noqa: PLC0415
        from ..models.link_preset import LinkPreset  # noqa: PLC0415
        from ..models.model_preset import ModelPreset  # noqa: PLC0415
        from ..models.precision_preset_info import PrecisionPresetInfo  # noqa: PLC0415

        d = dict(src_dict)
        gpus = []
        _gpus = d.pop("gpus")
        for gpus_item_data in _gpus:
            gpus_item = GpuPresetInfo.from_dict(gpus_item_data)

            gpus.append(gpus_item)

        links = []
        _links = d.pop("links")
        for links_item_data in _links:
            links_item = LinkPreset.from_dict(links_item_data)

            links.append(links_item)

        models = []
        _models = d.pop("models")
        for models_item_data in _models:
            models_item = ModelPreset.from_dict(models_item_data)

            models.append(models_item)

        precisions = []
        _precisions = d.pop("precisions")
        for precisions_item_data in _precisions:
            precisions_item = PrecisionPresetInfo.from_dict(precisions_item_data)

            precisions.append(precisions_item)

        presets_response = cls(
            gpus=gpus,
            links=links,
            models=models,
            precisions=precisions,
        )

        presets_response.additional_properties = d
        return presets_response

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
