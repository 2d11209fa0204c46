"""POST /v1/search over HTTP: the contract, the rows as their plans, limits and errors."""

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.settings import Settings

SMALL = {
    "model": {"preset": "llama-3.2-1b"},
    "cluster": {"world_size": [8, 16], "gpus_per_node": 8, "gpu": "h100-80gb"},
    "training": {"global_batch_size": 64, "sequence_length": 2048},
    "top_k": 4,
}
# 24 layers of width 4096, MLP 16384, vocabulary 32,000: 12 x 24 x 4096^2 + 24 x 4 x 4096 (norm and biases)
# + 2 x 32,000 x 4096 (untied embedding and output layer) + 2 x 4096 (final norm), about 5.1e9 weights.
FIVE_B = {
    "layers": 24,
    "hidden_size": 4096,
    "attention_heads": 32,
    "ffn_hidden_size": 16384,
    "vocab_size": 32000,
}


def test_answers_the_top_k_each_with_the_plan_of_its_request(client):
    answer = client.post("/v1/search", json=SMALL)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["objective"] == "step_s"
    assert len(body["layouts"]) == 4
    assert body["evaluated"] >= body["fitting"] >= 4
    assert all(isinstance(count, int) and count > 0 for count in body["skipped"].values())
    steps = [row["step_s"] for row in body["layouts"]]
    assert steps == sorted(steps)
    assert [row["rank"] for row in body["layouts"]] == [1, 2, 3, 4]
    for row in body["layouts"]:
        plan = client.post("/v1/plan", json=row["request"])
        assert plan.status_code == 200, plan.text
        planned = plan.json()
        assert planned["memory"] == row["memory"]
        assert planned["time"] == row["time"]
        assert planned["time"]["step_s"] == row["step_s"]
        assert planned["memory"]["per_gpu_bytes"] == row["per_gpu_bytes"]
        assert row["fits"] and row["why"]
        assert row["request"]["training"]["global_batch_size"] == 64


def test_the_pareto_front_falls_in_step_time_as_gpus_rise(client):
    body = client.post("/v1/search", json=SMALL | {"cluster": SMALL["cluster"] | {"world_size": [8, 16, 32]}}).json()
    front = body["pareto"]
    assert front, body["note"]
    sizes = [row["world_size"] for row in front]
    steps = [row["step_s"] for row in front]
    assert sizes == sorted(sizes) and len(set(sizes)) == len(sizes)
    assert all(later < earlier for earlier, later in zip(steps, steps[1:], strict=False))
    best = body["layouts"][0]
    assert best["world_size"] in sizes  # the fastest layout is on the front


def test_gpus_objective_takes_the_fewest_gpus_that_fit(client):
    """A 5.1e9-weight model on an 80e9-byte card without offload: 16 bytes a weight on one GPU is about 81.6e9
    bytes of model states alone, more than the card, so no layout fits 1 GPU; on 2 GPUs ZeRO-3 holds 8 bytes a
    weight (about 41e9) and fits. The fewest GPUs that fit is 2."""
    request = {
        "model": FIVE_B,
        "cluster": {"world_size": [1, 2, 4], "gpus_per_node": 8, "gpu_memory_bytes": 80_000_000_000},
        "training": {"global_batch_size": 8, "sequence_length": 512},
        "objective": "gpus",
        "top_k": 3,
        "restrict": {"offload_optimizer": [False]},
    }
    body = client.post("/v1/search", json=request).json()
    assert body["layouts"][0]["world_size"] == 2
    assert body["layouts"][0]["request"]["cluster"]["world_size"] == 2
    assert all(row["world_size"] >= 2 for row in body["layouts"])
    one = client.post("/v1/search", json=request | {"cluster": request["cluster"] | {"world_size": 1}}).json()
    assert one["layouts"] == [] and one["pareto"] == []
    # 16 bytes a weight on one GPU exceed the card before any activation: the memory bound prunes every layout.
    assert one["considered"] > 0 and one["fitting"] == 0
    assert one["evaluated"] + sum(one["pruned"].values()) == one["considered"]
    assert any(reason.startswith("model states and working set alone exceed the card") for reason in one["pruned"])
    assert one["note"].startswith("no layout fits")


def test_restrict_narrows_the_space(client):
    request = SMALL | {
        "restrict": {
            "tensor": [2],
            "pipeline": [1],
            "context": [1],
            "arrangement": ["zero1"],
            "recompute": ["full"],
            "offload_optimizer": [False],
            "micro_batch_size": [2],
        }
    }
    body = client.post("/v1/search", json=request).json()
    assert body["candidates"]["tensor"] == [2]
    # 2 world sizes x sequence parallelism off and on: 4 layouts, all valid for a 1B model on 8 and 16 GPUs.
    assert body["evaluated"] == 4
    for row in body["layouts"]:
        assert row["parallelism"]["tensor"] == 2 and row["parallelism"]["pipeline"] == 1
        assert row["arrangement"] == "zero1" and row["recompute"] == "full" and row["micro_batch_size"] == 2


@pytest.mark.parametrize(
    ("restrict", "pointer"),
    [
        ({"tensor": [0]}, "/restrict/tensor/0"),
        ({"arrangement": ["zero9"]}, "/restrict/arrangement/0"),
        ({"recompute": ["some"]}, "/restrict/recompute/0"),
        ({"pipeline_schedule": ["1f2b"]}, "/restrict/pipeline_schedule/0"),
        ({"micro_batch_size": []}, "/restrict/micro_batch_size"),
        ({"offload_optimizer": ["yes"]}, "/restrict/offload_optimizer/0"),
        ({"speed": [1]}, "/restrict/speed"),
        # The schema says uniqueItems: a value listed twice is refused, as the spec promises.
        ({"pipeline_schedule": ["1f1b", "1f1b"]}, "/restrict/pipeline_schedule"),
        ({"tensor": [2, 4, 2]}, "/restrict/tensor"),
        ({"sequence_parallel": [True, True]}, "/restrict/sequence_parallel"),
    ],
)
def test_bad_restrictions_are_422s_naming_the_field(client, restrict, pointer):
    answer = client.post("/v1/search", json=SMALL | {"restrict": restrict})
    assert answer.status_code == 422
    assert answer.headers["content-type"].startswith("application/problem+json")
    assert pointer in [e["pointer"] for e in answer.json()["errors"]]


def test_bad_world_sizes_and_models_are_422s(client):
    cluster = SMALL["cluster"] | {"world_size": [8, 12]}
    answer = client.post("/v1/search", json=SMALL | {"cluster": cluster})
    assert answer.status_code == 422
    assert answer.json()["errors"][0]["pointer"].startswith("/cluster/world_size")
    # a bare parameter count was a 422 (missing_architecture): it is searched over data parallelism alone now
    # (tests/search/test_data_parallel_search.py); a model-parallel restriction of one still is
    bare = SMALL | {"model": {"parameter_count": 7_000_000_000}}
    answer = client.post("/v1/search", json=bare | {"restrict": {"pipeline": [2]}})
    assert answer.status_code == 422
    assert answer.json()["code"] == "missing_architecture"
    assert answer.json()["errors"][0]["pointer"] == "/restrict/pipeline"
    assert client.post("/v1/search", json=SMALL | {"top_k": 0}).status_code == 422


def test_a_space_over_the_limit_is_refused_before_any_work():
    small = TestClient(create_app(Settings(max_search_layouts=1000)))
    answer = small.post("/v1/search", json=SMALL)
    assert answer.status_code == 422
    problem = answer.json()
    assert problem["code"] == "search_too_large"
    # the world sizes searched, a field the request sent (it was /restrict, which it did not send)
    assert problem["errors"][0]["pointer"] == "/cluster/world_size"
    assert "ZEROPLAN_MAX_SEARCH_LAYOUTS" in problem["detail"]


def test_a_given_expert_tensor_degree_is_kept_by_every_layout(client):
    request = {
        "model": {"preset": "mixtral-8x7b"},
        "cluster": {"world_size": [32, 64], "gpus_per_node": 8, "gpu": "h100-80gb"},
        "training": {"global_batch_size": 64, "sequence_length": 4096},
        "top_k": 4,
        "expert_tensor": 1,
    }
    answer = client.post("/v1/search", json=request)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["layouts"]
    for row in body["layouts"]:
        assert row["parallelism"]["expert_tensor"] == 1
        assert row["request"]["parallelism"]["expert_tensor"] == 1
        planned = client.post("/v1/plan", json=row["request"]).json()
        assert planned["memory"] == row["memory"]
        assert planned["time"] == row["time"]


def test_an_expert_tensor_degree_needs_experts(client):
    answer = client.post("/v1/search", json=SMALL | {"expert_tensor": 2})
    assert answer.status_code == 422
    assert [e["pointer"] for e in answer.json()["errors"]] == ["/expert_tensor"]


@pytest.mark.parametrize("names", [["zero3", "full_shard"], ["no_shard", "zero1", "ddp"]])
def test_one_arrangement_under_two_names_is_named_twice(client, names):
    """FSDP's full_shard is zero3 and no_shard ddp (models.enums.ArrangementName): the pair was merged silently."""
    answer = client.post("/v1/search", json=SMALL | {"restrict": {"arrangement": names}})
    assert answer.status_code == 422, answer.text
    (error,) = answer.json()["errors"]
    assert error["pointer"] == "/restrict/arrangement"
    assert "twice" in error["detail"] and all(name in error["detail"] for name in (names[0], names[-1]))


LLAMA_3_8B_ON_NODES = {
    "model": {"preset": "llama-3-8b"},
    "cluster": {"world_size": [16, 32], "gpus_per_node": 8, "gpu": "h100-80gb"},
    "training": {"global_batch_size": 128, "sequence_length": 8192},
}


@pytest.mark.parametrize(
    ("extra", "restricted"),
    [
        # hybrid sharding is modelled without model parallelism only (its /v1/plan rule at /arrangement)
        ({"restrict": {"arrangement": ["hybrid"], "tensor": [8]}}, {"arrangement", "tensor"}),
        ({"restrict": {"arrangement": ["hybrid"], "pipeline": [2]}}, {"arrangement", "pipeline"}),
        # DeepSpeed's pipeline engine runs ZeRO-1 at most
        (
            {"precision": "deepspeed", "restrict": {"arrangement": ["zero3"], "pipeline": [4]}},
            {"arrangement", "pipeline"},
        ),
    ],
)
def test_restrictions_leaving_nothing_by_a_rule_of_the_arrangement_are_422s(client, extra, restricted):
    """The shapes alone were checked: restrictions whose shapes are valid but whose arrangement refuses each of them
    answered 200 with no rows and considered 0."""
    answer = client.post("/v1/search", json=LLAMA_3_8B_ON_NODES | extra)
    assert answer.status_code == 422, answer.text
    errors = answer.json()["errors"]
    assert {e["pointer"] for e in errors} == {f"/restrict/{name}" for name in restricted}
    assert "leave no valid layout" in errors[0]["detail"] and "/arrangement" in errors[0]["detail"]


def gap_words(gap: float) -> str:
    """A gap as a why writes it: whole units from 100 up, else three significant digits."""
    return f"{abs(gap):,.0f}" if abs(gap) >= 100 else f"{abs(gap):.3g}"


@pytest.mark.parametrize(
    ("objective", "figure", "unit"),
    [
        ("gpu_hours", lambda r: r["time"]["gpu_hours"], "GPU-hours"),
        ("training_days", lambda r: r["time"]["training_days"], "days"),
        ("cost", lambda r: r["time"]["cost"], "USD"),
        ("tokens_per_s_per_gpu", lambda r: r["time"]["tokens_per_s_per_gpu"], "tokens/s per GPU"),
    ],
)
def test_a_why_states_the_gap_in_the_objective_it_ranks_by(client, objective, figure, unit):
    """By gpu_hours the first row's why said only that its step was 25.1 s longer than the next row's (it runs on
    half the GPUs), never that it uses fewer GPU-hours, which is why it ranks first: it read backwards."""
    body = {
        "model": {"preset": "qwen2.5-72b"},
        "cluster": {"world_size": [128, 256, 512], "gpus_per_node": 8, "gpu": "mi300x", "gpu_hour_price": 2.5},
        "training": {"global_batch_size": 1024, "sequence_length": 8192, "total_tokens": 2 * 10**12},
        "top_k": 3,
        "objective": objective,
    }
    rows = client.post("/v1/search", json=body).json()["layouts"]
    assert len(rows) == 3
    for first, second in zip(rows, rows[1:], strict=False):
        gap = figure(first) - figure(second)
        against_next = first["why"].split("against the next row")[1]
        direction = ("more" if gap > 0 else "less") if objective == "cost" else ("more" if gap > 0 else "fewer")
        assert f"{gap_words(gap)} {unit} {direction}" in against_next
        assert f"better by {objective}" in against_next.split("against the best row")[0]
    gap = figure(rows[1]) - figure(rows[0])
    assert f"{gap_words(gap)} {unit}" in rows[1]["why"].split("against the best row")[1]
    assert f"worse by {objective}" in rows[1]["why"].split("against the best row")[1]


def test_a_small_gap_in_the_objective_is_not_written_as_zero(client):
    """Whole GPU-hours wrote a gap of 0.3 as '0 GPU-hours fewer'."""
    body = {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"world_size": [16, 32], "gpus_per_node": 8, "gpu": "h100-80gb"},
        "training": {"global_batch_size": 128, "sequence_length": 8192, "total_tokens": 10**11},
        "objective": "gpu_hours",
        "top_k": 2,
    }
    first, second = client.post("/v1/search", json=body).json()["layouts"][:2]
    gap = first["time"]["gpu_hours"] - second["time"]["gpu_hours"]
    assert 0 < abs(gap) < 100
    assert f"{gap_words(gap)} GPU-hours" in first["why"] and float(gap_words(gap)) > 0


@pytest.mark.parametrize(
    "restrict",
    [
        {"pipeline": [1], "pipeline_split": ["embedding_loss"]},
        {"pipeline": [1], "pipeline_schedule": ["interleaved"]},
        {"pipeline": {"max": 1}, "virtual_stages": [2, 4]},
    ],
)
def test_a_restriction_of_pipelined_layouts_without_any_is_a_422(client, restrict):
    """With restrict.pipeline allowing only 1 a split, schedule or virtual-stage restriction has nothing to act on;
    it was accepted and had no effect."""
    answer = client.post("/v1/search", json=LLAMA_3_8B_ON_NODES | {"restrict": restrict})
    assert answer.status_code == 422, answer.text
    (name,) = [name for name in restrict if name != "pipeline"]
    assert [e["pointer"] for e in answer.json()["errors"]] == [f"/restrict/{name}"]
