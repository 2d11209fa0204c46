from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.sweep_response_columns import SweepResponseColumns


T = TypeVar("T", bound="SweepResponse")


@_attrs_define
class SweepResponse:
    """Columnar: ``columns[name][i]`` is row i's value of that column.

    Attributes:
        cells (int): Cells of the cartesian product asked for.
        columns (SweepResponseColumns):
        matched_rows (int): Rows after the filter, before offset and limit.
        rows (int): Rows returned.
        skipped_cells (int): Cells that are not valid jobs (see skipped_reasons).
        skipped_reasons (list[str]):
    """

    cells: int
    columns: SweepResponseColumns
    matched_rows: int
    rows: int
    skipped_cells: int
    skipped_reasons: list[str]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cells = self.cells

        columns = self.columns.to_dict()

        matched_rows = self.matched_rows

        rows = self.rows

        skipped_cells = self.skipped_cells

        skipped_reasons = self.skipped_reasons

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cells": cells,
                "columns": columns,
                "matched_rows": matched_rows,
                "rows": rows,
                "skipped_cells": skipped_cells,
                "skipped_reasons": skipped_reasons,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.sweep_response_columns import SweepResponseColumns  # noqa: PLC0415

        d = dict(src_dict)
        cells = d.pop("cells")

        columns = SweepResponseColumns.from_dict(d.pop("columns"))

        matched_rows = d.pop("matched_rows")

        rows = d.pop("rows")

        skipped_cells = d.pop("skipped_cells")

        skipped_reasons = cast(list[str], d.pop("skipped_reasons"))

        sweep_response = cls(
            cells=cells,
            columns=columns,
            matched_rows=matched_rows,
            rows=rows,
            skipped_cells=skipped_cells,
            skipped_reasons=skipped_reasons,
        )

        sweep_response.additional_properties = d
        return sweep_response

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
