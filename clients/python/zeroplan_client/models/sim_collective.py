from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.collective_name import CollectiveName
from ..models.dtype import Dtype

T = TypeVar("T", bound="SimCollective")


@_attrs_define
class SimCollective:
    """
    Attributes:
        calls_per_rank (list[int]):
        dtype (Dtype): Storage or wire format of one tensor element.
        formula_bytes (int): Bytes each rank sends over the run, by the core's ring formula.
        name (CollectiveName): Collectives, named as NCCL names them.
        payload_bytes (list[int]): Per rank: bytes of every point-to-point send, counted as sent.
        payload_matches (bool):
        purpose (str):
        sends_per_rank (list[int]):
        wire_bytes (list[int]): Per rank: bytes written to sockets (/proc/self/io wchar).
        wire_overhead_bytes_per_send (list[float]):
        wire_within_allowance (bool):
    """

    calls_per_rank: list[int]
    dtype: Dtype
    formula_bytes: int
    name: CollectiveName
    payload_bytes: list[int]
    payload_matches: bool
    purpose: str
    sends_per_rank: list[int]
    wire_bytes: list[int]
    wire_overhead_bytes_per_send: list[float]
    wire_within_allowance: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        calls_per_rank = self.calls_per_rank

        dtype = self.dtype.value

        formula_bytes = self.formula_bytes

        name = self.name.value

        payload_bytes = self.payload_bytes

        payload_matches = self.payload_matches

        purpose = self.purpose

        sends_per_rank = self.sends_per_rank

        wire_bytes = self.wire_bytes

        wire_overhead_bytes_per_send = self.wire_overhead_bytes_per_send

        wire_within_allowance = self.wire_within_allowance

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "calls_per_rank": calls_per_rank,
                "dtype": dtype,
                "formula_bytes": formula_bytes,
                "name": name,
                "payload_bytes": payload_bytes,
                "payload_matches": payload_matches,
                "purpose": purpose,
                "sends_per_rank": sends_per_rank,
                "wire_bytes": wire_bytes,
                "wire_overhead_bytes_per_send": wire_overhead_bytes_per_send,
                "wire_within_allowance": wire_within_allowance,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        calls_per_rank = cast(list[int], d.pop("calls_per_rank"))

        dtype = Dtype(d.pop("dtype"))

        formula_bytes = d.pop("formula_bytes")

        name = CollectiveName(d.pop("name"))

        payload_bytes = cast(list[int], d.pop("payload_bytes"))

        payload_matches = d.pop("payload_matches")

        purpose = d.pop("purpose")

        sends_per_rank = cast(list[int], d.pop("sends_per_rank"))

        wire_bytes = cast(list[int], d.pop("wire_bytes"))

        wire_overhead_bytes_per_send = cast(list[float], d.pop("wire_overhead_bytes_per_send"))

        wire_within_allowance = d.pop("wire_within_allowance")

        sim_collective = cls(
            calls_per_rank=calls_per_rank,
            dtype=dtype,
            formula_bytes=formula_bytes,
            name=name,
            payload_bytes=payload_bytes,
            payload_matches=payload_matches,
            purpose=purpose,
            sends_per_rank=sends_per_rank,
            wire_bytes=wire_bytes,
            wire_overhead_bytes_per_send=wire_overhead_bytes_per_send,
            wire_within_allowance=wire_within_allowance,
        )

        sim_collective.additional_properties = d
        return sim_collective

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
