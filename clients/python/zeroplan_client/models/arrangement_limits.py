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
        largest_micro_batch_size (int | None): With a model: the largest micro-batch whose per-GPU bytes fit at the
            request's sequence length; null when even 1 does not fit, or without a model or counted activations (the
            arithmetic says which).
        largest_micro_batch_size_arithmetic (None | str):
        largest_parameter_count (int | None): The largest parameter count whose model states fit the usable bytes at
            this world size (the ZeRO paper's table 2 question; the working set and activations of a real model come on
            top); null when not even one parameter fits.
        largest_parameter_count_arithmetic (str):
        longest_sequence_length (int | None): With a model: the longest sequence whose per-GPU bytes fit at the
            request's micro-batch size; null when even 1 token does not fit, or without a model or counted activations.
        longest_sequence_length_arithmetic (None | str):
    """

    arrangement: ArrangementName
    largest_micro_batch_size: int | None
    largest_micro_batch_size_arithmetic: None | str
    largest_parameter_count: int | None
    largest_parameter_count_arithmetic: str
    longest_sequence_length: int | None
    longest_sequence_length_arithmetic: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        arrangement = self.arrangement.value

        largest_micro_batch_size: int | None
        largest_micro_batch_size = self.largest_micro_batch_size

        largest_micro_batch_size_arithmetic: None | str
        largest_micro_batch_size_arithmetic = self.largest_micro_batch_size_arithmetic

        largest_parameter_count: int | None
        largest_parameter_count = self.largest_parameter_count

        largest_parameter_count_arithmetic = self.largest_parameter_count_arithmetic

        longest_sequence_length: int | None
        longest_sequence_length = self.longest_sequence_length

        longest_sequence_length_arithmetic: None | str
        longest_sequence_length_arithmetic = self.longest_sequence_length_arithmetic

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "arrangement": arrangement,
                "largest_micro_batch_size": largest_micro_batch_size,
                "largest_micro_batch_size_arithmetic": largest_micro_batch_size_arithmetic,
                "largest_parameter_count": largest_parameter_count,
                "largest_parameter_count_arithmetic": largest_parameter_count_arithmetic,
                "longest_sequence_length": longest_sequence_length,
                "longest_sequence_length_arithmetic": longest_sequence_length_arithmetic,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        arrangement = ArrangementName(d.pop("arrangement"))

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
            largest_micro_batch_size=largest_micro_batch_size,
            largest_micro_batch_size_arithmetic=largest_micro_batch_size_arithmetic,
            largest_parameter_count=largest_parameter_count,
            largest_parameter_count_arithmetic=largest_parameter_count_arithmetic,
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
