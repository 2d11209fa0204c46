"""Request ids, the JSON access log, Prometheus metrics and readiness."""

import io
import json
import logging
import re
import subprocess
import sys

import pytest
from prometheus_client import REGISTRY

from api.app import create_app
from api.logs import ACCESS_LOGGER, ROOT_LOGGER, flush_access_lines, write_access_line
from api.settings import Settings
from tests.service_contract.conftest import PLAN_BODY, client_with


@pytest.fixture(scope="module")
def client():
    return client_with()


def test_a_plain_request_id_is_echoed(client):
    response = client.get("/healthz", headers={"X-Request-ID": "sched-7f3a.42"})
    assert response.headers["x-request-id"] == "sched-7f3a.42"


def test_a_request_id_is_generated_when_absent(client):
    first, second = (client.get("/healthz").headers["x-request-id"] for _ in range(2))
    assert re.fullmatch(r"[0-9a-f]{32}", first) and first != second


@pytest.mark.parametrize("unsafe", ["x" * 129, "has space", 'quote"d', "new{line}"])
def test_an_unsafe_request_id_is_replaced(client, unsafe):
    assert client.get("/healthz", headers={"X-Request-ID": unsafe}).headers["x-request-id"] != unsafe


def test_one_json_access_line_per_request(logged):
    client = client_with()
    response = client.post("/v1/plan", json=PLAN_BODY, headers={"X-Request-ID": "log-me"})
    lines = [line for line in logged.lines if line["logger"] == "zeroplan.access"]
    assert len(lines) == 1
    line = lines[0]
    assert line["method"] == "POST" and line["route"] == "/v1/plan" and line["status"] == response.status_code
    assert line["request_id"] == "log-me" and line["duration_s"] > 0


def test_the_access_log_can_be_turned_off(logged):
    client_with(access_log=False).get("/healthz")
    assert not [line for line in logged.lines if line["logger"] == "zeroplan.access"]


def requests_counted(route: str, status: str, method: str = "POST") -> float:
    labels = {"method": method, "route": route, "status": status}
    return REGISTRY.get_sample_value("zeroplan_http_requests_total", labels) or 0.0


def test_metrics_count_requests_by_route_template_and_status(client):
    before_ok, before_bad = requests_counted("/v1/plan", "200"), requests_counted("/v1/plan", "422")
    client.post("/v1/plan", json=PLAN_BODY)
    client.post("/v1/plan", json=PLAN_BODY)
    client.post("/v1/plan", json={})
    assert requests_counted("/v1/plan", "200") == before_ok + 2
    assert requests_counted("/v1/plan", "422") == before_bad + 1


def test_unknown_paths_share_one_label(client):
    before = requests_counted("<unmatched>", "404", "GET")
    client.get("/no/such/a")
    client.get("/no/such/b")
    assert requests_counted("<unmatched>", "404", "GET") == before + 2


def test_the_metrics_page(client):
    client.post("/v1/plan", json=PLAN_BODY)
    response = client.get("/metrics")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/plain")
    text = response.text
    assert 'zeroplan_http_requests_total{method="POST",route="/v1/plan",status="200"}' in text
    assert 'zeroplan_http_request_duration_seconds_bucket{le="0.005",method="POST",route="/v1/plan"}' in text
    for name in (
        "zeroplan_sweep_cells_total",
        "# TYPE zeroplan_simulation_jobs gauge",
    ):
        assert name in text, name


def test_a_sweep_counts_its_cells(client):
    before = REGISTRY.get_sample_value("zeroplan_sweep_cells_total") or 0.0
    axes = {"world_size": [1, 2, 4, 8, 16, 32, 64], "arrangement": ["ddp", "zero1", "zero2", "zero3"]}
    response = client.post("/v1/sweep", json={"base": {**PLAN_BODY}, "axes": axes})
    assert response.status_code == 200, response.text
    assert REGISTRY.get_sample_value("zeroplan_sweep_cells_total") == before + 7 * 4


def test_readyz_reports_the_simulation_extra_and_the_job_store(client, monkeypatch):
    import service.sim

    if service.sim.sim_available():
        ready = {"status": "ready", "simulation_available": True, "job_store": "ok", "detail": None}
        assert client.get("/readyz").json() == ready
    monkeypatch.setattr(service.sim.importlib.util, "find_spec", lambda name: None)
    unused = {"status": "ready", "simulation_available": False, "job_store": "not_used", "detail": None}
    assert client.get("/readyz").json() == unused


def test_readyz_does_not_import_torch():
    probe = (
        "import sys; from fastapi.testclient import TestClient; from api.app import create_app; "
        "r = TestClient(create_app()).get('/readyz'); assert r.status_code == 200, r.text; "
        "assert 'torch' not in sys.modules, 'readyz imported torch'"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_the_direct_access_line_is_the_formatters_line(monkeypatch):
    """With only the service's JSON handler set up, the access line skips the log record (api.logs): it must
    read exactly as the formatter writes that record."""
    create_app(Settings())  # the JSON handler of configure_logging
    handler = logging.getLogger(ROOT_LOGGER).handlers[0]
    stream = io.StringIO()
    monkeypatch.setattr(handler, "stream", stream)
    fields = {"method": "POST", "route": "/v1/plan", "status": 200, "duration_s": 0.000123, "request_id": "a-1"}
    write_access_line(fields)
    flush_access_lines()  # the line is written by the access log's thread; this writes it now
    (line,) = stream.getvalue().splitlines()
    written = json.loads(line)
    record = logging.getLogger(ACCESS_LOGGER).makeRecord(ACCESS_LOGGER, logging.INFO, "", 0, "request", (), None)
    record.fields = fields
    expected = json.loads(handler.formatter.format(record))
    assert {k: v for k, v in written.items() if k != "time"} == {k: v for k, v in expected.items() if k != "time"}
    assert list(written) == list(expected)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", written["time"])
