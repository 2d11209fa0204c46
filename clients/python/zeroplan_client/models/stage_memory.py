from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="StageMemory")


@_attrs_define
class StageMemory:
    """One pipeline stage: the bytes of each of its GPUs.

    Attributes:
        activations_bytes (int): Activations of the micro-batches the stage holds in flight.
        fits (bool):
        in_flight_micro_batches (float): Micro-batches of the stage's layers held at the peak.
        layers (int): Transformer layers on the stage (all its virtual chunks).
        model_state_bytes (int): Model states on each GPU of the stage, sharded over the data group.
        parameters_per_gpu (int): Parameters each GPU of the stage holds (its tensor/expert share).
        per_gpu_bytes (int):
        stage (int): 0 for the first stage (with the input embedding).
        working_set_bytes (int):
    """

    activations_bytes: int
    fits: bool
    in_flight_micro_batches: float
    layers: int
    model_state_bytes: int
    parameters_per_gpu: int
    per_gpu_bytes: int
    stage: int
    working_set_bytes: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        activations_bytes = self.activations_bytes

        fits = self.fits

        in_flight_micro_batches = self.in_flight_micro_batches

        layers = self.layers

        model_state_bytes = self.model_state_bytes

        parameters_per_gpu = self.parameters_per_gpu

        per_gpu_bytes = self.per_gpu_bytes

        stage = self.stage

        working_set_bytes = self.working_set_bytes

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "activations_bytes": activations_bytes,
                "fits": fits,
                "in_flight_micro_batches": in_flight_micro_batches,
                "layers": layers,
                "model_state_bytes": model_state_bytes,
                "parameters_per_gpu": parameters_per_gpu,
                "per_gpu_bytes": per_gpu_bytes,
                "stage": stage,
                "working_set_bytes": working_set_bytes,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        activations_bytes = d.pop("activations_bytes")

        fits = d.pop("fits")

        in_flight_micro_batches = d.pop("in_flight_micro_batches")

        layers = d.pop("layers")

        model_state_bytes = d.pop("model_state_bytes")

        parameters_per_gpu = d.pop("parameters_per_gpu")

        per_gpu_bytes = d.pop("per_gpu_bytes")

        stage = d.pop("stage")

        working_set_bytes = d.pop("working_set_bytes")

        stage_memory = cls(
            activations_bytes=activations_bytes,
            fits=fits,
            in_flight_micro_batches=in_flight_micro_batches,
            layers=layers,
            model_state_bytes=model_state_bytes,
            parameters_per_gpu=parameters_per_gpu,
            per_gpu_bytes=per_gpu_bytes,
            stage=stage,
            working_set_bytes=working_set_bytes,
        )

        stage_memory.additional_properties = d
        return stage_memory

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
