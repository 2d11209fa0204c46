from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.sweep_sort_key import SweepSortKey
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.plan_request import PlanRequest
    from ..models.sweep_axes import SweepAxes


T = TypeVar("T", bound="SweepRequest")


@_attrs_define
class SweepRequest:
    """
    Attributes:
        axes (SweepAxes): Each axis lists distinct values to sweep; an axis left out keeps the base request's value.
        base (PlanRequest):
        descending (bool | Unset):  Default: False.
        fits_only (bool | Unset): Keep only the rows that fit the card. Default: False.
        limit (int | None | Unset): Rows returned at most.
        offset (int | Unset):  Default: 0.
        sort_by (None | SweepSortKey | Unset): Sort the rows by this column.
    """

    axes: SweepAxes
    base: PlanRequest
    descending: bool | Unset = False
    fits_only: bool | Unset = False
    limit: int | None | Unset = UNSET
    offset: int | Unset = 0
    sort_by: None | SweepSortKey | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        axes = self.axes.to_dict()

        base = self.base.to_dict()

        descending = self.descending

        fits_only = self.fits_only

        limit: int | None | Unset
        if isinstance(self.limit, Unset):
            limit = UNSET
        else:
            limit = self.limit

        offset = self.offset

        sort_by: None | str | Unset
        if isinstance(self.sort_by, Unset):
            sort_by = UNSET
        elif isinstance(self.sort_by, SweepSortKey):
            sort_by = self.sort_by.value
        else:
            sort_by = self.sort_by

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "axes": axes,
                "base": base,
            }
        )
        if descending is not UNSET:
            field_dict["descending"] = descending
        if fits_only is not UNSET:
            field_dict["fits_only"] = fits_only
        if limit is not UNSET:
            field_dict["limit"] = limit
        if offset is not UNSET:
            field_dict["offset"] = offset
        if sort_by is not UNSET:
            field_dict["sort_by"] = sort_by

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.plan_request import PlanRequest  # noqa: PLC0415
        from ..models.sweep_axes import SweepAxes  # noqa: PLC0415

        d = dict(src_dict)
        axes = SweepAxes.from_dict(d.pop("axes"))

        base = PlanRequest.from_dict(d.pop("base"))

        descending = d.pop("descending", UNSET)

        fits_only = d.pop("fits_only", UNSET)

        def _parse_limit(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        limit = _parse_limit(d.pop("limit", UNSET))

        offset = d.pop("offset", UNSET)

        def _parse_sort_by(data: object) -> None | SweepSortKey | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                sort_by_type_0 = SweepSortKey(data)

                return sort_by_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SweepSortKey | Unset, data)

        sort_by = _parse_sort_by(d.pop("sort_by", UNSET))

        sweep_request = cls(
            axes=axes,
            base=base,
            descending=descending,
            fits_only=fits_only,
            limit=limit,
            offset=offset,
            sort_by=sort_by,
        )

        return sweep_request
