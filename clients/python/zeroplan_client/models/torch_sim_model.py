from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="TorchSimModel")


@_attrs_define
class TorchSimModel:
    """
    Attributes:
        attention_heads (int):
        ffn_hidden_size (int):
        hidden_size (int):
        layers (int):
        vocab_size (int):
    """

    attention_heads: int
    ffn_hidden_size: int
    hidden_size: int
    layers: int
    vocab_size: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attention_heads = self.attention_heads

        ffn_hidden_size = self.ffn_hidden_size

        hidden_size = self.hidden_size

        layers = self.layers

        vocab_size = self.vocab_size

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attention_heads": attention_heads,
                "ffn_hidden_size": ffn_hidden_size,
                "hidden_size": hidden_size,
                "layers": layers,
                "vocab_size": vocab_size,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        attention_heads = d.pop("attention_heads")

        ffn_hidden_size = d.pop("ffn_hidden_size")

        hidden_size = d.pop("hidden_size")

        layers = d.pop("layers")

        vocab_size = d.pop("vocab_size")

        torch_sim_model = cls(
            attention_heads=attention_heads,
            ffn_hidden_size=ffn_hidden_size,
            hidden_size=hidden_size,
            layers=layers,
            vocab_size=vocab_size,
        )

        torch_sim_model.additional_properties = d
        return torch_sim_model

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
