"""Every error the shell can return is a problem+json with a request id: 404 405 413 415 422 429 500."""

import json

import pytest
from fastapi import APIRouter
from fastapi.testclient import TestClient

from api.problems import too_many_requests
from tests.service_contract.conftest import PLAN_BODY, app_with, assert_problem, client_with

LIMIT_BYTES = 512


@pytest.fixture(scope="module")
def client():
    return client_with(max_body_bytes=LIMIT_BYTES, access_log=False)


def test_404_for_an_unknown_route(client):
    body = assert_problem(client.get("/v2/plan"), 404, "not_found")
    assert body["instance"] == "/v2/plan"


def test_405_for_a_wrong_method(client):
    response = client.delete("/v1/plan")
    assert_problem(response, 405, "method_not_allowed")
    assert "POST" in response.headers["allow"]


def test_415_for_a_body_that_is_not_json(client):
    response = client.post("/v1/plan", content=b"<plan/>", headers={"content-type": "application/xml"})
    assert_problem(response, 415, "unsupported_media_type")


def test_422_names_the_field(client):
    body = assert_problem(client.post("/v1/plan", json=PLAN_BODY | {"arrangement": "zero9"}), 422, "validation_error")
    assert [e["pointer"] for e in body["errors"]] == ["/arrangement"]


def test_413_from_content_length_before_the_body_is_read(client):
    body = {"model": {"parameter_count": 1}, "padding": "x" * LIMIT_BYTES}
    problem = assert_problem(client.post("/v1/plan", json=body), 413, "payload_too_large")
    assert str(LIMIT_BYTES) in problem["detail"]


def test_413_for_a_streamed_body_without_content_length(client):
    def chunks():
        yield b'{"model": {"parameter_count": 1}, "padding": "'
        for _ in range(LIMIT_BYTES // 64 + 1):
            yield b"x" * 64
        yield b'"}'

    response = client.post("/v1/plan", content=chunks(), headers={"content-type": "application/json"})
    assert "content-length" not in response.request.headers
    assert_problem(response, 413, "payload_too_large")


def test_a_body_at_the_limit_is_read():
    raw = json.dumps(PLAN_BODY).encode()
    tight = TestClient(app_with(max_body_bytes=len(raw), access_log=False))
    response = tight.post("/v1/plan", content=raw, headers={"content-type": "application/json"})
    assert response.status_code == 200, response.text


def _app_with_test_routes():
    app = app_with(access_log=False)
    router = APIRouter()

    @router.post("/v1/test-only/busy")
    async def busy() -> None:
        raise too_many_requests("2 simulation jobs are running; the limit is 2", retry_after_s=7)

    @router.get("/v1/test-only/explode")
    async def explode() -> None:
        raise RuntimeError("secret internal detail at /home/db-password")

    app.include_router(router)
    return app


@pytest.fixture(scope="module")
def test_routes():
    return TestClient(_app_with_test_routes(), raise_server_exceptions=False)


def test_429_with_retry_after(test_routes):
    response = test_routes.post("/v1/test-only/busy", json={})
    body = assert_problem(response, 429, "too_many_requests")
    assert response.headers["retry-after"] == "7"
    assert "limit is 2" in body["detail"]


def test_500_has_a_request_id_and_no_stack_trace(test_routes, logged):
    response = test_routes.get("/v1/test-only/explode", headers={"X-Request-ID": "trace-me-42"})
    body = assert_problem(response, 500, "internal_error")
    assert body["request_id"] == "trace-me-42"
    assert "secret" not in response.text and "Traceback" not in response.text and "RuntimeError" not in response.text
    errors = [line for line in logged.lines if line["level"] == "error"]
    assert errors and errors[0]["request_id"] == "trace-me-42"
    assert "secret internal detail" in errors[0]["traceback"]


def test_the_spec_documents_the_shell_problems():
    spec = client_with().get("/openapi.json").json()
    for path, methods in spec["paths"].items():
        for method, operation in methods.items():
            if not path.startswith("/v1"):
                continue
            expected = {"401", "500"} | ({"400", "413", "415", "422"} if method == "post" else set())
            assert expected <= operation["responses"].keys(), (method, path)
