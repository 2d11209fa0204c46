"""A mixture of experts in a plan: memory holds every expert, compute counts the active ones."""

from tests.conftest import plan_body

MIXTRAL_TOTAL = 46_702_792_704  # mistralai/Mixtral-8x7B-v0.1 model.safetensors.index.json total_size / 2
MIXTRAL_ACTIVE = 12_879_925_248  # 12.9B (Mistral AI); written out in test_model_presets.py


def test_memory_uses_total_and_flops_use_active(client):
    body = plan_body("ddp", world_size=8, model={"preset": "mixtral-8x7b"})
    body["training"] = {"micro_batch_size": 1, "sequence_length": 4096}
    plan = client.post("/v1/plan", json=body).json()
    assert plan["parameter_count"] == MIXTRAL_TOTAL
    assert plan["active_parameter_count"] == MIXTRAL_ACTIVE
    assert plan["memory"]["model_state_bytes"] == 16 * MIXTRAL_TOTAL
    tokens = 8 * 1 * 4096
    assert plan["time"]["tokens_per_step"] == tokens
    # Model FLOPs per token 6 x N + 12 x L x h x s (PaLM appendix B), N the active parameters less the
    # 32000 x 4096 input embedding (untied): the experts a token skips do no work.
    per_token = 6 * (MIXTRAL_ACTIVE - 32000 * 4096) + 12 * 32 * 4096 * 4096
    assert plan["time"]["model_flops_per_step"] == per_token * tokens


def test_moe_given_as_fields(client):
    model = {
        "layers": 32,
        "hidden_size": 4096,
        "attention_heads": 32,
        "kv_heads": 8,
        "ffn_hidden_size": 14336,
        "vocab_size": 32000,
        "mlp": "swiglu",
        "moe": {"experts": 8, "top_k": 2, "expert_ffn_hidden_size": 14336},
    }
    plan = client.post("/v1/plan", json=plan_body("zero3", model=model)).json()
    assert (plan["parameter_count"], plan["active_parameter_count"]) == (MIXTRAL_TOTAL, MIXTRAL_ACTIVE)


def test_dense_active_equals_total(client):
    plan = client.post("/v1/plan", json=plan_body("zero3")).json()
    assert plan["active_parameter_count"] == plan["parameter_count"] == 30_000_000_000


def test_fit_and_recommend_report_both_counts(client):
    body = {"model": {"preset": "deepseek-v3"}, "cluster": {"gpus_per_node": 8, "gpu": "h200"}}
    for path in ("/v1/fit", "/v1/recommend"):
        answer = client.post(path, json=body).json()
        assert answer["parameter_count"] > answer["active_parameter_count"] > 0, path


def test_top_k_above_experts_is_a_problem(client):
    model = {"preset": "mixtral-8x7b", "moe": {"experts": 8, "top_k": 9, "expert_ffn_hidden_size": 14336}}
    response = client.post("/v1/plan", json=plan_body("zero3", model=model))
    assert response.status_code == 422
    assert response.json()["errors"][0]["pointer"] == "/model/moe"


def _model_flops(client, preset: str, s: int) -> dict:
    body = plan_body("zero3", world_size=8, model={"preset": preset})
    body["training"] = {"micro_batch_size": 1, "sequence_length": s}
    return client.post("/v1/plan", json=body).json()


def test_attention_flops_use_the_heads_width(client):
    # Gemma 2 9B: 16 heads of 256 = 4096, wider than h = 3584; tied embeddings, so N = P.
    plan = _model_flops(client, "gemma-2-9b", 4096)
    per_token = 6 * 9_241_705_984 + 12 * 42 * (16 * 256) * 4096
    assert plan["time"]["model_flops_per_step"] == per_token * 8 * 4096


def test_deepseek_v3_flops_count_active_experts_and_latent_heads(client):
    # 128 heads; scores over d_nope + d_rope = 192, values over d_v = 128: 128 x (192 + 128) / 2.
    plan = _model_flops(client, "deepseek-v3", 4096)
    active = plan["active_parameter_count"]
    per_token = 6 * (active - 129_280 * 7168) + 12 * 61 * (128 * 320 // 2) * 4096
    assert plan["time"]["model_flops_per_step"] == per_token * 8 * 4096
