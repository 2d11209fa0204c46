from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="TorchSimWire")


@_attrs_define
class TorchSimWire:
    """
    Attributes:
        allowance_bytes (list[int]): Per rank: 144 header bytes per message.
        measured_steps (int):
        messages (list[int]):
        predicted_payload_bytes (list[int]): Per rank: the observed calls priced by gloo's algorithm.
        wire_bytes (list[int]): Per rank: bytes written over the measured steps (/proc/self/io).
        within_allowance (bool):
    """

    allowance_bytes: list[int]
    measured_steps: int
    messages: list[int]
    predicted_payload_bytes: list[int]
    wire_bytes: list[int]
    within_allowance: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        allowance_bytes = self.allowance_bytes

        measured_steps = self.measured_steps

        messages = self.messages

        predicted_payload_bytes = self.predicted_payload_bytes

        wire_bytes = self.wire_bytes

        within_allowance = self.within_allowance

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "allowance_bytes": allowance_bytes,
                "measured_steps": measured_steps,
                "messages": messages,
                "predicted_payload_bytes": predicted_payload_bytes,
                "wire_bytes": wire_bytes,
                "within_allowance": within_allowance,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        allowance_bytes = cast(list[int], d.pop("allowance_bytes"))

        measured_steps = d.pop("measured_steps")

        messages = cast(list[int], d.pop("messages"))

        predicted_payload_bytes = cast(list[int], d.pop("predicted_payload_bytes"))

        wire_bytes = cast(list[int], d.pop("wire_bytes"))

        within_allowance = d.pop("within_allowance")

        torch_sim_wire = cls(
            allowance_bytes=allowance_bytes,
            measured_steps=measured_steps,
            messages=messages,
            predicted_payload_bytes=predicted_payload_bytes,
            wire_bytes=wire_bytes,
            within_allowance=within_allowance,
        )

        torch_sim_wire.additional_properties = d
        return torch_sim_wire

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
