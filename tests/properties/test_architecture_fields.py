"""Linear biases, the normalisation and the shared experts' width, set apart from the MLP kind.

Omitted, each takes what the MLP kind implied before it could be given (gelu: biases and LayerNorm,
as GPT-2; swiglu and geglu: neither, RMSNorm, as Llama), so an explicit default answers the same.
Given, the counts follow Megatron-LM's megatron/core/transformer/mlp.py (linear_fc1 of width 2f
when gated, each linear with a bias under --add-bias-linear) and the norms' parameters per channel
(LayerNorm a scale and a bias, RMSNorm a scale).
"""

import pytest

from models.common import ModelSpec
from models.presets import MODEL_PRESETS, ModelPresetName
from service.inputs import resolve
from service.inputs.architecture import parameter_count

L, H, A, F, V = 4, 64, 8, 256, 1000


def count(**fields: object) -> int:
    spec = ModelSpec(layers=L, hidden_size=H, attention_heads=A, ffn_hidden_size=F, vocab_size=V, **fields)
    arch = resolve.model(spec).architecture
    assert arch is not None
    return parameter_count(arch)


def layer_weights(gated: bool) -> int:
    return 4 * H * H + (3 if gated else 2) * H * F


@pytest.mark.parametrize("mlp", ["gelu", "swiglu", "geglu"])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("norm", ["layernorm", "rmsnorm"])
def test_each_field_counts_its_own_parameters(mlp, bias, norm):
    gated = mlp != "gelu"
    per_channel = 2 if norm == "layernorm" else 1
    biases = (3 * H + H) + ((2 if gated else 1) * F + H) if bias else 0  # q, k, v, o; fc1, fc2
    per_layer = layer_weights(gated) + biases + 2 * per_channel * H
    expected = L * per_layer + per_channel * H + 2 * V * H  # final norm; untied embedding and output
    assert count(mlp=mlp, linear_bias=bias, normalization=norm, tied_embeddings=False) == expected


@pytest.mark.parametrize(("mlp", "bias", "norm"), [("gelu", True, "layernorm"), ("swiglu", False, "rmsnorm")])
def test_omitted_fields_take_what_the_mlp_implied(mlp, bias, norm):
    assert count(mlp=mlp) == count(mlp=mlp, linear_bias=bias, normalization=norm)


@pytest.mark.parametrize("name", list(ModelPresetName))
def test_every_preset_answers_the_same_with_its_implied_fields_given(client, name):
    preset = MODEL_PRESETS[name]
    if preset.layers is None:
        return
    gelu = preset.mlp in (None, "gelu")
    implied = {"linear_bias": gelu, "normalization": "layernorm" if gelu else "rmsnorm"}
    body = {"cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "h100-80gb"}, "arrangement": "zero3"}
    plain = client.post("/v1/plan", json=body | {"model": {"preset": name}}).json()
    given = client.post("/v1/plan", json=body | {"model": {"preset": name} | implied}).json()
    assert plain == given


def test_shared_experts_of_their_own_width():
    moe = {"experts": 4, "top_k": 2, "expert_ffn_hidden_size": 128, "shared_experts": 2}
    same = count(mlp="swiglu", moe=moe)
    assert count(mlp="swiglu", moe=moe | {"shared_expert_ffn_hidden_size": 128}) == same
    # Every layer is MoE: 2 shared experts of 3 h f_s each, f_s 96 instead of 128.
    narrower = count(mlp="swiglu", moe=moe | {"shared_expert_ffn_hidden_size": 96})
    assert same - narrower == L * 2 * 3 * H * (128 - 96)
