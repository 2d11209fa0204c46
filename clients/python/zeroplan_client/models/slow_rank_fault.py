from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="SlowRankFault")


@_attrs_define
class SlowRankFault:
    """
    Attributes:
        delay_s (float): Seconds of delay per step.
        kind (Literal['slow_rank']):
        rank (int): The rank that sleeps before each step from step steps // 2 on.
    """

    delay_s: float
    kind: Literal["slow_rank"]
    rank: int

    def to_dict(self) -> dict[str, Any]:
        delay_s = self.delay_s

        kind = self.kind

        rank = self.rank

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "delay_s": delay_s,
                "kind": kind,
                "rank": rank,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        delay_s = d.pop("delay_s")

        kind = cast(Literal["slow_rank"], d.pop("kind"))
        if kind != "slow_rank":
            raise ValueError(f"kind must match const 'slow_rank', got '{kind}'")

        rank = d.pop("rank")

        slow_rank_fault = cls(
            delay_s=delay_s,
            kind=kind,
            rank=rank,
        )

        return slow_rank_fault
