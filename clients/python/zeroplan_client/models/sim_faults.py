from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.checkpoint_observation import CheckpointObservation
    from ..models.failure_observation import FailureObservation
    from ..models.slow_rank_observation import SlowRankObservation


T = TypeVar("T", bound="SimFaults")


@_attrs_define
class SimFaults:
    """
    Attributes:
        checkpoint (CheckpointObservation | None | Unset):
        failure (FailureObservation | None | Unset):
        slow_rank (None | SlowRankObservation | Unset):
    """

    checkpoint: CheckpointObservation | None | Unset = UNSET
    failure: FailureObservation | None | Unset = UNSET
    slow_rank: None | SlowRankObservation | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.checkpoint_observation import CheckpointObservation  # noqa: PLC0415
        from ..models.failure_observation import FailureObservation  # noqa: PLC0415
        from ..models.slow_rank_observation import SlowRankObservation  # noqa: PLC0415

        checkpoint: dict[str, Any] | None | Unset
        if isinstance(self.checkpoint, Unset):
            checkpoint = UNSET
        elif isinstance(self.checkpoint, CheckpointObservation):
            checkpoint = self.checkpoint.to_dict()
        else:
            checkpoint = self.checkpoint

        failure: dict[str, Any] | None | Unset
        if isinstance(self.failure, Unset):
            failure = UNSET
        elif isinstance(self.failure, FailureObservation):
            failure = self.failure.to_dict()
        else:
            failure = self.failure

        slow_rank: dict[str, Any] | None | Unset
        if isinstance(self.slow_rank, Unset):
            slow_rank = UNSET
        elif isinstance(self.slow_rank, SlowRankObservation):
            slow_rank = self.slow_rank.to_dict()
        else:
            slow_rank = self.slow_rank

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if checkpoint is not UNSET:
            field_dict["checkpoint"] = checkpoint
        if failure is not UNSET:
            field_dict["failure"] = failure
        if slow_rank is not UNSET:
            field_dict["slow_rank"] = slow_rank

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.checkpoint_observation import CheckpointObservation  # noqa: PLC0415
        from ..models.failure_observation import FailureObservation  # noqa: PLC0415
        from ..models.slow_rank_observation import SlowRankObservation  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_checkpoint(data: object) -> CheckpointObservation | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                checkpoint_type_0 = CheckpointObservation.from_dict(data)

                return checkpoint_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CheckpointObservation | None | Unset, data)

        checkpoint = _parse_checkpoint(d.pop("checkpoint", UNSET))

        def _parse_failure(data: object) -> FailureObservation | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                failure_type_0 = FailureObservation.from_dict(data)

                return failure_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FailureObservation | None | Unset, data)

        failure = _parse_failure(d.pop("failure", UNSET))

        def _parse_slow_rank(data: object) -> None | SlowRankObservation | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                slow_rank_type_0 = SlowRankObservation.from_dict(data)

                return slow_rank_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SlowRankObservation | Unset, data)

        slow_rank = _parse_slow_rank(d.pop("slow_rank", UNSET))

        sim_faults = cls(
            checkpoint=checkpoint,
            failure=failure,
            slow_rank=slow_rank,
        )

        sim_faults.additional_properties = d
        return sim_faults

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
