"""Each /v1/recommend step carries its /v1/plan request: the recommend body as its client wrote it, less max_gpus,
with the step's GPU count, arrangement and levers (and a given utilisation with the recomputation it was measured
with); that request planned is the step's figures, and /v1/fit and /v1/search take it too.

Before, a scheduler acting on a recommendation rebuilt the body itself from the step's fields (the merge of the
levers, the world size, training.utilisation_recompute); a search row already carried its request.
"""

import pytest

STEP_LEVERS = ("recompute", "offload_optimizer", "mxfp8", "fp8_param_gather")

BODIES = {
    "mixtral, no world size, a utilisation": {
        "model": {"preset": "mixtral-8x7b"},
        "cluster": {"gpus_per_node": 8, "gpu": "a100-80gb"},
        "training": {"utilisation": 0.4, "sequence_length": 4096},
        "max_gpus": 16,
    },
    "llama 3 8B on a layout, the job asked by its sharding flags": {
        "model": {"preset": "llama-3-8b"},
        "precision": "megatron",
        "cluster": {"world_size": 16, "gpus_per_node": 8, "gpu": "h100-80gb", "links": "nvlink4-ib400"},
        "sharding": {"shard_optimizer": True, "shard_gradients": False, "shard_parameters": False},
        "training": {"micro_batch_size": 1, "sequence_length": 4096, "global_batch_size": 64},
        "parallelism": {"tensor": 2},
        "levers": {"bucket_bytes": 50_000_000},
        "max_gpus": 64,
    },
    "a count, a precision spec": {
        "model": {"parameter_count": 30_000_000_000},
        "precision_spec": {
            "parameter_dtype": "bf16",
            "gradient_dtype": "bf16",
            "master_dtype": "fp32",
            "optimizer_state_dtype": "fp32",
        },
        "cluster": {"gpus_per_node": 8, "gpu": "seed-80gb", "links": "seed"},
        "max_gpus": 64,
    },
}


def expected_request(body: dict, step: dict) -> dict:
    """The step's /v1/plan body, written out from the recommend body and the step's own fields."""
    expected = {k: v for k, v in body.items() if k not in ("max_gpus", "arrangement", "sharding")}
    expected["cluster"] = body["cluster"] | {"world_size": step["world_size"]}
    expected["arrangement"] = step["arrangement"]
    expected["levers"] = body.get("levers", {}) | {name: step["levers"][name] for name in STEP_LEVERS}
    training = body.get("training")
    if training is not None and "utilisation" in training and "utilisation_recompute" not in training:
        # the utilisation was measured with the request's own recomputation (none unless its levers say)
        expected["training"] = training | {"utilisation_recompute": body.get("levers", {}).get("recompute", "none")}
    return expected


@pytest.mark.parametrize("name", BODIES)
def test_each_step_carries_the_plan_request_whose_answer_it_is(client, name):
    body = BODIES[name]
    response = client.post("/v1/recommend", json=body)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["steps"]
    for step in answer["steps"]:
        request, expected = dict(step["request"]), expected_request(body, step)
        if "precision_spec" in body:  # written whole, every dtype named (the given ones as given)
            spec = request.pop("precision_spec")
            assert spec.items() >= expected.pop("precision_spec").items()
        assert request == expected
        planned = client.post("/v1/plan", json=step["request"])
        assert planned.status_code == 200, planned.text
        plan = planned.json()
        assert step["per_gpu_bytes"] == plan["memory"]["per_gpu_bytes"]
        assert step["fits"] == plan["memory"]["fits"]
        assert step["step_s"] == plan["time"]["step_s"]
    assert answer["recommendation"] is None or answer["recommendation"]["request"] == next(
        s["request"] for s in answer["steps"] if s["fits"]
    )


def test_a_steps_request_is_taken_by_the_other_planning_endpoints(client):
    body = BODIES["mixtral, no world size, a utilisation"]
    recommendation = client.post("/v1/recommend", json=body).json()["recommendation"]
    request = recommendation["request"]
    fitted = client.post("/v1/fit", json=request | {"max_gpus": 64})
    assert fitted.status_code == 200, fitted.text
    (entry,) = [a for a in fitted.json()["arrangements"] if a["arrangement"] == request["arrangement"]]
    assert entry["at_world_size"]["per_gpu_bytes"] == recommendation["per_gpu_bytes"]
    assert client.post("/v1/limits", json=request).status_code == 200
    assert client.post("/v1/recommend", json=request).status_code == 200


def test_a_step_whose_run_never_finishes_is_left_out_not_the_answer_refused(client):
    """Llama 3 8B at 750,000 tokens a sequence on 1,024 H100 with one interruption a GPU-hour: ZeRO-3 as asked plans
    (its run ends, 1e280 days away), ZeRO-3 with full recomputation, a longer step, never finishes, and /v1/plan
    refuses it at /cluster/failures. /v1/recommend answered the whole request with that 422; the step is left out
    now, a warning says why, and every step listed is its plan."""
    body = {
        "model": {"preset": "llama-3-8b"},
        "training": {"sequence_length": 750_000, "total_tokens": 10**12},
        "cluster": {"gpu": "h100-80gb", "world_size": 1024, "failures": {"interruptions_per_gpu_hour": 1}},
        "arrangement": "zero3",
    }
    assert client.post("/v1/plan", json=body).status_code == 200
    refused = client.post("/v1/plan", json=body | {"levers": {"recompute": "full"}})
    assert refused.status_code == 422 and refused.json()["errors"][0]["pointer"] == "/cluster/failures"

    response = client.post("/v1/recommend", json=body)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert "ZeRO-3 with full recomputation" not in {step["lever"] for step in answer["steps"]}
    (warning,) = [w for w in answer["warnings"] if "/v1/plan refuses its job" in w]
    assert warning.startswith("ZeRO-3 with full recomputation steps left out: /v1/plan refuses its job: the run never")
    for step in answer["steps"]:
        planned = client.post("/v1/plan", json=step["request"])
        assert planned.status_code == 200, planned.text
        assert planned.json()["time"]["step_s"] == step["step_s"]
