"""Finding 7 of the attack on a fresh clone: readiness checks the store's write lock, nothing of the store's
location reaches an unauthenticated caller, only allowed Host names are served, the documentation pages
carry the page's security headers, and /metrics can be protected.

Before: /readyz said ready while another process held an exclusive SQLite lock, showed the SQLite file's
absolute path when the store failed, any Host was served (DNS rebinding of a loopback deployment), /docs
and /redoc had no CSP, framing or nosniff headers, and /metrics was open with a token set."""

import sqlite3
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.settings import Settings


def test_readyz_is_not_ready_while_another_process_holds_the_write_lock(tmp_path: Path) -> None:
    db_path = tmp_path / "jobs.sqlite3"
    settings = Settings(sim_runner="worker", sim_db_path=str(db_path), store_timeout_s=0.5)
    with TestClient(create_app(settings)) as client:
        assert client.get("/readyz").status_code == 200
        holder = sqlite3.connect(db_path, isolation_level=None)
        try:
            holder.execute("BEGIN EXCLUSIVE")
            response = client.get("/readyz")
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        assert response.status_code == 503, response.text
        body = response.json()
        assert body["job_store"] == "unavailable"  # locked, or (the probe waits as long) did not answer in time
        assert str(tmp_path) not in response.text and "sqlite3" not in response.text
        assert client.get("/readyz").status_code == 200


def test_a_failing_store_is_described_without_its_path(tmp_path: Path) -> None:
    corrupt = tmp_path / "secret-directory" / "jobs.sqlite3"
    corrupt.parent.mkdir()
    corrupt.write_bytes(b"this is not a database" * 100)
    settings = Settings(sim_runner="worker", sim_db_path=str(corrupt), store_timeout_s=1)
    with TestClient(create_app(settings)) as client:
        response = client.get("/readyz")
    assert response.status_code == 503
    assert "secret-directory" not in response.text and str(tmp_path) not in response.text


@pytest.mark.parametrize(
    "host,served",
    [
        ("127.0.0.1:8000", True),
        ("localhost", True),
        ("[::1]:8000", True),
        ("evil.example:8000", False),
        ("127.0.0.1.nip.io", False),
    ],
)
def test_only_loopback_names_are_served_by_default(host: str, served: bool) -> None:
    client = TestClient(create_app(Settings(allowed_hosts=None)), base_url=f"http://{host}")
    response = client.get("/healthz", headers={"host": host})
    assert (response.status_code == 200) is served, response.text
    if not served:
        assert response.status_code == 400 and response.json()["code"] == "host_not_allowed"


def test_allowed_hosts_are_configurable() -> None:
    client = TestClient(create_app(Settings(allowed_hosts="planner.internal")), base_url="http://planner.internal")
    assert client.get("/healthz").status_code == 200
    assert client.get("/healthz", headers={"host": "localhost"}).status_code == 400


@pytest.mark.parametrize("path", ["/docs", "/redoc"])
def test_the_documentation_pages_carry_security_headers(path: str) -> None:
    response = TestClient(create_app(Settings())).get(path)
    assert response.status_code == 200
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["x-frame-options"] == "DENY"


def test_metrics_need_their_token_when_one_is_set() -> None:
    client = TestClient(create_app(Settings(metrics_token="m-secret")))
    assert client.get("/metrics").status_code == 401
    assert client.get("/metrics", headers={"authorization": "Bearer wrong"}).status_code == 401
    response = client.get("/metrics", headers={"authorization": "Bearer m-secret"})
    assert response.status_code == 200 and "zeroplan_build_info" in response.text
    assert TestClient(create_app(Settings())).get("/metrics").status_code == 200


def test_a_submission_to_a_locked_store_is_a_503_within_the_store_timeout(tmp_path: Path) -> None:
    import time

    db_path = tmp_path / "jobs.sqlite3"
    settings = Settings(sim_runner="worker", sim_db_path=str(db_path), store_timeout_s=0.5)
    with TestClient(create_app(settings)) as client:
        holder = sqlite3.connect(db_path, isolation_level=None)
        try:
            holder.execute("BEGIN EXCLUSIVE")
            began = time.monotonic()
            response = client.post("/v1/simulations", json={"world_size": 2, "steps": 1})
            waited_s = time.monotonic() - began
        finally:
            holder.execute("ROLLBACK")
            holder.close()
    assert response.status_code == 503, response.text
    assert response.json()["code"] == "simulation_unavailable"
    assert str(tmp_path) not in response.text
    assert waited_s < 5.0  # the store timeout (0.5 s), not the store's own 10 s, plus a loaded machine's margin
