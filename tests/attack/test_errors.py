"""Finding 6 of the attack on a fresh clone (the app's part; the protocol's is in test_connections): error
pointers name the request's own path, never a validator's internals, and no error repeats more than 200
characters of what the caller sent.

Before: /v1/search pointed at /cluster/world_size/list[function-before[whole_float_as_int(),
constrained-int]]/1; a 100 KB model_type came back in a 200 KB error, a 10 KB job id and an 8 KB Accept
header too."""

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.settings import Settings

ECHO_CHARS = 200
# The problem's own words around an echo: its type, title, detail, instance and request id.
PROBLEM_OVERHEAD_BYTES = 1_000
SEARCH = {
    "model": {"preset": "llama-3.1-8b"},
    "cluster": {"world_size": [8, 8.5], "gpus_per_node": 8, "gpu": "h100-80gb"},
    "training": {"global_batch_size": 64, "sequence_length": 4096},
}
CLUSTER = {"world_size": 8, "gpus_per_node": 8, "gpu": "h100-80gb"}


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(Settings()), raise_server_exceptions=False)


def test_pointers_are_the_requests_own_paths(client):
    response = client.post("/v1/search", json=SEARCH)
    assert response.status_code == 422
    pointers = [error["pointer"] for error in response.json()["errors"]]
    assert "/cluster/world_size/1" in pointers
    for pointer in pointers:
        assert all(c not in pointer for c in "[](),") and "function" not in pointer, pointer


def test_a_missing_field_is_named_at_its_place(client):
    response = client.post("/v1/plan", json={"cluster": CLUSTER, "arrangement": "zero3"})
    assert [error["pointer"] for error in response.json()["errors"]] == ["/model"]


@pytest.mark.parametrize(
    "method,path,kwargs",
    [
        ("post", "/v1/plan", {"json": {"model": {"hf_config": {"model_type": "x" * 100_000}}, "cluster": CLUSTER}}),
        ("get", "/v1/simulations/" + "a" * 10_000, {}),
        ("get", "/v1/presets", {"headers": {"accept": "x/" + "y" * 8_000}}),
        ("get", "/" + "z" * 10_000, {}),
        ("delete", "/v1/plan" + "/q" * 3_000, {}),
    ],
    ids=["model_type", "job id", "accept", "path", "method on a long path"],
)
def test_echoed_input_is_capped(client, method, path, kwargs):
    response = getattr(client, method)(path, **kwargs)
    assert 400 <= response.status_code < 500
    assert response.headers["content-type"] == "application/problem+json"
    # Each echo at most ECHO_CHARS and a note of its length; the detail may echo the path and the instance too.
    assert len(response.content) < 3 * ECHO_CHARS + PROBLEM_OVERHEAD_BYTES, len(response.content)
