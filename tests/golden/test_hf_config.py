"""model.hf_config: published config.json contents (tests/data/hf_configs, sources in its README)
give the architecture, and with it the publisher's parameter count."""

import json
from pathlib import Path

import pytest

from tests.conftest import plan_body

CONFIGS = Path(__file__).parent.parent / "data" / "hf_configs"


def config(name: str) -> dict:
    return json.loads((CONFIGS / f"{name}.json").read_text())


def plan_with(client, hf_config: dict, **model: object) -> dict:
    body = plan_body("zero3", world_size=64)
    body["model"] = {"hf_config": hf_config, **model}
    return client.post("/v1/plan", json=body).json()


@pytest.mark.parametrize(
    ("name", "total", "active"),
    [
        ("llama-3.1-8b", 8_030_261_248, 8_030_261_248),  # model card
        ("mistral-7b-v0.1", 14_483_464_192 // 2, 14_483_464_192 // 2),  # safetensors index total_size / 2
        ("mixtral-8x7b-v0.1", 93_405_585_408 // 2, 12_879_925_248),  # index; active: 12.9B, Mistral AI
        ("qwen2.5-7b", 15_231_233_024 // 2, 15_231_233_024 // 2),
        ("qwen3-8b", 16_381_470_720 // 2, 16_381_470_720 // 2),
        ("qwen3-30b-a3b", 61_064_245_248 // 2, 3_353_032_704),  # active: 3.3B on the card, truncated
        ("gemma-2-9b", 18_483_411_968 // 2, 18_483_411_968 // 2),
        # keras-team/keras-hub, keras_hub/src/models/gemma/gemma_presets.py: "params": 8537680896
        ("gemma-7b", 8_537_680_896, 8_537_680_896),
    ],
)
def test_config_gives_the_published_count(client, name, total, active):
    body = plan_with(client, config(name))
    assert body["parameter_count"] == total
    assert body["active_parameter_count"] == active


def test_gemma3_text_config(client):
    # Gemma 3 report, table 1: 25,600M non-embedding parameters in the 27B text decoder.
    body = plan_with(client, config("gemma-3-27b-it"))
    embedding = 262_208 * 5376
    assert round((body["parameter_count"] - embedding) / 1e6) == 25_600


def test_deepseek_v3_config(client):
    body = plan_with(client, config("deepseek-v3"))
    assert round(body["parameter_count"] / 1e9) == 671  # DeepSeek-V3 report: 671B total
    assert 37e9 <= body["active_parameter_count"] < 38e9  # 37B activated


def test_kimi_k2_config(client):
    """Moonshot AI's Kimi K2 (model_type kimi_k2, DeepSeek-V3's architecture): "1 trillion total parameters and 32
    billion activated" (moonshotai/Kimi-K2-Instruct model card); the arithmetic of its config: 61 layers of MLA
    (q 7168 x 1536 + 1536 x 64 x 192, kv 7168 x 576 + 512 x 64 x 256, out 64 x 128 x 7168), the first dense
    (3 x 7168 x 18432), 60 of 384 routed and 1 shared experts of 3 x 7168 x 2048 with a 7168 x 384 router,
    untied 163,840 x 7168 embeddings."""
    body = plan_with(client, config("kimi-k2"))
    attention = 7168 * 1536 + 1536 * 64 * 192 + 7168 * (512 + 64) + 512 * 64 * (128 + 128) + 64 * 128 * 7168
    norms = 2 * 7168 + 1536 + 512  # the layer's two norms and MLA's q and kv latent norms
    expert = 3 * 7168 * 2048
    dense_layer = attention + norms + 3 * 7168 * 18432
    moe_layer = attention + norms + 385 * expert + 7168 * 384 + 384  # the router and its per-expert bias
    total = dense_layer + 60 * moe_layer + 2 * 163_840 * 7168 + 7168
    assert body["parameter_count"] == total
    assert round(total / 1e12, 3) == 1.026
    active = total - 60 * (384 - 8) * expert
    assert body["active_parameter_count"] == active
    assert round(active / 1e9) == 33
    assert round((active - 163_840 * 7168) / 1e9) == 32  # the card's "32B activated": without the input embedding


def test_deepseek_v2_config(client):
    # DeepSeek-AI 2024, "DeepSeek-V2", abstract: 236B total parameters, 21B activated per token.
    body = plan_with(client, config("deepseek-v2"))
    assert round(body["parameter_count"] / 1e9) == 236
    assert round(body["active_parameter_count"] / 1e9) == 21


def test_llama4_scout_config(client):
    body = plan_with(client, config("llama-4-scout-17b-16e"))
    assert round(body["active_parameter_count"] / 1e9) == 17  # model card: 17B active
    presets = client.post("/v1/plan", json=plan_body("zero3", world_size=64) | {"model": {"preset": "llama-4-scout"}})
    assert body["parameter_count"] == presets.json()["parameter_count"]


def test_config_equals_its_preset(client):
    from_config = plan_with(client, config("mixtral-8x7b-v0.1"))
    body = plan_body("zero3", world_size=64)
    body["model"] = {"preset": "mixtral-8x7b"}
    assert client.post("/v1/plan", json=body).json() == from_config


def test_unknown_keys_are_ignored(client):
    noisy = config("qwen3-8b") | {"some_future_key": [1, 2], "transformers_version": "9.9"}
    assert plan_with(client, noisy)["parameter_count"] == 16_381_470_720 // 2


def test_fields_beside_the_config_override_it(client):
    body = plan_with(client, config("llama-3.1-8b"), layers=16)
    per_layer = 4096 * (4096 + 1024 + 1024 + 4096) + 3 * 4096 * 14336 + 2 * 4096
    assert body["parameter_count"] == 16 * per_layer + 2 * 128256 * 4096 + 4096


def test_missing_keys_are_each_named(client):
    broken = {k: v for k, v in config("mixtral-8x7b-v0.1").items() if k not in ("hidden_size", "num_local_experts")}
    response = client.post("/v1/plan", json=plan_body("zero3") | {"model": {"hf_config": broken}})
    assert response.status_code == 422
    problem = response.json()
    pointers = {e["pointer"] for e in problem["errors"]}
    assert pointers == {"/model/hf_config/hidden_size", "/model/hf_config/num_local_experts"}
    assert "hidden_size" in problem["detail"] and "num_local_experts" in problem["detail"]


def test_missing_key_inside_text_config(client):
    broken = config("gemma-3-27b-it")
    del broken["text_config"]["num_hidden_layers"]
    response = client.post("/v1/plan", json=plan_body("zero3") | {"model": {"hf_config": broken}})
    assert response.status_code == 422
    assert response.json()["errors"][0]["pointer"] == "/model/hf_config/text_config/num_hidden_layers"


@pytest.mark.parametrize(
    ("hf_config", "pointer"),
    [
        ({"hidden_size": 4096}, "/model/hf_config/model_type"),
        ({"model_type": "bert"}, "/model/hf_config/model_type"),
        (config("llama-3.1-8b") | {"hidden_size": "4096"}, "/model/hf_config/hidden_size"),
        (config("llama-3.1-8b") | {"tie_word_embeddings": "no"}, "/model/hf_config/tie_word_embeddings"),
        (config("llama-3.1-8b") | {"num_attention_heads": 0}, "/model/hf_config/num_attention_heads"),
        (config("llama-3.1-8b") | {"num_key_value_heads": 5}, "/model/hf_config/num_key_value_heads"),
        (config("mixtral-8x7b-v0.1") | {"num_experts_per_tok": 9}, "/model/hf_config/num_experts_per_tok"),
        (config("llama-3.1-8b") | {"hidden_size": 10**12}, "/model/hf_config/hidden_size"),
    ],
)
def test_bad_configs_are_problems(client, hf_config, pointer):
    response = client.post("/v1/plan", json=plan_body("zero3") | {"model": {"hf_config": hf_config}})
    assert response.status_code == 422
    assert response.headers["content-type"].startswith("application/problem+json")
    assert [e["pointer"] for e in response.json()["errors"]] == [pointer]


def test_preset_and_config_together_are_refused(client):
    body = plan_body("zero3") | {"model": {"preset": "llama-3-8b", "hf_config": config("llama-3.1-8b")}}
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 422
    assert response.json()["errors"][0]["pointer"] == "/model"
