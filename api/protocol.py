"""uvicorn's httptools protocol with a limit on the request line and headers (431 beyond it), and
a response's head and body sent in one write.

uvicorn bounds h11's incomplete events (``h11_max_incomplete_event_size``) but not httptools',
its default when installed: a client could stream megabytes of one header and the server would
keep them in memory and parse them. This protocol counts the bytes a request's head takes and,
past ZEROPLAN_MAX_HEADER_BYTES, answers 431 Request Header Fields Too Large (RFC 6585, section
5) as a problem and closes the connection, before the head reaches the app.

uvicorn writes a response's head and its body with one ``transport.write`` each, so every answer
costs two send calls, two TCP segments and two wake-ups of the client. ``CoalescingTransport``
keeps the writes made within one turn of the event loop and sends them together at the end of
it (what TCP_CORK does in the kernel, without its system calls); past ``COALESCE_BYTES`` pending,
or when the connection closes, it sends at once, so a large or streamed body is not held back.

Serve with ``uvicorn.run(..., http="api.protocol:HeaderLimitedHttpToolsProtocol")``; the limit is
read once per process from the settings.
"""

import asyncio
from typing import Any

import orjson
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from api.settings import Settings
from models.problem import PROBLEM_MEDIA_TYPE, PROBLEM_TYPE_BASE, ProblemCode

PROTOCOL = "api.protocol:HeaderLimitedHttpToolsProtocol"


def headers_too_large_response(limit_bytes: int) -> bytes:
    body = orjson.dumps(
        {
            "type": PROBLEM_TYPE_BASE + "request-headers-too-large",
            "title": "Request Header Fields Too Large",
            "status": 431,
            "detail": f"the request line and headers are larger than {limit_bytes:,} bytes (ZEROPLAN_MAX_HEADER_BYTES)",
            "code": ProblemCode.request_headers_too_large.value,
        }
    )
    head = (
        "HTTP/1.1 431 Request Header Fields Too Large\r\n"
        f"content-type: {PROBLEM_MEDIA_TYPE}\r\ncontent-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + body


COALESCE_BYTES = 64 * 1024  # pending bytes past which a write goes out at once


class CoalescingTransport:
    """A transport whose writes within one turn of the event loop go out as one write; all else is the
    wrapped transport's."""

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._pending: list[bytes] = []
        self._pending_bytes = 0

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not self._pending:
            self._loop.call_soon(self.flush)
        self._pending.append(bytes(data))
        self._pending_bytes += len(data)
        if self._pending_bytes >= COALESCE_BYTES:
            self.flush()

    def flush(self) -> None:
        if not self._pending:
            return
        data = self._pending[0] if len(self._pending) == 1 else b"".join(self._pending)
        self._pending.clear()
        self._pending_bytes = 0
        if not self._transport.is_closing():
            self._transport.write(data)

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def abort(self) -> None:
        self._pending.clear()
        self._pending_bytes = 0
        self._transport.abort()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class HeadTooLarge(Exception):
    """Raised from a parser callback to stop parsing a head over the limit."""


class HeaderLimitedHttpToolsProtocol(HttpToolsProtocol):
    max_header_bytes: int | None = None  # from the settings, on first use

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if HeaderLimitedHttpToolsProtocol.max_header_bytes is None:
            HeaderLimitedHttpToolsProtocol.max_header_bytes = Settings().max_header_bytes
        self._head_bytes = 0  # request line and headers parsed so far
        self._raw_bytes = 0  # bytes received while the head is incomplete
        self._head_done = False
        self._head_too_large = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(CoalescingTransport(transport, self.loop))  # type: ignore[arg-type]

    @property
    def _limit(self) -> int:
        return self.max_header_bytes or 0

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._head_bytes = 0
        self._raw_bytes = 0
        self._head_done = False

    def on_url(self, url: bytes) -> None:
        self._head_bytes += len(url)
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._head_bytes += len(name) + len(value) + 4  # "name: value\r\n"
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._head_done = True
        if self._head_bytes > self._limit:
            self._head_too_large = True
            raise HeadTooLarge  # httptools stops; uvicorn answers through send_400_response
        super().on_headers_complete()

    def send_400_response(self, msg: str) -> None:
        if not self._head_too_large:
            super().send_400_response(msg)
            return
        self.transport.write(headers_too_large_response(self._limit))
        self.transport.close()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self._head_done or self.transport.is_closing():
            return
        # A head still incomplete: everything received since this request began belongs to it.
        self._raw_bytes += len(data)
        if self._raw_bytes > self._limit:
            self._head_too_large = True
            self.send_400_response("")
