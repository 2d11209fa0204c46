from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.parallel_group import ParallelGroup

T = TypeVar("T", bound="GroupPlacement")


@_attrs_define
class GroupPlacement:
    """
    Attributes:
        group (ParallelGroup): A dimension of the mesh: the ranks that talk to each other for it.
        ranks (int): GPUs in one group.
        spans_nodes (bool): Whether one group's ranks sit on more than one node.
        stride (int): Rank distance between neighbours in the group (tensor innermost).
    """

    group: ParallelGroup
    ranks: int
    spans_nodes: bool
    stride: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        group = self.group.value

        ranks = self.ranks

        spans_nodes = self.spans_nodes

        stride = self.stride

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "group": group,
                "ranks": ranks,
                "spans_nodes": spans_nodes,
                "stride": stride,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        group = ParallelGroup(d.pop("group"))

        ranks = d.pop("ranks")

        spans_nodes = d.pop("spans_nodes")

        stride = d.pop("stride")

        group_placement = cls(
            group=group,
            ranks=ranks,
            spans_nodes=spans_nodes,
            stride=stride,
        )

        group_placement.additional_properties = d
        return group_placement

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
