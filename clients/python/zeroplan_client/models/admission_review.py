from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.admission_request import AdmissionRequest


T = TypeVar("T", bound="AdmissionReview")


@_attrs_define
class AdmissionReview:
    """
    Attributes:
        api_version (Literal['admission.k8s.io/v1']):
        kind (Literal['AdmissionReview']):
        request (AdmissionRequest):
    """

    api_version: Literal["admission.k8s.io/v1"]
    kind: Literal["AdmissionReview"]
    request: AdmissionRequest
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        api_version = self.api_version

        kind = self.kind

        request = self.request.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "apiVersion": api_version,
                "kind": kind,
                "request": request,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.admission_request import AdmissionRequest  # noqa: PLC0415

        d = dict(src_dict)
        api_version = cast(Literal["admission.k8s.io/v1"], d.pop("apiVersion"))
        if api_version != "admission.k8s.io/v1":
            raise ValueError(f"apiVersion must match const 'admission.k8s.io/v1', got '{api_version}'")

        kind = cast(Literal["AdmissionReview"], d.pop("kind"))
        if kind != "AdmissionReview":
            raise ValueError(f"kind must match const 'AdmissionReview', got '{kind}'")

        request = AdmissionRequest.from_dict(d.pop("request"))

        admission_review = cls(
            api_version=api_version,
            kind=kind,
            request=request,
        )

        admission_review.additional_properties = d
        return admission_review

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
