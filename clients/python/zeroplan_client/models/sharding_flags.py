from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="ShardingFlags")


@_attrs_define
class ShardingFlags:
    """The three flags that describe every arrangement. They are monotone: shard_parameters needs
    shard_gradients, and shard_gradients needs shard_optimizer (the schema says so with if/then).

        Attributes:
            shard_gradients (bool):
            shard_optimizer (bool):
            shard_parameters (bool):
    """

    shard_gradients: bool
    shard_optimizer: bool
    shard_parameters: bool

    def to_dict(self) -> dict[str, Any]:
        shard_gradients = self.shard_gradients

        shard_optimizer = self.shard_optimizer

        shard_parameters = self.shard_parameters

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "shard_gradients": shard_gradients,
                "shard_optimizer": shard_optimizer,
                "shard_parameters": shard_parameters,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        shard_gradients = d.pop("shard_gradients")

        shard_optimizer = d.pop("shard_optimizer")

        shard_parameters = d.pop("shard_parameters")

        sharding_flags = cls(
            shard_gradients=shard_gradients,
            shard_optimizer=shard_optimizer,
            shard_parameters=shard_parameters,
        )

        return sharding_flags
