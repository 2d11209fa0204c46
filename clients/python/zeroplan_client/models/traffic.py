from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.collective import Collective


T = TypeVar("T", bound="Traffic")


@_attrs_define
class Traffic:
    """
    Attributes:
        bytes_sent_per_gpu (int): Exact ring cost per GPU per optimizer step.
        collectives (list[Collective]):
        inter_node_bytes_per_gpu (int): Bytes each GPU sends across nodes, hierarchical schedule.
        intra_node_bytes_per_gpu (int): Bytes each GPU sends inside its node, hierarchical schedule.
        pcie_bytes_per_gpu (int): Host-link bytes per GPU per step under offload, both directions.
        volume_in_p (float): Model-sized buffers moved per step before the (N-1)/N factor: 2 for DP, ZeRO-1 and ZeRO-2,
            3 for ZeRO-3.
    """

    bytes_sent_per_gpu: int
    collectives: list[Collective]
    inter_node_bytes_per_gpu: int
    intra_node_bytes_per_gpu: int
    pcie_bytes_per_gpu: int
    volume_in_p: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        bytes_sent_per_gpu = self.bytes_sent_per_gpu

        collectives = []
        for collectives_item_data in self.collectives:
            collectives_item = collectives_item_data.to_dict()
            collectives.append(collectives_item)

        inter_node_bytes_per_gpu = self.inter_node_bytes_per_gpu

        intra_node_bytes_per_gpu = self.intra_node_bytes_per_gpu

        pcie_bytes_per_gpu = self.pcie_bytes_per_gpu

        volume_in_p = self.volume_in_p

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "bytes_sent_per_gpu": bytes_sent_per_gpu,
                "collectives": collectives,
                "inter_node_bytes_per_gpu": inter_node_bytes_per_gpu,
                "intra_node_bytes_per_gpu": intra_node_bytes_per_gpu,
                "pcie_bytes_per_gpu": pcie_bytes_per_gpu,
                "volume_in_p": volume_in_p,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.collective import Collective  # noqa: PLC0415

        d = dict(src_dict)
        bytes_sent_per_gpu = d.pop("bytes_sent_per_gpu")

        collectives = []
        _collectives = d.pop("collectives")
        for collectives_item_data in _collectives:
            collectives_item = Collective.from_dict(collectives_item_data)

            collectives.append(collectives_item)

        inter_node_bytes_per_gpu = d.pop("inter_node_bytes_per_gpu")

        intra_node_bytes_per_gpu = d.pop("intra_node_bytes_per_gpu")

        pcie_bytes_per_gpu = d.pop("pcie_bytes_per_gpu")

        volume_in_p = d.pop("volume_in_p")

        traffic = cls(
            bytes_sent_per_gpu=bytes_sent_per_gpu,
            collectives=collectives,
            inter_node_bytes_per_gpu=inter_node_bytes_per_gpu,
            intra_node_bytes_per_gpu=intra_node_bytes_per_gpu,
            pcie_bytes_per_gpu=pcie_bytes_per_gpu,
            volume_in_p=volume_in_p,
        )

        traffic.additional_properties = d
        return traffic

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
