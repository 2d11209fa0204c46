"""A Hugging Face ``config.json`` turned into architecture fields, family by family.

Each family reads the keys its Transformers configuration class defines (``configuration_<family>.py``
in huggingface/transformers): Llama, Mistral, Mixtral, Qwen2, Qwen3, Qwen3-MoE, Gemma 1/2/3,
DeepSeek-V2/V3 and Llama 4 (its ``text_config``). Multimodal configs (Gemma 3, Llama 4) are read from
their ``text_config``: the vision tower is not part of the architecture. Unknown keys are ignored;
every missing key the family needs is reported at once, each with its JSON pointer.
"""

from collections.abc import Callable, Mapping
from typing import Any

from models.enums import MlpKind
from service.errors import InvalidHfConfig, echo

POINTER = "/model/hf_config"
MAX_VALUE = 100_000_000  # no architecture dimension comes near it; bounds the arithmetic
Fields = dict[str, Any]


class _Reader:
    """Reads keys from one config object, remembering every missing or malformed one."""

    def __init__(self, config: Mapping[str, Any], pointer: str) -> None:
        self.config, self.pointer = config, pointer
        self.problems: list[tuple[str, str]] = []

    def integer(self, key: str, default: int | None = None, minimum: int = 1) -> int:
        value = self.config.get(key, default)
        if value is None:
            self.problems.append((f"model.hf_config: missing key {key!r}", f"{self.pointer}/{key}"))
            return 1
        if isinstance(value, float) and value.is_integer():  # 32.0 or 3.2e1: the number 32, as in the contract
            value = int(value) if abs(value) <= MAX_VALUE else MAX_VALUE + 1  # 1e20: past the range, said so below
        if isinstance(value, bool) or not isinstance(value, int):
            self.problems.append(
                (
                    f"model.hf_config: {key!r} must be a whole number (a JSON number without a fraction)",
                    f"{self.pointer}/{key}",
                )
            )
            return 1
        if not minimum <= value <= MAX_VALUE:
            self.problems.append(
                (
                    f"model.hf_config: {key!r} must be from {minimum} to {MAX_VALUE:,}",
                    f"{self.pointer}/{key}",
                )
            )
            return 1
        return value

    def optional_int(self, key: str) -> int | None:
        return self.integer(key) if self.config.get(key) is not None else None

    def flag(self, key: str, default: bool) -> bool:
        value = self.config.get(key, default)
        if not isinstance(value, bool):
            self.problems.append((f"model.hf_config: {key!r} must be true or false", f"{self.pointer}/{key}"))
            return default
        return value


def _dense(r: _Reader, mlp: MlpKind, tied_default: bool) -> Fields:
    heads = r.integer("num_attention_heads")
    return {
        "layers": r.integer("num_hidden_layers"),
        "hidden_size": r.integer("hidden_size"),
        "attention_heads": heads,
        "kv_heads": r.integer("num_key_value_heads", heads),
        "ffn_hidden_size": r.integer("intermediate_size"),
        "vocab_size": r.integer("vocab_size"),
        "mlp": mlp,
        "tied_embeddings": r.flag("tie_word_embeddings", tied_default),
        "head_dim": r.optional_int("head_dim"),
    }


def _llama(r: _Reader) -> Fields:
    """LlamaConfig / MistralConfig: tie_word_embeddings defaults to false; attention_bias to false."""
    return _dense(r, MlpKind.swiglu, False) | {"qkv_bias": r.flag("attention_bias", False)}


def _mixtral(r: _Reader) -> Fields:
    return _llama(r) | {
        "moe": {
            "experts": r.integer("num_local_experts"),
            "top_k": r.integer("num_experts_per_tok"),
            "expert_ffn_hidden_size": r.integer("intermediate_size"),
        }
    }


def _qwen2(r: _Reader) -> Fields:
    """Qwen2Attention has biases on q, k and v (``modeling_qwen2.py``)."""
    return _dense(r, MlpKind.swiglu, False) | {"qkv_bias": True}


def _qwen3(r: _Reader) -> Fields:
    """Qwen3Attention: q_norm and k_norm over head_dim; attention_bias defaults to false."""
    return _dense(r, MlpKind.swiglu, False) | {"qk_norm": True, "qkv_bias": r.flag("attention_bias", False)}


def _qwen3_moe(r: _Reader) -> Fields:
    """Qwen3MoeConfig: every layer sparse unless listed in mlp_only_layers or off decoder_sparse_step."""
    fields = _qwen3(r)
    if r.config.get("mlp_only_layers"):
        r.problems.append(("model.hf_config: mlp_only_layers is not supported", f"{r.pointer}/mlp_only_layers"))
    fields["moe"] = {
        "experts": r.integer("num_experts"),
        "top_k": r.integer("num_experts_per_tok"),
        "expert_ffn_hidden_size": r.integer("moe_intermediate_size"),
        "layer_interval": r.integer("decoder_sparse_step", 1),
    }
    return fields


def _gemma(r: _Reader) -> Fields:
    """GemmaConfig: GeGLU MLP, tied embeddings, head_dim 256 by default."""
    return _dense(r, MlpKind.geglu, True) | {"head_dim": r.integer("head_dim", 256)}


def _gemma2(r: _Reader) -> Fields:
    """Gemma2DecoderLayer: pre- and post-norms around attention and the MLP (four per layer)."""
    return _gemma(r) | {"sandwich_norm": True}


def _gemma3(r: _Reader) -> Fields:
    """Gemma3Attention adds q_norm and k_norm to Gemma 2's layer."""
    return _gemma2(r) | {"qk_norm": True}


def _deepseek_v3(r: _Reader) -> Fields:
    """DeepseekV3Config (and V2's, the same keys): MLA, shared experts, first_k_dense_replace dense
    layers, and with V3's noaux_tc routing a per-expert bias beside the router."""
    fields = _dense(r, MlpKind.swiglu, False)
    fields["head_dim"] = None
    fields["moe"] = {
        "experts": r.integer("n_routed_experts"),
        "top_k": r.integer("num_experts_per_tok"),
        "expert_ffn_hidden_size": r.integer("moe_intermediate_size"),
        "shared_experts": r.integer("n_shared_experts", 0, minimum=0),
        "dense_layers": r.integer("first_k_dense_replace", 0, minimum=0),
        "layer_interval": r.integer("moe_layer_freq", 1),
        "router_bias": r.config.get("topk_method", "noaux_tc") == "noaux_tc",
    }
    fields["mla"] = {
        "q_lora_rank": r.integer("q_lora_rank", 0, minimum=0) if r.config.get("q_lora_rank") is not None else 0,
        "kv_lora_rank": r.integer("kv_lora_rank"),
        "qk_rope_head_dim": r.integer("qk_rope_head_dim", minimum=0),
        "qk_nope_head_dim": r.integer("qk_nope_head_dim", minimum=0),
        "v_head_dim": r.integer("v_head_dim"),
    }
    return fields


def _llama4(r: _Reader) -> Fields:
    """Llama4TextConfig: routed experts of intermediate_size, dense layers of intermediate_size_mlp,
    MoE every interleave_moe_layer_step-th layer, one shared expert in each MoE layer."""
    fields = _dense(r, MlpKind.swiglu, False)
    fields["ffn_hidden_size"] = r.integer("intermediate_size_mlp")
    fields["moe"] = {
        "experts": r.integer("num_local_experts"),
        "top_k": r.integer("num_experts_per_tok"),
        "expert_ffn_hidden_size": r.integer("intermediate_size"),
        "shared_experts": 1,
        "layer_interval": r.integer("interleave_moe_layer_step", 1),
    }
    return fields


FAMILIES: dict[str, Callable[[_Reader], Fields]] = {
    "llama": _llama,
    "mistral": _llama,
    "mixtral": _mixtral,
    "qwen2": _qwen2,
    "qwen3": _qwen3,
    "qwen3_moe": _qwen3_moe,
    "gemma": _gemma,
    "gemma2": _gemma2,
    "gemma3": _gemma3,
    "gemma3_text": _gemma3,
    "deepseek_v2": _deepseek_v3,
    "deepseek_v3": _deepseek_v3,
    "kimi_k2": _deepseek_v3,  # Moonshot AI's Kimi K2: DeepseekV3ForCausalLM and DeepseekV3Config's keys
    "llama4": _llama4,
    "llama4_text": _llama4,
}
# Multimodal wrappers whose text decoder is described by text_config.
TEXT_CONFIG_FAMILIES = ("gemma3", "llama4")


def architecture_fields(config: Mapping[str, Any]) -> Fields:
    """The architecture fields of ModelSpec that a config.json implies (None where it is silent)."""
    model_type = config.get("model_type")
    if not isinstance(model_type, str):
        raise InvalidHfConfig(
            "model.hf_config: missing key 'model_type'",
            [("model.hf_config: missing key 'model_type'", f"{POINTER}/model_type")],
        )
    if model_type not in FAMILIES:
        known = ", ".join(sorted(FAMILIES))
        detail = f"model.hf_config: model_type {echo(repr(model_type))} is not supported; supported: {known}"
        raise InvalidHfConfig(detail, [(detail, f"{POINTER}/model_type")])
    reader = _text_reader(config, model_type)
    fields = FAMILIES[model_type](reader) if not reader.problems else {}
    if not reader.problems:
        _check_shape(fields, reader)
    if reader.problems:
        raise InvalidHfConfig("; ".join(detail for detail, _ in reader.problems), reader.problems)
    return fields


def _check_shape(fields: Fields, r: _Reader) -> None:
    """What ModelSpec checks of fields given directly, for fields read from a config."""
    heads, kv_heads = fields["attention_heads"], fields["kv_heads"]
    if heads % kv_heads:
        r.problems.append(
            (
                f"model.hf_config: num_attention_heads {heads} is not a multiple of num_key_value_heads {kv_heads}",
                f"{r.pointer}/num_key_value_heads",
            )
        )
    if fields.get("head_dim") is None and "mla" not in fields and fields["hidden_size"] % heads:
        r.problems.append(
            (
                f"model.hf_config: hidden_size {fields['hidden_size']} is not a multiple of num_attention_heads "
                f"{heads} and there is no head_dim",
                f"{r.pointer}/head_dim",
            )
        )
    moe = fields.get("moe")
    if moe is not None:
        if moe["top_k"] > moe["experts"]:
            r.problems.append(
                (
                    f"model.hf_config: {moe['top_k']} experts per token of {moe['experts']}",
                    f"{r.pointer}/num_experts_per_tok",
                )
            )
        if moe.get("dense_layers", 0) > fields["layers"]:
            r.problems.append(("model.hf_config: more dense layers than layers", f"{r.pointer}/first_k_dense_replace"))


def _text_reader(config: Mapping[str, Any], model_type: str) -> _Reader:
    if model_type in TEXT_CONFIG_FAMILIES:
        text = config.get("text_config")
        if isinstance(text, Mapping):
            return _Reader(text, f"{POINTER}/text_config")
        if model_type == "llama4" or "num_hidden_layers" not in config:
            reader = _Reader({}, POINTER)
            reader.problems.append(("model.hf_config: missing key 'text_config'", f"{POINTER}/text_config"))
            return reader
    return _Reader(config, POINTER)


# The config keys each architecture field is read from (the families above), first match wins: a
# value past the model's limits is reported at the key that gave it.
FIELD_KEYS: dict[tuple[str, ...], tuple[str, ...]] = {
    ("layers",): ("num_hidden_layers",),
    ("hidden_size",): ("hidden_size",),
    ("attention_heads",): ("num_attention_heads",),
    ("kv_heads",): ("num_key_value_heads", "num_attention_heads"),
    ("ffn_hidden_size",): ("intermediate_size_mlp", "intermediate_size"),
    ("vocab_size",): ("vocab_size",),
    ("head_dim",): ("head_dim",),
    ("moe", "experts"): ("num_local_experts", "num_experts", "n_routed_experts"),
    ("moe", "top_k"): ("num_experts_per_tok",),
    ("moe", "expert_ffn_hidden_size"): ("moe_intermediate_size", "intermediate_size"),
    ("moe", "shared_experts"): ("n_shared_experts",),
    ("moe", "dense_layers"): ("first_k_dense_replace",),
    ("moe", "layer_interval"): ("decoder_sparse_step", "moe_layer_freq", "interleave_moe_layer_step"),
    ("mla", "q_lora_rank"): ("q_lora_rank",),
    ("mla", "kv_lora_rank"): ("kv_lora_rank",),
    ("mla", "qk_rope_head_dim"): ("qk_rope_head_dim",),
    ("mla", "qk_nope_head_dim"): ("qk_nope_head_dim",),
    ("mla", "v_head_dim"): ("v_head_dim",),
}


def key_pointer(config: Mapping[str, Any], field: tuple[str, ...]) -> str:
    """The JSON pointer of the config key an architecture field was read from (the config itself when
    no key matches: a rule across fields, or a field the family sets without a key)."""
    model_type = config.get("model_type")
    reader = _text_reader(config, model_type) if isinstance(model_type, str) else _Reader(config, POINTER)
    for key in FIELD_KEYS.get(field, ()):
        if key in reader.config:
            return f"{reader.pointer}/{key}"
    return reader.pointer
