from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.arrangement_limits import ArrangementLimits


T = TypeVar("T", bound="LimitsResponse")


@_attrs_define
class LimitsResponse:
    """
    Attributes:
        arrangements (list[ArrangementLimits]):
        card_bytes (int):
        gpus_per_node (int):
        micro_batch_size (int): The micro-batch size the longest sequence is found at.
        parameter_count (int | None): The model's parameter count; null without a model.
        sequence_length (int): The sequence length the largest micro-batch is found at.
        usable_bytes (int): The card less its reserve and fragmentation: what every limit fits.
        warnings (list[str]):
        world_size (int):
    """

    arrangements: list[ArrangementLimits]
    card_bytes: int
    gpus_per_node: int
    micro_batch_size: int
    parameter_count: int | None
    sequence_length: int
    usable_bytes: int
    warnings: list[str]
    world_size: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        arrangements = []
        for arrangements_item_data in self.arrangements:
            arrangements_item = arrangements_item_data.to_dict()
            arrangements.append(arrangements_item)

        card_bytes = self.card_bytes

        gpus_per_node = self.gpus_per_node

        micro_batch_size = self.micro_batch_size

        parameter_count: int | None
        parameter_count = self.parameter_count

        sequence_length = self.sequence_length

        usable_bytes = self.usable_bytes

        warnings = self.warnings

        world_size = self.world_size

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "arrangements": arrangements,
                "card_bytes": card_bytes,
                "gpus_per_node": gpus_per_node,
                "micro_batch_size": micro_batch_size,
                "parameter_count": parameter_count,
                "sequence_length": sequence_length,
                "usable_bytes": usable_bytes,
                "warnings": warnings,
                "world_size": world_size,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.arrangement_limits import ArrangementLimits  # noqa: PLC0415

        d = dict(src_dict)
        arrangements = []
        _arrangements = d.pop("arrangements")
        for arrangements_item_data in _arrangements:
            arrangements_item = ArrangementLimits.from_dict(arrangements_item_data)

            arrangements.append(arrangements_item)

        card_bytes = d.pop("card_bytes")

        gpus_per_node = d.pop("gpus_per_node")

        micro_batch_size = d.pop("micro_batch_size")

        def _parse_parameter_count(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        parameter_count = _parse_parameter_count(d.pop("parameter_count"))

        sequence_length = d.pop("sequence_length")

        usable_bytes = d.pop("usable_bytes")

        warnings = cast(list[str], d.pop("warnings"))

        world_size = d.pop("world_size")

        limits_response = cls(
            arrangements=arrangements,
            card_bytes=card_bytes,
            gpus_per_node=gpus_per_node,
            micro_batch_size=micro_batch_size,
            parameter_count=parameter_count,
            sequence_length=sequence_length,
            usable_bytes=usable_bytes,
            warnings=warnings,
            world_size=world_size,
        )

        limits_response.additional_properties = d
        return limits_response

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
