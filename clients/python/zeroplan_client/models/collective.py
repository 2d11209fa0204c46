from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.collective_name import CollectiveName
from ..models.dtype import Dtype
from ..models.link import Link
from ..models.parallel_group import ParallelGroup

T = TypeVar("T", bound="Collective")


@_attrs_define
class Collective:
    """
    Attributes:
        arithmetic (str):
        buffer_bytes (int): Bytes of the whole buffer: model-sized (the GPU's parameter share in a layout), one node's
            shard for hybrid's cross-node all-reduce, or for a model-parallel group the activations of one call.
        bytes_sent_per_gpu (int): Bytes each GPU sends for one call, at ring cost.
        count_per_step (int): Calls per optimizer step.
        dtype (Dtype): Storage or wire format of one tensor element.
        group (ParallelGroup): A dimension of the mesh: the ranks that talk to each other for it.
        hops (int): Sequential ring steps of one call.
        link (Link):
        name (CollectiveName): Collectives, named as NCCL names them.
        overlaps_with (str): forward, backward or none: the compute it can hide under.
        purpose (str): What the collective moves and when.
        ranks (int): GPUs in the ring.
        seconds (float): Alpha-beta time of one call on a flat ring; under the efficiency model (no
            training.utilisation) at NCCL's bus bandwidth, with the launch and ring latency of each further bucket or FSDP
            unit the collective is split into.
    """

    arithmetic: str
    buffer_bytes: int
    bytes_sent_per_gpu: int
    count_per_step: int
    dtype: Dtype
    group: ParallelGroup
    hops: int
    link: Link
    name: CollectiveName
    overlaps_with: str
    purpose: str
    ranks: int
    seconds: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        arithmetic = self.arithmetic

        buffer_bytes = self.buffer_bytes

        bytes_sent_per_gpu = self.bytes_sent_per_gpu

        count_per_step = self.count_per_step

        dtype = self.dtype.value

        group = self.group.value

        hops = self.hops

        link = self.link.value

        name = self.name.value

        overlaps_with = self.overlaps_with

        purpose = self.purpose

        ranks = self.ranks

        seconds = self.seconds

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "arithmetic": arithmetic,
                "buffer_bytes": buffer_bytes,
                "bytes_sent_per_gpu": bytes_sent_per_gpu,
                "count_per_step": count_per_step,
                "dtype": dtype,
                "group": group,
                "hops": hops,
                "link": link,
                "name": name,
                "overlaps_with": overlaps_with,
                "purpose": purpose,
                "ranks": ranks,
                "seconds": seconds,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        arithmetic = d.pop("arithmetic")

        buffer_bytes = d.pop("buffer_bytes")

        bytes_sent_per_gpu = d.pop("bytes_sent_per_gpu")

        count_per_step = d.pop("count_per_step")

        dtype = Dtype(d.pop("dtype"))

        group = ParallelGroup(d.pop("group"))

        hops = d.pop("hops")

        link = Link(d.pop("link"))

        name = CollectiveName(d.pop("name"))

        overlaps_with = d.pop("overlaps_with")

        purpose = d.pop("purpose")

        ranks = d.pop("ranks")

        seconds = d.pop("seconds")

        collective = cls(
            arithmetic=arithmetic,
            buffer_bytes=buffer_bytes,
            bytes_sent_per_gpu=bytes_sent_per_gpu,
            count_per_step=count_per_step,
            dtype=dtype,
            group=group,
            hops=hops,
            link=link,
            name=name,
            overlaps_with=overlaps_with,
            purpose=purpose,
            ranks=ranks,
            seconds=seconds,
        )

        collective.additional_properties = d
        return collective

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
