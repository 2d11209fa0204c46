from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.torch_sim_cuda_plan import TorchSimCudaPlan


T = TypeVar("T", bound="TorchSimCuda")


@_attrs_define
class TorchSimCuda:
    """
    Attributes:
        allocated_minus_predicted_bytes (list[int]):
        max_memory_allocated_bytes (list[int]):
        max_memory_reserved_bytes (list[int]):
        plan (TorchSimCudaPlan): /v1/plan on this card: per_gpu_bytes, model_state_bytes, activations_bytes,
            reserve_bytes, usable_bytes.
        predicted_model_state_bytes (list[int]):
        reserved_minus_allocated_bytes (list[int]):
        reserved_minus_plan_bytes (list[int]): Per rank: max_memory_reserved minus the plan's per-GPU bytes: what the
            reserve must cover.
    """

    allocated_minus_predicted_bytes: list[int]
    max_memory_allocated_bytes: list[int]
    max_memory_reserved_bytes: list[int]
    plan: TorchSimCudaPlan
    predicted_model_state_bytes: list[int]
    reserved_minus_allocated_bytes: list[int]
    reserved_minus_plan_bytes: list[int]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        allocated_minus_predicted_bytes = self.allocated_minus_predicted_bytes

        max_memory_allocated_bytes = self.max_memory_allocated_bytes

        max_memory_reserved_bytes = self.max_memory_reserved_bytes

        plan = self.plan.to_dict()

        predicted_model_state_bytes = self.predicted_model_state_bytes

        reserved_minus_allocated_bytes = self.reserved_minus_allocated_bytes

        reserved_minus_plan_bytes = self.reserved_minus_plan_bytes

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "allocated_minus_predicted_bytes": allocated_minus_predicted_bytes,
                "max_memory_allocated_bytes": max_memory_allocated_bytes,
                "max_memory_reserved_bytes": max_memory_reserved_bytes,
                "plan": plan,
                "predicted_model_state_bytes": predicted_model_state_bytes,
                "reserved_minus_allocated_bytes": reserved_minus_allocated_bytes,
                "reserved_minus_plan_bytes": reserved_minus_plan_bytes,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.torch_sim_cuda_plan import TorchSimCudaPlan  # noqa: PLC0415

        d = dict(src_dict)
        allocated_minus_predicted_bytes = cast(list[int], d.pop("allocated_minus_predicted_bytes"))

        max_memory_allocated_bytes = cast(list[int], d.pop("max_memory_allocated_bytes"))

        max_memory_reserved_bytes = cast(list[int], d.pop("max_memory_reserved_bytes"))

        plan = TorchSimCudaPlan.from_dict(d.pop("plan"))

        predicted_model_state_bytes = cast(list[int], d.pop("predicted_model_state_bytes"))

        reserved_minus_allocated_bytes = cast(list[int], d.pop("reserved_minus_allocated_bytes"))

        reserved_minus_plan_bytes = cast(list[int], d.pop("reserved_minus_plan_bytes"))

        torch_sim_cuda = cls(
            allocated_minus_predicted_bytes=allocated_minus_predicted_bytes,
            max_memory_allocated_bytes=max_memory_allocated_bytes,
            max_memory_reserved_bytes=max_memory_reserved_bytes,
            plan=plan,
            predicted_model_state_bytes=predicted_model_state_bytes,
            reserved_minus_allocated_bytes=reserved_minus_allocated_bytes,
            reserved_minus_plan_bytes=reserved_minus_plan_bytes,
        )

        torch_sim_cuda.additional_properties = d
        return torch_sim_cuda

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
