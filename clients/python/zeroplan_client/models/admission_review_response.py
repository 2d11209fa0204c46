from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.admission_response import AdmissionResponse


T = TypeVar("T", bound="AdmissionReviewResponse")


@_attrs_define
class AdmissionReviewResponse:
    """
    Attributes:
        response (AdmissionResponse):
        api_version (Literal['admission.k8s.io/v1'] | Unset):  Default: 'admission.k8s.io/v1'.
        kind (Literal['AdmissionReview'] | Unset):  Default: 'AdmissionReview'.
    """

    response: AdmissionResponse
    api_version: Literal["admission.k8s.io/v1"] | Unset = "admission.k8s.io/v1"
    kind: Literal["AdmissionReview"] | Unset = "AdmissionReview"
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        response = self.response.to_dict()

        api_version = self.api_version

        kind = self.kind

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "response": response,
            }
        )
        if api_version is not UNSET:
            field_dict["apiVersion"] = api_version
        if kind is not UNSET:
            field_dict["kind"] = kind

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.admission_response import AdmissionResponse  # noqa: PLC0415

        d = dict(src_dict)
        response = AdmissionResponse.from_dict(d.pop("response"))

        api_version = cast(Literal["admission.k8s.io/v1"] | Unset, d.pop("apiVersion", UNSET))
        if api_version != "admission.k8s.io/v1" and not isinstance(api_version, Unset):
            raise ValueError(f"apiVersion must match const 'admission.k8s.io/v1', got '{api_version}'")

        kind = cast(Literal["AdmissionReview"] | Unset, d.pop("kind", UNSET))
        if kind != "AdmissionReview" and not isinstance(kind, Unset):
            raise ValueError(f"kind must match const 'AdmissionReview', got '{kind}'")

        admission_review_response = cls(
            response=response,
            api_version=api_version,
            kind=kind,
        )

        admission_review_response.additional_properties = d
        return admission_review_response

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
