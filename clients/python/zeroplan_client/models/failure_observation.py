from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.rank_failure import RankFailure
    from ..models.sim_rank_process import SimRankProcess


T = TypeVar("T", bound="FailureObservation")


@_attrs_define
class FailureObservation:
    """
    Attributes:
        failed_at_steps (list[int]):
        failed_ranks (list[RankFailure]):
        ranks_without_result (list[SimRankProcess]):
        summary (str):
        timed_out (bool):
    """

    failed_at_steps: list[int]
    failed_ranks: list[RankFailure]
    ranks_without_result: list[SimRankProcess]
    summary: str
    timed_out: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        failed_at_steps = self.failed_at_steps

        failed_ranks = []
        for failed_ranks_item_data in self.failed_ranks:
            failed_ranks_item = failed_ranks_item_data.to_dict()
            failed_ranks.append(failed_ranks_item)

        ranks_without_result = []
        for ranks_without_result_item_data in self.ranks_without_result:
            ranks_without_result_item = ranks_without_result_item_data.to_dict()
            ranks_without_result.append(ranks_without_result_item)

        summary = self.summary

        timed_out = self.timed_out

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "failed_at_steps": failed_at_steps,
                "failed_ranks": failed_ranks,
                "ranks_without_result": ranks_without_result,
                "summary": summary,
                "timed_out": timed_out,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.rank_failure import RankFailure  # noqa: PLC0415
        from ..models.sim_rank_process import SimRankProcess  # noqa: PLC0415

        d = dict(src_dict)
        failed_at_steps = cast(list[int], d.pop("failed_at_steps"))

        failed_ranks = []
        _failed_ranks = d.pop("failed_ranks")
        for failed_ranks_item_data in _failed_ranks:
            failed_ranks_item = RankFailure.from_dict(failed_ranks_item_data)

            failed_ranks.append(failed_ranks_item)

        ranks_without_result = []
        _ranks_without_result = d.pop("ranks_without_result")
        for ranks_without_result_item_data in _ranks_without_result:
            ranks_without_result_item = SimRankProcess.from_dict(ranks_without_result_item_data)

            ranks_without_result.append(ranks_without_result_item)

        summary = d.pop("summary")

        timed_out = d.pop("timed_out")

        failure_observation = cls(
            failed_at_steps=failed_at_steps,
            failed_ranks=failed_ranks,
            ranks_without_result=ranks_without_result,
            summary=summary,
            timed_out=timed_out,
        )

        failure_observation.additional_properties = d
        return failure_observation

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
