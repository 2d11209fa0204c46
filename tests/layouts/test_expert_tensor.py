"""An expert tensor degree of its own (Megatron-LM's --expert-tensor-parallel-size, ETP).

Megatron-Core lays the routed experts out on a grid of their own over the same ranks
(megatron/core/parallel_state.py, initialize_model_parallel: the expert "tp-ep-dp-pp" order):
world = PP x ETP x EP x EDP, the expert group EP ranks at stride ETP, the expert-data-parallel
group EDP ranks at stride ETP x EP; each rank holds experts / EP experts, each split ETP ways.
Omitted, ETP is the tensor degree and every answer is what it was.
"""

import pytest

from tests.layouts.test_sweep_layouts import LAYOUT_FIELDS, plan_for
from tests.sweep.test_sweep import rows, sweep

MIXTRAL_LAYERS, H, F, EXPERTS = 32, 4096, 14336, 8
ONE_EXPERT = 3 * H * F  # swiglu, no biases


def body(world=64, arrangement="zero1", model=None, **parallelism):  # type: ignore[no-untyped-def]
    if parallelism.get("tensor", 1) > 1:  # Megatron-Core trains MoE with tensor parallelism only with SP
        parallelism.setdefault("sequence_parallel", True)
    return {
        "model": model or {"preset": "mixtral-8x7b"},
        "cluster": {"world_size": world, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "arrangement": arrangement,
        "precision": "megatron",
        "parallelism": parallelism,
        "training": {"micro_batch_size": 1, "sequence_length": 4096, "gradient_accumulation_steps": 4},
    }


def plan(client, **kwargs):  # type: ignore[no-untyped-def]
    response = client.post("/v1/plan", json=body(**kwargs))
    assert response.status_code == 200, response.text
    return response.json()


def without_request_ids(answer: dict) -> dict:
    return {k: v for k, v in answer.items() if k not in ("request_id",)}


@pytest.mark.parametrize(("tensor", "pipeline", "expert"), [(1, 1, 2), (2, 2, 2), (4, 1, 8), (8, 2, 4)])
def test_omitted_is_the_tensor_degree(client, tensor, pipeline, expert):
    omitted = plan(client, tensor=tensor, pipeline=pipeline, expert=expert)
    given = plan(client, tensor=tensor, pipeline=pipeline, expert=expert, expert_tensor=tensor)
    assert omitted["parallelism"]["expert_tensor"] == tensor
    assert without_request_ids(omitted) == without_request_ids(given)


def test_the_experts_split_expert_tensor_ways_and_shard_over_the_expert_data_group(client):
    # 64 GPUs, t 2, e 2, ETP 4: EDP = 64 / (1 x 4 x 2) = 8; d = 32.
    answer = plan(client, tensor=2, expert=2, expert_tensor=4)
    par = answer["parallelism"]
    assert (par["data"], par["expert_data"]) == (32, 64 // (4 * 2))
    experts_held = MIXTRAL_LAYERS * (EXPERTS // 2) * ONE_EXPERT // 4
    rows_ = [r for r in answer["memory"]["breakdown"] if "routed experts" in r["arithmetic"]]
    by_state = {r["state"]: r["bytes"] for r in rows_}
    assert by_state["parameters"] == 2 * experts_held
    assert by_state["gradients"] == 4 * experts_held
    assert by_state["master_weights"] == by_state["momentum"] == by_state["variance"] == 4 * experts_held // 8


def test_groups_sit_on_the_experts_grid(client):
    # ETP 8 on nodes of 8: the expert group's 2 ranks sit 8 apart, on two nodes; EDP = 64 / 16 = 4 ranks at
    # stride ETP x e = 16, on four nodes.
    answer = plan(client, tensor=2, expert=2, expert_tensor=8)
    groups = {g["group"]: g for g in answer["parallelism"]["groups"]}
    assert (groups["expert"]["ranks"], groups["expert"]["stride"], groups["expert"]["spans_nodes"]) == (2, 8, True)
    all_to_all = [c for c in answer["traffic"]["collectives"] if c["name"] == "all_to_all"]
    assert len(all_to_all) == 2 and all(c["link"] == "inter_node" for c in all_to_all)
    assert answer["parallelism"]["expert_data"] == 4
    # Of the data group's calls, those of the experts run over the 4 EDP ranks; with ETP 2 instead the
    # expert group of stride 2 stays in a node.
    data_ranks = {c["ranks"] for c in answer["traffic"]["collectives"] if c["group"] == "data"}
    assert data_ranks == {32, 4}
    inside = plan(client, tensor=2, expert=2, expert_tensor=2)
    assert all(c["link"] == "intra_node" for c in inside["traffic"]["collectives"] if c["group"] == "expert")


S, M = 4096, 4  # sequence_length and micro-batches of body()


@pytest.mark.parametrize("sequence_parallel", [True])  # without it Megatron-Core refuses MoE with t > 1
def test_moe_layers_move_their_mlp_pair_to_the_expert_tensor_group(client, sequence_parallel):
    """Megatron-Core's all-to-all dispatcher gathers the routed copies an expert receives over the expert tensor
    group and reduce-scatters its output there (megatron/core/transformer/moe/token_dispatcher.py @d98e8a64,
    MoEAlltoAllTokenDispatcher.dispatch_postprocess: gather_from_sequence_parallel_region after the all-to-all,
    whenever the expert tensor group has more than one rank; combine_preprocess: reduce_scatter_to_sequence_
    parallel_region): with ETP apart from t, each MoE layer's MLP pair leaves the tensor group."""
    etp, t, top_k = 8, 2, 2
    answer = plan(client, tensor=t, expert=2, expert_tensor=etp, sequence_parallel=sequence_parallel)
    calls = answer["traffic"]["collectives"]
    tensor = [c for c in calls if c["group"] == "tensor"]
    experts_tp = [c for c in calls if c["group"] == "expert" and c["name"] != "all_to_all"]
    assert [c["name"] for c in experts_tp] == ["all_gather", "reduce_scatter"]  # the dispatcher's, always
    assert [c["name"] for c in tensor] == (["all_gather", "reduce_scatter"] if sequence_parallel else ["all_reduce"])
    # 32 layers, all MoE: the attention's pair alone on the tensor group, forward and backward; with sequence
    # parallelism the backward gathers the q/k/v input once more (layers.py @d98e8a64,
    # LinearWithGradAccumulationAndAsyncCommunication.backward).
    pairs = MIXTRAL_LAYERS * M
    counts = {c["name"]: c["count_per_step"] for c in tensor}
    if sequence_parallel:
        assert counts == {"all_gather": 3 * pairs, "reduce_scatter": 2 * pairs}
    else:
        assert counts == {"all_reduce": 2 * pairs}
    assert {c["count_per_step"] for c in experts_tp} == {2 * MIXTRAL_LAYERS * M}
    tokens = S * 1 // t if sequence_parallel else S * 1  # the rank's routed tokens: s'b/t, or s'b
    assert {c["buffer_bytes"] for c in experts_tp} == {2 * etp * tokens * top_k * H}  # ETP ranks' routed copies
    assert {c["ranks"] for c in experts_tp} == {etp}
    assert all(c["link"] == "intra_node" for c in experts_tp)  # 8 consecutive ranks, one node
    omitted = plan(client, tensor=t, expert=2, sequence_parallel=sequence_parallel)["traffic"]["collectives"]
    assert [c for c in omitted if c["group"] == "expert" and c["name"] != "all_to_all"] == []
    routed = [c for c in omitted if c["group"] == "tensor" and c["buffer_bytes"] == 2 * t * tokens * top_k * H]
    assert {c["name"] for c in routed} == {"all_gather", "reduce_scatter"}  # t x s'b/t x top_k x h, or t x s'b
    assert {c["count_per_step"] for c in routed} == {2 * MIXTRAL_LAYERS * M}


@pytest.mark.parametrize(("tensor", "expert_tensor", "ratio"), [(2, None, 2), (1, 2, 4)])
def test_the_expert_tensor_gather_carries_the_routed_copies(client, tensor, expert_tensor, ratio):
    """The issue's figures: Mixtral (top_k 2) at t2 e8 moved 2x too few expert-tensor bytes, at t1 e8 with ETP 2
    4x: the dispatcher gathers ETP x tokens x top_k copies (all-gather + reduce-scatter of 4 s'bh at ETP 2 and
    t 1, 2 x (1/2) x 4 s'bh each way) where one all-reduce of s'bh (2 x (1/2) x s'bh) was counted; at t2 with
    sequence parallelism the pair's buffer is t x s'b/t x 2 = 2 s'bh instead of s'bh."""
    parallelism = {"tensor": tensor, "expert": 8, "sequence_parallel": tensor > 1}
    if expert_tensor is not None:
        parallelism["expert_tensor"] = expert_tensor
    answer = plan(client, **parallelism)
    group = "expert" if expert_tensor is not None else "tensor"
    per_layer_s_b_h = 2 * S * H  # bytes of s'bh at 2 bytes an element
    routed = [
        c
        for c in answer["traffic"]["collectives"]
        if c["group"] == group and c["name"] != "all_to_all" and c["buffer_bytes"] != per_layer_s_b_h
    ]
    sent = sum(c["bytes_sent_per_gpu"] for c in routed)
    ranks = expert_tensor or tensor
    was = 2 * (ranks - 1) * per_layer_s_b_h // ranks  # one all-reduce of s'bh a call, forward (one) and backward
    assert sent == ratio * was
    assert all(c["count_per_step"] == 2 * MIXTRAL_LAYERS * M for c in routed)


def test_expert_data_collectives_move_the_experts_share(client):
    answer = plan(client, tensor=2, expert=2, expert_tensor=4)
    experts_held = MIXTRAL_LAYERS * (EXPERTS // 2) * ONE_EXPERT // 4
    edp = 8
    scatter = [
        c
        for c in answer["traffic"]["collectives"]
        if c["group"] == "data" and c["ranks"] == edp and c["name"] == "reduce_scatter"
    ]
    assert len(scatter) == 1
    # fp32 gradients reduce-scattered over the ring of 8: (n - 1) / n of the buffer sent per GPU.
    assert scatter[0]["bytes_sent_per_gpu"] == 4 * experts_held * (edp - 1) // edp


@pytest.mark.parametrize(
    ("parallelism", "model", "pointer"),
    [
        ({"tensor": 2, "expert": 8, "expert_tensor": 16}, None, "/parallelism/expert_tensor"),  # 128 > 2 x 32
        ({"expert_tensor": 2}, {"preset": "llama-3-8b"}, "/parallelism/expert_tensor"),  # no experts
        ({"expert_tensor": 2}, {"parameter_count": 10**9}, "/parallelism/expert_tensor"),  # no architecture
        ({"tensor": 2, "expert": 3}, None, "/parallelism/expert"),
    ],
)
def test_a_grid_that_does_not_divide_names_the_field(client, parallelism, model, pointer):
    response = client.post("/v1/plan", json=body(model=model, **parallelism))
    assert response.status_code == 422
    assert pointer in [e["pointer"] for e in response.json()["errors"]]


def test_a_divisible_grid_is_accepted_when_e_alone_would_not_divide_d(client):
    # 16 GPUs, t 4, e 8: d x c = 4 is not a multiple of e, but with ETP 2 the stage's 16 ranks are 2 x 8 x 1.
    answer = plan(client, world=16, tensor=4, expert=8, expert_tensor=2)
    assert answer["parallelism"]["expert_data"] == 16 // (2 * 8) == 1


@pytest.mark.parametrize(("expert_tensor", "sequence_parallel"), [(2, True), (4, True), (1, True)])
def test_a_sweep_keeps_the_base_expert_tensor_and_each_cell_is_its_plan(client, expert_tensor, sequence_parallel):
    """Sweep cells go through the vectorised layout evaluator (service.engine.layout_grid), the expert tensor group's
    calls included; each equals its /v1/plan answer."""
    base = body(world=16, tensor=1, expert=2, expert_tensor=expert_tensor, sequence_parallel=sequence_parallel)
    axes = {"tensor": [1, 2, 4], "world_size": [16, 32], "recompute": ["none", "full"]}
    found = rows(sweep(client, axes, base=base))
    assert len(found) == 12
    for row in found:
        planned = plan_for(client, base, row)
        assert planned["parallelism"]["expert_tensor"] == expert_tensor
        for column, (section, field) in LAYOUT_FIELDS.items():
            expected = planned[section][field]
            assert row[column] == (pytest.approx(expected, rel=1e-9) if isinstance(expected, float) else expected)


def test_fit_takes_the_expert_tensor_degree(client):
    request = {
        "model": {"preset": "mixtral-8x7b"},
        "cluster": {"gpus_per_node": 8, "gpu": "h100-80gb"},
        "parallelism": {"tensor": 2, "expert": 4, "expert_tensor": 1, "sequence_parallel": True},
    }
    response = client.post("/v1/fit", json=request)
    assert response.status_code == 200, response.text
    zero1 = next(a for a in response.json()["arrangements"] if a["arrangement"] == "zero1")
    assert zero1["parallelism"]["expert_tensor"] == 1
    smallest = zero1["min_gpus_exact"]
    for world, fits in ((smallest, True), (smallest - 8, False)):  # whole nodes, ETP x e = 4 dividing each
        planned = client.post(
            "/v1/plan", json=request | {"arrangement": "zero1", "cluster": request["cluster"] | {"world_size": world}}
        )
        assert planned.status_code == 200, planned.text
        assert planned.json()["memory"]["fits"] is fits
