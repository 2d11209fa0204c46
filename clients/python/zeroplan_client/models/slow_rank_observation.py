from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="SlowRankObservation")


@_attrs_define
class SlowRankObservation:
    """
    Attributes:
        baseline_step_s (list[float]):
        busy_s (list[float]):
        configured_rank (int):
        delay_s (float):
        from_step (int):
        rise_s (list[float]):
        slow_rank (int): The rank with the most time outside collectives.
        slowed_step_s (list[float]):
    """

    baseline_step_s: list[float]
    busy_s: list[float]
    configured_rank: int
    delay_s: float
    from_step: int
    rise_s: list[float]
    slow_rank: int
    slowed_step_s: list[float]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        baseline_step_s = self.baseline_step_s

        busy_s = self.busy_s

        configured_rank = self.configured_rank

        delay_s = self.delay_s

        from_step = self.from_step

        rise_s = self.rise_s

        slow_rank = self.slow_rank

        slowed_step_s = self.slowed_step_s

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "baseline_step_s": baseline_step_s,
                "busy_s": busy_s,
                "configured_rank": configured_rank,
                "delay_s": delay_s,
                "from_step": from_step,
                "rise_s": rise_s,
                "slow_rank": slow_rank,
                "slowed_step_s": slowed_step_s,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        baseline_step_s = cast(list[float], d.pop("baseline_step_s"))

        busy_s = cast(list[float], d.pop("busy_s"))

        configured_rank = d.pop("configured_rank")

        delay_s = d.pop("delay_s")

        from_step = d.pop("from_step")

        rise_s = cast(list[float], d.pop("rise_s"))

        slow_rank = d.pop("slow_rank")

        slowed_step_s = cast(list[float], d.pop("slowed_step_s"))

        slow_rank_observation = cls(
            baseline_step_s=baseline_step_s,
            busy_s=busy_s,
            configured_rank=configured_rank,
            delay_s=delay_s,
            from_step=from_step,
            rise_s=rise_s,
            slow_rank=slow_rank,
            slowed_step_s=slowed_step_s,
        )

        slow_rank_observation.additional_properties = d
        return slow_rank_observation

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
