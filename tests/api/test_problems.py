"""Bad input: every one is a 4xx RFC 9457 problem whose message names the field. Never a 500."""

import pytest

from tests.conftest import plan_body

PROBLEM = "application/problem+json"


def assert_problem(response, status, code, pointer=None, mentions=None):
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    body = response.json()
    assert {"type", "title", "status", "detail", "code"} <= body.keys()
    assert body["status"] == status and body["code"] == code
    if pointer is not None:
        assert pointer in [e["pointer"] for e in body["errors"]], body
    if mentions is not None:
        assert mentions in body["detail"], body["detail"]
    return body


def with_cluster(**cluster):
    body = plan_body("zero3")
    body["cluster"] = {"world_size": 8, "gpus_per_node": 8, "gpu": "seed-80gb"} | cluster
    return body


@pytest.mark.parametrize(
    ("body", "pointer", "mentions"),
    [
        (with_cluster(gpu="tpu-v9"), "/cluster/gpu", "cluster.gpu"),
        (plan_body("zero3", precision="fp4_magic"), "/precision", "precision"),
        (plan_body("zero3") | {"model": {"preset": "gpt-9"}}, "/model/preset", "model.preset"),
        (plan_body("zero4"), "/arrangement", "arrangement"),
        (
            plan_body({"shard_optimizer": True, "shard_gradients": False, "shard_parameters": True}),
            "/sharding",
            "shard_parameters",
        ),
        (
            plan_body({"shard_optimizer": False, "shard_gradients": True, "shard_parameters": False}),
            "/sharding",
            "shard_gradients",
        ),
        (with_cluster(world_size=12), "/cluster/world_size", "12 = 1 x gpus_per_node 8 + 4"),
        (with_cluster(world_size=0), "/cluster/world_size", "cluster.world_size"),
        (with_cluster(world_size=-8), "/cluster/world_size", "cluster.world_size"),
        (with_cluster(world_size=1_000_001, gpus_per_node=1), "/cluster/world_size", "cluster.world_size"),
        (with_cluster(gpus_per_node=0), "/cluster/gpus_per_node", "cluster.gpus_per_node"),
        (with_cluster(gpu=None, gpu_memory_bytes=-1), "/cluster/gpu_memory_bytes", "cluster.gpu_memory_bytes"),
        (with_cluster(gpu_memory_bytes=80), "/cluster", "exactly one of cluster.gpu and cluster.gpu_memory_bytes"),
        (plan_body("zero3", parameter_count=0), "/model/parameter_count", "model.parameter_count"),
        (plan_body("zero3", parameter_count=10**15 + 1), "/model/parameter_count", "model.parameter_count"),
        (plan_body("zero3", parameter_count="many"), "/model/parameter_count", "model.parameter_count"),
        (plan_body("zero3", parameter_count=1.5), "/model/parameter_count", "model.parameter_count"),
        (plan_body("zero3") | {"model": {}}, "/model", "model.parameter_count"),
        (plan_body("zero3", colour="blue"), "/colour", "colour"),
        ({"model": {"parameter_count": 10}}, "/cluster", "cluster"),
    ],
)
def test_bad_plan_input_is_a_422_naming_the_field(client, body, pointer, mentions):
    assert_problem(client.post("/v1/plan", json=body), 422, "validation_error", pointer, mentions)


def test_four_gpus_of_an_eight_gpu_node_is_a_valid_job(client):
    assert client.post("/v1/plan", json=with_cluster(world_size=4)).status_code == 200
    assert client.post("/v1/plan", json=with_cluster(world_size=24)).status_code == 200


def test_malformed_json_is_a_400(client):
    response = client.post("/v1/plan", content=b'{"model": ', headers={"content-type": "application/json"})
    assert_problem(response, 400, "malformed_json")


@pytest.mark.parametrize("payload", [[1, 2], "zero3", 42])
def test_a_body_that_is_not_an_object(client, payload):
    assert_problem(client.post("/v1/plan", json=payload), 422, "validation_error")


def test_non_json_content_type_is_a_415(client):
    response = client.post("/v1/plan", content=b"model=1", headers={"content-type": "text/plain"})
    assert_problem(response, 415, "unsupported_media_type", mentions="text/plain")


def test_unknown_route_and_wrong_method(client):
    assert_problem(client.get("/v1/nowhere"), 404, "not_found", mentions="/v1/nowhere")
    assert_problem(client.get("/v1/plan"), 405, "method_not_allowed")


@pytest.mark.parametrize(
    ("extra", "pointer"),
    [
        ({"gpu_count_grid": []}, "/gpu_count_grid"),
        ({"gpu_count_grid": [8, 8]}, "/gpu_count_grid"),
        ({"gpu_count_grid": [12]}, "/gpu_count_grid"),
        ({"gpu_count_grid": [0]}, "/gpu_count_grid/0"),
        ({"gpu_count_grid": "fibonacci"}, "/gpu_count_grid"),
        ({"max_gpus": 0}, "/max_gpus"),
    ],
)
def test_bad_fit_input(client, extra, pointer):
    body = {"model": {"parameter_count": 10**9}, "cluster": {"gpu": "h100-80gb"}} | extra
    assert_problem(client.post("/v1/fit", json=body), 422, "validation_error", pointer)


def test_a_grid_over_the_limit_is_refused_with_the_count(client):
    body = {
        "model": {"parameter_count": 10**9},
        "cluster": {"gpu": "h100-80gb", "gpus_per_node": 1},
        "gpu_count_grid": "whole_nodes",
        "max_gpus": 10**6,
    }
    assert_problem(client.post("/v1/fit", json=body), 422, "grid_too_large", "/max_gpus", "1000000 counts")


def test_a_grid_with_nothing_up_to_max_gpus(client):
    body = {
        "model": {"parameter_count": 10**9},
        "cluster": {"gpu": "h100-80gb"},
        "gpu_count_grid": "whole_nodes",
        "max_gpus": 4,
    }
    assert_problem(client.post("/v1/fit", json=body), 422, "empty_grid", "/max_gpus")


def test_an_unexpected_error_is_a_500_without_a_stack_trace(monkeypatch):
    from fastapi.testclient import TestClient

    from api.app import create_app
    from service.answers import plan as planner

    def explode(request):
        raise RuntimeError("secret internal detail")

    monkeypatch.setattr(planner, "plan_fields", explode)  # the direct path and plan both call it
    client = TestClient(create_app(), raise_server_exceptions=False)
    body = assert_problem(client.post("/v1/plan", json=plan_body("ddp")), 500, "internal_error")
    assert "secret" not in str(body) and "Traceback" not in str(body)
