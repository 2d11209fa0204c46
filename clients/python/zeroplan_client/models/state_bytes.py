from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.dtype import Dtype
from ..models.state_class import StateClass
from ..models.state_location import StateLocation

T = TypeVar("T", bound="StateBytes")


@_attrs_define
class StateBytes:
    """
    Attributes:
        arithmetic (str): The computation in words and numbers.
        bytes_ (int): Bytes of this state class on each GPU.
        dtype (Dtype): Storage or wire format of one tensor element.
        location (StateLocation):
        sharded (bool):
        state (StateClass): A class of per-weight training state, in the order a breakdown lists them, then the working
            set:
            what a step holds unsharded for a moment (gathered units and their gradients, reduction buckets).
    """

    arithmetic: str
    bytes_: int
    dtype: Dtype
    location: StateLocation
    sharded: bool
    state: StateClass
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        arithmetic = self.arithmetic

        bytes_ = self.bytes_

        dtype = self.dtype.value

        location = self.location.value

        sharded = self.sharded

        state = self.state.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "arithmetic": arithmetic,
                "bytes": bytes_,
                "dtype": dtype,
                "location": location,
                "sharded": sharded,
                "state": state,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        arithmetic = d.pop("arithmetic")

        bytes_ = d.pop("bytes")

        dtype = Dtype(d.pop("dtype"))

        location = StateLocation(d.pop("location"))

        sharded = d.pop("sharded")

        state = StateClass(d.pop("state"))

        state_bytes = cls(
            arithmetic=arithmetic,
            bytes_=bytes_,
            dtype=dtype,
            location=location,
            sharded=sharded,
            state=state,
        )

        state_bytes.additional_properties = d
        return state_bytes

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
