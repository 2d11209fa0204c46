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
from service.answers import plan as planner
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

    def spy(operation, answers, body):
        answer = real(operation, answers, body)
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


def test_a_repeated_plan_is_answered_from_the_cache_before_validation(monkeypatch):
    """The direct path keys the answer cache by the body as parsed with its keys sorted: the same request
    written with other spacing or key order is a hit, and neither the validator nor the core runs again."""
    with TestClient(create_app(SETTINGS)) as client:
        body = plan_body("zero2", world_size=32)
        first = client.post("/v1/plan", json=body)
        assert first.status_code == 200

        def fail(*args, **kwargs):
            raise AssertionError("computed again")

        monkeypatch.setattr(planner, "plan_fields", fail)  # what both paths compute with
        reordered = json.dumps(dict(reversed(list(body.items()))), indent=2).encode()
        again = client.post("/v1/plan", content=reordered, headers=JSON)
        assert again.status_code == 200 and again.content == first.content


def test_only_an_answered_request_is_kept_under_its_body():
    """A body that does not validate leaves nothing in the cache: asked again, it is refused again."""
    with TestClient(create_app(SETTINGS)) as client:
        body = plan_body("zero3") | {"arrangement": "zero4"}
        responses = [client.post("/v1/plan", json=body) for _ in range(2)]
        assert [r.status_code for r in responses] == [422, 422]
        assert len(client.app.state.answers) == 0


def test_a_body_that_differs_only_in_how_a_number_is_written_is_answered_alike():
    """30e9 and 30000000000 are different bodies (two cache entries) with one answer."""
    with TestClient(create_app(SETTINGS)) as client:
        body = plan_body("zero3", world_size=16)
        text = json.dumps(body)
        count = str(body["model"]["parameter_count"])
        written_as_float = text.replace(f": {count}", ": " + f"{float(count):e}".replace("+", ""))
        assert written_as_float != text
        answers = [client.post("/v1/plan", content=t.encode(), headers=JSON) for t in (text, written_as_float)]
        assert [a.status_code for a in answers] == [200, 200] and answers[0].content == answers[1].content
        assert len(client.app.state.answers) == 2
