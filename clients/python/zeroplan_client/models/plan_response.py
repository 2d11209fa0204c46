from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.memory import Memory
    from ..models.parallelism_echo import ParallelismEcho
    from ..models.resolved_arrangement import ResolvedArrangement
    from ..models.time import Time
    from ..models.traffic import Traffic


T = TypeVar("T", bound="PlanResponse")


@_attrs_define
class PlanResponse:
    """
    Attributes:
        active_parameter_count (int): Parameters one token uses (top_k of the routed experts in a mixture of experts;
            all of them in a dense model). Compute counts these; memory holds parameter_count.
        arrangement (ResolvedArrangement):
        gpus_per_node (int):
        memory (Memory):
        parallelism (ParallelismEcho): The layout as planned: the request's degrees with what follows from them.
        parameter_count (int):
        time (Time):
        traffic (Traffic):
        warnings (list[str]): What the caller should know: mismatches, hardware the lever needs.
        world_size (int):
    """

    active_parameter_count: int
    arrangement: ResolvedArrangement
    gpus_per_node: int
    memory: Memory
    parallelism: ParallelismEcho
    parameter_count: int
    time: Time
    traffic: Traffic
    warnings: list[str]
    world_size: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        active_parameter_count = self.active_parameter_count

        arrangement = self.arrangement.to_dict()

        gpus_per_node = self.gpus_per_node

        memory = self.memory.to_dict()

        parallelism = self.parallelism.to_dict()

        parameter_count = self.parameter_count

        time = self.time.to_dict()

        traffic = self.traffic.to_dict()

        warnings = self.warnings

        world_size = self.world_size

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "active_parameter_count": active_parameter_count,
                "arrangement": arrangement,
                "gpus_per_node": gpus_per_node,
                "memory": memory,
                "parallelism": parallelism,
                "parameter_count": parameter_count,
                "time": time,
                "traffic": traffic,
                "warnings": warnings,
                "world_size": world_size,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.memory import Memory  # noqa: PLC0415
        from ..models.parallelism_echo import ParallelismEcho  # noqa: PLC0415
        from ..models.resolved_arrangement import ResolvedArrangement  # noqa: PLC0415
        from ..models.time import Time  # noqa: PLC0415
        from ..models.traffic import Traffic  # noqa: PLC0415

        d = dict(src_dict)
        active_parameter_count = d.pop("active_parameter_count")

        arrangement = ResolvedArrangement.from_dict(d.pop("arrangement"))

        gpus_per_node = d.pop("gpus_per_node")

        memory = Memory.from_dict(d.pop("memory"))

        parallelism = ParallelismEcho.from_dict(d.pop("parallelism"))

        parameter_count = d.pop("parameter_count")

        time = Time.from_dict(d.pop("time"))

        traffic = Traffic.from_dict(d.pop("traffic"))

        warnings = cast(list[str], d.pop("warnings"))

        world_size = d.pop("world_size")

        plan_response = cls(
            active_parameter_count=active_parameter_count,
            arrangement=arrangement,
            gpus_per_node=gpus_per_node,
            memory=memory,
            parallelism=parallelism,
            parameter_count=parameter_count,
            time=time,
            traffic=traffic,
            warnings=warnings,
            world_size=world_size,
        )

        plan_response.additional_properties = d
        return plan_response

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
