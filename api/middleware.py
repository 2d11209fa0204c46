"""Pure-ASGI middleware of the HTTP shell: request id, access log and metrics, auth, body limit.

Pure ASGI (not BaseHTTPMiddleware): each layer is one function call and one closure per request.
Outermost first: RequestContext (id, log, metrics, last-resort 500) -> BearerAuth -> BodyLimit.

A layer that only checks a request (hosts, auth, the body's limit and type, Accept) is a plain function that
hands back the awaitable of whatever answers: the next layer's, or its own refusal's. Its caller awaits that
at once, as it would the layer's own coroutine, and a request passing through costs no coroutine of the layer.
"""

import hmac
import logging
import random
import re
import time
from collections.abc import Awaitable, Callable
from functools import cached_property, lru_cache
from typing import Any

import anyio.to_thread
import orjson
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.routing import compile_path
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.logs import ROOT_LOGGER, write_access_line
from api.metrics import UNMATCHED_ROUTE, observe_request
from api.problems import internal_error_response, problem_response
from models.common import MAX_HF_CONFIG_KEYS
from models.problem import FieldError, ProblemCode
from service.errors import echo

REQUEST_ID_HEADER = b"x-request-id"
# An incoming id is kept only if it is short and plain: it goes into logs and headers.
SAFE_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")

error_log = logging.getLogger(ROOT_LOGGER + ".errors")


HEADERS_BY_NAME = "zeroplan.headers"  # the scope's key of its headers by name, built once per request


def header_value(scope: Scope, name: bytes) -> bytes | None:
    """The first value of a header (names are lower case in ASGI), or None. The layers ask half a dozen of them a
    request: the headers are put in a dict once (the first of a repeated name kept) and kept in the scope."""
    by_name = scope.get(HEADERS_BY_NAME)
    if by_name is None:
        by_name = scope[HEADERS_BY_NAME] = dict(reversed(scope["headers"]))
    value = by_name.get(name)
    return value if value is None or type(value) is bytes else bytes(value)


def request_id_of(scope: Scope) -> str:
    """The client's X-Request-ID when short and plain, else 128 random bits in hex. An id needs to be unique,
    not secret: the random module's generator (seeded from the OS at start and again in every forked child)
    makes one without the system call ``os.urandom`` costs each request."""
    incoming = header_value(scope, REQUEST_ID_HEADER)
    if incoming is not None:
        text = incoming.decode("latin-1")
        if SAFE_REQUEST_ID.fullmatch(text):
            return text
    return f"{random.getrandbits(128):032x}"


class RouteTemplates:
    """Path templates (e.g. /v1/plan) of the documented routes and their methods.

    They label answers given before routing (metrics, logs), tell the JSON check which requests
    reach an operation, and give a 405 its complete `Allow` header (RFC 9110, section 15.5.6).
    """

    def __init__(self, paths: Callable[[], dict[str, Any]]) -> None:
        self._paths = paths

    @cached_property
    def _compiled(self) -> list[tuple[re.Pattern[str], str, frozenset[str]]]:
        out = []
        for template, operations in self._paths().items():
            methods = {m.upper() for m in operations if m.upper() in HTTP_METHODS}
            if "GET" in methods:
                methods.add("HEAD")  # Starlette answers HEAD wherever it answers GET
            out.append((compile_path(template)[0], template, frozenset(methods)))
        return out

    def of(self, scope: Scope) -> str:
        route = scope.get("route")
        template = getattr(route, "path", None)
        if template:
            return str(template)
        path = scope["path"]
        return next((t for pattern, t, _ in self._compiled if pattern.match(path)), UNMATCHED_ROUTE)

    @cached_property
    def _static(self) -> dict[str, frozenset[str]]:
        """The answer of ``allowed`` for each template without parameters (most requests' paths), kept."""
        return {template: self._matching(template) for _, template, _ in self._compiled if "{" not in template}

    def allowed(self, path: str) -> frozenset[str]:
        """Every method some documented operation answers on this path (empty for an unknown path)."""
        static = self._static.get(path)
        return static if static is not None else self._matching(path)

    def _matching(self, path: str) -> frozenset[str]:
        methods: set[str] = set()
        for pattern, _, operation_methods in self._compiled:
            if pattern.match(path):
                methods |= operation_methods
        return frozenset(methods)


HTTP_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"})


class RequestContextMiddleware:
    """Request id (echoed in X-Request-ID), one JSON access-log line, metrics, and a problem+json 500."""

    def __init__(self, app: ASGIApp, templates: RouteTemplates, log_requests: bool = True) -> None:
        self.app = app
        self.templates = templates
        self.log_requests = log_requests

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started_s = time.perf_counter()
        request_id = request_id_of(scope)
        scope.setdefault("state", {})["request_id"] = request_id
        id_header = (REQUEST_ID_HEADER, request_id.encode())
        status = 500
        response_started = False

        async def send_with_id(message: Message) -> None:
            nonlocal status, response_started
            if message["type"] == "http.response.start":
                response_started = True
                status = message["status"]
                message["headers"] = [*message.get("headers", ()), id_header]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        except Exception:
            error_log.exception("unhandled error", extra={"fields": {"request_id": request_id}})
            if response_started:
                raise
            await internal_error_response(Request(scope))(scope, receive, send_with_id)
        finally:
            self._record(scope, status, time.perf_counter() - started_s, request_id)

    def _record(self, scope: Scope, status: int, duration_s: float, request_id: str) -> None:
        route = self.templates.of(scope)
        observe_request(scope["method"], route, status, duration_s)
        if self.log_requests:
            fields = {
                "method": scope["method"],
                "route": route,
                "status": status,
                "duration_s": round(duration_s, 6),
                "request_id": request_id,
            }
            write_access_line(fields)


LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
WILDCARD_ADDRESSES = frozenset({"", "0.0.0.0", "::"})


def allowed_hosts(configured: str | None, bound_host: str) -> frozenset[str] | None:
    """The Host names served (None: any). Configured: a comma-separated list, ``*`` for any. Default: the loopback
    names and the bound address; bound to every address, the address a connection arrived on is served too."""
    if configured is not None and configured.strip():
        names = {name.strip().lower().strip("[]") for name in configured.split(",") if name.strip()}
        return None if "*" in names else frozenset(names)
    bound = bound_host.strip().lower().strip("[]")
    return LOOPBACK_NAMES | ({bound} if bound not in WILDCARD_ADDRESSES else set())


@lru_cache(maxsize=64)  # a pure function of the header; clients send the same Host request after request
def host_name(header: bytes) -> str:
    """``example.org:8000`` -> ``example.org``; ``[::1]:8000`` -> ``::1``."""
    text = header.decode("latin-1").strip().lower()
    if text.startswith("["):
        return text[1:].partition("]")[0]
    return text.rpartition(":")[0] if text.count(":") == 1 else text


class AllowedHostsMiddleware:
    """Requests whose Host header names none of the allowed hosts get a 400 problem: a service open on loopback
    is then out of reach of DNS rebinding (a page on another site resolving its own name to 127.0.0.1)."""

    def __init__(self, app: ASGIApp, hosts: frozenset[str] | None, any_local_address: bool) -> None:
        self.app = app
        self.hosts = hosts
        self.any_local_address = any_local_address  # bound to a wildcard: the connection's own address is served

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        if self.hosts is None or scope["type"] != "http":
            return self.app(scope, receive, send)
        header = header_value(scope, b"host")
        if header is None:
            return self.app(scope, receive, send)
        name = host_name(header)
        if name in self.hosts:
            return self.app(scope, receive, send)
        server = scope.get("server")
        if self.any_local_address and server is not None and name == str(server[0]).lower():
            return self.app(scope, receive, send)
        detail = (
            f"Host {echo(header.decode('latin-1'))} is not served here; allowed: {', '.join(sorted(self.hosts))} "
            "(ZEROPLAN_ALLOWED_HOSTS)"
        )
        return problem_response(Request(scope), 400, ProblemCode.host_not_allowed, detail)(scope, receive, send)


class BearerAuthMiddleware:
    """With a token configured, paths under the prefix need `Authorization: Bearer <token>` (401 otherwise)."""

    def __init__(self, app: ASGIApp, token: str | None, prefix: str = "/v1") -> None:
        self.app = app
        self.expected = token.encode() if token else None
        self.prefix = prefix

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        if self.expected is None or scope["type"] != "http" or not _under(scope["path"], self.prefix):
            return self.app(scope, receive, send)
        presented = _bearer_token(header_value(scope, b"authorization"))
        if presented is not None and hmac.compare_digest(presented, self.expected):
            return self.app(scope, receive, send)
        detail = "this route needs `Authorization: Bearer <token>`" if presented is None else "the token is not valid"
        response = problem_response(Request(scope), 401, ProblemCode.unauthorized, detail)
        challenge = 'Bearer realm="zeroplan"' if presented is None else 'Bearer realm="zeroplan", error="invalid_token"'
        response.headers["WWW-Authenticate"] = challenge
        return response(scope, receive, send)


def _under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix + "/")


def _bearer_token(header: bytes | None) -> bytes | None:
    if header is None:
        return None
    scheme, _, token = header.strip().partition(b" ")
    token = token.strip()
    return token if scheme.lower() == b"bearer" and token else None


class BodyLimitMiddleware:
    """Bodies over the limit are a 413: at once from Content-Length, or as soon as the stream passes it."""

    def __init__(self, app: ASGIApp, max_body_bytes: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        if scope["type"] != "http":
            return self.app(scope, receive, send)
        declared = header_value(scope, b"content-length")
        if declared is not None and declared.isdigit():
            if int(declared) > self.max_body_bytes:
                response = problem_response(Request(scope), 413, ProblemCode.payload_too_large, self._detail())
                return response(scope, receive, send)
            if header_value(scope, b"transfer-encoding") is None:
                # The server frames the body by its Content-Length (RFC 9112, section 6.3) and hands the app no
                # byte past it: a body within the limit has nothing left to count.
                return self.app(scope, receive, send)
        return self.app(scope, self._counting(receive), send)

    def _detail(self) -> str:
        return f"the body is larger than the limit of {self.max_body_bytes} bytes (ZEROPLAN_MAX_BODY_BYTES)"

    def _counting(self, receive: Receive) -> Receive:
        received_bytes = 0

        async def receive_counted() -> Message:
            nonlocal received_bytes
            message = await receive()
            if message["type"] == "http.request":
                received_bytes += len(message.get("body", b""))
                if received_bytes > self.max_body_bytes:
                    # Raised inside the route's body read: the problem handlers turn it into a 413.
                    raise HTTPException(413, self._detail())
            return message

        return receive_counted


JSON_MEDIA_TYPE = b"application/json"
BODY_METHODS = ("POST", "PUT", "PATCH")


# A body past this is parsed and its shape checked in a thread before the framework sees it: a megabyte of
# unknown keys would otherwise cost pydantic half a second of event loop building an error for each.
LARGE_BODY_BYTES = 64 * 1024
# No object of the contract has more keys than this (a config.json's are bounded by MAX_HF_CONFIG_KEYS).
MAX_OBJECT_KEYS = MAX_HF_CONFIG_KEYS


def _media_type(content_type: bytes) -> bytes:
    """``Application/JSON; charset=utf-8`` -> ``application/json``."""
    if content_type == JSON_MEDIA_TYPE:  # what clients send, already in its plain form
        return content_type
    return content_type.split(b";", 1)[0].strip().lower()


def _declared_length(scope: Scope) -> int:
    value = header_value(scope, b"content-length")
    if value is None:
        return LARGE_BODY_BYTES + 1 if header_value(scope, b"transfer-encoding") else 0
    try:
        return int(value)
    except ValueError:
        return 0


def crowded_object(body: bytes) -> tuple[str, int] | None:
    """The pointer and key count of the first object with more than MAX_OBJECT_KEYS keys, if any (a body that
    does not parse is left to the framework's own answer)."""
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    pending: list[tuple[Any, str]] = [(value, "")]
    while pending:
        node, pointer = pending.pop()
        if isinstance(node, dict):
            if len(node) > MAX_OBJECT_KEYS:
                return pointer or "/", len(node)
            pending.extend((item, f"{pointer}/{key}") for key, item in node.items() if isinstance(item, dict | list))
        elif isinstance(node, list):
            pending.extend((item, f"{pointer}/{i}") for i, item in enumerate(node) if isinstance(item, dict | list))
    return None


class JsonBodyMiddleware:
    """Bodies sent to an operation under the prefix must say they are JSON (application/json or +json): 415.

    Only a request that reaches an operation is checked: an unknown path stays a 404 and a method
    the path does not answer a 405, whatever its Content-Type.
    """

    def __init__(self, app: ASGIApp, templates: RouteTemplates, prefix: str = "/v1") -> None:
        self.app = app
        self.templates = templates
        self.prefix = prefix

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        if (
            scope["type"] != "http"
            or scope["method"] not in BODY_METHODS
            or not _under(scope["path"], self.prefix)
            or scope["method"] not in self.templates.allowed(scope["path"])
        ):
            return self.app(scope, receive, send)
        content_type = header_value(scope, b"content-type")
        media_type = b"" if content_type is None else _media_type(content_type)
        if media_type == JSON_MEDIA_TYPE or media_type.endswith(b"+json"):
            if _declared_length(scope) <= LARGE_BODY_BYTES:
                return self.app(scope, receive, send)
            return self._large(scope, receive, send)
        shown = echo(media_type.decode("latin-1")) or "no Content-Type"
        detail = f"the body must be application/json, not {shown}"
        response = problem_response(Request(scope), 415, ProblemCode.unsupported_media_type, detail)
        return response(scope, receive, send)

    async def _large(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Read the body, check its shape in a thread, then hand it on (replayed) or answer 422."""
        messages: list[Message] = []
        chunks: list[bytes] = []
        failure: Exception | None = None
        while True:
            try:
                message = await receive()
            except Exception as exc:  # the body limit's 413: raised again inside, where its handler answers it
                failure = exc
                break
            messages.append(message)
            if message["type"] != "http.request":
                break
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                crowded = await anyio.to_thread.run_sync(crowded_object, b"".join(chunks))
                if crowded is not None:
                    pointer, count = crowded
                    name = pointer.lstrip("/").replace("/", ".") or "body"
                    detail = (
                        f"{echo(name)}: an object of {count:,} keys; none in this API has more than {MAX_OBJECT_KEYS:,}"
                    )
                    error = FieldError(detail=detail, pointer=echo(pointer))
                    response = problem_response(Request(scope), 422, ProblemCode.validation_error, detail, [error], 1)
                    await response(scope, receive, send)
                    return
                break
        pending = list(messages)

        async def replay() -> Message:
            if pending:
                return pending.pop(0)
            if failure is not None:
                raise failure
            return await receive()

        await self.app(scope, replay, send)
