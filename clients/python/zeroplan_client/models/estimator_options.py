from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="EstimatorOptions")


@_attrs_define
class EstimatorOptions:
    """Inputs of DeepSpeed's estimators (memory.framework_estimate) that a plan does not otherwise carry.

    Attributes:
        additional_buffer_factor (float | Unset): DeepSpeed's additional_buffer_factor on the CPU figure. Default: 1.5.
        largest_layer_parameters (int | None | Unset): Parameters of the largest single module (DeepSpeed's
            largest_layer_params); default: derived from the architecture, else 0 (the estimate then omits its 4 x largest
            layer term).
        zero_init (bool | Unset): Model built under deepspeed.zero.Init (ZeRO-3 CPU figure). Default: True.
    """

    additional_buffer_factor: float | Unset = 1.5
    largest_layer_parameters: int | None | Unset = UNSET
    zero_init: bool | Unset = True

    def to_dict(self) -> dict[str, Any]:
        additional_buffer_factor = self.additional_buffer_factor

        largest_layer_parameters: int | None | Unset
        if isinstance(self.largest_layer_parameters, Unset):
            largest_layer_parameters = UNSET
        else:
            largest_layer_parameters = self.largest_layer_parameters

        zero_init = self.zero_init

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if additional_buffer_factor is not UNSET:
            field_dict["additional_buffer_factor"] = additional_buffer_factor
        if largest_layer_parameters is not UNSET:
            field_dict["largest_layer_parameters"] = largest_layer_parameters
        if zero_init is not UNSET:
            field_dict["zero_init"] = zero_init

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        additional_buffer_factor = d.pop("additional_buffer_factor", UNSET)

        def _parse_largest_layer_parameters(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        largest_layer_parameters = _parse_largest_layer_parameters(d.pop("largest_layer_parameters", UNSET))

        zero_init = d.pop("zero_init", UNSET)

        estimator_options = cls(
            additional_buffer_factor=additional_buffer_factor,
            largest_layer_parameters=largest_layer_parameters,
            zero_init=zero_init,
        )

        return estimator_options
