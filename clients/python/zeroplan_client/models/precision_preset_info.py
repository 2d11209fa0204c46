from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.precision_preset_name import PrecisionPresetName
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.precision_preset_info_stages import PrecisionPresetInfoStages
    from ..models.precision_spec import PrecisionSpec


T = TypeVar("T", bound="PrecisionPresetInfo")


@_attrs_define
class PrecisionPresetInfo:
    """
    Attributes:
        bytes_per_weight (float): Bytes of one weight with nothing sharded.
        description (str):
        name (PrecisionPresetName):
        source (str):
        spec (PrecisionSpec): Dtypes of every state class and the optimizer: together they fix the bytes of one weight.

            ``optimizer_gradient_dtype`` is an extra gradient copy the optimizer keeps beside its master
            weights (DeepSpeed's fp32 gradient partition); null for none. ``compute_parameter_dtype`` is an
            unsharded copy of the parameters that forward and backward read (FSDP2's
            ``MixedPrecisionPolicy.param_dtype``); the two wire dtypes say what the collectives send when it
            differs from what is stored (FSDP2's ``reduce_dtype``, DeepSpeed's ``communication_data_type``).
        stages (PrecisionPresetInfoStages | Unset): Per-arrangement layouts that replace spec at that arrangement.
    """

    bytes_per_weight: float
    description: str
    name: PrecisionPresetName
    source: str
    spec: PrecisionSpec
    stages: PrecisionPresetInfoStages | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        bytes_per_weight = self.bytes_per_weight

        description = self.description

        name = self.name.value

        source = self.source

        spec = self.spec.to_dict()

        stages: dict[str, Any] | Unset = UNSET
        if not isinstance(self.stages, Unset):
            stages = self.stages.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "bytes_per_weight": bytes_per_weight,
                "description": description,
                "name": name,
                "source": source,
                "spec": spec,
            }
        )
        if stages is not UNSET:
            field_dict["stages"] = stages

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.precision_preset_info_stages import PrecisionPresetInfoStages  # noqa: PLC0415
        from ..models.precision_spec import PrecisionSpec  # noqa: PLC0415

        d = dict(src_dict)
        bytes_per_weight = d.pop("bytes_per_weight")

        description = d.pop("description")

        name = PrecisionPresetName(d.pop("name"))

        source = d.pop("source")

        spec = PrecisionSpec.from_dict(d.pop("spec"))

        _stages = d.pop("stages", UNSET)
        stages: PrecisionPresetInfoStages | Unset
        if isinstance(_stages, Unset):
            stages = UNSET
        else:
            stages = PrecisionPresetInfoStages.from_dict(_stages)

        precision_preset_info = cls(
            bytes_per_weight=bytes_per_weight,
            description=description,
            name=name,
            source=source,
            spec=spec,
            stages=stages,
        )

        precision_preset_info.additional_properties = d
        return precision_preset_info

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
