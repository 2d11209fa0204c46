from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="PartialCheckpointFault")


@_attrs_define
class PartialCheckpointFault:
    """
    Attributes:
        kind (Literal['partial_checkpoint']):
        step (int): Save after this many steps of the first arrangement.
        writer_rank (int | Unset): The only rank that writes the refused checkpoint. Default: 0.
    """

    kind: Literal["partial_checkpoint"]
    step: int
    writer_rank: int | Unset = 0

    def to_dict(self) -> dict[str, Any]:
        kind = self.kind

        step = self.step

        writer_rank = self.writer_rank

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kind": kind,
                "step": step,
            }
        )
        if writer_rank is not UNSET:
            field_dict["writer_rank"] = writer_rank

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        kind = cast(Literal["partial_checkpoint"], d.pop("kind"))
        if kind != "partial_checkpoint":
            raise ValueError(f"kind must match const 'partial_checkpoint', got '{kind}'")

        step = d.pop("step")

        writer_rank = d.pop("writer_rank", UNSET)

        partial_checkpoint_fault = cls(
            kind=kind,
            step=step,
            writer_rank=writer_rank,
        )

        return partial_checkpoint_fault
