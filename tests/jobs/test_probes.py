"""Issue 14, item 6: /readyz and /metrics read the job store off the event loop within a timeout;
a locked or corrupt store is "not ready" (503), and /metrics still answers."""

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.settings import Settings

LOCKED_TIMEOUT_S = 0.3  # a locked store is waited for this long (short: the answer is "not ready" anyway)
GENEROUS_TIMEOUT_S = 10.0  # an answering store answers well within this, even on a loaded machine


def app_with(path: Path, store_timeout_s: float) -> TestClient:
    # worker mode: the store is needed whether or not torch is installed here
    settings = Settings(sim_db_path=str(path), sim_runner="worker", store_timeout_s=store_timeout_s)
    return TestClient(create_app(settings))


@pytest.fixture
def app_client(tmp_path: Path) -> Iterator[TestClient]:
    with app_with(tmp_path / "jobs.sqlite3", LOCKED_TIMEOUT_S) as client:
        yield client


@pytest.fixture
def locked(tmp_path: Path) -> Iterator[None]:
    """Another connection holds SQLite's exclusive lock, which keeps even readers out."""
    db = sqlite3.connect(tmp_path / "jobs.sqlite3", isolation_level=None)
    db.execute("PRAGMA locking_mode=EXCLUSIVE")
    db.execute("BEGIN EXCLUSIVE")
    try:
        yield
    finally:
        db.execute("COMMIT")
        db.close()


def test_a_readable_store_is_ready(tmp_path: Path) -> None:
    with app_with(tmp_path / "jobs.sqlite3", GENEROUS_TIMEOUT_S) as client:
        response = client.get("/readyz")
        assert response.status_code == 200
        assert response.json() == {"status": "ready", "simulation_available": True, "job_store": "ok", "detail": None}
        assert "zeroplan_job_store_up 1.0" in client.get("/metrics").text


def test_a_locked_store_is_not_ready_and_metrics_still_answer(app_client: TestClient, locked: None) -> None:
    response = app_client.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert (body["status"], body["job_store"]) == ("not_ready", "unavailable")
    assert "locked" in body["detail"] or "did not answer" in body["detail"]
    metrics = app_client.get("/metrics")
    assert metrics.status_code == 200
    assert "zeroplan_job_store_up 0.0" in metrics.text
    assert app_client.get("/healthz").status_code == 200


def test_a_locked_store_is_a_503_problem_for_the_job_routes(app_client: TestClient, locked: None) -> None:
    response = app_client.get("/v1/simulations/abc")
    assert response.status_code == 503
    assert response.headers["content-type"].startswith("application/problem+json")
    assert "job store does not answer" in response.json()["detail"]


def test_a_corrupt_store_is_not_ready(tmp_path: Path) -> None:
    path = tmp_path / "jobs.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    with app_with(path, GENEROUS_TIMEOUT_S) as client:  # starts: the planning routes still serve
        response = client.get("/readyz")
        assert response.status_code == 503
        assert response.json()["detail"] == "the job store is corrupt"  # its path stays in the log
        assert client.get("/v1/presets").status_code == 200
