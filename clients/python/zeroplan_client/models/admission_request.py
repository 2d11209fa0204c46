from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.admission_request_kind import AdmissionRequestKind
    from ..models.admission_request_object_type_0 import AdmissionRequestObjectType0


T = TypeVar("T", bound="AdmissionRequest")


@_attrs_define
class AdmissionRequest:
    """
    Attributes:
        uid (str): Copied to the response, as the API server expects.
        kind (AdmissionRequestKind | Unset): group, version and kind of the object.
        object_ (AdmissionRequestObjectType0 | None | Unset): The PyTorchJob or JobSet as submitted.
        operation (str | Unset): CREATE, UPDATE, DELETE or CONNECT. Default: 'CREATE'.
    """

    uid: str
    kind: AdmissionRequestKind | Unset = UNSET
    object_: AdmissionRequestObjectType0 | None | Unset = UNSET
    operation: str | Unset = "CREATE"
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.admission_request_object_type_0 import AdmissionRequestObjectType0  # noqa: PLC0415

        uid = self.uid

        kind: dict[str, Any] | Unset = UNSET
        if not isinstance(self.kind, Unset):
            kind = self.kind.to_dict()

        object_: dict[str, Any] | None | Unset
        if isinstance(self.object_, Unset):
            object_ = UNSET
        elif isinstance(self.object_, AdmissionRequestObjectType0):
            object_ = self.object_.to_dict()
        else:
            object_ = self.object_

        operation = self.operation

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "uid": uid,
            }
        )
        if kind is not UNSET:
            field_dict["kind"] = kind
        if object_ is not UNSET:
            field_dict["object"] = object_
        if operation is not UNSET:
            field_dict["operation"] = operation

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.admission_request_kind import AdmissionRequestKind  # noqa: PLC0415
        from ..models.admission_request_object_type_0 import AdmissionRequestObjectType0  # noqa: PLC0415

        d = dict(src_dict)
        uid = d.pop("uid")

        _kind = d.pop("kind", UNSET)
        kind: AdmissionRequestKind | Unset
        if isinstance(_kind, Unset):
            kind = UNSET
        else:
            kind = AdmissionRequestKind.from_dict(_kind)

        def _parse_object_(data: object) -> AdmissionRequestObjectType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                object_type_0 = AdmissionRequestObjectType0.from_dict(data)

                return object_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AdmissionRequestObjectType0 | None | Unset, data)

        object_ = _parse_object_(d.pop("object", UNSET))

        operation = d.pop("operation", UNSET)

        admission_request = cls(
            uid=uid,
            kind=kind,
            object_=object_,
            operation=operation,
        )

        admission_request.additional_properties = d
        return admission_request

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
