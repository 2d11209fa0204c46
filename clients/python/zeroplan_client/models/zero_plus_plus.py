from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="ZeroPlusPlus")


@_attrs_define
class ZeroPlusPlus:
    """ZeRO++ (Wang et al. 2023) on ZeRO-3; DeepSpeed's zero_quantized_weights, zero_hpz_partition_size and
    zero_quantized_gradients.

        Attributes:
            hpz (bool | Unset): Hierarchical partitioning: a secondary copy of the parameters sharded over the GPUs of a
                node, so the backward all-gather stays inside the node (memory: 16-bit parameters / G per GPU). Default: False.
            qgz (bool | Unset): Quantised gradients: int4 all-to-all reduce-scatter inside the node, then across nodes.
                Default: False.
            qwz (bool | Unset): Quantised weight all-gather: int8 with one fp32 scale per group. Default: False.
    """

    hpz: bool | Unset = False
    qgz: bool | Unset = False
    qwz: bool | Unset = False

    def to_dict(self) -> dict[str, Any]:
        hpz = self.hpz

        qgz = self.qgz

        qwz = self.qwz

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if hpz is not UNSET:
            field_dict["hpz"] = hpz
        if qgz is not UNSET:
            field_dict["qgz"] = qgz
        if qwz is not UNSET:
            field_dict["qwz"] = qwz

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        hpz = d.pop("hpz", UNSET)

        qgz = d.pop("qgz", UNSET)

        qwz = d.pop("qwz", UNSET)

        zero_plus_plus = cls(
            hpz=hpz,
            qgz=qgz,
            qwz=qwz,
        )

        return zero_plus_plus
