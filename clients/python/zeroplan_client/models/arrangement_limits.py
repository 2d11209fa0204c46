from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.arrangement_name import ArrangementName

T = TypeVar("T", bound="ArrangementLimits")


@_attrs_define
class ArrangementLimits:
    """
    Attributes:
        arrangement (ArrangementName): Named arrangements. FSDP's names map to what FSDP does: no_shard is ddp,
            full_shard is zero3,
            and shard_grad_op is its own arrangement (parameters resharded after the backward pass and
            gathered again before every micro-batch's forward), not DeepSpeed's zero2.
        largest_layers (int | None): The layers of that largest model; null with it.
        largest_micro_batch_size (int | None): With a model: the largest micro-batch whose per-GPU bytes fit at the
            request's sequence length; with training.global_batch_size, the largest of the micro-batch sizes that divide the
            batch's sequences per data-parallel replica (the batch kept, its micro-batches derived as /v1/plan derives
            them). Null when even the smallest does not fit, or without a model or counted activations (the arithmetic says
            which).
        largest_micro_batch_size_arithmetic (None | str):
        largest_parameter_count (int | None): The parameter count of the largest model of the request model's family
            (see `family`) whose per-GPU bytes fit the usable bytes: model states, the working set and activations at the
            request's sequence, micro-batch, recompute and layout, as /v1/plan counts them. Null without a model
            architecture (then only largest_parameter_count_model_states_only is answered) or when not even the smallest
            member fits; the arithmetic says which.
        largest_parameter_count_arithmetic (str):
        largest_parameter_count_model_states_only (int | None): An upper bound that ignores activations and the working
            set: the largest parameter count whose model states alone fit the usable bytes at this world size (the ZeRO
            paper's table 2 question). A real model of that size does not fit: its activations and working set come on top.
            Null when not even one parameter fits.
        largest_parameter_count_model_states_only_arithmetic (str):
        longest_sequence_length (int | None): With a model: the longest sequence whose per-GPU bytes fit at the
            request's micro-batch size, a multiple of what the layout splits the sequence by (context, times tensor with
            sequence parallelism); null when even the shortest does not fit, or without a model or counted activations.
        longest_sequence_length_arithmetic (None | str):
    """

    arrangement: ArrangementName
    largest_layers: int | None
    largest_micro_batch_size: int | None
    largest_micro_batch_size_arithmetic: None | str
    largest_parameter_count: int | None
    largest_parameter_count_arithmetic: str
    largest_parameter_count_model_states_only: int | None
    largest_parameter_count_model_states_only_arithmetic: str
    longest_sequence_length: int | None
    longest_sequence_length_arithmetic: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        arrangement = self.arrangement.value

        largest_layers: int | None
        largest_layers = self.largest_layers

        largest_micro_batch_size: int | None
        largest_micro_batch_size = self.largest_micro_batch_size

        largest_micro_batch_size_arithmetic: None | str
        largest_micro_batch_size_arithmetic = self.largest_micro_batch_size_arithmetic

        largest_parameter_count: int | None
        largest_parameter_count = self.largest_parameter_count

        largest_parameter_count_arithmetic = self.largest_parameter_count_arithmetic

        largest_parameter_count_model_states_only: int | None
        largest_parameter_count_model_states_only = self.largest_parameter_count_model_states_only

        largest_parameter_count_model_states_only_arithmetic = self.largest_parameter_count_model_states_only_arithmetic

        longest_sequence_length: int | None
        longest_sequence_length = self.longest_sequence_length

        longest_sequence_length_arithmetic: None | str
        longest_sequence_length_arithmetic = self.longest_sequence_length_arithmetic

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "arrangement": arrangement,
                "largest_layers": largest_layers,
                "largest_micro_batch_size": largest_micro_batch_size,
                "largest_micro_batch_size_arithmetic": largest_micro_batch_size_arithmetic,
                "largest_parameter_count": largest_parameter_count,
                "largest_parameter_count_arithmetic": largest_parameter_count_arithmetic,
                "largest_parameter_count_model_states_only": largest_parameter_count_model_states_only,
                "largest_parameter_count_model_states_only_arithmetic": largest_parameter_count_model_states_only_arithmetic,
                "longest_sequence_length": longest_sequence_length,
                "longest_sequence_length_arithmetic": longest_sequence_length_arithmetic,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        arrangement = ArrangementName(d.pop("arrangement"))

        def _parse_largest_layers(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        largest_layers = _parse_largest_layers(d.pop("largest_layers"))

        def _parse_largest_micro_batch_size(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        largest_micro_batch_size = _parse_largest_micro_batch_size(d.pop("largest_micro_batch_size"))

        def _parse_largest_micro_batch_size_arithmetic(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        largest_micro_batch_size_arithmetic = _parse_largest_micro_batch_size_arithmetic(
            d.pop("largest_micro_batch_size_arithmetic")
        )

        def _parse_largest_parameter_count(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        largest_parameter_count = _parse_largest_parameter_count(d.pop("largest_parameter_count"))

        largest_parameter_count_arithmetic = d.pop("largest_parameter_count_arithmetic")

        def _parse_largest_parameter_count_model_states_only(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        largest_parameter_count_model_states_only = _parse_largest_parameter_count_model_states_only(
            d.pop("largest_parameter_count_model_states_only")
        )

        largest_parameter_count_model_states_only_arithmetic = d.pop(
            "largest_parameter_count_model_states_only_arithmetic"
        )

        def _parse_longest_sequence_length(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        longest_sequence_length = _parse_longest_sequence_length(d.pop("longest_sequence_length"))

        def _parse_longest_sequence_length_arithmetic(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        longest_sequence_length_arithmetic = _parse_longest_sequence_length_arithmetic(
            d.pop("longest_sequence_length_arithmetic")
        )

        arrangement_limits = cls(
            arrangement=arrangement,
            largest_layers=largest_layers,
            largest_micro_batch_size=largest_micro_batch_size,
            largest_micro_batch_size_arithmetic=largest_micro_batch_size_arithmetic,
            largest_parameter_count=largest_parameter_count,
            largest_parameter_count_arithmetic=largest_parameter_count_arithmetic,
            largest_parameter_count_model_states_only=largest_parameter_count_model_states_only,
            largest_parameter_count_model_states_only_arithmetic=largest_parameter_count_model_states_only_arithmetic,
            longest_sequence_length=longest_sequence_length,
            longest_sequence_length_arithmetic=longest_sequence_length_arithmetic,
        )

        arrangement_limits.additional_properties = d
        return arrangement_limits

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
