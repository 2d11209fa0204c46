"""A mixture of experts on a latent width (Megatron-LM's --moe-latent-size) through /v1/plan.

Megatron-Core's MoELayer (megatron/core/transformer/moe/moe_layer.py) projects the tokens from h down
to the latent width l (fc1_latent_proj) before the dispatch and back up (fc2_latent_proj) after the
combine; the routed experts' matrices are l x f_e (experts.py, mlp.py), the all-to-all dispatcher
moves l-wide tokens (token_dispatcher.py: hidden_dim = moe_latent_size), and the two projections
are "duplicated" on every rank. Mixtral 8x7B given a latent width of 1024 is the example.
"""

import pytest

from tests.golden.test_moe_plan import MIXTRAL_ACTIVE, MIXTRAL_TOTAL

L, H, F, EXPERTS, TOP_K, LATENT = 32, 4096, 14336, 8, 2, 1024
S, M = 4096, 4
MOE = {"experts": EXPERTS, "top_k": TOP_K, "expert_ffn_hidden_size": F}


def body(latent=LATENT, world=8, arrangement="zero1", **parallelism):  # type: ignore[no-untyped-def]
    moe = MOE | ({"latent_size": latent} if latent is not None else {})
    return {
        "model": {"preset": "mixtral-8x7b", "moe": moe},
        "cluster": {"world_size": world, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "arrangement": arrangement,
        "precision": "megatron",
        "parallelism": parallelism,
        "training": {"micro_batch_size": 1, "sequence_length": S, "gradient_accumulation_steps": M},
    }


def plan(client, **kwargs):  # type: ignore[no-untyped-def]
    response = client.post("/v1/plan", json=body(**kwargs))
    assert response.status_code == 200, response.text
    return response.json()


def test_the_counts_narrow_the_routed_experts_and_add_the_projections(client):
    # SwiGLU experts of 3 x width x f_e, no biases: each of the 8 routed experts of each of the 32 layers
    # loses 3 (h - l) f_e; each layer gains the projections 2 h l, in the active count too.
    narrowed = 3 * (H - LATENT) * F
    projections = 2 * H * LATENT
    answer = plan(client)
    assert answer["parameter_count"] == MIXTRAL_TOTAL - L * (EXPERTS * narrowed - projections)
    assert answer["active_parameter_count"] == MIXTRAL_ACTIVE - L * (TOP_K * narrowed - projections)


def test_latent_size_null_is_omitted(client):
    explicit = body(latent=None)
    explicit["model"]["moe"] = MOE | {"latent_size": None}
    given = client.post("/v1/plan", json=explicit)
    assert given.status_code == 200, given.text
    omitted = plan(client, latent=None)
    assert omitted["parameter_count"] == MIXTRAL_TOTAL
    assert omitted["active_parameter_count"] == MIXTRAL_ACTIVE
    drop = ("request_id",)
    assert {k: v for k, v in given.json().items() if k not in drop} == {
        k: v for k, v in omitted.items() if k not in drop
    }


@pytest.mark.parametrize("sequence_parallel", [True])  # without it Megatron-Core refuses MoE with t > 1
def test_the_all_to_alls_move_latent_tokens(client, sequence_parallel):
    t, e = 2, 4
    answer = plan(client, world=8, tensor=t, expert=e, sequence_parallel=sequence_parallel)
    calls = [c for c in answer["traffic"]["collectives"] if c["name"] == "all_to_all"]
    tokens = S // (t if sequence_parallel else 1)
    assert [c["buffer_bytes"] for c in calls] == [2 * tokens * TOP_K * LATENT] * 2  # bf16, forward and backward
    assert {c["count_per_step"] for c in calls} == {2 * L * M}  # dispatch and combine per MoE layer
    assert all("x l (the latent width)" in c["purpose"] for c in calls)


@pytest.mark.parametrize("sequence_parallel", [True])  # without it Megatron-Core refuses MoE with t > 1
def test_the_tensor_group_moves_the_experts_pair_at_the_latent_width(client, sequence_parallel):
    """With the expert tensor degree t (omitted), each MoE layer's routed pair runs on the tensor group, on the
    routed copies at width l, gathered by the dispatcher (all-gather and reduce-scatter, token_dispatcher.py
    @d98e8a64); the attention's pair stays s'bh. Mixtral has no shared experts."""
    t = 2
    answer = plan(client, tensor=t, expert=2, sequence_parallel=sequence_parallel)
    tensor = [c for c in answer["traffic"]["collectives"] if c["group"] == "tensor"]
    per_name = 2 if sequence_parallel else 1  # all-gather and reduce-scatter, or one all-reduce
    assert len(tensor) == per_name + 2
    wide, narrow = tensor[:per_name], tensor[per_name:]
    tokens = S // t if sequence_parallel else S  # the tokens each rank routes
    assert {c["buffer_bytes"] for c in wide} == {2 * S * H}
    assert {c["buffer_bytes"] for c in narrow} == {2 * t * tokens * TOP_K * LATENT}
    assert [c["name"] for c in narrow] == ["all_gather", "reduce_scatter"]
    # forward and backward: the attention's pair of each of the 32 layers (its q/k/v input gathered again in the
    # backward with sequence parallelism), and the experts' pair of each.
    wide_counts = [3 * L * M, 2 * L * M] if sequence_parallel else [2 * L * M]
    assert [c["count_per_step"] for c in wide] == wide_counts
    assert {c["count_per_step"] for c in narrow} == {2 * L * M}
    plain = plan(client, latent=None, tensor=t, expert=2, sequence_parallel=sequence_parallel)
    plain_tensor = [c for c in plain["traffic"]["collectives"] if c["group"] == "tensor"]
    assert [c["count_per_step"] for c in plain_tensor] == wide_counts + [2 * L * M] * 2
    assert [c["buffer_bytes"] for c in plain_tensor] == [2 * S * H] * per_name + [2 * t * tokens * TOP_K * H] * 2


def test_an_expert_tensor_group_apart_moves_latent_tokens(client):
    etp, t = 8, 2
    answer = plan(client, world=16, tensor=t, expert=2, expert_tensor=etp, sequence_parallel=True)
    calls = answer["traffic"]["collectives"]
    experts_tp = [c for c in calls if c["group"] == "expert" and c["name"] != "all_to_all"]
    assert [c["name"] for c in experts_tp] == ["all_gather", "reduce_scatter"]
    assert {c["buffer_bytes"] for c in experts_tp} == {2 * (S * etp // t) * TOP_K * LATENT}
    tensor = [c for c in calls if c["group"] == "tensor"]
    assert {c["buffer_bytes"] for c in tensor} == {2 * S * H}  # the attention's pair alone
    assert [c["count_per_step"] for c in tensor] == [3 * L * M, 2 * L * M]


def test_activations_keep_the_routed_inputs_at_the_latent_width(client):
    """Per MoE layer (Korthikanti et al. 2022, table 2, as service.memory.activations extends it): each of the top_k
    routed experts keeps its input and mask, 3 s b x the width, now l instead of h, and the two projections
    keep their inputs, 2 s b h and 2 s b l. One GPU, flash attention, one micro-batch in flight (zero1 on 8)."""
    latent, plain = plan(client), plan(client, latent=None)

    def layers(answer):  # type: ignore[no-untyped-def]
        (component,) = [c for c in answer["memory"]["activations"]["components"] if c["name"] == "layers"]
        return component

    sb = S * 1
    per_layer = TOP_K * 3 * sb * (LATENT - H) + 2 * sb * (H + LATENT)
    assert layers(latent)["bytes"] - layers(plain)["bytes"] == L * per_layer
    assert "l=1024" in layers(latent)["arithmetic"]


def test_a_sweep_cell_of_a_latent_mixture_is_its_plan(client):
    from tests.layouts.test_sweep_layouts import assert_row_is_its_plan
    from tests.sweep.test_sweep import rows, sweep

    base = body(world=16) | {"parallelism": {"sequence_parallel": True}}
    axes = {"tensor": [1, 2], "expert": [1, 2, 4], "pipeline": [1, 2]}
    answer = sweep(client, axes, base=base)
    assert answer["rows"] == answer["cells"] == 12
    for row in rows(answer):
        expected = assert_row_is_its_plan(client, base, row, base["model"])
        assert row["parameter_count"] == expected["parameter_count"]


def test_a_search_over_a_latent_mixture_answers_each_layout_with_its_plan(client):
    """service.engine.layout_grid prices the layouts through the same shares, shapes and calls as the plan."""
    request = {
        "model": body()["model"],
        "cluster": {"world_size": [16, 32], "gpus_per_node": 8, "gpu": "h100-80gb"},
        "training": {"global_batch_size": 64, "sequence_length": 2048},
        "top_k": 4,
    }
    answer = client.post("/v1/search", json=request)
    assert answer.status_code == 200, answer.text
    layouts = answer.json()["layouts"]
    assert any(row["request"]["parallelism"]["expert"] > 1 for row in layouts)  # the all-to-alls priced
    for row in layouts:
        assert row["request"]["model"]["moe"]["latent_size"] == LATENT
        planned = client.post("/v1/plan", json=row["request"])
        assert planned.status_code == 200, planned.text
        assert planned.json()["memory"] == row["memory"]
        assert planned.json()["time"] == row["time"]


def test_the_efficiency_model_runs_the_routed_experts_on_the_latent_width():
    """Per layer on one of t ranks: q/k/v and the attention output as before, the routed experts' up (and gate)
    and down projections of l x top_k f_e, and the whole projections h -> l and l -> h; no h-wide MLP without
    shared experts."""
    from models.common import ModelSpec
    from service.inputs import resolve
    from service.time.efficiency import layer_matrices

    arch = resolve.model(ModelSpec(**body()["model"])).architecture
    shape = resolve.kernel_shape(arch)
    t, kv = 2, 8 * 128
    assert layer_matrices(shape, t) == [
        (H, (H + 2 * kv) // t),
        (H // t, H),
        (H, LATENT),
        (LATENT, 2 * TOP_K * F // t),
        (TOP_K * F // t, LATENT),
        (LATENT, H),
    ]
