"""The access log never stalls a request: its lines are written by a thread, and a reader of stderr that
stops reading costs lines past a bound (counted), never the service's answers (api.logs)."""

import io
import json
import logging
import threading
import time

from fastapi.testclient import TestClient
from prometheus_client import REGISTRY

from api.app import create_app
from api.logs import ROOT_LOGGER, AccessLines, flush_access_lines
from api.settings import Settings
from tests.conftest import plan_body

WAIT_S = 20.0  # the bound on every wait below: a failing test ends, it does not hang


class StalledStream(io.StringIO):
    """A stream whose writes wait until it is released, as a write to a full pipe waits for its reader."""

    def __init__(self) -> None:
        super().__init__()
        self.released = threading.Event()
        self.writing = threading.Event()

    def write(self, text: str) -> int:
        self.writing.set()
        self.released.wait(WAIT_S)
        return super().write(text)


def json_handler() -> logging.StreamHandler:  # type: ignore[type-arg]
    create_app(Settings())  # installs the service's JSON handler (api.logs.configure_logging)
    return logging.getLogger(ROOT_LOGGER).handlers[0]  # type: ignore[return-value]


def lines_of(stream: io.StringIO) -> list[dict]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_plans_are_answered_while_the_log_reader_has_stopped(monkeypatch):
    # Finding 8's cause: the access line was written on the event loop, so a stderr reader that paused (a full
    # pipe) stalled every request until it read again.
    handler = json_handler()
    flush_access_lines()  # an earlier test's lines still queued would reach the stalled stream and be counted here
    stalled = StalledStream()
    monkeypatch.setattr(handler, "stream", stalled)
    # the service's set-up, one JSON handler alone: a handler an earlier test's caplog left takes lines itself
    monkeypatch.setattr(logging.getLogger(ROOT_LOGGER), "handlers", [handler])
    client = TestClient(create_app(Settings()), base_url="http://127.0.0.1")
    answered: list[int] = []

    def ask() -> None:
        for i in range(40):
            answered.append(client.post("/v1/plan", json=plan_body("zero3", parameter_count=10**9 + i)).status_code)

    asking = threading.Thread(target=ask, daemon=True)
    try:
        asking.start()
        asking.join(WAIT_S)
        assert not asking.is_alive(), f"{len(answered)} of 40 plans answered while the log's reader was stopped"
        assert answered == [200] * 40
    finally:
        stalled.released.set()
    flush_access_lines()
    logged = [line for line in lines_of(stalled) if line["logger"] == "zeroplan.access"]
    assert len(logged) == 40 and {line["route"] for line in logged} == {"/v1/plan"}


def test_lines_reach_the_stream_in_order_without_a_flush():
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    lines = AccessLines(max_bytes=2**20, interval_s=0.001)
    for i in range(100):
        lines.add(handler, json.dumps({"n": i}) + "\n")
    deadline = time.monotonic() + WAIT_S
    while stream.getvalue().count("\n") < 100 and time.monotonic() < deadline:
        time.sleep(0.005)
    assert [line["n"] for line in lines_of(stream)] == list(range(100))
    # Nothing left: the writer sleeps until a line comes, and that line wakes it.
    while not lines._writer_idle and time.monotonic() < deadline:
        time.sleep(0.005)
    assert lines._writer_idle
    lines.add(handler, json.dumps({"n": 100}) + "\n")
    while stream.getvalue().count("\n") < 101 and time.monotonic() < deadline:
        time.sleep(0.005)
    assert [line["n"] for line in lines_of(stream)] == list(range(101))


def test_past_the_bound_lines_are_dropped_counted_and_reported_when_the_reader_returns():
    stalled = StalledStream()
    handler = logging.StreamHandler(stalled)
    line = json.dumps({"n": 0}) + "\n"  # 9 bytes
    lines = AccessLines(max_bytes=10 * len(line), interval_s=0.001)
    before = REGISTRY.get_sample_value("zeroplan_access_log_dropped_lines_total") or 0.0
    lines.add(handler, line)
    assert stalled.writing.wait(WAIT_S)  # the writer holds that line, waiting on the stalled reader
    for _ in range(25):
        lines.add(handler, line)  # 10 wait in memory, 15 are past the bound
    stalled.released.set()
    lines.flush()
    written = lines_of(stalled)
    assert written[:11] == [{"n": 0}] * 11
    (warning,) = written[11:]
    assert warning["level"] == "warning" and warning["message"] == "access lines dropped"
    assert warning["dropped_lines"] == 15
    assert REGISTRY.get_sample_value("zeroplan_access_log_dropped_lines_total") == before + 15
