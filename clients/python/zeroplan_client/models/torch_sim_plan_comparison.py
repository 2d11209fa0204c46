from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="TorchSimPlanComparison")


@_attrs_define
class TorchSimPlanComparison:
    """
    Attributes:
        convention (str):
        engine_bytes (int):
        plan_bytes (int):
        ratio (float | None): engine_bytes / plan_bytes.
        term (str): activations or working set.
        tolerance (float | None): Relative; 0 for exact; null where the two count different things.
        within_tolerance (bool | None):
        within_tolerance_all_ranks (bool | None):
    """

    convention: str
    engine_bytes: int
    plan_bytes: int
    ratio: float | None
    term: str
    tolerance: float | None
    within_tolerance: bool | None
    within_tolerance_all_ranks: bool | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        convention = self.convention

        engine_bytes = self.engine_bytes

        plan_bytes = self.plan_bytes

        ratio: float | None
        ratio = self.ratio

        term = self.term

        tolerance: float | None
        tolerance = self.tolerance

        within_tolerance: bool | None
        within_tolerance = self.within_tolerance

        within_tolerance_all_ranks: bool | None
        within_tolerance_all_ranks = self.within_tolerance_all_ranks

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "convention": convention,
                "engine_bytes": engine_bytes,
                "plan_bytes": plan_bytes,
                "ratio": ratio,
                "term": term,
                "tolerance": tolerance,
                "within_tolerance": within_tolerance,
                "within_tolerance_all_ranks": within_tolerance_all_ranks,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        convention = d.pop("convention")

        engine_bytes = d.pop("engine_bytes")

        plan_bytes = d.pop("plan_bytes")

        def _parse_ratio(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        ratio = _parse_ratio(d.pop("ratio"))

        term = d.pop("term")

        def _parse_tolerance(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        tolerance = _parse_tolerance(d.pop("tolerance"))

        def _parse_within_tolerance(data: object) -> bool | None:
            if data is None:
                return data
            return cast(bool | None, data)

        within_tolerance = _parse_within_tolerance(d.pop("within_tolerance"))

        def _parse_within_tolerance_all_ranks(data: object) -> bool | None:
            if data is None:
                return data
            return cast(bool | None, data)

        within_tolerance_all_ranks = _parse_within_tolerance_all_ranks(d.pop("within_tolerance_all_ranks"))

        torch_sim_plan_comparison = cls(
            convention=convention,
            engine_bytes=engine_bytes,
            plan_bytes=plan_bytes,
            ratio=ratio,
            term=term,
            tolerance=tolerance,
            within_tolerance=within_tolerance,
            within_tolerance_all_ranks=within_tolerance_all_ranks,
        )

        torch_sim_plan_comparison.additional_properties = d
        return torch_sim_plan_comparison

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
