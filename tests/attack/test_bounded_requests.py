"""Findings 1 and 5 of the attack on a fresh clone: every way of stating a model meets the model's limits,
checked once after resolving, and nothing past them (or past a 64-bit integer) is a 500 or a 200.

Each body here answered 500 (MoE and latent values past their own limits) or 200 (an hf_config of
100,000 layers or 2.2e18 parameters; an answer of 8e23 bytes per GPU) before the check existed.
"""

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.settings import Settings
from models.common import MAX_PARAMETER_COUNT
from service.mesh.pipeline import stage_layer_indices

LLAMA = {
    "model_type": "llama",
    "num_hidden_layers": 32,
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "intermediate_size": 14336,
    "vocab_size": 128256,
}
MIXTRAL = LLAMA | {"model_type": "mixtral", "num_local_experts": 8, "num_experts_per_tok": 2}
DEEPSEEK = LLAMA | {
    "model_type": "deepseek_v3",
    "n_routed_experts": 64,
    "num_experts_per_tok": 6,
    "moe_intermediate_size": 1408,
    "n_shared_experts": 2,
    "kv_lora_rank": 512,
    "q_lora_rank": 1536,
    "qk_rope_head_dim": 64,
    "qk_nope_head_dim": 128,
    "v_head_dim": 128,
}
# (config, the key past its limit): limits from models/architecture.py (MoeSpec, MlaSpec) and ModelSpec.
PAST_LIMITS = [
    (MIXTRAL | {"num_local_experts": 100_001}, "num_local_experts"),  # MoeSpec.experts <= 100,000
    (DEEPSEEK | {"n_shared_experts": 1_001}, "n_shared_experts"),  # MoeSpec.shared_experts <= 1,000
    (DEEPSEEK | {"kv_lora_rank": 1_000_001}, "kv_lora_rank"),  # MlaSpec.kv_lora_rank <= 1,000,000
    (DEEPSEEK | {"v_head_dim": 100_001}, "v_head_dim"),  # MlaSpec.v_head_dim <= 100,000
    (DEEPSEEK | {"qk_rope_head_dim": 100_001}, "qk_rope_head_dim"),
    (DEEPSEEK | {"moe_intermediate_size": 10_000_001}, "moe_intermediate_size"),  # <= 10,000,000
    (LLAMA | {"num_hidden_layers": 100_000}, "num_hidden_layers"),  # ModelSpec.layers <= 10,000
    (LLAMA | {"hidden_size": 2_000_000, "head_dim": 128}, "hidden_size"),  # ModelSpec.hidden_size <= 1,000,000
]
CLUSTER = {"world_size": 8, "gpus_per_node": 8, "gpu": "h100-80gb"}


def bodies(model: dict) -> dict[str, dict]:
    """A minimal body of every operation that takes a model, around ``model``."""
    return {
        "/v1/plan": {"model": model, "cluster": CLUSTER, "arrangement": "zero3"},
        "/v1/fit": {"model": model, "cluster": {"gpus_per_node": 8, "gpu": "h100-80gb"}},
        "/v1/recommend": {"model": model, "cluster": {"gpus_per_node": 8, "gpu": "h100-80gb"}, "max_gpus": 64},
        "/v1/limits": {"model": model, "cluster": CLUSTER},
        "/v1/sweep": {
            "base": {"model": model, "cluster": CLUSTER, "arrangement": "zero3"},
            "axes": {"world_size": [8]},
        },
        "/v1/search": {
            "model": model,
            "cluster": {"world_size": [8], "gpus_per_node": 8, "gpu": "h100-80gb"},
            "training": {"global_batch_size": 64, "sequence_length": 4096},
        },
        "/v1/figures/memory-vs-gpus?format=svg": {"model": model, "cluster": CLUSTER},
    }


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(Settings(heavy_work_processes=False)), raise_server_exceptions=False)


@pytest.mark.parametrize("config,key", PAST_LIMITS, ids=[key for _, key in PAST_LIMITS])
@pytest.mark.parametrize("path", list(bodies({})))
def test_an_hf_config_past_the_limits_is_a_422_at_its_key(client, path, config, key):
    response = client.post(path, json=bodies({"hf_config": config})[path])
    assert response.status_code == 422, response.text
    assert response.headers["content-type"] == "application/problem+json"
    pointers = [error["pointer"] for error in response.json()["errors"]]
    assert any(pointer.endswith(f"/model/hf_config/{key}") for pointer in pointers), pointers


def test_the_same_configs_within_the_limits_are_answered(client):
    for config in (MIXTRAL, DEEPSEEK, LLAMA):
        response = client.post("/v1/plan", json=bodies({"hf_config": config})["/v1/plan"])
        assert response.status_code == 200, response.text


def test_a_derived_parameter_count_past_the_limit_is_a_422(client):
    # 10,000 layers of width 1,000,000 and MLP 10,000,000: each field is within its own bound, but the
    # layer alone holds 2 x 10^6 x 10^7 MLP weights, so L x 2e13 = 2e17 > 1e15 parameters.
    model = {
        "layers": 10_000,
        "hidden_size": 1_000_000,
        "attention_heads": 1_000,
        "ffn_hidden_size": 10_000_000,
        "vocab_size": 32_000,
    }
    assert 10_000 * 2 * 1_000_000 * 10_000_000 > MAX_PARAMETER_COUNT
    for source in (
        model,
        {
            "hf_config": LLAMA
            | {
                "num_hidden_layers": 10_000,
                "hidden_size": 1_000_000,
                "num_attention_heads": 1_000,
                "num_key_value_heads": 1_000,
                "intermediate_size": 10_000_000,
            }
        },
    ):
        response = client.post("/v1/plan", json=bodies(source)["/v1/plan"])
        assert response.status_code == 422, response.text
        assert "more than the limit of 1,000,000,000,000,000" in response.json()["detail"]


def test_an_answer_past_a_64_bit_integer_is_a_422(client):
    # llama-3.1-405b: 126 layers of width 16,384 and 128 heads, without flash attention, at micro-batch 100,000
    # of 10^7 tokens holds the s x s scores: 128 x (10^7)^2 x 100,000 values per layer alone is 1.28e21 > 2^63.
    assert 128 * 10**14 * 100_000 > 2**63
    body = bodies({"preset": "llama-3.1-405b"})["/v1/plan"] | {
        "training": {"micro_batch_size": 100_000, "sequence_length": 10_000_000},
        "activations": {"flash_attention": False},
    }
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 422, response.text
    assert response.json()["code"] == "answer_out_of_range"


def test_stage_layer_indices_are_consecutive_and_linear():
    # 10 layers on 4 stages: 2, 2, 3, 3 (the last L mod p stages take one more).
    assert stage_layer_indices(10, 4) == [[0, 1], [2, 3], [4, 5, 6], [7, 8, 9]]
    stages = stage_layer_indices(100_000, 100_000)  # running sums: quadratic ones would copy 5e9 sizes here
    assert stages[-1] == [99_999] and len(stages) == 100_000


def test_a_megabyte_of_unknown_keys_is_refused_by_its_shape(client):
    # 75,000 unknown keys (~1 MB): one error per key would be built on the event loop; the shape check says no
    # object of the contract has more than 1,000 keys, off the event loop, and answers with one error.
    body = bodies({"parameter_count": 30_000_000_000})["/v1/plan"] | {f"k{i}": 1 for i in range(75_000)}
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 422, response.text[:300]
    assert response.json()["errors"] == [
        {"detail": "body: an object of 75,003 keys; none in this API has more than 1,000", "pointer": "/"}
    ]
