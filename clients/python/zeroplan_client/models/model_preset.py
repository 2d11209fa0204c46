from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.mlp_kind import MlpKind
from ..models.model_preset_name import ModelPresetName
from ..models.normalization import Normalization
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.mla_spec import MlaSpec
    from ..models.moe_spec import MoeSpec


T = TypeVar("T", bound="ModelPreset")


@_attrs_define
class ModelPreset:
    """A published model: its parameter counts and, where published, its architecture.

    Attributes:
        description (str):
        name (ModelPresetName):
        parameter_count (int): Total parameters (elements): what memory holds.
        source (str):
        active_parameter_count (int | None | Unset): Parameters one token uses (mixture of experts); null when all are.
        attention_heads (int | None | Unset):
        ffn_hidden_size (int | None | Unset):
        head_dim (int | None | Unset):
        hidden_size (int | None | Unset):
        kv_heads (int | None | Unset):
        layers (int | None | Unset):
        linear_bias (bool | None | Unset):
        mla (MlaSpec | None | Unset):
        mlp (MlpKind | None | Unset):
        moe (MoeSpec | None | Unset):
        normalization (None | Normalization | Unset):
        position_embeddings (int | None | Unset):
        qk_norm (bool | None | Unset):
        qkv_bias (bool | None | Unset):
        sandwich_norm (bool | None | Unset):
        tied_embeddings (bool | None | Unset):
        vocab_size (int | None | Unset):
    """

    description: str
    name: ModelPresetName
    parameter_count: int
    source: str
    active_parameter_count: int | None | Unset = UNSET
    attention_heads: int | None | Unset = UNSET
    ffn_hidden_size: int | None | Unset = UNSET
    head_dim: int | None | Unset = UNSET
    hidden_size: int | None | Unset = UNSET
    kv_heads: int | None | Unset = UNSET
    layers: int | None | Unset = UNSET
    linear_bias: bool | None | Unset = UNSET
    mla: MlaSpec | None | Unset = UNSET
    mlp: MlpKind | None | Unset = UNSET
    moe: MoeSpec | None | Unset = UNSET
    normalization: None | Normalization | Unset = UNSET
    position_embeddings: int | None | Unset = UNSET
    qk_norm: bool | None | Unset = UNSET
    qkv_bias: bool | None | Unset = UNSET
    sandwich_norm: bool | None | Unset = UNSET
    tied_embeddings: bool | None | Unset = UNSET
    vocab_size: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.mla_spec import MlaSpec  # noqa: PLC0415
        from ..models.moe_spec import MoeSpec  # noqa: PLC0415

        description = self.description

        name = self.name.value

        parameter_count = self.parameter_count

        source = self.source

        active_parameter_count: int | None | Unset
        if isinstance(self.active_parameter_count, Unset):
            active_parameter_count = UNSET
        else:
            active_parameter_count = self.active_parameter_count

        attention_heads: int | None | Unset
        if isinstance(self.attention_heads, Unset):
            attention_heads = UNSET
        else:
            attention_heads = self.attention_heads

        ffn_hidden_size: int | None | Unset
        if isinstance(self.ffn_hidden_size, Unset):
            ffn_hidden_size = UNSET
        else:
            ffn_hidden_size = self.ffn_hidden_size

        head_dim: int | None | Unset
        if isinstance(self.head_dim, Unset):
            head_dim = UNSET
        else:
            head_dim = self.head_dim

        hidden_size: int | None | Unset
        if isinstance(self.hidden_size, Unset):
            hidden_size = UNSET
        else:
            hidden_size = self.hidden_size

        kv_heads: int | None | Unset
        if isinstance(self.kv_heads, Unset):
            kv_heads = UNSET
        else:
            kv_heads = self.kv_heads

        layers: int | None | Unset
        if isinstance(self.layers, Unset):
            layers = UNSET
        else:
            layers = self.layers

        linear_bias: bool | None | Unset
        if isinstance(self.linear_bias, Unset):
            linear_bias = UNSET
        else:
            linear_bias = self.linear_bias

        mla: dict[str, Any] | None | Unset
        if isinstance(self.mla, Unset):
            mla = UNSET
        elif isinstance(self.mla, MlaSpec):
            mla = self.mla.to_dict()
        else:
            mla = self.mla

        mlp: None | str | Unset
        if isinstance(self.mlp, Unset):
            mlp = UNSET
        elif isinstance(self.mlp, MlpKind):
            mlp = self.mlp.value
        else:
            mlp = self.mlp

        moe: dict[str, Any] | None | Unset
        if isinstance(self.moe, Unset):
            moe = UNSET
        elif isinstance(self.moe, MoeSpec):
            moe = self.moe.to_dict()
        else:
            moe = self.moe

        normalization: None | str | Unset
        if isinstance(self.normalization, Unset):
            normalization = UNSET
        elif isinstance(self.normalization, Normalization):
            normalization = self.normalization.value
        else:
            normalization = self.normalization

        position_embeddings: int | None | Unset
        if isinstance(self.position_embeddings, Unset):
            position_embeddings = UNSET
        else:
            position_embeddings = self.position_embeddings

        qk_norm: bool | None | Unset
        if isinstance(self.qk_norm, Unset):
            qk_norm = UNSET
        else:
            qk_norm = self.qk_norm

        qkv_bias: bool | None | Unset
        if isinstance(self.qkv_bias, Unset):
            qkv_bias = UNSET
        else:
            qkv_bias = self.qkv_bias

        sandwich_norm: bool | None | Unset
        if isinstance(self.sandwich_norm, Unset):
            sandwich_norm = UNSET
        else:
            sandwich_norm = self.sandwich_norm

        tied_embeddings: bool | None | Unset
        if isinstance(self.tied_embeddings, Unset):
            tied_embeddings = UNSET
        else:
            tied_embeddings = self.tied_embeddings

        vocab_size: int | None | Unset
        if isinstance(self.vocab_size, Unset):
            vocab_size = UNSET
        else:
            vocab_size = self.vocab_size

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "description": description,
                "name": name,
                "parameter_count": parameter_count,
                "source": source,
            }
        )
        if active_parameter_count is not UNSET:
            field_dict["active_parameter_count"] = active_parameter_count
        if attention_heads is not UNSET:
            field_dict["attention_heads"] = attention_heads
        if ffn_hidden_size is not UNSET:
            field_dict["ffn_hidden_size"] = ffn_hidden_size
        if head_dim is not UNSET:
            field_dict["head_dim"] = head_dim
        if hidden_size is not UNSET:
            field_dict["hidden_size"] = hidden_size
        if kv_heads is not UNSET:
            field_dict["kv_heads"] = kv_heads
        if layers is not UNSET:
            field_dict["layers"] = layers
        if linear_bias is not UNSET:
            field_dict["linear_bias"] = linear_bias
        if mla is not UNSET:
            field_dict["mla"] = mla
        if mlp is not UNSET:
            field_dict["mlp"] = mlp
        if moe is not UNSET:
            field_dict["moe"] = moe
        if normalization is not UNSET:
            field_dict["normalization"] = normalization
        if position_embeddings is not UNSET:
            field_dict["position_embeddings"] = position_embeddings
        if qk_norm is not UNSET:
            field_dict["qk_norm"] = qk_norm
        if qkv_bias is not UNSET:
            field_dict["qkv_bias"] = qkv_bias
        if sandwich_norm is not UNSET:
            field_dict["sandwich_norm"] = sandwich_norm
        if tied_embeddings is not UNSET:
            field_dict["tied_embeddings"] = tied_embeddings
        if vocab_size is not UNSET:
            field_dict["vocab_size"] = vocab_size

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.mla_spec import MlaSpec  # noqa: PLC0415
        from ..models.moe_spec import MoeSpec  # noqa: PLC0415

        d = dict(src_dict)
        description = d.pop("description")

        name = ModelPresetName(d.pop("name"))

        parameter_count = d.pop("parameter_count")

        source = d.pop("source")

        def _parse_active_parameter_count(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        active_parameter_count = _parse_active_parameter_count(d.pop("active_parameter_count", UNSET))

        def _parse_attention_heads(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        attention_heads = _parse_attention_heads(d.pop("attention_heads", UNSET))

        def _parse_ffn_hidden_size(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        ffn_hidden_size = _parse_ffn_hidden_size(d.pop("ffn_hidden_size", UNSET))

        def _parse_head_dim(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        head_dim = _parse_head_dim(d.pop("head_dim", UNSET))

        def _parse_hidden_size(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        hidden_size = _parse_hidden_size(d.pop("hidden_size", UNSET))

        def _parse_kv_heads(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        kv_heads = _parse_kv_heads(d.pop("kv_heads", UNSET))

        def _parse_layers(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        layers = _parse_layers(d.pop("layers", UNSET))

        def _parse_linear_bias(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        linear_bias = _parse_linear_bias(d.pop("linear_bias", UNSET))

        def _parse_mla(data: object) -> MlaSpec | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                mla_type_0 = MlaSpec.from_dict(data)

                return mla_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MlaSpec | None | Unset, data)

        mla = _parse_mla(d.pop("mla", UNSET))

        def _parse_mlp(data: object) -> MlpKind | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                mlp_type_0 = MlpKind(data)

                return mlp_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MlpKind | None | Unset, data)

        mlp = _parse_mlp(d.pop("mlp", UNSET))

        def _parse_moe(data: object) -> MoeSpec | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                moe_type_0 = MoeSpec.from_dict(data)

                return moe_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MoeSpec | None | Unset, data)

        moe = _parse_moe(d.pop("moe", UNSET))

        def _parse_normalization(data: object) -> None | Normalization | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                normalization_type_0 = Normalization(data)

                return normalization_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Normalization | Unset, data)

        normalization = _parse_normalization(d.pop("normalization", UNSET))

        def _parse_position_embeddings(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        position_embeddings = _parse_position_embeddings(d.pop("position_embeddings", UNSET))

        def _parse_qk_norm(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        qk_norm = _parse_qk_norm(d.pop("qk_norm", UNSET))

        def _parse_qkv_bias(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        qkv_bias = _parse_qkv_bias(d.pop("qkv_bias", UNSET))

        def _parse_sandwich_norm(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        sandwich_norm = _parse_sandwich_norm(d.pop("sandwich_norm", UNSET))

        def _parse_tied_embeddings(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        tied_embeddings = _parse_tied_embeddings(d.pop("tied_embeddings", UNSET))

        def _parse_vocab_size(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        vocab_size = _parse_vocab_size(d.pop("vocab_size", UNSET))

        model_preset = cls(
            description=description,
            name=name,
            parameter_count=parameter_count,
            source=source,
            active_parameter_count=active_parameter_count,
            attention_heads=attention_heads,
            ffn_hidden_size=ffn_hidden_size,
            head_dim=head_dim,
            hidden_size=hidden_size,
            kv_heads=kv_heads,
            layers=layers,
            linear_bias=linear_bias,
            mla=mla,
            mlp=mlp,
            moe=moe,
            normalization=normalization,
            position_embeddings=position_embeddings,
            qk_norm=qk_norm,
            qkv_bias=qkv_bias,
            sandwich_norm=sandwich_norm,
            tied_embeddings=tied_embeddings,
            vocab_size=vocab_size,
        )

        model_preset.additional_properties = d
        return model_preset

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
