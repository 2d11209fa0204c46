"""A /v1/search refusal points at fields the caller sent (RFC 9457 `errors`, JSON pointers into the request).

Without training.global_batch_size the search sizes the batch as the job's own, micro_batch_size x
gradient_accumulation_steps x the data-parallel degree, and every row's /v1/plan request states it as
training.global_batch_size (at most 100,000,000 sequences). A body /v1/plan answers, whose derived batch passes that
bound, was refused at /training/global_batch_size, a field the caller had not sent; so was a first world size the
job's layout does not divide. The refusals now point at the fields that set the batch. A space past
ZEROPLAN_MAX_SEARCH_LAYOUTS was refused at /restrict whether the caller sent it or not; without it the refusal
points at the world sizes searched.
"""

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.settings import Settings


def resolves(body: dict, pointer: str) -> bool:
    node = body
    for part in pointer.split("/")[1:]:
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def test_a_derived_batch_past_the_bound_is_refused_at_its_factors(client):
    body = {
        "model": {"parameter_count": 1_000_000},
        "cluster": {"world_size": 1024, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "training": {"micro_batch_size": 100_000, "gradient_accumulation_steps": 1000},
    }
    planned = client.post("/v1/plan", json=body | {"arrangement": "ddp"})
    assert planned.status_code == 200, planned.text
    # 100,000 x 1,000 x 1,024 data-parallel GPUs = 102,400,000,000 sequences
    assert planned.json()["parallelism"]["global_batch_size"] == 100_000 * 1000 * 1024
    response = client.post("/v1/search", json=body)
    assert response.status_code == 422, response.text
    problem = response.json()
    pointers = [error["pointer"] for error in problem["errors"]]
    assert pointers == ["/training/micro_batch_size", "/training/gradient_accumulation_steps", "/cluster/world_size"]
    assert all(resolves(body, pointer) for pointer in pointers)
    assert "102,400,000,000 sequences" in problem["detail"] and "100,000,000" in problem["detail"]


def test_only_the_factors_sent_are_named(client):
    body = {
        "model": {"parameter_count": 1_000_000},
        "cluster": {"world_size": 1024, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "training": {"micro_batch_size": 100_000},  # 100,000 x 1 x 1,024 = 102,400,000 sequences
    }
    response = client.post("/v1/search", json=body)
    assert response.status_code == 422, response.text
    assert [error["pointer"] for error in response.json()["errors"]] == [
        "/training/micro_batch_size",
        "/cluster/world_size",
    ]


def test_a_first_world_size_the_layout_does_not_divide_is_refused_at_the_world_size(client):
    body = {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"world_size": [4, 8], "gpus_per_node": 8, "gpu": "h100-80gb"},
        "parallelism": {"tensor": 8},  # 4 GPUs are not a multiple of tensor x pipeline x context = 8
    }
    response = client.post("/v1/search", json=body)
    assert response.status_code == 422, response.text
    assert [error["pointer"] for error in response.json()["errors"]] == ["/cluster/world_size"]


@pytest.mark.parametrize(
    ("model", "restrict", "pointer"),
    [
        ({"preset": "llama-3-8b"}, None, "/cluster/world_size"),
        ({"preset": "llama-3-8b"}, {"recompute": ["none", "full"]}, "/restrict"),
        ({"parameter_count": 7_000_000_000}, None, "/cluster/world_size"),  # data parallelism alone
        ({"parameter_count": 7_000_000_000}, {"recompute": ["none", "full"]}, "/restrict"),
    ],
)
def test_a_space_past_the_limit_is_refused_at_a_field_the_caller_sent(model, restrict, pointer):
    small = TestClient(create_app(Settings(max_search_layouts=10)), base_url="http://127.0.0.1")
    body = {
        "model": model,
        "cluster": {"world_size": [8, 16], "gpus_per_node": 8, "gpu": "h100-80gb"},
        "training": {"global_batch_size": 64},
    } | ({"restrict": restrict} if restrict else {})
    response = small.post("/v1/search", json=body)
    assert response.status_code == 422, response.text
    problem = response.json()
    assert problem["code"] == "search_too_large"
    assert [error["pointer"] for error in problem["errors"]] == [pointer]
    assert resolves(body, pointer)
