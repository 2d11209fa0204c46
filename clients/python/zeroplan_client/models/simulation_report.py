from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.simulation_report_verdict_type_0 import SimulationReportVerdictType0
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.sim_arrangement import SimArrangement
    from ..models.sim_builtin_reduce_scatter import SimBuiltinReduceScatter
    from ..models.sim_check import SimCheck
    from ..models.sim_faults import SimFaults
    from ..models.sim_rank_process import SimRankProcess


T = TypeVar("T", bound="SimulationReport")


@_attrs_define
class SimulationReport:
    """
    Attributes:
        arrangements (list[SimArrangement]):
        faults (SimFaults):
        formula_basis (str):
        layers (int):
        parameter_count (int): Exact weights of the model used.
        parameter_count_requested (int):
        precision (str):
        ranks (list[SimRankProcess]):
        steps (int):
        succeeded (bool): Every rank finished (the rings engine); read `verdict` for the checks.
        timed_out (bool):
        unit_elements (int):
        wall_s (float):
        wire_allowance_bytes_per_send (int):
        world_size (int):
        builtin_reduce_scatter (None | SimBuiltinReduceScatter | Unset):
        checks (list[SimCheck] | Unset): The checks the verdict is made of, per arrangement.
        verdict (None | SimulationReportVerdictType0 | Unset): One meaning for every engine: confirmed (every rank
            finished and every check passed), refuted (every rank finished, a check failed), incomplete (a rank failed or
            the job ran out of time); null in reports stored before verdicts.
    """

    arrangements: list[SimArrangement]
    faults: SimFaults
    formula_basis: str
    layers: int
    parameter_count: int
    parameter_count_requested: int
    precision: str
    ranks: list[SimRankProcess]
    steps: int
    succeeded: bool
    timed_out: bool
    unit_elements: int
    wall_s: float
    wire_allowance_bytes_per_send: int
    world_size: int
    builtin_reduce_scatter: None | SimBuiltinReduceScatter | Unset = UNSET
    checks: list[SimCheck] | Unset = UNSET
    verdict: None | SimulationReportVerdictType0 | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.sim_builtin_reduce_scatter import SimBuiltinReduceScatter  # noqa: PLC0415

        arrangements = []
        for arrangements_item_data in self.arrangements:
            arrangements_item = arrangements_item_data.to_dict()
            arrangements.append(arrangements_item)

        faults = self.faults.to_dict()

        formula_basis = self.formula_basis

        layers = self.layers

        parameter_count = self.parameter_count

        parameter_count_requested = self.parameter_count_requested

        precision = self.precision

        ranks = []
        for ranks_item_data in self.ranks:
            ranks_item = ranks_item_data.to_dict()
            ranks.append(ranks_item)

        steps = self.steps

        succeeded = self.succeeded

        timed_out = self.timed_out

        unit_elements = self.unit_elements

        wall_s = self.wall_s

        wire_allowance_bytes_per_send = self.wire_allowance_bytes_per_send

        world_size = self.world_size

        builtin_reduce_scatter: dict[str, Any] | None | Unset
        if isinstance(self.builtin_reduce_scatter, Unset):
            builtin_reduce_scatter = UNSET
        elif isinstance(self.builtin_reduce_scatter, SimBuiltinReduceScatter):
            builtin_reduce_scatter = self.builtin_reduce_scatter.to_dict()
        else:
            builtin_reduce_scatter = self.builtin_reduce_scatter

        checks: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.checks, Unset):
            checks = []
            for checks_item_data in self.checks:
                checks_item = checks_item_data.to_dict()
                checks.append(checks_item)

        verdict: None | str | Unset
        if isinstance(self.verdict, Unset):
            verdict = UNSET
        elif isinstance(self.verdict, SimulationReportVerdictType0):
            verdict = self.verdict.value
        else:
            verdict = self.verdict

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "arrangements": arrangements,
                "faults": faults,
                "formula_basis": formula_basis,
                "layers": layers,
                "parameter_count": parameter_count,
                "parameter_count_requested": parameter_count_requested,
                "precision": precision,
                "ranks": ranks,
                "steps": steps,
                "succeeded": succeeded,
                "timed_out": timed_out,
                "unit_elements": unit_elements,
                "wall_s": wall_s,
                "wire_allowance_bytes_per_send": wire_allowance_bytes_per_send,
                "world_size": world_size,
            }
        )
        if builtin_reduce_scatter is not UNSET:
            field_dict["builtin_reduce_scatter"] = builtin_reduce_scatter
        if checks is not UNSET:
            field_dict["checks"] = checks
        if verdict is not UNSET:
            field_dict["verdict"] = verdict

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.sim_arrangement import SimArrangement  # noqa: PLC0415
        from ..models.sim_builtin_reduce_scatter import SimBuiltinReduceScatter  # noqa: PLC0415
        from ..models.sim_check import SimCheck  # noqa: PLC0415
        from ..models.sim_faults import SimFaults  # noqa: PLC0415
        from ..models.sim_rank_process import SimRankProcess  # noqa: PLC0415

        d = dict(src_dict)
        arrangements = []
        _arrangements = d.pop("arrangements")
        for arrangements_item_data in _arrangements:
            arrangements_item = SimArrangement.from_dict(arrangements_item_data)

            arrangements.append(arrangements_item)

        faults = SimFaults.from_dict(d.pop("faults"))

        formula_basis = d.pop("formula_basis")

        layers = d.pop("layers")

        parameter_count = d.pop("parameter_count")

        parameter_count_requested = d.pop("parameter_count_requested")

        precision = d.pop("precision")

        ranks = []
        _ranks = d.pop("ranks")
        for ranks_item_data in _ranks:
            ranks_item = SimRankProcess.from_dict(ranks_item_data)

            ranks.append(ranks_item)

        steps = d.pop("steps")

        succeeded = d.pop("succeeded")

        timed_out = d.pop("timed_out")

        unit_elements = d.pop("unit_elements")

        wall_s = d.pop("wall_s")

        wire_allowance_bytes_per_send = d.pop("wire_allowance_bytes_per_send")

        world_size = d.pop("world_size")

        def _parse_builtin_reduce_scatter(data: object) -> None | SimBuiltinReduceScatter | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                builtin_reduce_scatter_type_0 = SimBuiltinReduceScatter.from_dict(data)

                return builtin_reduce_scatter_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SimBuiltinReduceScatter | Unset, data)

        builtin_reduce_scatter = _parse_builtin_reduce_scatter(d.pop("builtin_reduce_scatter", UNSET))

        _checks = d.pop("checks", UNSET)
        checks: list[SimCheck] | Unset = UNSET
        if _checks is not UNSET:
            checks = []
            for checks_item_data in _checks:
                checks_item = SimCheck.from_dict(checks_item_data)

                checks.append(checks_item)

        def _parse_verdict(data: object) -> None | SimulationReportVerdictType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                verdict_type_0 = SimulationReportVerdictType0(data)

                return verdict_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SimulationReportVerdictType0 | Unset, data)

        verdict = _parse_verdict(d.pop("verdict", UNSET))

        simulation_report = cls(
            arrangements=arrangements,
            faults=faults,
            formula_basis=formula_basis,
            layers=layers,
            parameter_count=parameter_count,
            parameter_count_requested=parameter_count_requested,
            precision=precision,
            ranks=ranks,
            steps=steps,
            succeeded=succeeded,
            timed_out=timed_out,
            unit_elements=unit_elements,
            wall_s=wall_s,
            wire_allowance_bytes_per_send=wire_allowance_bytes_per_send,
            world_size=world_size,
            builtin_reduce_scatter=builtin_reduce_scatter,
            checks=checks,
            verdict=verdict,
        )

        simulation_report.additional_properties = d
        return simulation_report

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
