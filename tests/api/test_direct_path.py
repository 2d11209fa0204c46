"""The direct path (api.fast) answers exactly what the framework's route answers, and only valid requests.

Each case is sent to two apps: one as built (valid plans take the direct path) and one whose direct
operations are switched off (every request goes through FastAPI's routing). Status, headers and
body must be the same, the request id aside.
"""

import json

import pytest
from fastapi.testclient import TestClient

import api.app
import api.fast
from api.app import create_app
from api.settings import Settings
from models.plan import PlanRequest
from service import planner
from tests.conftest import plan_body

SETTINGS = Settings(access_log=False, max_body_bytes=100_000)
JSON = {"content-type": "application/json"}
PIPELINE_STARVED = {"parallelism": {"pipeline": 4}, "training": {"micro_batch_size": 1, "global_batch_size": 2}}


@pytest.fixture(scope="module")
def direct():
    with TestClient(create_app(SETTINGS)) as client:
        yield client


@pytest.fixture(scope="module")
def framework():
    original = api.app.direct_operations
    api.app.direct_operations = lambda: {}
    try:
        app = create_app(SETTINGS)
    finally:
        api.app.direct_operations = original
    with TestClient(app) as client:
        yield client


@pytest.fixture
def direct_answers(monkeypatch):
    """The requests the direct path answered itself (not handed on to the framework)."""
    answered = []
    real = api.fast._answer

    def spy(operation, scope, body):
        answer = real(operation, scope, body)
        if answer is not None:
            answered.append(body)
        return answer

    monkeypatch.setattr(api.fast, "_answer", spy)
    return answered


def same_answer(direct, framework, **request):
    ours, theirs = direct.post("/v1/plan", **request), framework.post("/v1/plan", **request)
    assert ours.status_code == theirs.status_code
    assert ours.content.replace(ours.headers["x-request-id"].encode(), b"") == theirs.content.replace(
        theirs.headers["x-request-id"].encode(), b""
    )
    drop = {"x-request-id"}
    assert [(k, v) for k, v in ours.headers.items() if k not in drop] == [
        (k, v) for k, v in theirs.headers.items() if k not in drop
    ]
    return ours


def test_a_valid_plan_is_answered_directly_with_the_plan_of_the_core(direct, framework, direct_answers):
    body = plan_body("zero3", world_size=16)
    response = same_answer(direct, framework, json=body)
    assert response.status_code == 200 and len(direct_answers) == 1
    assert response.content == planner.plan(PlanRequest.model_validate(body)).model_dump_json().encode()
    assert set(response.headers) == {"content-length", "content-type", "x-request-id"}
    assert response.headers["content-type"] == "application/json"


@pytest.mark.parametrize(
    ("label", "request_args"),
    [
        ("a field out of its bounds", {"json": plan_body("zero3") | {"arrangement": "zero4"}}),
        ("a boolean where a count goes", {"json": plan_body("zero3", world_size=True)}),
        ("not JSON", {"content": b'{"model": ', "headers": JSON}),
        ("JSON that is not an object", {"json": [1, 2, 3]}),
        ("an empty body", {"content": b"", "headers": JSON}),
        ("NaN, which JSON does not have", {"content": b'{"model": NaN}', "headers": JSON}),
        ("a body that is not JSON by its type", {"content": b"{}", "headers": {"content-type": "text/plain"}}),
        ("a rule the core checks (fewer micro-batches than stages)", {"json": plan_body("zero1") | PIPELINE_STARVED}),
    ],
)
def test_what_is_not_a_valid_plan_goes_to_the_framework(direct, framework, direct_answers, label, request_args):
    response = same_answer(direct, framework, **request_args)
    assert response.status_code >= 400, label
    assert direct_answers == [], label


def test_a_streamed_body_over_the_limit_is_still_a_413(direct, framework, direct_answers):
    def chunks():
        yield b'{"model": {"parameter_count": 1000}, "pad": "'
        for _ in range(30):
            yield b"x" * 5_000
        yield b'"}'

    for client in (direct, framework):
        response = client.post("/v1/plan", content=chunks(), headers={"content-type": "application/json"})
        assert response.status_code == 413
        assert json.loads(response.content)["code"] == "payload_too_large"
    assert direct_answers == []


def test_other_methods_and_paths_are_untouched(direct, framework):
    for method, path in (("GET", "/v1/plan"), ("POST", "/v1/plan/"), ("PUT", "/v1/plan")):
        ours, theirs = direct.request(method, path), framework.request(method, path)
        assert (ours.status_code, ours.headers.get("allow")) == (theirs.status_code, theirs.headers.get("allow"))
