"""The shell's small contract: 406 on Accept, docs served offline and labelled, build and cache metrics,
RFC 3339 job times and JSON start-up lines from uvicorn itself."""

import json
import os
import socket
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from prometheus_client import REGISTRY

from api.docs import assets_dir
from models.simulation import SimulationJob
from tests.service_contract.conftest import FIT_BODY, PLAN_BODY, assert_problem, client_with

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def client():
    return client_with()


@pytest.mark.parametrize(
    ("path", "accept"),
    [("/v1/fit", "text/csv"), ("/v1/plan", "image/png"), ("/v1/plan", "application/json;q=0, text/html")],
)
def test_json_operations_refuse_an_accept_they_cannot_meet(client, path, accept):
    body = FIT_BODY if path == "/v1/fit" else PLAN_BODY
    response = client.post(path, json=body, headers={"Accept": accept})
    problem = assert_problem(response, 406, "not_acceptable")
    assert "application/json" in problem["detail"]


@pytest.mark.parametrize("accept", ["application/json", "*/*", "application/*", "text/csv;q=0.5, */*;q=0.1", ""])
def test_json_operations_accept_what_covers_json(client, accept):
    assert client.post("/v1/plan", json=PLAN_BODY, headers={"Accept": accept}).status_code == 200


def test_a_figure_in_an_unsupported_type_is_a_406(client):
    query = "parameter_count=30000000000&gpu=seed-80gb"
    response = client.get(f"/v1/figures/memory-vs-gpus?{query}", headers={"Accept": "image/webp"})
    problem = assert_problem(response, 406, "not_acceptable")
    assert "image/png" in problem["detail"] and "image/svg+xml" in problem["detail"]
    svg = client.get(f"/v1/figures/memory-vs-gpus?{query}", headers={"Accept": "image/svg+xml"})
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")


def test_the_sweep_still_answers_csv(client):
    body = {"base": PLAN_BODY, "axes": {"world_size": [8, 16]}}
    response = client.post("/v1/sweep", json=body, headers={"Accept": "text/csv"})
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/csv")


def test_docs_pages_point_at_assets_served_here(client):
    for path, asset in (("/docs", "swagger-ui-bundle.js"), ("/redoc", "redoc.standalone.js")):
        page = client.get(path)
        assert page.status_code == 200
        assert "http://" not in page.text and "https://" not in page.text.replace("https://zeroplan", ""), path
        assert f"/docs/assets/{asset}" in page.text
        served = client.get(f"/docs/assets/{asset}")
        assert served.status_code == 200 and served.content == (assets_dir() / asset).read_bytes()
    assert client.get("/docs/assets/swagger-ui.css").status_code == 200


def counted(route: str) -> float:
    labels = {"method": "GET", "route": route, "status": "200"}
    return REGISTRY.get_sample_value("zeroplan_http_requests_total", labels) or 0.0


@pytest.mark.parametrize(
    ("path", "route"),
    [
        ("/docs", "/docs"),
        ("/redoc", "/redoc"),
        ("/openapi.json", "/openapi.json"),
        ("/docs/assets/swagger-ui.css", "/docs/assets/{path:path}"),
        ("/", "/"),
    ],
)
def test_docs_and_page_routes_have_their_own_metric_label(client, path, route):
    before = counted(route)
    assert client.get(path).status_code == 200
    assert counted(route) == before + 1


def test_build_info(client):
    text = client.get("/metrics").text
    line = next(line for line in text.splitlines() if line.startswith("zeroplan_build_info{"))
    assert 'version="0.1.0"' in line and line.endswith(" 1.0")


def cache_lookups(operation: str, result: str) -> float:
    labels = {"operation": operation, "result": result}
    return REGISTRY.get_sample_value("zeroplan_answer_cache_requests_total", labels) or 0.0


def test_answer_cache_hits_and_misses_are_counted():
    client = client_with()
    body = PLAN_BODY | {"cluster": PLAN_BODY["cluster"] | {"world_size": 4}}
    hits, misses = cache_lookups("plan", "hit"), cache_lookups("plan", "miss")
    for _ in range(3):
        assert client.post("/v1/plan", json=body).status_code == 200
    assert cache_lookups("plan", "miss") == misses + 1
    assert cache_lookups("plan", "hit") == hits + 2


def test_job_times_are_rfc3339_utc():
    request = {"world_size": 2, "arrangements": ["ddp"], "steps": 1, "parameter_count": 1000}
    job = SimulationJob.model_validate(
        {"id": "j", "status": "queued", "created_at": 1_700_000_000.25, "updated_at": 1_700_000_001, "request": request}
    )
    dumped = job.model_dump(mode="json")
    assert dumped["created_at"] == "2023-11-14T22:13:20.250000Z"
    assert datetime.fromisoformat(dumped["updated_at"]) == datetime(2023, 11, 14, 22, 13, 21, tzinfo=UTC)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_serve_writes_only_json_lines_uvicorn_included(tmp_path):
    port = free_port()
    env = os.environ | {"ZEROPLAN_PORT": str(port), "ZEROPLAN_SIM_DB_PATH": str(tmp_path / "jobs.sqlite3")}
    server = subprocess.Popen(
        [sys.executable, "-m", "cli", "serve", "--host", "127.0.0.1"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            assert server.poll() is None and time.monotonic() < deadline, "the server did not start"
            try:
                if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
    finally:
        server.terminate()
        out, err = server.communicate(timeout=30)
    lines = [line for line in (out + err).splitlines() if line.strip()]
    parsed = [json.loads(line) for line in lines]  # raises on any line that is not JSON
    assert any(p["logger"].startswith("uvicorn") and str(port) in p["message"] for p in parsed), lines
