from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..models.arrangement_name import ArrangementName
from ..models.collective_name import CollectiveName

T = TypeVar("T", bound="MeasuredBytes")


@_attrs_define
class MeasuredBytes:
    """Bytes one GPU sent per optimizer step in one collective, as a simulation measured them.

    Attributes:
        arrangement (ArrangementName): Named arrangements. FSDP's names map to what FSDP does: no_shard is ddp,
            full_shard is zero3,
            and shard_grad_op is its own arrangement (parameters resharded after the backward pass and
            gathered again before every micro-batch's forward), not DeepSpeed's zero2.
        bytes_per_gpu (int): Bytes each GPU sent per optimizer step, measured.
        collective (CollectiveName): Collectives, named as NCCL names them.
    """

    arrangement: ArrangementName
    bytes_per_gpu: int
    collective: CollectiveName

    def to_dict(self) -> dict[str, Any]:
        arrangement = self.arrangement.value

        bytes_per_gpu = self.bytes_per_gpu

        collective = self.collective.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "arrangement": arrangement,
                "bytes_per_gpu": bytes_per_gpu,
                "collective": collective,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        arrangement = ArrangementName(d.pop("arrangement"))

        bytes_per_gpu = d.pop("bytes_per_gpu")

        collective = CollectiveName(d.pop("collective"))

        measured_bytes = cls(
            arrangement=arrangement,
            bytes_per_gpu=bytes_per_gpu,
            collective=collective,
        )

        return measured_bytes
