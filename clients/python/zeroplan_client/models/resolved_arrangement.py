from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.arrangement_name import ArrangementName

T = TypeVar("T", bound="ResolvedArrangement")


@_attrs_define
class ResolvedArrangement:
    """
    Attributes:
        hybrid (bool): Sharded over the GPUs of one node, replicated across nodes.
        name (ArrangementName): Named arrangements. FSDP's names map to what FSDP does: no_shard is ddp, full_shard is
            zero3,
            and shard_grad_op is its own arrangement (parameters resharded after the backward pass and
            gathered again before every micro-batch's forward), not DeepSpeed's zero2.
        shard_gradients (bool):
        shard_optimizer (bool):
        shard_parameters (bool):
    """

    hybrid: bool
    name: ArrangementName
    shard_gradients: bool
    shard_optimizer: bool
    shard_parameters: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        hybrid = self.hybrid

        name = self.name.value

        shard_gradients = self.shard_gradients

        shard_optimizer = self.shard_optimizer

        shard_parameters = self.shard_parameters

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "hybrid": hybrid,
                "name": name,
                "shard_gradients": shard_gradients,
                "shard_optimizer": shard_optimizer,
                "shard_parameters": shard_parameters,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        hybrid = d.pop("hybrid")

        name = ArrangementName(d.pop("name"))

        shard_gradients = d.pop("shard_gradients")

        shard_optimizer = d.pop("shard_optimizer")

        shard_parameters = d.pop("shard_parameters")

        resolved_arrangement = cls(
            hybrid=hybrid,
            name=name,
            shard_gradients=shard_gradients,
            shard_optimizer=shard_optimizer,
            shard_parameters=shard_parameters,
        )

        resolved_arrangement.additional_properties = d
        return resolved_arrangement

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
