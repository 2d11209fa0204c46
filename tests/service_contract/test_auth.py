"""Bearer auth on /v1 when a token is configured; health, readiness, metrics and docs stay open."""

import pytest

from api import middleware
from tests.service_contract.conftest import PLAN_BODY, TOKEN, assert_problem, client_with

OPEN_PATHS = ["/healthz", "/readyz", "/metrics", "/openapi.json", "/docs"]


def test_without_a_token_configured_v1_is_open():
    client = client_with()
    assert client.post("/v1/plan", json=PLAN_BODY).status_code == 200
    assert client.get("/v1/presets").status_code == 200


@pytest.fixture(scope="module")
def guarded():
    return client_with(api_token=TOKEN)


@pytest.mark.parametrize(("method", "path"), [("POST", "/v1/plan"), ("POST", "/v1/fit"), ("GET", "/v1/presets")])
def test_a_missing_token_is_a_401_with_a_bearer_challenge(guarded, method, path):
    response = guarded.request(method, path, json=PLAN_BODY if method == "POST" else None)
    body = assert_problem(response, 401, "unauthorized")
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert "Authorization: Bearer" in body["detail"]


@pytest.mark.parametrize("header", [f"Bearer {TOKEN}x", "Bearer wrong", f"Basic {TOKEN}", TOKEN, "Bearer "])
def test_a_wrong_token_or_scheme_is_a_401(guarded, header):
    response = guarded.post("/v1/plan", json=PLAN_BODY, headers={"Authorization": header})
    assert_problem(response, 401, "unauthorized")
    assert response.headers["www-authenticate"].startswith("Bearer")


@pytest.mark.parametrize("scheme", ["Bearer", "bearer"])
def test_the_right_token_passes(guarded, scheme):
    response = guarded.post("/v1/plan", json=PLAN_BODY, headers={"Authorization": f"{scheme} {TOKEN}"})
    assert response.status_code == 200, response.text


def test_auth_comes_before_validation(guarded):
    assert_problem(guarded.post("/v1/plan", json={"nonsense": 1}), 401, "unauthorized")


@pytest.mark.parametrize("path", OPEN_PATHS)
def test_operational_routes_stay_open(guarded, path):
    assert guarded.get(path).status_code == 200


def test_a_path_that_merely_starts_with_v1_is_not_guarded(guarded):
    assert_problem(guarded.get("/v1x"), 404, "not_found")


def test_the_comparison_is_constant_time(guarded, monkeypatch):
    calls = []
    real = middleware.hmac.compare_digest

    def spy(a, b):
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(middleware.hmac, "compare_digest", spy)
    guarded.get("/v1/presets", headers={"Authorization": "Bearer nope"})
    assert calls == [(b"nope", TOKEN.encode())]


def test_an_empty_token_setting_means_no_auth(monkeypatch):
    monkeypatch.setenv("ZEROPLAN_API_TOKEN", "")
    from fastapi.testclient import TestClient

    from api.app import create_app

    assert TestClient(create_app()).get("/v1/presets").status_code == 200


def test_the_spec_documents_the_bearer_scheme_as_optional():
    spec = client_with().get("/openapi.json").json()
    assert spec["components"]["securitySchemes"]["bearerAuth"] == {
        "type": "http",
        "scheme": "bearer",
        "description": "ZEROPLAN_API_TOKEN, when set.",
    }
    for path, methods in spec["paths"].items():
        for operation in methods.values():
            if path.startswith("/v1"):
                assert operation["security"] == [{"bearerAuth": []}, {}]
                assert "401" in operation["responses"]
            else:
                assert "security" not in operation
