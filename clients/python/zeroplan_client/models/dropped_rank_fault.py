from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeVar, cast

from attrs import define as _attrs_define

from ..models.dropped_rank_fault_mode import DroppedRankFaultMode
from ..types import UNSET, Unset

T = TypeVar("T", bound="DroppedRankFault")


@_attrs_define
class DroppedRankFault:
    """
    Attributes:
        kind (Literal['dropped_rank']):
        rank (int):
        step (int): The step (from 0) at whose start the rank exits or hangs.
        mode (DroppedRankFaultMode | Unset):  Default: DroppedRankFaultMode.EXIT.
    """

    kind: Literal["dropped_rank"]
    rank: int
    step: int
    mode: DroppedRankFaultMode | Unset = DroppedRankFaultMode.EXIT

    def to_dict(self) -> dict[str, Any]:
        kind = self.kind

        rank = self.rank

        step = self.step

        mode: str | Unset = UNSET
        if not isinstance(self.mode, Unset):
            mode = self.mode.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kind": kind,
                "rank": rank,
                "step": step,
            }
        )
        if mode is not UNSET:
            field_dict["mode"] = mode

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        kind = cast(Literal["dropped_rank"], d.pop("kind"))
        if kind != "dropped_rank":
            raise ValueError(f"kind must match const 'dropped_rank', got '{kind}'")

        rank = d.pop("rank")

        step = d.pop("step")

        _mode = d.pop("mode", UNSET)
        mode: DroppedRankFaultMode | Unset
        if isinstance(_mode, Unset):
            mode = UNSET
        else:
            mode = DroppedRankFaultMode(_mode)

        dropped_rank_fault = cls(
            kind=kind,
            rank=rank,
            step=step,
            mode=mode,
        )

        return dropped_rank_fault
