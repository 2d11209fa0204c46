"""POST /v1/plan with a layout: Narayanan et al.'s layouts accepted, problems named, the answer's shape."""

from fractions import Fraction

import pytest

from models.presets import ModelPresetName

N = ModelPresetName


def layout_body(preset: str, world: int, parallelism: dict, training: dict, **extra: object) -> dict:
    return {
        "model": {"preset": preset},
        "precision": "megatron",
        "arrangement": "zero1",
        "cluster": {"world_size": world, "gpus_per_node": 8, "gpu": "a100-80gb"},
        "training": training,
        "parallelism": parallelism,
        **extra,
    }


# Narayanan et al. 2021, table 1: (model, tensor, pipeline, GPUs, batch size); micro-batch size 1 here.
NARAYANAN_TABLE_1 = [
    (N.megatron_1_7b, 1, 1, 32, 512),
    (N.megatron_3_6b, 2, 1, 64, 512),
    (N.megatron_7_5b, 4, 1, 128, 512),
    (N.megatron_18_4b, 8, 1, 256, 1024),
    (N.megatron_39_1b, 8, 2, 512, 1536),
    (N.megatron_76_1b, 8, 4, 1024, 1792),
    (N.megatron_145_6b, 8, 8, 1536, 2304),
    (N.megatron_310_1b, 8, 16, 1920, 2160),
    (N.megatron_529_6b, 8, 35, 2520, 2520),
    (N.megatron_1t, 8, 64, 3072, 3072),
]


@pytest.mark.parametrize(("preset", "t", "p", "gpus", "batch"), NARAYANAN_TABLE_1)
def test_narayanan_table_1_layouts(client, preset, t, p, gpus, batch):
    body = layout_body(
        preset,
        gpus,
        {"tensor": t, "pipeline": p, "sequence_parallel": t > 1},
        {"micro_batch_size": 1, "sequence_length": 2048, "global_batch_size": batch},
        levers={"recompute": "selective"},
    )
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 200, response.text
    answer = response.json()
    d = gpus // (t * p)
    assert answer["parallelism"]["data"] == d
    assert answer["parallelism"]["micro_batches"] == batch // d
    assert len(answer["memory"]["stages"]) == p
    assert answer["memory"]["per_gpu_bytes"] == max(s["per_gpu_bytes"] for s in answer["memory"]["stages"])
    assert answer["time"]["tokens_per_step"] == batch * 2048


def test_a_layout_that_does_not_multiply_names_every_factor(client):
    body = layout_body(N.llama3_70b, 100, {"tensor": 8, "pipeline": 4}, {"micro_batch_size": 1})
    body["cluster"]["world_size"] = 96
    body["parallelism"]["tensor"] = 5
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 422
    problem = response.json()
    assert problem["errors"][0]["pointer"] == "/parallelism"
    for factor in ("tensor 5", "pipeline 4", "context 1", "cluster.world_size 96"):
        assert factor in problem["errors"][0]["detail"]


def test_every_problem_is_named(client):
    body = layout_body(
        N.llama3_70b,
        96,
        {"tensor": 3, "pipeline": 2},
        {"micro_batch_size": 1, "sequence_length": 4096, "gradient_accumulation_steps": 1},
    )
    problem = client.post("/v1/plan", json=body).json()
    assert [e["pointer"] for e in problem["errors"]] == ["/parallelism/tensor", "/training/gradient_accumulation_steps"]


def test_global_batch_or_accumulation_not_both(client):
    training = {"global_batch_size": 64, "gradient_accumulation_steps": 2}
    response = client.post("/v1/plan", json=layout_body(N.llama3_8b, 8, {}, training))
    assert response.status_code == 422
    assert response.json()["errors"][0]["pointer"] == "/training"


def test_a_global_batch_restricts_fit_to_the_counts_it_splits_over(client):
    """/v1/fit refused a global batch ("for /v1/plan only"), though a /v1/plan body is a /v1/fit body: 64 sequences
    of micro-batch 1 split over 1, 2, 4, 8, 16, 32 and 64 GPUs (whole nodes of 8 past one node) and no others."""
    body = {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"gpus_per_node": 8, "gpu": "h100-80gb"},
        "training": {"global_batch_size": 64},
        "gpu_count_grid": "whole_nodes",
        "max_gpus": 128,
    }
    response = client.post("/v1/fit", json=body)
    assert response.status_code == 200, response.text
    for entry in response.json()["arrangements"]:
        assert [cell["world_size"] for cell in entry["table"]] == [8, 16, 32, 64]


def test_all_degrees_one_is_the_data_parallel_plan(client):
    body = layout_body(N.llama3_8b, 16, {}, {"micro_batch_size": 2, "sequence_length": 4096})
    plain = client.post("/v1/plan", json=body).json()
    body["parallelism"] = {"tensor": 1, "pipeline": 1, "context": 1, "expert": 1, "pipeline_schedule": "1f1b"}
    explicit = client.post("/v1/plan", json=body).json()
    assert plain == explicit
    assert plain["parallelism"]["data"] == 16
    assert plain["parallelism"]["micro_batches"] == 1
    [stage] = plain["memory"]["stages"]
    assert stage["per_gpu_bytes"] == plain["memory"]["per_gpu_bytes"]
    assert {c["group"] for c in plain["traffic"]["collectives"]} == {"data"}
    assert plain["time"]["pipeline_bubble_s"] == 0


def test_global_batch_sets_the_micro_batches_of_a_data_parallel_plan(client):
    by_steps = layout_body(N.llama3_8b, 16, {}, {"micro_batch_size": 2, "gradient_accumulation_steps": 4})
    by_batch = layout_body(N.llama3_8b, 16, {}, {"micro_batch_size": 2, "global_batch_size": 128})
    a, b = (client.post("/v1/plan", json=body).json() for body in (by_steps, by_batch))
    assert b["parallelism"]["micro_batches"] == 4  # 128 / (2 x 16)
    a.pop("parallelism"), b.pop("parallelism")
    assert a == b


def test_bubble_and_groups_of_a_pipeline(client):
    # Llama 3 70B on 64 GPUs: t 8 (a node), p 4, d 2; m = 32 / (1 x 2) = 16 micro-batches.
    body = layout_body(
        N.llama3_70b,
        64,
        {"tensor": 8, "pipeline": 4, "sequence_parallel": True},
        {"micro_batch_size": 1, "sequence_length": 4096, "global_batch_size": 32},
    )
    answer = client.post("/v1/plan", json=body).json()
    time = answer["time"]
    assert time["pipeline_bubble_s"] == pytest.approx(time["compute_s"] * 3 / 16, rel=1e-12)
    assert time["pipeline_bubble_fraction"] == pytest.approx(float(Fraction(3, 16) / (1 + Fraction(3, 16))))
    links = {(c["group"], c["name"]): c["link"] for c in answer["traffic"]["collectives"]}
    assert links[("tensor", "all_gather")] == "intra_node"
    assert links[("tensor", "reduce_scatter")] == "intra_node"
    assert links[("pipeline", "send_recv")] == "inter_node"
    assert links[("data", "reduce_scatter")] == "inter_node"
    # 80 layers over 4 stages: 20 each; the first holds 4 micro-batches in flight under 1F1B, the last 1
    stages = answer["memory"]["stages"]
    assert [s["layers"] for s in stages] == [20, 20, 20, 20]
    assert [s["in_flight_micro_batches"] for s in stages] == [4, 3, 2, 1]
    tensor = [c for c in answer["traffic"]["collectives"] if c["group"] == "tensor"]
    # 4 reduce-scatters and 6 all-gathers of s b h per layer and micro-batch (the backward gathers the q/k/v and
    # MLP inputs again for the weight gradients, megatron/core/tensor_parallel/layers.py @d98e8a64): 20 layers x
    # 16 micro-batches
    assert [c["count_per_step"] for c in tensor] == [6 * 20 * 16, 4 * 20 * 16]
    assert tensor[0]["buffer_bytes"] == 4096 * 8192 * 2
    assert tensor[0]["bytes_sent_per_gpu"] == 7 * (4096 * 8192 // 8) * 2
    assert time["step_s"] == pytest.approx(
        time["compute_s"]
        + time["pipeline_bubble_s"]
        + time["exposed_communication_s"]
        + time["offload_s"]
        + time["optimizer_s"]
        + time["overlap_slowdown_s"]
    )


def test_experts_shard_over_the_expert_data_group(client):
    # Mixtral 8x7B on 64 GPUs: t 2, p 4, e 4; d = 8, experts replicated over d x c / e = 2.
    body = layout_body(
        N.mixtral_8x7b,
        64,
        {"tensor": 2, "pipeline": 4, "expert": 4, "sequence_parallel": True},
        {"micro_batch_size": 1, "sequence_length": 4096, "global_batch_size": 64},
    )
    answer = client.post("/v1/plan", json=body).json()
    assert answer["parallelism"]["expert_data"] == 2
    groups = {c["group"] for c in answer["traffic"]["collectives"]}
    assert groups == {"data", "tensor", "pipeline", "expert"}
    expert = [c for c in answer["traffic"]["collectives"] if c["group"] == "expert"]
    # tokens of the rank (4096 / t 2 with sequence parallelism) x top_k 2 x h 4096, 8 MoE layers, 8 micro-batches
    assert expert[0]["buffer_bytes"] == 2048 * 2 * 4096 * 2
    assert expert[0]["count_per_step"] == 2 * 8 * 8
    assert answer["time"]["expert_parallel_s"] > 0
    # FLOPs count the active parameters
    assert answer["active_parameter_count"] < answer["parameter_count"]


def test_context_parallelism_divides_the_sequence(client):
    base = {"micro_batch_size": 1, "sequence_length": 32768, "global_batch_size": 8}
    one = client.post("/v1/plan", json=layout_body(N.llama3_8b, 8, {}, base)).json()
    two = client.post("/v1/plan", json=layout_body(N.llama3_8b, 8, {"context": 2}, base)).json()
    assert two["parallelism"]["data"] == 4
    # the layers' activations halve with c = 2: each rank holds 16384 of the 32768 tokens
    layers = [c["bytes"] for c in one["memory"]["activations"]["components"] if c["name"] == "layers"][0]
    layers_cp = [c["bytes"] for c in two["memory"]["activations"]["components"] if c["name"] == "layers"][0]
    assert layers == 2 * layers_cp
    assert any(c["group"] == "context" for c in two["traffic"]["collectives"])


def test_the_530b_first_stage_activations(client):
    """The README's example: three layers on the first stage, 35 micro-batches in flight (1F1B), 34 s b h / t
    per layer with sequence parallelism and selective recomputation, and the embedding's dropout mask s b h / t
    per micro-batch (Korthikanti et al. 2022, table 2 and section 4.3)."""
    import json
    from pathlib import Path

    body = json.loads((Path(__file__).resolve().parents[2] / "examples" / "layout.json").read_text())
    answer = client.post("/v1/plan", json=body).json()
    sbh = 2048 * 1 * 20480
    first = answer["memory"]["stages"][0]
    assert first["activations_bytes"] == sbh * (3 * 35 * 34 + 35) // 8 == 18_900_582_400
    assert answer["time"]["pipeline_bubble_s"] == pytest.approx(answer["time"]["compute_s"] * 34 / 280, rel=1e-12)


def test_limits_takes_a_layout(client):
    """/v1/limits takes the plan's request whole: its limits under tensor 2 are planned as /v1/plan plans them."""
    base = layout_body(N.llama3_8b, 8, {"tensor": 2}, {"micro_batch_size": 1})
    limits = client.post("/v1/limits", json=base)
    assert limits.status_code == 200, limits.text
    answer = limits.json()["arrangements"][0]
    plan = client.post(
        "/v1/plan",
        json=base | {"training": base["training"] | {"micro_batch_size": answer["largest_micro_batch_size"]}},
    )
    assert plan.json()["memory"]["fits"]


def test_recommend_takes_a_layout_and_each_step_is_its_plan(client):
    # /v1/recommend used to refuse a parallelism block; each step is now the plan of the job on its layout
    body = {
        "model": {"preset": N.llama3_8b},
        "training": {"micro_batch_size": 1, "sequence_length": 4096, "global_batch_size": 64},
        "cluster": {"gpus_per_node": 8, "gpu": "h100-80gb"},
        "parallelism": {"tensor": 2, "sequence_parallel": True},
        "max_gpus": 64,
    }
    response = client.post("/v1/recommend", json=body)
    assert response.status_code == 200, response.text
    steps = response.json()["steps"]
    assert steps and all(s["arrangement"] != "hybrid" for s in steps)
    for step in steps[:4]:
        plan = {k: v for k, v in body.items() if k != "max_gpus"}
        plan |= {"arrangement": step["arrangement"], "levers": step["levers"]}
        plan["cluster"] = body["cluster"] | {"world_size": step["world_size"]}
        planned = client.post("/v1/plan", json=plan).json()
        assert planned["parallelism"]["tensor"] == 2
        assert step["per_gpu_bytes"] == planned["memory"]["per_gpu_bytes"]
        assert step["step_s"] == planned["time"]["step_s"]
        assert step["fits"] == planned["memory"]["fits"]


def test_sequence_parallelism_without_tensor_parallelism_is_a_warning(client):
    body = layout_body(N.llama3_8b, 8, {"sequence_parallel": True}, {"micro_batch_size": 1})
    answer = client.post("/v1/plan", json=body).json()
    assert "parallelism.sequence_parallel has no effect without tensor parallelism" in answer["warnings"]


def test_tensor_wider_than_a_node_is_a_warning_and_crosses_nodes(client):
    body = layout_body(N.gpt3_175b, 32, {"tensor": 16}, {"micro_batch_size": 1, "sequence_length": 2048})  # 96 heads
    body["cluster"]["gpu"] = "h100-80gb"
    answer = client.post("/v1/plan", json=body).json()
    assert any("wider than a node" in w for w in answer["warnings"])
    assert {c["link"] for c in answer["traffic"]["collectives"] if c["group"] == "tensor"} == {"inter_node"}


@pytest.mark.parametrize("parallelism", [{}, {"tensor": 2}])
def test_the_mxfp8_levers_warnings_hold_on_any_mesh(client, parallelism):
    """MXFP8 on an A100 (not Blackwell-class) with the seed recipe draws the same two warnings from a data-parallel
    plan and from a plan on a mesh (a layout's answer used to leave them out)."""
    body = layout_body(
        "llama-3.1-8b", 16, parallelism, {"global_batch_size": 64}, levers={"mxfp8": True, "mxfp8_recipe": "seed"}
    )
    body["precision"] = "mixed_bf16_adam"
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 200, response.text
    warnings = response.json()["warnings"]
    assert any("needs Blackwell-class hardware" in w for w in warnings)
    assert any("mxfp8_recipe seed is the textbook model" in w for w in warnings)
