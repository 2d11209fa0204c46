from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..models.recompute import Recompute
from ..types import UNSET, Unset

T = TypeVar("T", bound="Levers")


@_attrs_define
class Levers:
    """The levers: offload (ZeRO-Offload), overlap, recomputation, MXFP8.

    Attributes:
        bucket_bytes (int | Unset): Gradient bucket size, bytes. Default: 26214400.
        mxfp8 (bool | Unset): Parameters and gradients stored and sent as MXFP8. Default: False.
        offload_optimizer (bool | Unset): ZeRO-Offload: optimizer state in host memory. Default: False.
        offload_parameters (bool | Unset): Parameter shards in host memory (ZeRO-3 only). Default: False.
        overlap (bool | Unset): Overlap communication with compute, bucket by bucket. Default: True.
        recompute (Recompute | Unset): Activation recomputation (Korthikanti et al. 2022).
    """

    bucket_bytes: int | Unset = 26214400
    mxfp8: bool | Unset = False
    offload_optimizer: bool | Unset = False
    offload_parameters: bool | Unset = False
    overlap: bool | Unset = True
    recompute: Recompute | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        bucket_bytes = self.bucket_bytes

        mxfp8 = self.mxfp8

        offload_optimizer = self.offload_optimizer

        offload_parameters = self.offload_parameters

        overlap = self.overlap

        recompute: str | Unset = UNSET
        if not isinstance(self.recompute, Unset):
            recompute = self.recompute.value

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if bucket_bytes is not UNSET:
            field_dict["bucket_bytes"] = bucket_bytes
        if mxfp8 is not UNSET:
            field_dict["mxfp8"] = mxfp8
        if offload_optimizer is not UNSET:
            field_dict["offload_optimizer"] = offload_optimizer
        if offload_parameters is not UNSET:
            field_dict["offload_parameters"] = offload_parameters
        if overlap is not UNSET:
            field_dict["overlap"] = overlap
        if recompute is not UNSET:
            field_dict["recompute"] = recompute

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        bucket_bytes = d.pop("bucket_bytes", UNSET)

        mxfp8 = d.pop("mxfp8", UNSET)

        offload_optimizer = d.pop("offload_optimizer", UNSET)

        offload_parameters = d.pop("offload_parameters", UNSET)

        overlap = d.pop("overlap", UNSET)

        _recompute = d.pop("recompute", UNSET)
        recompute: Recompute | Unset
        if isinstance(_recompute, Unset):
            recompute = UNSET
        else:
            recompute = Recompute(_recompute)

        levers = cls(
            bucket_bytes=bucket_bytes,
            mxfp8=mxfp8,
            offload_optimizer=offload_optimizer,
            offload_parameters=offload_parameters,
            overlap=overlap,
            recompute=recompute,
        )

        return levers
