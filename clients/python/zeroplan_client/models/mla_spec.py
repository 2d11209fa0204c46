from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="MlaSpec")


@_attrs_define
class MlaSpec:
    """Multi-head latent attention (DeepSeek-V2 report, section 2.1; DeepSeek-V3 config.json names).

    Attributes:
        kv_lora_rank (int): Compressed key/value width.
        qk_nope_head_dim (int): Non-rotary part of each query/key head.
        qk_rope_head_dim (int): Rotary part of each query/key head.
        v_head_dim (int): Width of each value head.
        q_lora_rank (int | Unset): Query down-projection rank; 0 for none. Default: 0.
    """

    kv_lora_rank: int
    qk_nope_head_dim: int
    qk_rope_head_dim: int
    v_head_dim: int
    q_lora_rank: int | Unset = 0

    def to_dict(self) -> dict[str, Any]:
        kv_lora_rank = self.kv_lora_rank

        qk_nope_head_dim = self.qk_nope_head_dim

        qk_rope_head_dim = self.qk_rope_head_dim

        v_head_dim = self.v_head_dim

        q_lora_rank = self.q_lora_rank

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kv_lora_rank": kv_lora_rank,
                "qk_nope_head_dim": qk_nope_head_dim,
                "qk_rope_head_dim": qk_rope_head_dim,
                "v_head_dim": v_head_dim,
            }
        )
        if q_lora_rank is not UNSET:
            field_dict["q_lora_rank"] = q_lora_rank

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        kv_lora_rank = d.pop("kv_lora_rank")

        qk_nope_head_dim = d.pop("qk_nope_head_dim")

        qk_rope_head_dim = d.pop("qk_rope_head_dim")

        v_head_dim = d.pop("v_head_dim")

        q_lora_rank = d.pop("q_lora_rank", UNSET)

        mla_spec = cls(
            kv_lora_rank=kv_lora_rank,
            qk_nope_head_dim=qk_nope_head_dim,
            qk_rope_head_dim=qk_rope_head_dim,
            v_head_dim=v_head_dim,
            q_lora_rank=q_lora_rank,
        )

        return mla_spec
