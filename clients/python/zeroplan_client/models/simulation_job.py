from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.simulation_status import SimulationStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.simulation_report import SimulationReport
    from ..models.simulation_request import SimulationRequest
    from ..models.torch_simulation_report import TorchSimulationReport


T = TypeVar("T", bound="SimulationJob")


@_attrs_define
class SimulationJob:
    """
    Attributes:
        created_at (datetime.datetime): When the job was submitted: RFC 3339, UTC.
        id (str):
        request (SimulationRequest):
        status (SimulationStatus):
        updated_at (datetime.datetime): When its status last changed: RFC 3339, UTC.
        error (None | str | Unset):
        report (None | SimulationReport | TorchSimulationReport | Unset):
    """

    created_at: datetime.datetime
    id: str
    request: SimulationRequest
    status: SimulationStatus
    updated_at: datetime.datetime
    error: None | str | Unset = UNSET
    report: None | SimulationReport | TorchSimulationReport | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.simulation_report import SimulationReport  # noqa: PLC0415
        from ..models.torch_simulation_report import TorchSimulationReport  # noqa: PLC0415

        created_at = self.created_at.isoformat()

        id = self.id

        request = self.request.to_dict()

        status = self.status.value

        updated_at = self.updated_at.isoformat()

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        report: dict[str, Any] | None | Unset
        if isinstance(self.report, Unset):
            report = UNSET
        elif isinstance(self.report, SimulationReport):
            report = self.report.to_dict()
        elif isinstance(self.report, TorchSimulationReport):
            report = self.report.to_dict()
        else:
            report = self.report

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "id": id,
                "request": request,
                "status": status,
                "updated_at": updated_at,
            }
        )
        if error is not UNSET:
            field_dict["error"] = error
        if report is not UNSET:
            field_dict["report"] = report

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.simulation_report import SimulationReport  # noqa: PLC0415
        from ..models.simulation_request import SimulationRequest  # noqa: PLC0415
        from ..models.torch_simulation_report import TorchSimulationReport  # noqa: PLC0415

        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        id = d.pop("id")

        request = SimulationRequest.from_dict(d.pop("request"))

        status = SimulationStatus(d.pop("status"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_report(data: object) -> None | SimulationReport | TorchSimulationReport | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                report_type_0 = SimulationReport.from_dict(data)

                return report_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                report_type_1 = TorchSimulationReport.from_dict(data)

                return report_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SimulationReport | TorchSimulationReport | Unset, data)

        report = _parse_report(d.pop("report", UNSET))

        simulation_job = cls(
            created_at=created_at,
            id=id,
            request=request,
            status=status,
            updated_at=updated_at,
            error=error,
            report=report,
        )

        simulation_job.additional_properties = d
        return simulation_job

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
