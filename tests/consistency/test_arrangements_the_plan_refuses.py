"""/v1/fit and /v1/limits without an arrangement answer every arrangement side by side; an arrangement /v1/plan
refuses for the request (a lever it cannot take, a framework that cannot pipeline it) has no GPU count and no
boundary there, as /v1/recommend leaves its steps out.

Before, /v1/fit gave ZeRO-2 and SHARD_GRAD_OP with levers.offload_parameters a minimum GPU count at which /v1/plan
refuses the job (a 422 at /levers: parameter offload needs sharded parameters), /v1/limits answered boundaries for
DP, ZeRO-1 and ZeRO-2 under that lever, and /v1/limits refused a /v1/plan body with precision deepspeed on two
pipeline stages once its arrangement was left out, with a 422 at /arrangement, a field the caller had not sent.
"""

import pytest

# /v1/plan's rules (models.plan.PlanRequest): parameter offload under the arrangements that shard parameters
# (ZeRO-3 alone of those compared), ZeRO++ under ZeRO-3 alone (Wang et al. 2023); DeepSpeed's pipeline engine runs
# ZeRO-1 at most (deepspeed/runtime/pipe/engine.py, PipelineEngine.__init__).
LEVERS = [
    ({"offload_parameters": True}, "levers.offload_parameters needs"),
    ({"zeropp": {"qwz": True, "hpz": True}}, "levers.zeropp needs"),
]


def plan(client, body: dict, arrangement: str, world_size: int):
    job = body | {"arrangement": arrangement, "cluster": body["cluster"] | {"world_size": world_size}}
    return client.post("/v1/plan", json=job)


@pytest.mark.parametrize(
    ("levers", "why", "parallelism"),
    # ZeRO++ on a model-parallel layout is a 422 everywhere (not modelled): over data parallelism alone
    [(*LEVERS[0], {}), (*LEVERS[1], {}), (*LEVERS[0], {"tensor": 2})],
)
def test_fit_gives_a_count_only_to_the_jobs_the_plan_takes(client, levers, why, parallelism):
    body = {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"world_size": 16, "gpus_per_node": 8, "gpu": "a100-40gb"},
        "training": {"sequence_length": 2048, "gradient_accumulation_steps": 4},
        "levers": levers,
        "parallelism": parallelism,
    }
    response = client.post("/v1/fit", json=body)
    assert response.status_code == 200, response.text
    entries = {e["arrangement"]: e for e in response.json()["arrangements"]}
    assert set(entries) == {"ddp", "zero1", "zero2", "zero3", "shard_grad_op"}
    for name, entry in entries.items():
        if name == "zero3":
            assert entry["min_gpus"] is not None
            planned = plan(client, body, name, entry["min_gpus"])
            assert planned.status_code == 200 and planned.json()["memory"]["fits"]
            continue
        assert plan(client, body, name, 16).status_code == 422  # the plan refuses it at any count
        assert entry["never_fits"] and entry["min_gpus"] is None and entry["min_gpus_exact"] is None
        assert entry["table"] == [] and entry["at_world_size"] is None
        assert why in entry["reason"]


@pytest.mark.parametrize(("levers", "why"), LEVERS)
def test_limits_answer_the_arrangements_the_plan_takes_and_say_which_were_left_out(client, levers, why):
    body = {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"world_size": 16, "gpus_per_node": 8, "gpu": "a100-80gb"},
        "training": {"sequence_length": 2048, "micro_batch_size": 1},
        "levers": levers,
    }
    response = client.post("/v1/limits", json=body)
    assert response.status_code == 200, response.text
    answer = response.json()
    (entry,) = answer["arrangements"]
    assert entry["arrangement"] == "zero3"
    (left_out,) = [w for w in answer["warnings"] if "left out" in w]
    assert left_out.startswith(f"ddp, zero1, zero2 arrangements left out: {why}")
    s = entry["longest_sequence_length"]
    assert s is not None
    at_s = body | {"arrangement": "zero3", "training": body["training"] | {"sequence_length": s}}
    planned = client.post("/v1/plan", json=at_s)
    assert planned.status_code == 200 and planned.json()["memory"]["fits"]


def test_limits_take_a_deepspeed_pipeline_without_an_arrangement(client):
    body = {
        "model": {"preset": "llama-3-8b"},
        "precision": "deepspeed",
        "cluster": {"world_size": 16, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "training": {"micro_batch_size": 1, "sequence_length": 4096, "gradient_accumulation_steps": 8},
        "parallelism": {"pipeline": 2},
    }
    assert client.post("/v1/plan", json=body | {"arrangement": "zero1"}).status_code == 200
    assert client.post("/v1/plan", json=body | {"arrangement": "zero2"}).status_code == 422
    response = client.post("/v1/limits", json=body)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert [e["arrangement"] for e in answer["arrangements"]] == ["ddp", "zero1"]
    (left_out,) = [w for w in answer["warnings"] if "left out" in w]
    assert left_out.startswith("zero2, zero3 arrangements left out: DeepSpeed's pipeline engine supports ZeRO-1")


HYBRID_ON_A_LAYOUT = "hybrid sharding with tensor, pipeline, context or expert parallelism is not modelled"


def test_hybrid_on_a_layout_has_no_count_and_no_step_as_the_plan_refuses_it(client):
    """/v1/plan refuses hybrid sharding on a model-parallel layout (modelled over data parallelism alone). Before,
    /v1/fit answered the same body with a table of per-GPU bytes over GPU counts (every one the plan refuses) and a
    floor, and /v1/recommend dropped the asked hybrid step without a word."""
    body = {
        "model": {"preset": "llama-3-8b"},
        "precision": "mixed_bf16_adam",
        "cluster": {"world_size": 64, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "parallelism": {"tensor": 2},
        "arrangement": "hybrid",
    }
    planned = client.post("/v1/plan", json=body)
    assert planned.status_code == 422 and planned.json()["detail"] == HYBRID_ON_A_LAYOUT
    fitted = client.post("/v1/fit", json=body | {"max_gpus": 128})
    assert fitted.status_code == 200, fitted.text
    (entry,) = fitted.json()["arrangements"]
    assert entry["arrangement"] == "hybrid" and entry["never_fits"]
    assert entry["min_gpus"] is None and entry["min_gpus_exact"] is None and entry["min_gpus_on_grid"] is None
    assert entry["table"] == [] and entry["at_world_size"] is None
    assert entry["reason"] == f"not run on this layout: {HYBRID_ON_A_LAYOUT}"
    recommended = client.post("/v1/recommend", json=body)
    assert recommended.status_code == 200, recommended.text
    answer = recommended.json()
    assert f"hybrid steps left out: {HYBRID_ON_A_LAYOUT}" in answer["warnings"]
    assert all(step["arrangement"] != "hybrid" for step in answer["steps"] + answer["omitted"])


def test_a_hybrid_step_on_less_than_a_node_is_left_out_and_said(client):
    body = {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"world_size": 4, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "arrangement": "hybrid",
    }
    answer = client.post("/v1/recommend", json=body).json()
    expected = "hybrid steps left out: hybrid sharding needs whole nodes: cluster.world_size 4 is not a multiple of "
    assert f"{expected}gpus_per_node 8" in answer["warnings"]
    assert client.post("/v1/plan", json=body).status_code == 422  # the plan refuses hybrid on part of a node too
