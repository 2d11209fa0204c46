from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.admission_status import AdmissionStatus


T = TypeVar("T", bound="AdmissionResponse")


@_attrs_define
class AdmissionResponse:
    """
    Attributes:
        allowed (bool):
        uid (str):
        patch (None | str | Unset): Base64 of a JSONPatch adding the zeroplan.dev/prediction annotation.
        patch_type (Literal['JSONPatch'] | None | Unset):
        status (AdmissionStatus | None | Unset):
        warnings (list[str] | None | Unset): The prediction, shown by kubectl as warnings.
    """

    allowed: bool
    uid: str
    patch: None | str | Unset = UNSET
    patch_type: Literal["JSONPatch"] | None | Unset = UNSET
    status: AdmissionStatus | None | Unset = UNSET
    warnings: list[str] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.admission_status import AdmissionStatus  # noqa: PLC0415

        allowed = self.allowed

        uid = self.uid

        patch: None | str | Unset
        if isinstance(self.patch, Unset):
            patch = UNSET
        else:
            patch = self.patch

        patch_type: Literal["JSONPatch"] | None | Unset
        if isinstance(self.patch_type, Unset):
            patch_type = UNSET
        else:
            patch_type = self.patch_type

        status: dict[str, Any] | None | Unset
        if isinstance(self.status, Unset):
            status = UNSET
        elif isinstance(self.status, AdmissionStatus):
            status = self.status.to_dict()
        else:
            status = self.status

        warnings: list[str] | None | Unset
        if isinstance(self.warnings, Unset):
            warnings = UNSET
        elif isinstance(self.warnings, list):
            warnings = self.warnings

        else:
            warnings = self.warnings

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "allowed": allowed,
                "uid": uid,
            }
        )
        if patch is not UNSET:
            field_dict["patch"] = patch
        if patch_type is not UNSET:
            field_dict["patchType"] = patch_type
        if status is not UNSET:
            field_dict["status"] = status
        if warnings is not UNSET:
            field_dict["warnings"] = warnings

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.admission_status import AdmissionStatus  # noqa: PLC0415

        d = dict(src_dict)
        allowed = d.pop("allowed")

        uid = d.pop("uid")

        def _parse_patch(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        patch = _parse_patch(d.pop("patch", UNSET))

        def _parse_patch_type(data: object) -> Literal["JSONPatch"] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            patch_type_type_0 = cast(Literal["JSONPatch"], data)
            if patch_type_type_0 != "JSONPatch":
                raise ValueError(f"patchType_type_0 must match const 'JSONPatch', got '{patch_type_type_0}'")
            return patch_type_type_0
            return cast(Literal["JSONPatch"] | None | Unset, data)

        patch_type = _parse_patch_type(d.pop("patchType", UNSET))

        def _parse_status(data: object) -> AdmissionStatus | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                status_type_0 = AdmissionStatus.from_dict(data)

                return status_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AdmissionStatus | None | Unset, data)

        status = _parse_status(d.pop("status", UNSET))

        def _parse_warnings(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                warnings_type_0 = cast(list[str], data)

                return warnings_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        warnings = _parse_warnings(d.pop("warnings", UNSET))

        admission_response = cls(
            allowed=allowed,
            uid=uid,
            patch=patch,
            patch_type=patch_type,
            status=status,
            warnings=warnings,
        )

        admission_response.additional_properties = d
        return admission_response

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
