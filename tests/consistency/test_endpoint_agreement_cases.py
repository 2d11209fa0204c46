"""Cases where two endpoints answered the same job differently, found by random requests over every planning
endpoint, each reduced to its smallest body: the answer of one endpoint is checked against /v1/plan's answer for
the job it stands for."""

import pytest


def plan_of_step(client, body: dict, step: dict) -> dict:
    """The /v1/plan answer of a /v1/recommend step: the request's job under the step's arrangement and levers."""
    plan = body | {"arrangement": step["arrangement"], "levers": body.get("levers", {}) | step["levers"]}
    plan["cluster"] = body["cluster"] | {"world_size": step["world_size"]}
    response = client.post("/v1/plan", json=plan)
    assert response.status_code == 200, (step["arrangement"], response.text)
    return response.json()


@pytest.mark.parametrize(
    ("lever", "takes_it"),
    [
        # /v1/plan takes parameter offload under the arrangements that shard parameters (models.plan, PlanRequest)
        ({"offload_parameters": True}, {"zero3", "full_shard", "hybrid"}),
        # and ZeRO++ under ZeRO-3 alone (it changes ZeRO-3's collectives; Wang et al. 2023)
        ({"zeropp": {"qwz": True, "hpz": True, "qgz": True}}, {"zero3", "full_shard"}),
    ],
)
def test_every_recommend_step_is_a_job_the_plan_takes_with_the_requests_levers(client, lever, takes_it):
    """Llama 3 8B under ZeRO-3 on 16 A100 40GB with a lever only some arrangements take. Each step was planned
    with the request's lever whatever its arrangement (the plan's rule bypassed), so the DP, ZeRO-1, ZeRO-2 and
    SHARD_GRAD_OP steps were jobs /v1/plan refuses (a 422 naming levers); they are left out now, and a warning
    says which and why, as for the steps a framework cannot pipeline."""
    body = {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"world_size": 16, "gpus_per_node": 8, "gpu": "a100-40gb"},
        "arrangement": "zero3",
        "levers": lever,
    }
    response = client.post("/v1/recommend", json=body)
    assert response.status_code == 200, response.text
    answer = response.json()
    arrangements = {step["arrangement"] for step in answer["steps"]}
    assert "zero3" in arrangements and arrangements <= takes_it
    for step in answer["steps"]:
        planned = plan_of_step(client, body, step)
        assert step["per_gpu_bytes"] == planned["memory"]["per_gpu_bytes"]
        assert step["fits"] == planned["memory"]["fits"]
        assert step["step_s"] == planned["time"]["step_s"]
    refused = {
        name
        for name in ("ddp", "zero1", "zero2", "shard_grad_op", "hybrid")
        if client.post("/v1/plan", json=body | {"arrangement": name}).status_code == 422
    }
    assert refused and refused.isdisjoint(arrangements)
    (left_out,) = [w for w in answer["warnings"] if "steps left out" in w]
    assert set(left_out.split(" steps left out: ")[0].split(", ")) == refused
    assert left_out.split(" steps left out: ")[1].startswith(f"levers.{next(iter(lever))} needs")


def test_a_sweep_cell_without_model_parallelism_meets_the_plans_rules_on_the_split(client):
    """A base on two pipeline stages with its own split of Llama 3 8B's 32 layers, [15, 17], swept over pipeline 1
    and 2. /v1/plan refuses the split on one stage (two entries for one stage, a 422 at
    /parallelism/pipeline_layers), yet the sweep answered that cell: a cell with every degree 1 went to the
    data-parallel arrays, which skipped the mesh's rules. It is skipped now, under the reason the plan gives, and
    the one row left is the plan of the two-stage job."""
    base = {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "arrangement": "zero1",
        "training": {"gradient_accumulation_steps": 4},
        "parallelism": {"pipeline": 2, "pipeline_layers": [15, 17]},
    }
    one_stage = client.post("/v1/plan", json=base | {"parallelism": base["parallelism"] | {"pipeline": 1}})
    assert one_stage.status_code == 422
    assert [e["pointer"] for e in one_stage.json()["errors"]] == ["/parallelism/pipeline_layers"]
    response = client.post("/v1/sweep", json={"base": base, "axes": {"pipeline": [1, 2]}})
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["cells"] == 2 and answer["rows"] == 1 and answer["skipped_cells"] == 1
    assert answer["skipped_reasons"] == ["1 cells: the layout does not fit the cell (/parallelism/pipeline_layers)"]
    assert answer["columns"]["pipeline"] == [2]
    planned = client.post("/v1/plan", json=base).json()
    assert answer["columns"]["per_gpu_bytes"] == [planned["memory"]["per_gpu_bytes"]]
    assert answer["columns"]["step_s"] == [planned["time"]["step_s"]]


def test_a_search_tries_no_micro_batch_the_plan_refuses(client):
    """The search tries the whole global batch as one micro-batch beside the powers of two up to 64; a batch of
    100,001 sequences is a micro-batch /v1/plan refuses (training.micro_batch_size is at most 100,000), so the
    search of a /v1/plan body answered a 422 at /training/micro_batch_size when that row ranked first (a two-layer
    model at one token a sequence, whose whole batch fits one GPU). The sizes it tries are the plan's now."""
    body = {
        "model": {"layers": 2, "hidden_size": 64, "attention_heads": 1, "vocab_size": 2, "ffn_hidden_size": 64},
        "cluster": {"world_size": 1, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "arrangement": "zero1",
        "training": {"micro_batch_size": 1, "sequence_length": 1, "global_batch_size": 100_001},
    }
    assert client.post("/v1/plan", json=body).status_code == 200
    response = client.post("/v1/search", json=body | {"top_k": 3})
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["candidates"]["micro_batch_size"] == [1, 2, 4, 8, 16, 32, 64]
    for row in answer["layouts"]:
        planned = client.post("/v1/plan", json=row["request"])
        assert planned.status_code == 200, planned.text
        assert planned.json()["memory"] == row["memory"] and planned.json()["time"] == row["time"]


def test_a_sweep_skips_the_models_the_plan_refuses_as_it_skips_their_layouts(client):
    """A sweep over two models with the base's activations.model transformer: /v1/plan answers Llama 3 8B and
    refuses a bare parameter count (no architecture to count activations of: a 422 at /activations/model). The
    sweep refused the whole request with that 422, although it answers the same two models under a layout the
    count cannot take by skipping the count's cells; it skips them here too now, under the plan's pointer, and
    the row left is the plan of Llama 3 8B."""
    base = {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "arrangement": "zero3",
        "activations": {"model": "transformer"},
    }
    count = {"parameter_count": 7_000_000_000}
    refused = client.post("/v1/plan", json=base | {"model": count})
    assert refused.status_code == 422
    assert [e["pointer"] for e in refused.json()["errors"]] == ["/activations/model"]
    response = client.post("/v1/sweep", json={"base": base, "axes": {"model": [base["model"], count]}})
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["cells"] == 2 and answer["rows"] == 1 and answer["skipped_cells"] == 1
    assert answer["skipped_reasons"] == ["1 cells: the layout does not fit the cell (/activations/model)"]
    planned = client.post("/v1/plan", json=base).json()
    assert answer["columns"]["model"] == ["llama-3-8b"]
    assert answer["columns"]["per_gpu_bytes"] == [planned["memory"]["per_gpu_bytes"]]
    assert answer["columns"]["step_s"] == [planned["time"]["step_s"]]


def test_a_sweep_whose_every_model_the_plan_refuses_is_the_plans_422(client):
    base = {
        "model": {"parameter_count": 7_000_000_000},
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "arrangement": "zero3",
        "activations": {"model": "transformer"},
    }
    response = client.post("/v1/sweep", json={"base": base, "axes": {"world_size": [8, 16]}})
    assert response.status_code == 422
    assert [e["pointer"] for e in response.json()["errors"]] == ["/base/activations/model"]  # the plan's, in /base
