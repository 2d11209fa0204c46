from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.torch_sim_traffic_engine_layout_plan_bytes_per_step import TorchSimTrafficEngineLayoutPlanBytesPerStep
    from ..models.torch_sim_traffic_plan_bytes_per_step import TorchSimTrafficPlanBytesPerStep


T = TypeVar("T", bound="TorchSimTraffic")


@_attrs_define
class TorchSimTraffic:
    """
    Attributes:
        engine_bytes_per_step (list[int]): Per rank: the observed calls priced by gloo's algorithm.
        engine_layout_plan_bytes_per_step (TorchSimTrafficEngineLayoutPlanBytesPerStep): /v1/plan's bytes for the layout
            the engine keeps (fsdp2 for FSDP2 under bf16 compute).
        plan_bytes_per_step (TorchSimTrafficPlanBytesPerStep): /v1/plan's bytes per rank per step by collective.
        plan_total_bytes_per_step (int):
        reasons (list[str]): Why the engine's collectives differ from the plan's, by design.
    """

    engine_bytes_per_step: list[int]
    engine_layout_plan_bytes_per_step: TorchSimTrafficEngineLayoutPlanBytesPerStep
    plan_bytes_per_step: TorchSimTrafficPlanBytesPerStep
    plan_total_bytes_per_step: int
    reasons: list[str]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        engine_bytes_per_step = self.engine_bytes_per_step

        engine_layout_plan_bytes_per_step = self.engine_layout_plan_bytes_per_step.to_dict()

        plan_bytes_per_step = self.plan_bytes_per_step.to_dict()

        plan_total_bytes_per_step = self.plan_total_bytes_per_step

        reasons = self.reasons

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "engine_bytes_per_step": engine_bytes_per_step,
                "engine_layout_plan_bytes_per_step": engine_layout_plan_bytes_per_step,
                "plan_bytes_per_step": plan_bytes_per_step,
                "plan_total_bytes_per_step": plan_total_bytes_per_step,
                "reasons": reasons,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.torch_sim_traffic_engine_layout_plan_bytes_per_step import (
            TorchSimTrafficEngineLayoutPlanBytesPerStep,  # noqa: PLC0415
        )
        from ..models.torch_sim_traffic_plan_bytes_per_step import TorchSimTrafficPlanBytesPerStep  # noqa: PLC0415

        d = dict(src_dict)
        engine_bytes_per_step = cast(list[int], d.pop("engine_bytes_per_step"))

        engine_layout_plan_bytes_per_step = TorchSimTrafficEngineLayoutPlanBytesPerStep.from_dict(
            d.pop("engine_layout_plan_bytes_per_step")
        )

        plan_bytes_per_step = TorchSimTrafficPlanBytesPerStep.from_dict(d.pop("plan_bytes_per_step"))

        plan_total_bytes_per_step = d.pop("plan_total_bytes_per_step")

        reasons = cast(list[str], d.pop("reasons"))

        torch_sim_traffic = cls(
            engine_bytes_per_step=engine_bytes_per_step,
            engine_layout_plan_bytes_per_step=engine_layout_plan_bytes_per_step,
            plan_bytes_per_step=plan_bytes_per_step,
            plan_total_bytes_per_step=plan_total_bytes_per_step,
            reasons=reasons,
        )

        torch_sim_traffic.additional_properties = d
        return torch_sim_traffic

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
