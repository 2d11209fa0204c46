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

import math

import pytest

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


# compute_weight_and_optimizer_memory, as the three tests below configure it. _make_args has 2 attention
# heads, so its tensor degree 4 (test_..._decreases_with_tensor_parallelism) is one a real run refuses
# (megatron/training/arguments.py asserts num_attention_heads % tensor_model_parallel_size == 0); /v1/plan
# answers it with a 422 naming parallelism.tensor.


def megatron_bytes(dense: float, experts: float, d: int, edp: int, distributed: bool = True) -> float:
    """num_bytes_per_parameter: 18, or 6 + 12 / (data-parallel size) with the distributed optimizer; the
    routed experts over the expert-data-parallel group EDP = world / (ETP x EP x PP)."""
    if not distributed:
        return 18 * (dense + experts)
    return dense * (6 + 12 / d) + experts * (6 + 12 / edp)


def held_bytes(dense: int, experts: int, d: int, edp: int) -> int:
    """The same bytes with each rank's shard of the three fp32 optimizer states (master, two moments) a whole
    number of elements, ceil(n / d), as a rank holds them: at most 12 bytes more per group."""
    return 6 * dense + 12 * -(-dense // d) + 6 * experts + 12 * -(-experts // edp)


def layout_plan(client, world, arrangement="zero1", **parallelism):  # type: ignore[no-untyped-def]
    d = world // (parallelism.get("tensor", 1) * parallelism.get("pipeline", 1))
    if parallelism.get("tensor", 1) > 1:  # Megatron-Core trains MoE with tensor parallelism only with SP
        parallelism.setdefault("sequence_parallel", True)
    training = {"micro_batch_size": 1, "sequence_length": 16, "global_batch_size": 2 * d}
    return plan(
        client,
        cluster={"world_size": world, "gpus_per_node": 8, "gpu": "h100-80gb"},
        arrangement=arrangement,
        precision="megatron",
        parallelism=parallelism,
        training=training,
    )


def test_weight_and_optimizer_memory_accounts_for_expert_parallelism(client):
    # _make_args(pipeline_model_parallel_size=2, world_size=64): TP 2, PP 2, EP 2, ETP 4.
    answer = layout_plan(client, 64, tensor=2, pipeline=2, expert=2, expert_tensor=4)
    par = answer["parallelism"]
    d, edp = 64 // 2 // 2, 64 // 4 // 2 // 2  # DP = 16, EDP = 4, as the test's comments say
    assert (par["data"], par["expert_tensor"], par["expert_data"]) == (d, 4, edp) == (16, 4, 4)
    # Each stage holds its own layer: the dense one and the embedding on the first, the MoE one, the final
    # norm and the tied embedding's copy on the last; the routed experts over ETP x EP = 8 ranks.
    dense_0 = (ATTENTION + DENSE_MLP) // 2 + LAYER_NORMS + EMBEDDING // 2
    dense_1 = (ATTENTION + SHARED_EXPERT) // 2 + LAYER_NORMS + ROUTER + FINAL_NORM + EMBEDDING // 2
    experts_1 = ROUTED_EXPERTS // (4 * 2)
    stages = answer["memory"]["stages"]
    assert [s["parameters_per_gpu"] for s in stages] == [dense_0, dense_1 + experts_1] == [400, 504]
    held = [held_bytes(dense_0, 0, d, edp), held_bytes(dense_1, experts_1, d, edp)]
    assert [s["model_state_bytes"] for s in stages] == held == [2700, 3696]

    # The unit test's expected_memory, written as it writes it.
    tp_sharded_params_on_rank = ((256 + 256 + 256 + 128) / 2 + 256) / 2
    replicated_params_on_rank = (16 + 16 + 32 + 8) / 2
    expert_sharded_params_on_rank = 1024 / 2 / (4 * 2)
    expected_memory = (tp_sharded_params_on_rank + replicated_params_on_rank) * (
        6 + 12 / 16
    ) + expert_sharded_params_on_rank * (6 + 12 / 4)
    # Megatron's most loaded shard holds 1/PP of the whole block and the embedding; here each stage holds its
    # own layers and the last a copy of the tied embedding, which at PP 2 makes Megatron's figure the mean of
    # the two stages: (block + 2 x embedding) / 2 = block / 2 + embedding.
    stage_means = (megatron_bytes(dense_0, 0, d, edp) + megatron_bytes(dense_1, experts_1, d, edp)) / 2
    assert math.isclose(stage_means, expected_memory)
    assert expected_memory == 3195


@pytest.mark.parametrize("tensor", [1, 2])
def test_weight_and_optimizer_memory_decreases_with_tensor_parallelism(client, tensor):
    # _make_args(data_parallel_size=16, expert_model_parallel_size=1, expert_tensor_parallel_size=1,
    # tensor_model_parallel_size=tp_size, use_distributed_optimizer=False, world_size=16 * tp_size).
    answer = layout_plan(client, 16 * tensor, arrangement="ddp", tensor=tensor, expert=1, expert_tensor=1)
    dense = (2 * ATTENTION + DENSE_MLP + SHARED_EXPERT + EMBEDDING) // tensor + 2 * LAYER_NORMS + ROUTER + FINAL_NORM
    expected = megatron_bytes(dense, ROUTED_EXPERTS, 16, 16, distributed=False)
    assert answer["memory"]["stages"][0]["model_state_bytes"] == expected == {1: 40_464, 2: 30_096}[tensor]


def test_a_tensor_degree_above_the_heads_is_refused(client):
    body = {
        "model": MEGATRON_TEST_MODEL,
        "cluster": {"world_size": 64, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "arrangement": "ddp",
        "parallelism": {"tensor": 4, "expert_tensor": 1, "sequence_parallel": True},
    }
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 422
    assert [e["pointer"] for e in response.json()["errors"]] == ["/parallelism/tensor"]


def test_weight_and_optimizer_memory_decreases_with_expert_parallelism(client):
    # _make_args(expert_model_parallel_size=ep, expert_tensor_parallel_size=etp): TP 2, PP 1, world 32, DP 16.
    dense = (2 * ATTENTION + DENSE_MLP + SHARED_EXPERT + EMBEDDING) // 2 + 2 * LAYER_NORMS + ROUTER + FINAL_NORM
    found = []
    for ep, etp in ((1, 1), (2, 1), (2, 2), (4, 2)):
        answer = layout_plan(client, 32, tensor=2, expert=ep, expert_tensor=etp)
        experts, edp = ROUTED_EXPERTS // (etp * ep), 32 // (etp * ep)
        assert answer["parallelism"]["expert_data"] == edp
        held = answer["memory"]["stages"][0]["model_state_bytes"]
        assert held == held_bytes(dense, experts, 16, edp)
        assert 0 <= held - megatron_bytes(dense, experts, 16, edp) < 12  # the dense shard 648 / 16 rounded up
        found.append(held)
    assert found[0] > found[1] > found[2] > found[3]
    assert found == [4380 + 6528, 4380 + 3456, 4380 + 1920, 4380 + 1152]


# test_weight_and_optimizer_memory_accounts_for_latent_moe_experts: _make_args(moe_latent_size=4). The routed
# experts work on the latent width instead of h, and the two projections h -> latent -> h (2 h latent, no bias
# with add_bias_linear False) are "duplicated non-expert params", whole on every rank like the norms and router.
LATENT = 4
LATENT_ROUTED_EXPERTS = 2 * LATENT * F_EXPERT * EXPERTS
LATENT_PROJECTIONS = 2 * H * LATENT


def latent_model() -> dict:  # type: ignore[type-arg]
    return MEGATRON_TEST_MODEL | {"moe": MEGATRON_TEST_MODEL["moe"] | {"latent_size": LATENT}}  # type: ignore[operator]


def test_the_latent_terms_are_the_tests_numbers():
    assert (LATENT_ROUTED_EXPERTS, LATENT_PROJECTIONS) == (512, 64)


def test_latent_total_and_active_parameters_are_megatrons(client):
    dense_layer = ATTENTION + DENSE_MLP + LAYER_NORMS
    around = LAYER_NORMS + ROUTER + LATENT_PROJECTIONS  # counted once per MoE layer, in both counts
    moe_layer = ATTENTION + SHARED_EXPERT + LATENT_ROUTED_EXPERTS + around
    active_moe_layer = ATTENTION + SHARED_EXPERT + LATENT_ROUTED_EXPERTS * TOP_K // EXPERTS + around
    answer = plan(client, model=latent_model())
    assert answer["parameter_count"] == dense_layer + moe_layer + FINAL_NORM + EMBEDDING == 1800
    assert answer["active_parameter_count"] == dense_layer + active_moe_layer + FINAL_NORM + EMBEDDING == 1416


def test_weight_and_optimizer_memory_accounts_for_latent_moe_experts(client):
    # _make_args defaults: TP 2, PP 1, EP 2, ETP 4, world 32, distributed optimizer.
    answer = plan(
        client,
        model=latent_model(),
        cluster={"world_size": 32, "gpus_per_node": 8, "gpu": "h100-80gb"},
        arrangement="zero1",
        precision="megatron",
        parallelism={"tensor": 2, "expert": 2, "expert_tensor": 4, "sequence_parallel": True},
        training={"micro_batch_size": 1, "sequence_length": 16, "global_batch_size": 32},
    )
    d, edp = 32 // 2, 32 // 4 // 2  # DP = 16, EDP = 4, as the test's comments say
    assert (answer["parallelism"]["data"], answer["parallelism"]["expert_data"]) == (d, edp)

    # The unit test's expected_memory, written as it writes it.
    tp_sharded_params_on_rank = ((256 + 256) + (256 + 128) + 256) / 2
    replicated_params_on_rank = 16 + (16 + 64 + 32) + 8
    expert_sharded_params_on_rank = 512 / (4 * 2)
    expected_memory = (tp_sharded_params_on_rank + replicated_params_on_rank) * (
        6 + 12 / 16
    ) + expert_sharded_params_on_rank * (6 + 12 / 4)
    assert expected_memory == 5382

    # The same terms from this file's names: one stage holds both layers and the tied embedding once.
    dense = (2 * ATTENTION + DENSE_MLP + SHARED_EXPERT + EMBEDDING) // 2
    dense += 2 * LAYER_NORMS + ROUTER + LATENT_PROJECTIONS + FINAL_NORM
    experts = LATENT_ROUTED_EXPERTS // (4 * 2)
    assert (dense, experts) == (tp_sharded_params_on_rank + replicated_params_on_rank, 64) == (712, 64)
    assert megatron_bytes(dense, experts, d, edp) == expected_memory
    (stage,) = answer["memory"]["stages"]
    assert stage["parameters_per_gpu"] == dense + experts
    held = stage["model_state_bytes"]
    assert held == held_bytes(dense, experts, d, edp) == 5388
    assert 0 <= held - expected_memory < 12  # the dense shard 712 / 16 = 44.5 rounded up to 45 elements


def test_a_latent_size_of_zero_is_refused(client):
    body = {
        "model": latent_model() | {"moe": latent_model()["moe"] | {"latent_size": 0}},
        "cluster": {"world_size": 1, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "arrangement": "ddp",
    }
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 422
    assert [e["pointer"] for e in response.json()["errors"]] == ["/model/moe/latent_size"]


def test_latent_moe_flops_follow_megatrons_count(client):
    # num_floating_point_operations (megatron/training/training.py): per token, the MoE layer's routed experts
    # cost forward_backward (3) x fma (2) x h x f_e x top_k x ffn_expansion (2, no swiglu), and with a latent
    # width x latent / h for the experts plus h x 2 latent for the two projections. The rest of the model is
    # the same with and without the latent width, so the steps differ by the tokens times the difference.
    def routed(latent: int | None) -> float:
        if latent is None:
            return 3 * 2 * H * (F_EXPERT * TOP_K * 2)
        return 3 * 2 * H * (F_EXPERT * TOP_K * 2 * latent / H + 2 * latent)

    training = {"micro_batch_size": 1, "sequence_length": 16, "global_batch_size": 4}
    plain = plan(client, training=training)["time"]["model_flops_per_step"]
    latent = plan(client, model=latent_model(), training=training)["time"]["model_flops_per_step"]
    tokens = 4 * 16
    assert routed(LATENT) - routed(None) == 1152 - 1536
    assert latent - plain == tokens * (routed(LATENT) - routed(None))
