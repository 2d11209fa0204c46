from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="LinkSpec")


@_attrs_define
class LinkSpec:
    """Links of a GPU, per direction, and the per-hop latency (the alpha of alpha-beta).

    Attributes:
        host_bytes_per_s (float | Unset): PCIe to host memory, per GPU. Default: 60000000000.0.
        inter_node_bytes_per_s (float | Unset): InfiniBand-class, per GPU. Default: 50000000000.0.
        inter_node_latency_s (float | Unset): Per ring hop across nodes. Default: 1e-05.
        intra_node_bytes_per_s (float | Unset): NVLink-class, per direction. Default: 450000000000.0.
        intra_node_latency_s (float | Unset): Per ring hop inside a node. Default: 3e-06.
    """

    host_bytes_per_s: float | Unset = 60000000000.0
    inter_node_bytes_per_s: float | Unset = 50000000000.0
    inter_node_latency_s: float | Unset = 1e-05
    intra_node_bytes_per_s: float | Unset = 450000000000.0
    intra_node_latency_s: float | Unset = 3e-06

    def to_dict(self) -> dict[str, Any]:
        host_bytes_per_s = self.host_bytes_per_s

        inter_node_bytes_per_s = self.inter_node_bytes_per_s

        inter_node_latency_s = self.inter_node_latency_s

        intra_node_bytes_per_s = self.intra_node_bytes_per_s

        intra_node_latency_s = self.intra_node_latency_s

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if host_bytes_per_s is not UNSET:
            field_dict["host_bytes_per_s"] = host_bytes_per_s
        if inter_node_bytes_per_s is not UNSET:
            field_dict["inter_node_bytes_per_s"] = inter_node_bytes_per_s
        if inter_node_latency_s is not UNSET:
            field_dict["inter_node_latency_s"] = inter_node_latency_s
        if intra_node_bytes_per_s is not UNSET:
            field_dict["intra_node_bytes_per_s"] = intra_node_bytes_per_s
        if intra_node_latency_s is not UNSET:
            field_dict["intra_node_latency_s"] = intra_node_latency_s

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        host_bytes_per_s = d.pop("host_bytes_per_s", UNSET)

        inter_node_bytes_per_s = d.pop("inter_node_bytes_per_s", UNSET)

        inter_node_latency_s = d.pop("inter_node_latency_s", UNSET)

        intra_node_bytes_per_s = d.pop("intra_node_bytes_per_s", UNSET)

        intra_node_latency_s = d.pop("intra_node_latency_s", UNSET)

        link_spec = cls(
            host_bytes_per_s=host_bytes_per_s,
            inter_node_bytes_per_s=inter_node_bytes_per_s,
            inter_node_latency_s=inter_node_latency_s,
            intra_node_bytes_per_s=intra_node_bytes_per_s,
            intra_node_latency_s=intra_node_latency_s,
        )

        return link_spec
