"""/v1/search takes every lever of a plan: parameter offload and ZeRO++ narrow the space to what can keep them.

`levers.offload_parameters` needs an arrangement that shards parameters and `levers.zeropp` needs ZeRO-3 on data
parallelism alone, as /v1/plan states (models.plan, service.answers.layout_plan.layout_of). A search with them
used to be a 422 because it tried every arrangement; it now searches only the arrangements (and, for ZeRO++, only
the layouts) that keep them. Each row must be the /v1/plan answer of its own request (planned here over HTTP, a
path apart from the search's vectorised grid), and a restriction that leaves no arrangement or layout able to keep
the lever is a 422 naming the restricted field.
"""

import pytest

BASE = {
    "model": {"preset": "llama-3-8b"},
    "cluster": {"world_size": [8, 16], "gpus_per_node": 8, "gpu": "h100-80gb"},
    "training": {"global_batch_size": 64, "sequence_length": 2048},
    "objective": "step_s",
    "top_k": 4,
}
# the arrangements whose parameters are sharded (models.plan.shards_parameters), under their canonical names
SHARDING_PARAMETERS = {"zero3", "hybrid"}


def searched(client, body: dict) -> list[dict]:
    response = client.post("/v1/search", json=body)
    assert response.status_code == 200, response.text
    rows = response.json()["layouts"]
    assert rows, response.text
    return rows


def assert_each_row_is_its_plan(client, rows: list[dict]) -> None:
    for row in rows:
        planned = client.post("/v1/plan", json=row["request"])
        assert planned.status_code == 200, planned.text
        answer = planned.json()
        assert answer["memory"]["per_gpu_bytes"] == row["per_gpu_bytes"]
        assert answer["memory"]["host_bytes"] == row["memory"]["host_bytes"]
        assert answer["time"]["step_s"] == pytest.approx(row["step_s"], rel=1e-12)


def test_parameter_offload_searches_the_arrangements_that_shard_parameters(client):
    rows = searched(client, BASE | {"levers": {"offload_parameters": True}})
    assert {row["arrangement"] for row in rows} <= SHARDING_PARAMETERS
    for row in rows:
        assert row["request"]["levers"]["offload_parameters"] is True
        # parameters offloaded: their shards sit in host memory, so some host bytes are held on every row
        assert row["memory"]["host_bytes"] > 0
    assert_each_row_is_its_plan(client, rows)


def test_zeropp_searches_zero3_over_data_parallelism_alone(client):
    rows = searched(client, BASE | {"levers": {"zeropp": {"qwz": True, "hpz": True}}})
    for row in rows:
        assert row["arrangement"] == "zero3"
        degrees = row["parallelism"]
        assert (degrees["tensor"], degrees["pipeline"], degrees["context"], degrees["expert"]) == (1, 1, 1, 1)
        assert row["request"]["levers"]["zeropp"] == {"qwz": True, "hpz": True, "qgz": False}
    assert_each_row_is_its_plan(client, rows)


def test_a_model_without_an_architecture_keeps_the_levers_too(client):
    body = BASE | {"model": {"parameter_count": 7_000_000_000}, "levers": {"offload_parameters": True}}
    rows = searched(client, body)
    assert {row["arrangement"] for row in rows} <= SHARDING_PARAMETERS
    assert_each_row_is_its_plan(client, rows)


@pytest.mark.parametrize(
    ("levers", "restrict", "pointer", "word"),
    [
        ({"offload_parameters": True}, {"arrangement": ["zero1", "zero2"]}, "/restrict/arrangement", "offload"),
        ({"zeropp": {"qgz": True}}, {"arrangement": ["hybrid"]}, "/restrict/arrangement", "levers.zeropp"),
        ({"zeropp": {"qgz": True}}, {"tensor": [2, 4]}, "/restrict/tensor", "levers.zeropp"),
        ({"zeropp": {"qwz": True}}, {"pipeline": {"min": 2}}, "/restrict/pipeline", "levers.zeropp"),
    ],
)
def test_a_restriction_that_leaves_nothing_for_the_lever_is_a_422_naming_it(client, levers, restrict, pointer, word):
    response = client.post("/v1/search", json=BASE | {"levers": levers, "restrict": restrict})
    assert response.status_code == 422, response.text
    (error,) = response.json()["errors"]
    assert error["pointer"] == pointer and word in error["detail"], error
