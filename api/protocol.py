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

Connection hygiene (a connection costs a file descriptor whether or not it ever sends a request):

- a request's head must arrive within ``ZEROPLAN_HEAD_TIMEOUT_S`` of the connection opening or of
  the previous answer, however slowly its bytes trickle in; its body within ``ZEROPLAN_BODY_TIMEOUT_S``
  of its head (the app then sees the client leave). Between requests uvicorn's own keep-alive
  timeout (``ZEROPLAN_KEEP_ALIVE_TIMEOUT_S``) closes a quiet connection sooner;
- at most ``ZEROPLAN_MAX_CONNECTIONS`` open at once, and never more than the process's file limit
  less ``FD_RESERVE`` (files, the job store, worker pipes). A connection past the cap closes the
  longest-idle one (no request in the app) to make room, so /healthz is still answered when idle
  or slow sockets fill the cap; when every connection has a request in the app the newcomer gets a
  503 problem and is closed. Either is logged (``zeroplan.connections``, at most once a second);
- malformed requests (a bad Content-Length, chunk size or method, a bare LF, a NUL in a header) are
  answered 400 as a problem (``application/problem+json``), as every other error is.

Serve with ``uvicorn.run(..., http="api.protocol:HeaderLimitedHttpToolsProtocol")``; the limits are
read once per process from the settings.
"""

import asyncio
import logging
import resource
import time
from dataclasses import dataclass
from itertools import chain
from typing import Any

import orjson
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from api.settings import Settings
from models.problem import PROBLEM_MEDIA_TYPE, PROBLEM_TYPE_BASE, ProblemCode

PROTOCOL = "api.protocol:HeaderLimitedHttpToolsProtocol"


log = logging.getLogger("zeroplan.connections")
FD_RESERVE = 64  # file descriptors kept for files, the job store, worker pipes and logs
LOG_EVERY_S = 1.0


def problem_response(status: int, title: str, code: ProblemCode, detail: str) -> bytes:
    """A whole HTTP/1.1 answer with a problem body that closes the connection (written by the protocol,
    before or outside the app)."""
    slug = code.value.replace("_", "-")
    body = orjson.dumps(
        {"type": PROBLEM_TYPE_BASE + slug, "title": title, "status": status, "detail": detail, "code": code.value}
    )
    head = (
        f"HTTP/1.1 {status} {title}\r\n"
        f"content-type: {PROBLEM_MEDIA_TYPE}\r\ncontent-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + body


def headers_too_large_response(limit_bytes: int) -> bytes:
    return problem_response(
        431,
        "Request Header Fields Too Large",
        ProblemCode.request_headers_too_large,
        f"the request line and headers are larger than {limit_bytes:,} bytes (ZEROPLAN_MAX_HEADER_BYTES)",
    )


def malformed_request_response() -> bytes:
    return problem_response(
        400,
        "Bad Request",
        ProblemCode.malformed_request,
        "the request is not valid HTTP/1.1 (RFC 9112): its request line, a header, its Content-Length or its "
        "chunked framing could not be read",
    )


def too_many_connections_response(cap: int) -> bytes:
    return problem_response(
        503,
        "Service Unavailable",
        ProblemCode.too_many_connections,
        f"{cap:,} connections are open, each with a request in progress (ZEROPLAN_MAX_CONNECTIONS); retry shortly",
    )


@dataclass(frozen=True)
class ConnectionLimits:
    max_header_bytes: int
    head_timeout_s: float
    body_timeout_s: float
    max_connections: int  # the cap in force: the setting, or the file limit less FD_RESERVE

    @classmethod
    def from_settings(cls, settings: Settings) -> "ConnectionLimits":
        return cls(
            settings.max_header_bytes,
            settings.head_timeout_s,
            settings.body_timeout_s,
            connection_cap(settings.max_connections),
        )


def connection_cap(max_connections: int) -> int:
    """The setting, but never past the process's open-file limit less FD_RESERVE."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return max_connections
    return max(1, min(max_connections, soft - FD_RESERVE))


class _RateLimitedLog:
    def __init__(self) -> None:
        self.last = 0.0
        self.suppressed = 0

    def warning(self, message: str, **fields: Any) -> None:
        now = time.monotonic()
        if now - self.last < LOG_EVERY_S:
            self.suppressed += 1
            return
        fields["suppressed_since_last"] = self.suppressed
        self.last, self.suppressed = now, 0
        log.warning(message, extra={"fields": fields})


_refusals = _RateLimitedLog()


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

    def is_closing(self) -> bool:
        # Asked several times per request (uvicorn's protocol, the deadlines): defined here, not found through
        # __getattr__, which CPython reaches only after a failed lookup has raised AttributeError (0.98 -> 0.25 us).
        return self._transport.is_closing()

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
    # The callbacks a request runs call uvicorn's own by its class, not through super(), which builds an object
    # on every call.
    limits: ConnectionLimits | None = None  # from the settings, on first use (tests may set it)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if HeaderLimitedHttpToolsProtocol.limits is None:
            HeaderLimitedHttpToolsProtocol.limits = ConnectionLimits.from_settings(Settings())
        self._limits: ConnectionLimits = HeaderLimitedHttpToolsProtocol.limits
        self._limit = self._limits.max_header_bytes  # of a request's head
        self._raw_bytes = 0  # bytes received, in chunks after the one the head began in, while it is incomplete
        self._head_done = True  # no request begun: the bytes of a finished request's body are not a head's
        self._began_here = False  # the current head began within the chunk being parsed
        self._head_too_large = False
        self._idle_since = self.loop.time()
        # The idle time and the deadlines on the loop's clock; the deadlines are checked by one sweep per server
        # (no timer per request to arm and cancel).
        self._head_deadline: float | None = None
        self._body_deadline: float | None = None

    # --- the connection cap ---

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(CoalescingTransport(transport, self.loop))  # type: ignore[arg-type]
        self._idle_since = self.loop.time()
        self._head_deadline = self._idle_since + self._limits.head_timeout_s
        _watch(self.loop, self.connections)
        cap = self._limits.max_connections
        if len(self.connections) <= cap:
            return
        idle = [c for c in self.connections if c is not self and _idle(c)]
        if idle:
            oldest = min(idle, key=lambda c: getattr(c, "_idle_since", 0.0))
            oldest.transport.close()
            _refusals.warning(
                "closed the longest-idle connection to make room", open_connections=len(self.connections), cap=cap
            )
            return
        _refusals.warning("refused a connection: every connection has a request in progress", cap=cap)
        self.transport.write(too_many_connections_response(cap))
        self.transport.close()

    # --- read timeouts ---

    def check_deadlines(self, now: float) -> None:
        """Called by the server's sweep: close a connection whose head or body is late."""
        if self.transport is None or self.transport.is_closing():
            return
        if self._head_deadline is not None and now > self._head_deadline and _idle(self):
            self._head_deadline = None
            self.transport.close()  # nothing of ours is waiting on it: no answer is owed
            return
        cycle = self.cycle
        # A body's deadline stays set once its last byte came (one call fewer a request): the body is then whole,
        # ``more_body`` is False, and a late deadline is dropped here without closing anything.
        if self._body_deadline is not None and now > self._body_deadline:
            self._body_deadline = None
            if cycle is not None and cycle.more_body and not cycle.response_complete:
                cycle.disconnected = True  # the app's receive() answers http.disconnect
                cycle.message_event.set()
                self.transport.close()

    def on_response_complete(self) -> None:
        HttpToolsProtocol.on_response_complete(self)
        if not self.transport.is_closing() and not self.pipeline:
            self._idle_since = self.loop.time()
            self._head_deadline = self._idle_since + self._limits.head_timeout_s

    # --- the head's size ---

    def on_message_begin(self) -> None:
        HttpToolsProtocol.on_message_begin(self)
        self._raw_bytes = 0
        self._head_done = False
        self._began_here = True

    def _head_bytes(self) -> int:
        """The request target and the headers parsed so far, each header counted as ``name: value`` and its CRLF,
        from what uvicorn's own ``on_url`` and ``on_header`` kept (``url``, ``headers``, a value without its
        trailing whitespace): a request costs no call of this class per header."""
        return len(self.url) + sum(map(len, chain.from_iterable(self.headers))) + 4 * len(self.headers)

    def on_headers_complete(self) -> None:
        self._head_done = True
        if self._head_bytes() > self._limit:
            self._head_too_large = True
            raise HeadTooLarge  # httptools stops; uvicorn answers through send_400_response
        self._head_deadline = None
        HttpToolsProtocol.on_headers_complete(self)
        self._body_deadline = self.loop.time() + self._limits.body_timeout_s

    def send_400_response(self, msg: str) -> None:
        self.transport.write(
            headers_too_large_response(self._limit) if self._head_too_large else malformed_request_response()
        )
        self.transport.close()

    def data_received(self, data: bytes) -> None:
        self._began_here = False
        HttpToolsProtocol.data_received(self, data)
        if self._head_done or self.transport.is_closing():
            return
        # A head still incomplete. Of a chunk in which it began, only what its parsed line and headers took is
        # known to be its (the rest may be an earlier request's body); later chunks are its own.
        if not self._began_here:
            self._raw_bytes += len(data)
        if max(self._raw_bytes, self._head_bytes()) > self._limit:
            self._head_too_large = True
            self.send_400_response("")


SWEEP_S = 0.25  # how often a server's connections are checked against their deadlines
_watched: dict[int, asyncio.TimerHandle] = {}  # id of a server's connection set -> its next sweep


def _watch(loop: asyncio.AbstractEventLoop, connections: set[Any]) -> None:
    """Start the sweep of this server's connections, once: it runs while any is open."""
    key = id(connections)
    if key in _watched:
        return

    def sweep() -> None:
        now = loop.time()
        for protocol in list(connections):
            check = getattr(protocol, "check_deadlines", None)
            if check is not None:
                check(now)
        if connections and not loop.is_closed():
            _watched[key] = loop.call_later(SWEEP_S, sweep)
        else:
            _watched.pop(key, None)

    _watched[key] = loop.call_later(SWEEP_S, sweep)


def _idle(protocol: Any) -> bool:
    """No request of this connection is in the app (none begun, or the last one answered)."""
    cycle = getattr(protocol, "cycle", None)
    return cycle is None or bool(cycle.response_complete)
