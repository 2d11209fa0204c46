from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="RankFailure")


@_attrs_define
class RankFailure:
    """
    Attributes:
        after_s (float):
        error (str):
        rank (int):
        run (int | None):
        step (int | None):
    """

    after_s: float
    error: str
    rank: int
    run: int | None
    step: int | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        after_s = self.after_s

        error = self.error

        rank = self.rank

        run: int | None
        run = self.run

        step: int | None
        step = self.step

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "after_s": after_s,
                "error": error,
                "rank": rank,
                "run": run,
                "step": step,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        after_s = d.pop("after_s")

        error = d.pop("error")

        rank = d.pop("rank")

        def _parse_run(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        run = _parse_run(d.pop("run"))

        def _parse_step(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        step = _parse_step(d.pop("step"))

        rank_failure = cls(
            after_s=after_s,
            error=error,
            rank=rank,
            run=run,
            step=step,
        )

        rank_failure.additional_properties = d
        return rank_failure

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
