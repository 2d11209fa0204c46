from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="StepCost")


@_attrs_define
class StepCost:
    """
    Attributes:
        added_step_s (float): Step time over data parallel's at the same GPU count.
        extra_compute_fraction (float): FLOPs over 6PT, minus 1 (1/3 for full recomputation).
        extra_traffic_fraction (float): Wire volume over data parallel's 2P, minus 1 (0.5: 50% more).
        hardware (None | str): Hardware the step needs that the card is not; null if none.
        pcie_bytes_per_gpu (int): Host-link bytes per GPU per step (offload).
    """

    added_step_s: float
    extra_compute_fraction: float
    extra_traffic_fraction: float
    hardware: None | str
    pcie_bytes_per_gpu: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        added_step_s = self.added_step_s

        extra_compute_fraction = self.extra_compute_fraction

        extra_traffic_fraction = self.extra_traffic_fraction

        hardware: None | str
        hardware = self.hardware

        pcie_bytes_per_gpu = self.pcie_bytes_per_gpu

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "added_step_s": added_step_s,
                "extra_compute_fraction": extra_compute_fraction,
                "extra_traffic_fraction": extra_traffic_fraction,
                "hardware": hardware,
                "pcie_bytes_per_gpu": pcie_bytes_per_gpu,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        added_step_s = d.pop("added_step_s")

        extra_compute_fraction = d.pop("extra_compute_fraction")

        extra_traffic_fraction = d.pop("extra_traffic_fraction")

        def _parse_hardware(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        hardware = _parse_hardware(d.pop("hardware"))

        pcie_bytes_per_gpu = d.pop("pcie_bytes_per_gpu")

        step_cost = cls(
            added_step_s=added_step_s,
            extra_compute_fraction=extra_compute_fraction,
            extra_traffic_fraction=extra_traffic_fraction,
            hardware=hardware,
            pcie_bytes_per_gpu=pcie_bytes_per_gpu,
        )

        step_cost.additional_properties = d
        return step_cost

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
