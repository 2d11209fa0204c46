"""Megatron-LM's own unit test of its theoretical memory, reproduced through /v1/plan.

Source: NVIDIA Megatron-LM, tests/unit_tests/training/test_weight_and_optimizer_memory.py, whose
``_make_args`` builds a two-layer model (h 8, 2 heads of kv_channels 4, ffn 16, vocabulary 32, tied
embeddings) with a non-gated MLP without biases (swiglu False, add_bias_linear False), RMSNorm, and
a mixture of experts on the second layer only (moe_layer_freq [0, 1]; here dense_layers 1): 4
experts of width 16, top-1, one shared expert of width 8 (moe_shared_expert_intermediate_size 8).
The counts below are Megatron's terms from megatron/training/theoretical_memory_usage.py, as the
test's comments write them (attention 256, dense MLP 256, shared expert 128, routed experts 1024,
norms 16 per layer, router 32, final norm 8, embedding 256).
"""

MEGATRON_TEST_MODEL = {
    "layers": 2,
    "hidden_size": 8,
    "attention_heads": 2,
    "head_dim": 4,
    "ffn_hidden_size": 16,
    "vocab_size": 32,
    "mlp": "gelu",
    "linear_bias": False,
    "normalization": "rmsnorm",
    "tied_embeddings": True,
    "moe": {
        "experts": 4,
        "top_k": 1,
        "expert_ffn_hidden_size": 16,
        "shared_experts": 1,
        "shared_expert_ffn_hidden_size": 8,
        "dense_layers": 1,
    },
}

H, F, V, EXPERTS, F_EXPERT, F_SHARED, TOP_K = 8, 16, 32, 4, 16, 8, 1
# self_attn_term: 2 h^2 (1 + query groups / heads) x (kv_channels x heads / h)
ATTENTION = 2 * H * H * ((1 + 2 / 2) * (4 * 2 / H))
DENSE_MLP = 2 * H * F  # 2 h f, gated_linear_multiplier 1
SHARED_EXPERT = 2 * H * F_SHARED
ROUTED_EXPERTS = 2 * H * F_EXPERT * EXPERTS
LAYER_NORMS = 2 * H * 1  # two RMSNorms (norm_size 1)
ROUTER = H * EXPERTS  # no bias: add_bias_linear False
FINAL_NORM = H
EMBEDDING = H * V  # tied: counted once


def test_the_terms_are_the_tests_numbers():
    assert (ATTENTION, DENSE_MLP, SHARED_EXPERT, ROUTED_EXPERTS) == (256, 256, 128, 1024)
    assert (LAYER_NORMS, ROUTER, FINAL_NORM, EMBEDDING) == (16, 32, 8, 256)


def plan(client, **extra):  # type: ignore[no-untyped-def]
    body = {
        "model": MEGATRON_TEST_MODEL,
        "cluster": {"world_size": 1, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "arrangement": "ddp",
    } | extra
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def test_total_and_active_parameters_are_megatrons(client):
    # num_total_parameters and num_active_parameters of theoretical_memory_usage.py.
    dense_layer = ATTENTION + DENSE_MLP + LAYER_NORMS
    moe_layer = ATTENTION + SHARED_EXPERT + ROUTED_EXPERTS + LAYER_NORMS + ROUTER
    active_moe_layer = ATTENTION + SHARED_EXPERT + ROUTED_EXPERTS * TOP_K // EXPERTS + LAYER_NORMS + ROUTER
    answer = plan(client)
    assert answer["parameter_count"] == dense_layer + moe_layer + FINAL_NORM + EMBEDDING == 2248
    assert answer["active_parameter_count"] == dense_layer + active_moe_layer + FINAL_NORM + EMBEDDING == 1480
