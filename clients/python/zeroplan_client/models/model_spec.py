from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.mlp_kind import MlpKind
from ..models.model_preset_name import ModelPresetName
from ..models.normalization import Normalization
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.mla_spec import MlaSpec
    from ..models.model_spec_hf_config_type_0 import ModelSpecHfConfigType0
    from ..models.moe_spec import MoeSpec


T = TypeVar("T", bound="ModelSpec")


@_attrs_define
class ModelSpec:
    """The model: a preset, a Hugging Face config.json, a parameter count, or a transformer architecture.

    Architecture fields given beside a preset or an hf_config override theirs. Rules the schema
    cannot state: give a preset, an hf_config, a parameter_count or all five of layers,
    hidden_size, attention_heads, ffn_hidden_size and vocab_size; hidden_size is a multiple of
    attention_heads, and attention_heads a multiple of kv_heads.

        Attributes:
            attention_heads (int | None | Unset): Attention heads (a).
            ffn_hidden_size (int | None | Unset): MLP inner width (of the dense layers in an MoE model).
            head_dim (int | None | Unset): Width of one attention head; default hidden_size / attention_heads.
            hf_config (ModelSpecHfConfigType0 | None | Unset): The contents of a Hugging Face config.json (Llama, Mistral,
                Mixtral, Qwen2, Qwen3, Qwen3-MoE, Gemma 1/2/3, DeepSeek-V2/V3, Kimi K2, Llama 4 families, by model_type); the
                architecture is derived from it. Unknown keys are ignored; a missing key is a 422 naming /model/hf_config/<key>.
            hidden_size (int | None | Unset): Model width (h).
            kv_heads (int | None | Unset): Key/value heads; default a (MHA).
            largest_unit_parameters (int | None | Unset): Parameters of the largest FSDP/ZeRO-3 unit (a transformer block,
                the embedding or the output layer), for the working set when the architecture is unknown; derived from an
                architecture otherwise.
            layers (int | None | Unset): Transformer layers (L).
            linear_bias (bool | None | Unset): Biases on every linear layer of attention and MLP (Megatron-LM's --add-bias-
                linear); default true for a gelu MLP, false for swiglu and geglu.
            mla (MlaSpec | None | Unset): Multi-head latent attention (DeepSeek-V3) instead of MHA/GQA.
            mlp (MlpKind | None | Unset): gelu (GPT-style, with biases), swiglu (Llama-style) or geglu (Gemma).
            moe (MoeSpec | None | Unset): Mixture of experts; absent for a dense model.
            normalization (None | Normalization | Unset): layernorm (scale and bias) or rmsnorm (scale only); default
                layernorm for a gelu MLP, rmsnorm for swiglu and geglu.
            parameter_count (int | None | Unset): Parameter count (elements, not bytes). Derived from the architecture when
                one is given; a given count that differs by more than 1% is reported as a warning.
            position_embeddings (int | None | Unset): Learned absolute positions (GPT-2/3); 0 for rotary.
            preset (ModelPresetName | None | Unset): A model preset; see GET /v1/presets.
            qk_norm (bool | None | Unset): RMSNorm on each query and key head (Qwen3, Gemma 3).
            qkv_bias (bool | None | Unset): Biases on the q, k and v projections (Qwen2, Qwen2.5).
            sandwich_norm (bool | None | Unset): Norms after attention and MLP too: four per layer (Gemma 2, Gemma 3).
            tied_embeddings (bool | None | Unset): Output layer shares the embedding matrix.
            vocab_size (int | None | Unset): Vocabulary size (V).
    """

    attention_heads: int | None | Unset = UNSET
    ffn_hidden_size: int | None | Unset = UNSET
    head_dim: int | None | Unset = UNSET
    hf_config: ModelSpecHfConfigType0 | None | Unset = UNSET
    hidden_size: int | None | Unset = UNSET
    kv_heads: int | None | Unset = UNSET
    largest_unit_parameters: int | None | Unset = UNSET
    layers: int | None | Unset = UNSET
    linear_bias: bool | None | Unset = UNSET
    mla: MlaSpec | None | Unset = UNSET
    mlp: MlpKind | None | Unset = UNSET
    moe: MoeSpec | None | Unset = UNSET
    normalization: None | Normalization | Unset = UNSET
    parameter_count: int | None | Unset = UNSET
    position_embeddings: int | None | Unset = UNSET
    preset: ModelPresetName | None | Unset = UNSET
    qk_norm: bool | None | Unset = UNSET
    qkv_bias: bool | None | Unset = UNSET
    sandwich_norm: bool | None | Unset = UNSET
    tied_embeddings: bool | None | Unset = UNSET
    vocab_size: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.mla_spec import MlaSpec  # noqa: PLC0415
        from ..models.model_spec_hf_config_type_0 import ModelSpecHfConfigType0  # noqa: PLC0415
        from ..models.moe_spec import MoeSpec  # noqa: PLC0415

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

        hf_config: dict[str, Any] | None | Unset
        if isinstance(self.hf_config, Unset):
            hf_config = UNSET
        elif isinstance(self.hf_config, ModelSpecHfConfigType0):
            hf_config = self.hf_config.to_dict()
        else:
            hf_config = self.hf_config

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

        largest_unit_parameters: int | None | Unset
        if isinstance(self.largest_unit_parameters, Unset):
            largest_unit_parameters = UNSET
        else:
            largest_unit_parameters = self.largest_unit_parameters

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

        parameter_count: int | None | Unset
        if isinstance(self.parameter_count, Unset):
            parameter_count = UNSET
        else:
            parameter_count = self.parameter_count

        position_embeddings: int | None | Unset
        if isinstance(self.position_embeddings, Unset):
            position_embeddings = UNSET
        else:
            position_embeddings = self.position_embeddings

        preset: None | str | Unset
        if isinstance(self.preset, Unset):
            preset = UNSET
        elif isinstance(self.preset, ModelPresetName):
            preset = self.preset.value
        else:
            preset = self.preset

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

        field_dict.update({})
        if attention_heads is not UNSET:
            field_dict["attention_heads"] = attention_heads
        if ffn_hidden_size is not UNSET:
            field_dict["ffn_hidden_size"] = ffn_hidden_size
        if head_dim is not UNSET:
            field_dict["head_dim"] = head_dim
        if hf_config is not UNSET:
            field_dict["hf_config"] = hf_config
        if hidden_size is not UNSET:
            field_dict["hidden_size"] = hidden_size
        if kv_heads is not UNSET:
            field_dict["kv_heads"] = kv_heads
        if largest_unit_parameters is not UNSET:
            field_dict["largest_unit_parameters"] = largest_unit_parameters
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
        if parameter_count is not UNSET:
            field_dict["parameter_count"] = parameter_count
        if position_embeddings is not UNSET:
            field_dict["position_embeddings"] = position_embeddings
        if preset is not UNSET:
            field_dict["preset"] = preset
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
        from ..models.model_spec_hf_config_type_0 import ModelSpecHfConfigType0  # noqa: PLC0415
        from ..models.moe_spec import MoeSpec  # noqa: PLC0415

        d = dict(src_dict)

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

        def _parse_hf_config(data: object) -> ModelSpecHfConfigType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                hf_config_type_0 = ModelSpecHfConfigType0.from_dict(data)

                return hf_config_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ModelSpecHfConfigType0 | None | Unset, data)

        hf_config = _parse_hf_config(d.pop("hf_config", UNSET))

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

        def _parse_largest_unit_parameters(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        largest_unit_parameters = _parse_largest_unit_parameters(d.pop("largest_unit_parameters", UNSET))

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

        def _parse_parameter_count(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        parameter_count = _parse_parameter_count(d.pop("parameter_count", UNSET))

        def _parse_position_embeddings(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        position_embeddings = _parse_position_embeddings(d.pop("position_embeddings", UNSET))

        def _parse_preset(data: object) -> ModelPresetName | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                preset_type_0 = ModelPresetName(data)

                return preset_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ModelPresetName | None | Unset, data)

        preset = _parse_preset(d.pop("preset", UNSET))

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

        model_spec = cls(
            attention_heads=attention_heads,
            ffn_hidden_size=ffn_hidden_size,
            head_dim=head_dim,
            hf_config=hf_config,
            hidden_size=hidden_size,
            kv_heads=kv_heads,
            largest_unit_parameters=largest_unit_parameters,
            layers=layers,
            linear_bias=linear_bias,
            mla=mla,
            mlp=mlp,
            moe=moe,
            normalization=normalization,
            parameter_count=parameter_count,
            position_embeddings=position_embeddings,
            preset=preset,
            qk_norm=qk_norm,
            qkv_bias=qkv_bias,
            sandwich_norm=sandwich_norm,
            tied_embeddings=tied_embeddings,
            vocab_size=vocab_size,
        )

        return model_spec
