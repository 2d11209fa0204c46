from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.recompute import Recompute
from ..types import UNSET, Unset

T = TypeVar("T", bound="StepLevers")


@_attrs_define
class StepLevers:
    """
    Attributes:
        mxfp8 (bool):
        offload_optimizer (bool):
        recompute (Recompute): Activation recomputation (Korthikanti et al. 2022).
        fp8_param_gather (bool | Unset): levers.fp8_param_gather: Transformer Engine's weights kept in FP8 alone.
            Default: False.
    """

    mxfp8: bool
    offload_optimizer: bool
    recompute: Recompute
    fp8_param_gather: bool | Unset = False
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        mxfp8 = self.mxfp8

        offload_optimizer = self.offload_optimizer

        recompute = self.recompute.value

        fp8_param_gather = self.fp8_param_gather

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "mxfp8": mxfp8,
                "offload_optimizer": offload_optimizer,
                "recompute": recompute,
            }
        )
        if fp8_param_gather is not UNSET:
            field_dict["fp8_param_gather"] = fp8_param_gather

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        mxfp8 = d.pop("mxfp8")

        offload_optimizer = d.pop("offload_optimizer")

        recompute = Recompute(d.pop("recompute"))

        fp8_param_gather = d.pop("fp8_param_gather", UNSET)

        step_levers = cls(
            mxfp8=mxfp8,
            offload_optimizer=offload_optimizer,
            recompute=recompute,
            fp8_param_gather=fp8_param_gather,
        )

        step_levers.additional_properties = d
        return step_levers

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
