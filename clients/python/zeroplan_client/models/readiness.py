from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.readiness_job_store import ReadinessJobStore
from ..models.readiness_status import ReadinessStatus
from ..types import UNSET, Unset

T = TypeVar("T", bound="Readiness")


@_attrs_define
class Readiness:
    """
    Attributes:
        job_store (ReadinessJobStore): The simulation job store: read within the store timeout (`ok`), failing or too
            slow (`unavailable`, with `detail`), or not needed because simulations are unavailable (`not_used`).
        simulation_available (bool): Whether this service takes simulation jobs: torch is installed here, or `zeroplan
            worker` processes run them, and ZEROPLAN_SIM_MAX_CONCURRENT_JOBS is above 0.
        status (ReadinessStatus):
        detail (None | str | Unset): Why the service is not ready.
    """

    job_store: ReadinessJobStore
    simulation_available: bool
    status: ReadinessStatus
    detail: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        job_store = self.job_store.value

        simulation_available = self.simulation_available

        status = self.status.value

        detail: None | str | Unset
        if isinstance(self.detail, Unset):
            detail = UNSET
        else:
            detail = self.detail

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "job_store": job_store,
                "simulation_available": simulation_available,
                "status": status,
            }
        )
        if detail is not UNSET:
            field_dict["detail"] = detail

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        job_store = ReadinessJobStore(d.pop("job_store"))

        simulation_available = d.pop("simulation_available")

        status = ReadinessStatus(d.pop("status"))

        def _parse_detail(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        detail = _parse_detail(d.pop("detail", UNSET))

        readiness = cls(
            job_store=job_store,
            simulation_available=simulation_available,
            status=status,
            detail=detail,
        )

        readiness.additional_properties = d
        return readiness

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
