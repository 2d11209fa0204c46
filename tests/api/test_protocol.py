"""The served protocol sends the writes of one event-loop turn together, and nothing is lost or reordered."""

import asyncio
import json
import socket

import httpx
from fastapi.testclient import TestClient

from api.protocol import COALESCE_BYTES, PROTOCOL, CoalescingTransport
from tests.service_contract.conftest import PLAN_BODY, app_with
from tests.service_contract.live import running_server


class RecordingTransport:
    """What the wrapped transport was asked to do, in order."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, bytes]] = []
        self.closing = False

    def write(self, data: bytes) -> None:
        self.calls.append(("write", bytes(data)))

    def close(self) -> None:
        self.calls.append(("close", b""))
        self.closing = True

    def abort(self) -> None:
        self.calls.append(("abort", b""))
        self.closing = True

    def is_closing(self) -> bool:
        return self.closing

    def get_extra_info(self, name: str) -> str:
        return f"info:{name}"


def run_turns(body) -> RecordingTransport:
    async def main() -> RecordingTransport:
        recorded = RecordingTransport()
        transport = CoalescingTransport(recorded, asyncio.get_running_loop())  # type: ignore[arg-type]
        await body(transport, recorded)
        return recorded

    return asyncio.run(main())


def test_the_writes_of_one_turn_go_out_as_one_write_at_its_end():
    async def body(transport, recorded):
        transport.write(b"HTTP/1.1 200 OK\r\n\r\n")
        transport.write(bytearray(b"{}"))
        assert recorded.calls == []
        await asyncio.sleep(0)
        assert recorded.calls == [("write", b"HTTP/1.1 200 OK\r\n\r\n{}")]
        transport.write(b"next")
        await asyncio.sleep(0)

    assert run_turns(body).calls == [("write", b"HTTP/1.1 200 OK\r\n\r\n{}"), ("write", b"next")]


def test_a_large_write_goes_out_at_once():
    async def body(transport, recorded):
        transport.write(b"head")
        transport.write(b"x" * COALESCE_BYTES)
        assert recorded.calls == [("write", b"head" + b"x" * COALESCE_BYTES)]
        await asyncio.sleep(0)
        assert len(recorded.calls) == 1

    run_turns(body)


def test_close_sends_what_is_pending_first_and_abort_drops_it():
    async def closing(transport, recorded):
        transport.write(b"last words")
        transport.close()
        await asyncio.sleep(0)

    assert run_turns(closing).calls == [("write", b"last words"), ("close", b"")]

    async def aborting(transport, recorded):
        transport.write(b"dropped")
        transport.abort()
        await asyncio.sleep(0)

    assert run_turns(aborting).calls == [("abort", b"")]


def test_nothing_is_written_to_a_transport_already_closing_and_the_rest_is_the_transports():
    async def body(transport, recorded):
        transport.write(b"too late")
        recorded.closing = True
        await asyncio.sleep(0)
        assert transport.get_extra_info("peername") == "info:peername" and transport.is_closing()

    assert run_turns(body).calls == []


def test_pipelined_and_kept_alive_requests_are_answered_whole_and_in_order():
    """Three requests in one send on one connection: three complete answers, in the order asked."""
    app = app_with(access_log=False)
    with running_server(app, http=PROTOCOL) as url:
        port = int(url.rsplit(":", 1)[1])
        paths = ["/healthz", "/v1/presets", "/healthz"]
        head = b"GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(b"".join(head % p.encode() for p in paths))
            stream = sock.makefile("rb")
            bodies = []
            for _ in paths:
                status = stream.readline()
                assert status.startswith(b"HTTP/1.1 200"), status
                length = 0
                while (line := stream.readline()) != b"\r\n":
                    name, _, value = line.partition(b":")
                    if name.lower() == b"content-length":
                        length = int(value)
                bodies.append(stream.read(length))
        expected = TestClient(app)
        assert bodies == [expected.get(p).content for p in paths]


def test_a_large_streamed_answer_arrives_whole():
    """A CSV sweep of several times the coalescing threshold, streamed, equals the in-process answer."""
    app = app_with(access_log=False)
    sweep = {"base": PLAN_BODY, "axes": {"world_size": list(range(8, 8 * 1201, 8))}}
    with running_server(app, http=PROTOCOL) as url:
        served = httpx.post(f"{url}/v1/sweep", json=sweep, headers={"accept": "text/csv"}, timeout=60)
    assert served.status_code == 200
    assert len(served.content) > 3 * COALESCE_BYTES
    with TestClient(app) as client:
        assert served.content == client.post("/v1/sweep", json=sweep, headers={"accept": "text/csv"}).content


def test_a_client_waiting_for_100_continue_gets_it_before_sending_its_body():
    """The interim response is written while the request is still open: coalescing must not hold it back."""
    app = app_with(access_log=False)
    body = json.dumps(PLAN_BODY).encode()
    head = (
        b"POST /v1/plan HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nExpect: 100-continue\r\n"
        b"Connection: close\r\nContent-Length: %d\r\n\r\n" % len(body)
    )
    with running_server(app, http=PROTOCOL) as url:
        port = int(url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(head)
            interim = sock.recv(65536)
            assert interim.startswith(b"HTTP/1.1 100 Continue"), interim
            sock.sendall(body)
            chunks = []
            while chunk := sock.recv(65536):
                chunks.append(chunk)
    answer = b"".join(chunks)
    assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
    assert answer.split(b"\r\n\r\n", 1)[1] == TestClient(app).post("/v1/plan", json=PLAN_BODY).content
