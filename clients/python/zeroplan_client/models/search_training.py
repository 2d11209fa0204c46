from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="SearchTraining")


@_attrs_define
class SearchTraining:
    """The training shape every layout keeps: sequences per optimizer step and tokens per sequence.

    Attributes:
        global_batch_size (int): Sequences per optimizer step.
        sequence_length (int): Tokens per sequence (s).
    """

    global_batch_size: int
    sequence_length: int

    def to_dict(self) -> dict[str, Any]:
        global_batch_size = self.global_batch_size

        sequence_length = self.sequence_length

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "global_batch_size": global_batch_size,
                "sequence_length": sequence_length,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        global_batch_size = d.pop("global_batch_size")

        sequence_length = d.pop("sequence_length")

        search_training = cls(
            global_batch_size=global_batch_size,
            sequence_length=sequence_length,
        )

        return search_training
