from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.torch_sim_memory_state import TorchSimMemoryState

T = TypeVar("T", bound="TorchSimMemory")


@_attrs_define
class TorchSimMemory:
    """
    Attributes:
        delta_from_preset_bytes (list[int]):
        matches (bool): measured_bytes equal predicted_bytes exactly.
        measured_bytes (list[int]): Per rank: the tracker's bytes of this class after the last step (with pipeline
            stages: counted from the local tensors, DTensor shards, the rank holds; FSDPMemTracker refuses micro-batches).
        predicted_bytes (list[int]): Per rank: the core's breakdown for the layout the engine keeps plus its
            conventions.
        preset_bytes (int): The core's bytes for the requested precision preset (/v1/plan), on the busiest rank.
        preset_bytes_by_rank (list[int]): Per rank: the core's bytes for the requested preset (a layout's stages
            differ).
        reasons (list[str]): Why measured and preset differ, by design.
        state (TorchSimMemoryState):
    """

    delta_from_preset_bytes: list[int]
    matches: bool
    measured_bytes: list[int]
    predicted_bytes: list[int]
    preset_bytes: int
    preset_bytes_by_rank: list[int]
    reasons: list[str]
    state: TorchSimMemoryState
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        delta_from_preset_bytes = self.delta_from_preset_bytes

        matches = self.matches

        measured_bytes = self.measured_bytes

        predicted_bytes = self.predicted_bytes

        preset_bytes = self.preset_bytes

        preset_bytes_by_rank = self.preset_bytes_by_rank

        reasons = self.reasons

        state = self.state.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "delta_from_preset_bytes": delta_from_preset_bytes,
                "matches": matches,
                "measured_bytes": measured_bytes,
                "predicted_bytes": predicted_bytes,
                "preset_bytes": preset_bytes,
                "preset_bytes_by_rank": preset_bytes_by_rank,
                "reasons": reasons,
                "state": state,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        delta_from_preset_bytes = cast(list[int], d.pop("delta_from_preset_bytes"))

        matches = d.pop("matches")

        measured_bytes = cast(list[int], d.pop("measured_bytes"))

        predicted_bytes = cast(list[int], d.pop("predicted_bytes"))

        preset_bytes = d.pop("preset_bytes")

        preset_bytes_by_rank = cast(list[int], d.pop("preset_bytes_by_rank"))

        reasons = cast(list[str], d.pop("reasons"))

        state = TorchSimMemoryState(d.pop("state"))

        torch_sim_memory = cls(
            delta_from_preset_bytes=delta_from_preset_bytes,
            matches=matches,
            measured_bytes=measured_bytes,
            predicted_bytes=predicted_bytes,
            preset_bytes=preset_bytes,
            preset_bytes_by_rank=preset_bytes_by_rank,
            reasons=reasons,
            state=state,
        )

        torch_sim_memory.additional_properties = d
        return torch_sim_memory

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
