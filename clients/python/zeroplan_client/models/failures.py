from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="Failures")


@_attrs_define
class Failures:
    """How often the job is interrupted and what a restart costs besides the checkpoint it reloads.

    Attributes:
        interruptions_per_gpu_hour (float | None | Unset): Job interruptions per GPU-hour (0 to 1; 0: no failures).
            Default 466 / (54 x 24 x 16,384) = 2.195e-5, Llama 3 405B's (Dubey et al. 2024, section 3.3.4). Or give
            node_mtbf_hours.
        node_mtbf_hours (float | None | Unset): Mean time between failures of one node, hours (0.001 to 1e9), instead of
            interruptions_per_gpu_hour: a rate of 1 / (node_mtbf_hours x gpus_per_node) per GPU-hour.
        restart_s (float | Unset): Seconds to re-launch after an interruption before the checkpoint is read (re-queue,
            process start, NCCL initialisation); the read and the work lost since the last checkpoint are added to it.
            Default 600, an assumption. Default: 600.0.
    """

    interruptions_per_gpu_hour: float | None | Unset = UNSET
    node_mtbf_hours: float | None | Unset = UNSET
    restart_s: float | Unset = 600.0

    def to_dict(self) -> dict[str, Any]:
        interruptions_per_gpu_hour: float | None | Unset
        if isinstance(self.interruptions_per_gpu_hour, Unset):
            interruptions_per_gpu_hour = UNSET
        else:
            interruptions_per_gpu_hour = self.interruptions_per_gpu_hour

        node_mtbf_hours: float | None | Unset
        if isinstance(self.node_mtbf_hours, Unset):
            node_mtbf_hours = UNSET
        else:
            node_mtbf_hours = self.node_mtbf_hours

        restart_s = self.restart_s

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if interruptions_per_gpu_hour is not UNSET:
            field_dict["interruptions_per_gpu_hour"] = interruptions_per_gpu_hour
        if node_mtbf_hours is not UNSET:
            field_dict["node_mtbf_hours"] = node_mtbf_hours
        if restart_s is not UNSET:
            field_dict["restart_s"] = restart_s

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_interruptions_per_gpu_hour(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        interruptions_per_gpu_hour = _parse_interruptions_per_gpu_hour(d.pop("interruptions_per_gpu_hour", UNSET))

        def _parse_node_mtbf_hours(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        node_mtbf_hours = _parse_node_mtbf_hours(d.pop("node_mtbf_hours", UNSET))

        restart_s = d.pop("restart_s", UNSET)

        failures = cls(
            interruptions_per_gpu_hour=interruptions_per_gpu_hour,
            node_mtbf_hours=node_mtbf_hours,
            restart_s=restart_s,
        )

        return failures
