"""No single request can stall the service: cost refused up front, a byte budget, a deadline,
cancellation when the client leaves, a limit on heavy requests at once, a header size limit."""

import asyncio
import csv
import io
import socket
import threading
import time
from dataclasses import replace

import httpx
import pytest

from api.protocol import PROTOCOL, ConnectionLimits, HeaderLimitedHttpToolsProtocol
from api.settings import Settings
from api.work import HeavyWork
from models.sweep import SweepRequest
from service.answers.sweep import COLUMNS, SweepCost, sweep_cost
from service.errors import WorkCancelled
from tests.service_contract.conftest import PLAN_BODY, app_with, assert_problem, client_with
from tests.service_contract.live import running_server

# The case: a million cells over accumulation steps, arrangements, MXFP8 and offload.
CATEGORICAL_MILLION = {
    "base": PLAN_BODY,
    "axes": {
        "gradient_accumulation_steps": list(range(1, 31_251)),
        "micro_batch_size": [1, 2],
        "arrangement": ["ddp", "zero1", "zero2", "zero3"],
        "mxfp8": [False, True],
        "offload_optimizer": [False, True],
    },
    "limit": 3,
    "sort_by": "step_s",
}


def test_categorical_axes_cost_one_evaluation_per_combination_not_per_cell():
    cost = sweep_cost(SweepRequest.model_validate(CATEGORICAL_MILLION))
    # 31,250 k x 2 b x 4 arrangements x 2 x 2 = 1,000,000 cells; 4 x 2 x 2 = 16 combinations, each one
    # vectorised evaluation plus 2**2 overflow corners (k and b vary): 16 x 5 = 80 evaluations.
    assert cost == SweepCost(cells=1_000_000, groups=16, corners=4, shape=cost.shape)
    assert cost.evaluations == 80


def test_a_million_categorical_cells_are_answered():
    response = client_with(access_log=False).post("/v1/sweep", json=CATEGORICAL_MILLION)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["cells"] == answer["matched_rows"] == 1_000_000 and answer["rows"] == 3


def test_more_evaluations_than_the_limit_are_refused_before_any_work():
    client = client_with(access_log=False, max_sweep_evaluations=79)
    body = assert_problem(client.post("/v1/sweep", json=CATEGORICAL_MILLION), 422, "sweep_too_large")
    assert "80 evaluations" in body["detail"] and body["errors"][0]["pointer"] == "/axes"


SMALL_SWEEP = {"base": PLAN_BODY, "axes": {"world_size": [8, 16, 32, 64], "arrangement": ["zero2", "zero3"]}}


def test_an_answer_over_the_byte_budget_is_refused_up_front():
    client = client_with(access_log=False, max_response_bytes=4096)
    # 64 rows of len(COLUMNS) values, each at least a character and a separator, pass 4,096 bytes.
    wide = {"base": PLAN_BODY, "axes": {"world_size": [8 * i for i in range(1, 33)], "arrangement": ["zero2", "zero3"]}}
    assert 64 * 2 * len(COLUMNS) > 4096
    body = assert_problem(client.post("/v1/sweep", json=wide), 422, "response_too_large")
    # no `limit` was sent: the pointer names the axes (it named /limit, a field the caller did not send)
    assert body["errors"][0]["pointer"] == "/axes" and "4,096 bytes" in body["detail"]
    assert "would hold up to 64 rows" in body["detail"]
    limited = assert_problem(client.post("/v1/sweep", json=wide | {"limit": 40}), 422, "response_too_large")
    assert limited["errors"][0]["pointer"] == "/limit"
    # The same sweep paged to one row fits.
    assert client.post("/v1/sweep", json=wide | {"limit": 1}).status_code == 200


def test_an_answer_that_passes_the_budget_while_encoding_is_refused():
    client = client_with(access_log=False, max_response_bytes=1024)
    for accept in ("application/json", "text/csv"):
        response = client.post("/v1/sweep", json=SMALL_SWEEP | {"fits_only": True}, headers={"accept": accept})
        assert_problem(response, 422, "response_too_large")


def test_csv_and_json_carry_the_same_table():
    client = client_with(access_log=False)
    columns = client.post("/v1/sweep", json=SMALL_SWEEP).json()["columns"]
    text = client.post("/v1/sweep", json=SMALL_SWEEP, headers={"accept": "text/csv"}).text
    table = list(csv.DictReader(io.StringIO(text)))
    assert list(table[0]) == list(columns) and len(table) == 8
    for i, row in enumerate(table):
        for name, values in columns.items():
            value = values[i]
            expected = str(value).lower() if isinstance(value, bool) else str(value)
            assert row[name] == expected or float(row[name]) == pytest.approx(value, rel=1e-15), (name, row[name])


def test_work_past_its_deadline_is_stopped():
    client = client_with(access_log=False, work_deadline_s=1e-9)
    assert_problem(client.post("/v1/sweep", json=SMALL_SWEEP), 503, "deadline_exceeded")


def test_limits_is_heavy_work_under_the_same_deadline():
    # /v1/limits bisects per arrangement and checks its budget between arrangements.
    client = client_with(access_log=False, work_deadline_s=1e-9, answer_cache_bytes=0)
    assert_problem(client.post("/v1/limits", json=PLAN_BODY), 503, "deadline_exceeded")
    assert client_with(access_log=False).post("/v1/limits", json=PLAN_BODY).status_code == 200


class FakeRequest:
    """A request whose client has already gone: its receive channel answers http.disconnect."""

    async def receive(self):
        return {"type": "http.disconnect"}


def test_the_client_leaving_cancels_the_work():
    started = threading.Event()

    def work(budget):
        started.set()
        for _ in range(10_000):  # at most 10 s; the disconnect cancels it at once
            budget.check()
            time.sleep(0.001)
        raise AssertionError("the budget was never cancelled")

    heavy = HeavyWork(max_concurrent=1, deadline_s=60)
    with pytest.raises(WorkCancelled):
        asyncio.run(heavy.run(FakeRequest(), work))  # type: ignore[arg-type]
    assert started.is_set() and heavy.running == 0


def held_slot_scenario(monkeypatch, **settings):
    """One figure holds the only heavy slot; then a sweep asks for one, and the figure is let go."""
    from api.routes import figures

    release, entered = threading.Event(), threading.Event()

    def blocking_draw(*args):
        entered.set()
        assert release.wait(30)
        return b"\x89PNG"

    monkeypatch.setattr(figures, "draw", blocking_draw)
    # In threads (heavy_work_processes=False), where the patched drawing runs.
    app = app_with(access_log=False, max_concurrent_heavy_requests=1, heavy_work_processes=False, **settings)

    async def scenario(wait_for_the_queue: bool):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            query = {"gpu": "seed-80gb", "parameter_count": 30_000_000_000}
            first = asyncio.create_task(client.get("/v1/figures/traffic", params=query))
            for _ in range(3000):  # at most 30 s
                if entered.is_set() or first.done():
                    break
                await asyncio.sleep(0.01)
            assert entered.is_set(), (await first).text
            second = asyncio.create_task(client.post("/v1/sweep", json=SMALL_SWEEP))
            if wait_for_the_queue:
                for _ in range(3000):  # at most 30 s for the sweep to start waiting for the slot
                    if app.state.heavy.waiting == 1 or second.done():
                        break
                    await asyncio.sleep(0.01)
                assert app.state.heavy.waiting == 1
            else:
                await second
            release.set()
            return await first, await second

    return scenario


def test_heavy_requests_over_the_limit_get_a_429_with_retry_after(monkeypatch):
    scenario = held_slot_scenario(monkeypatch, heavy_queue_wait_s=0)
    first, second = asyncio.run(scenario(False))
    assert first.status_code == 200
    problem = assert_problem(second, 429, "too_many_requests")
    assert second.headers["retry-after"] == "1" and "limit of 1" in problem["detail"]


def test_a_heavy_request_waits_for_a_slot_within_the_queue_wait(monkeypatch):
    scenario = held_slot_scenario(monkeypatch, heavy_queue_wait_s=60)
    first, second = asyncio.run(scenario(True))
    assert first.status_code == 200 and second.status_code == 200, second.text


def raw_request(url: str, head: bytes) -> bytes:
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        try:
            sock.sendall(head)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server may close before the whole head is written
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
        return b"".join(chunks)


def test_request_headers_over_the_limit_get_a_431(monkeypatch):
    limits = replace(ConnectionLimits.from_settings(Settings()), max_header_bytes=8 * 1024)
    monkeypatch.setattr(HeaderLimitedHttpToolsProtocol, "limits", limits)
    with running_server(app_with(access_log=False), http=PROTOCOL) as url:
        big = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 64 * 1024 + b"\r\n\r\n"
        answer = raw_request(url, big)
        assert answer.startswith(b"HTTP/1.1 431"), answer[:200]
        assert b'"code":"request_headers_too_large"' in answer
        small = (
            b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Small: "
            + b"a" * 4 * 1024
            + b"\r\nConnection: close\r\n\r\n"
        )
        assert raw_request(url, small).startswith(b"HTTP/1.1 200")
        # A body larger than the header limit is no head: it reaches the app.
        payload = b'{"padding": "' + b"x" * 32 * 1024 + b'"}'
        head = b"POST /v1/plan HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nConnection: close\r\n"
        answer = raw_request(url, head + b"Content-Length: %d\r\n\r\n" % len(payload) + payload)
        assert answer.startswith(b"HTTP/1.1 422"), answer[:200]
