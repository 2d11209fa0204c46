from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="TorchSimCollective")


@_attrs_define
class TorchSimCollective:
    """
    Attributes:
        calls (int):
        calls_per_step (float):
        dtype (str):
        gloo_algorithm (str):
        group (str): The mesh dimension of the call: data, tensor or pipeline.
        group_size (int):
        name (str):
        payload_bytes (int):
        payload_bytes_per_step (int): Rank 0, per measured step, priced by gloo's algorithm.
        plan_bytes_per_step (int | None): The planner's bytes per step for this collective.
    """

    calls: int
    calls_per_step: float
    dtype: str
    gloo_algorithm: str
    group: str
    group_size: int
    name: str
    payload_bytes: int
    payload_bytes_per_step: int
    plan_bytes_per_step: int | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        calls = self.calls

        calls_per_step = self.calls_per_step

        dtype = self.dtype

        gloo_algorithm = self.gloo_algorithm

        group = self.group

        group_size = self.group_size

        name = self.name

        payload_bytes = self.payload_bytes

        payload_bytes_per_step = self.payload_bytes_per_step

        plan_bytes_per_step: int | None
        plan_bytes_per_step = self.plan_bytes_per_step

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "calls": calls,
                "calls_per_step": calls_per_step,
                "dtype": dtype,
                "gloo_algorithm": gloo_algorithm,
                "group": group,
                "group_size": group_size,
                "name": name,
                "payload_bytes": payload_bytes,
                "payload_bytes_per_step": payload_bytes_per_step,
                "plan_bytes_per_step": plan_bytes_per_step,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        calls = d.pop("calls")

        calls_per_step = d.pop("calls_per_step")

        dtype = d.pop("dtype")

        gloo_algorithm = d.pop("gloo_algorithm")

        group = d.pop("group")

        group_size = d.pop("group_size")

        name = d.pop("name")

        payload_bytes = d.pop("payload_bytes")

        payload_bytes_per_step = d.pop("payload_bytes_per_step")

        def _parse_plan_bytes_per_step(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        plan_bytes_per_step = _parse_plan_bytes_per_step(d.pop("plan_bytes_per_step"))

        torch_sim_collective = cls(
            calls=calls,
            calls_per_step=calls_per_step,
            dtype=dtype,
            gloo_algorithm=gloo_algorithm,
            group=group,
            group_size=group_size,
            name=name,
            payload_bytes=payload_bytes,
            payload_bytes_per_step=payload_bytes_per_step,
            plan_bytes_per_step=plan_bytes_per_step,
        )

        torch_sim_collective.additional_properties = d
        return torch_sim_collective

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
