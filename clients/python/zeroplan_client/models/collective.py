from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.collective_name import CollectiveName
from ..models.dtype import Dtype
from ..models.link import Link
from ..models.parallel_group import ParallelGroup
from ..types import UNSET, Unset

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
        seconds (float): Time of one occurrence: an all-reduce, all-gather or reduce-scatter as NCCL's own tuning model
            prices its calls (src/graph/tuning.cc: the algorithm and protocol NCCL picks, base and per-step latency, intra-
            node steps at NVLink latency, inter-node steps at the network's; a data-parallel collective's every bucket or
            FSDP unit); a send/receive or all-to-all at alpha-beta cost (hops x link latency + bytes / bus bandwidth).
        algorithm (None | str | Unset): The algorithm and protocol NCCL picks for each call, as algorithm/protocol:
            ring, tree, nvls, nvls_tree or pat, over LL, LL128 or Simple; null for a send/receive or all-to-all.
        calls (int | None | Unset): NCCL calls one occurrence takes: a data-parallel collective's buffer cut into the
            framework's buckets (levers.bucket_bytes) or one per FSDP unit; 1 for a model-parallel group's collective; null
            for a send/receive or all-to-all.
        latency_s (float | None | Unset): The latency part of seconds: calls x NCCL's predicted latency of one call; the
            rest is bytes over bandwidth. Null for a send/receive or all-to-all.
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
    algorithm: None | str | Unset = UNSET
    calls: int | None | Unset = UNSET
    latency_s: float | None | Unset = UNSET
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

        algorithm: None | str | Unset
        if isinstance(self.algorithm, Unset):
            algorithm = UNSET
        else:
            algorithm = self.algorithm

        calls: int | None | Unset
        if isinstance(self.calls, Unset):
            calls = UNSET
        else:
            calls = self.calls

        latency_s: float | None | Unset
        if isinstance(self.latency_s, Unset):
            latency_s = UNSET
        else:
            latency_s = self.latency_s

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
        if algorithm is not UNSET:
            field_dict["algorithm"] = algorithm
        if calls is not UNSET:
            field_dict["calls"] = calls
        if latency_s is not UNSET:
            field_dict["latency_s"] = latency_s

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

        def _parse_algorithm(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        algorithm = _parse_algorithm(d.pop("algorithm", UNSET))

        def _parse_calls(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        calls = _parse_calls(d.pop("calls", UNSET))

        def _parse_latency_s(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        latency_s = _parse_latency_s(d.pop("latency_s", UNSET))

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
            algorithm=algorithm,
            calls=calls,
            latency_s=latency_s,
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
