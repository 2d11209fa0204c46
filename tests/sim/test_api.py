"""Acceptance 5 of issue 5: the simulation job lifecycle over HTTP (start, poll, result, cancel,
limit, restart), 404 for an unknown id, 422 over a limit, 503 without torch."""

import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.settings import Settings
from tests.sim.helpers import group_members

pytestmark = [pytest.mark.sim, pytest.mark.sim_timeout(90)]

SMALL = {
    "world_size": 2,
    "arrangements": ["ddp", {"shard_optimizer": True, "shard_gradients": True, "shard_parameters": True}],
    "steps": 2,
    "parameter_count": 5_000,
}
LONG = {"world_size": 2, "arrangements": ["zero3"], "steps": 100, "parameter_count": 4_000_000}


def client(db: Path, **settings: Any) -> TestClient:
    return TestClient(create_app(Settings(sim_db_path=str(db), **settings)))


def poll(http: TestClient, location: str, timeout_s: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        job = http.get(location).json()
        if job["status"] not in ("queued", "running"):
            return job
        time.sleep(0.2)
    raise AssertionError(f"{location} still running after {timeout_s} s")


def test_start_poll_result_and_restart(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    db = tmp_path / "jobs.sqlite3"
    with client(db) as http:
        started = http.post("/v1/simulations", json=SMALL)
        assert started.status_code == 202, started.text
        job = started.json()
        assert job["status"] in ("queued", "running")
        assert started.headers["location"] == f"/v1/simulations/{job['id']}"
        assert int(started.headers["retry-after"]) >= 1
        done = poll(http, started.headers["location"])
    assert done["status"] == "succeeded", done["error"]
    report = done["report"]
    assert [a["arrangement"] for a in report["arrangements"]] == ["ddp", "zero3"]
    for arrangement in report["arrangements"]:
        assert arrangement["payload_matches"] and arrangement["memory_matches"]
        for c in arrangement["collectives"]:
            assert set(c) >= {"name", "formula_bytes", "payload_bytes", "wire_bytes"}
        for m in arrangement["memory"]:
            assert set(m) >= {"state", "formula_bytes", "resident_bytes"}
        assert arrangement["learning"]["identical"] and arrangement["gradient_check"]["passed"]
    with client(db) as restarted:  # a new app on the same file: the finished job is still there
        again = restarted.get(f"/v1/simulations/{job['id']}")
        assert again.status_code == 200
        assert again.json()["status"] == "succeeded"
        assert again.json()["report"] == report
        metrics = restarted.get("/metrics").text
    # the jobs-by-state gauge is read from the store: the one finished job, nothing running
    assert 'zeroplan_simulation_jobs{state="succeeded"} 1.0' in metrics
    assert 'zeroplan_simulation_jobs{state="running"} 0.0' in metrics


def test_limit_429_and_cancel_kills_the_processes(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    settings = {"sim_max_concurrent_jobs": 1, "sim_max_queued_jobs": 0, "sim_max_steps": 100}
    with client(tmp_path / "jobs.sqlite3", **settings) as http:
        first = http.post("/v1/simulations", json=LONG)
        assert first.status_code == 202, first.text
        job_id = first.json()["id"]
        second = http.post("/v1/simulations", json=SMALL)
        assert second.status_code == 429
        assert second.headers["content-type"].startswith("application/problem+json")
        assert second.json()["code"] == "too_many_requests"
        assert int(second.headers["retry-after"]) >= 1
        pgid = _wait_for_pgid(http, job_id)
        _wait_for_ranks(pgid, 3)  # the launcher and its two ranks
        cancelled = http.delete(f"/v1/simulations/{job_id}")
        assert cancelled.status_code == 200
        assert cancelled.json()["status"] == "cancelled"
        assert group_members(pgid) == []
        assert http.get(f"/v1/simulations/{job_id}").json()["status"] == "cancelled"
        third = http.post("/v1/simulations", json=SMALL)  # the slot is free again
        assert third.status_code == 202
        assert poll(http, third.headers["location"])["status"] == "succeeded"


def _wait_for_pgid(http: TestClient, job_id: str, timeout_s: float = 30) -> int:
    deadline = time.monotonic() + timeout_s
    while (pgid := http.app.state.sim_jobs.runner.pgid(job_id)) is None:
        assert time.monotonic() < deadline, "the job did not start"
        time.sleep(0.05)
    return pgid


def _wait_for_ranks(pgid: int, count: int, timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while len(group_members(pgid)) < count:
        assert time.monotonic() < deadline, "the ranks did not start"
        time.sleep(0.1)


def test_unknown_id_is_404(tmp_path: Path) -> None:
    with client(tmp_path / "jobs.sqlite3") as http:
        for method in (http.get, http.delete):
            response = method("/v1/simulations/nope")
            assert response.status_code == 404
            assert response.json()["code"] == "not_found"


def test_over_the_limits_is_422_with_pointers(tmp_path: Path) -> None:
    with client(tmp_path / "jobs.sqlite3") as http:
        response = http.post("/v1/simulations", json={**SMALL, "world_size": 9, "parameter_count": 4_000_001})
    assert response.status_code == 422
    assert {e["pointer"] for e in response.json()["errors"]} == {"/world_size", "/parameter_count"}


def test_fault_naming_a_missing_rank_is_422(tmp_path: Path) -> None:
    with client(tmp_path / "jobs.sqlite3") as http:
        body = {**SMALL, "faults": [{"kind": "slow_rank", "rank": 2, "delay_s": 0.1}]}
        response = http.post("/v1/simulations", json=body)
    assert response.status_code == 422
    assert "ranks are 0..1" in response.json()["detail"]


def test_without_torch_503_names_the_sim_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import service.sim

    monkeypatch.setattr(service.sim, "sim_available", lambda: False)
    with client(tmp_path / "jobs.sqlite3") as http:
        response = http.post("/v1/simulations", json=SMALL)
    assert response.status_code == 503
    assert response.json()["code"] == "simulation_unavailable"
    assert "zeroplan[sim]" in response.json()["detail"]


def test_sim_package_and_routes_import_without_torch() -> None:
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['torch'] = None\n"
        "import service.sim, service.sim.jobs, service.sim.report, api.routes.simulations, models.simulation\n"
        "print('ok')"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert out.stdout.strip() == "ok", out.stderr
