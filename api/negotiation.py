"""406 Not Acceptable when the Accept header names none of the media types an operation answers with.

The media types come from the spec itself (the success response's `content` of each operation),
so a new route documents its types once and is negotiated without another edit. Problem
details are always acceptable as the error's own type (RFC 9457, section 3), so the 406 itself is
application/problem+json. An absent header, `*/*` or a matching `type/*` range is acceptable;
`q=0` rules a type out (RFC 9110, section 12.5.1).
"""

import re
from collections.abc import Awaitable, Callable
from functools import cached_property
from typing import Any

from starlette.requests import Request
from starlette.routing import compile_path
from starlette.types import ASGIApp, Receive, Scope, Send

from api.middleware import header_value
from api.problems import problem_response
from models.problem import ProblemCode
from service.errors import echo

ACCEPT_HEADER = b"accept"
MAX_REMEMBERED = 1024


def media_ranges(accept: str) -> list[tuple[str, float]]:
    """'text/csv;q=0.5, */*' -> [('text/csv', 0.5), ('*/*', 1.0)]."""
    out = []
    for part in accept.split(","):
        media_type, *params = (piece.strip() for piece in part.split(";"))
        if not media_type:
            continue
        q = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        out.append((media_type.lower(), q))
    return out


def _covers(media_range: str, media_type: str) -> bool:
    if media_range in ("*/*", "*"):
        return True
    kind, _, subtype = media_range.partition("/")
    offered_kind, _, offered_subtype = media_type.partition("/")
    return kind == offered_kind and subtype in ("*", offered_subtype)


def acceptable(accept: str, offered: tuple[str, ...]) -> bool:
    """Whether some offered type has a positive quality under the header's most specific range."""
    ranges = media_ranges(accept)
    if not ranges:
        return True
    for media_type in offered:
        matching = [(r, q) for r, q in ranges if _covers(r, media_type)]
        if matching:
            _, q = max(matching, key=lambda rq: (rq[0].count("*") == 0, rq[0] != "*/*"))
            if q > 0:
                return True
    return False


def offered_types(spec: dict[str, Any]) -> list[tuple[re.Pattern[str], dict[str, tuple[str, ...]]]]:
    """Per path template, each method's success media types, from the spec."""
    out = []
    for template, methods in spec.get("paths", {}).items():
        by_method = {}
        for method, operation in methods.items():
            responses = operation.get("responses", {})
            content: dict[str, Any] = next(
                (r.get("content", {}) for status, r in sorted(responses.items()) if status.startswith("2")), {}
            )
            if content:
                by_method[method.upper()] = tuple(content)
        out.append((compile_path(template)[0], by_method))
    return out


class AcceptMiddleware:
    """Answers 406 (problem+json) when Accept excludes every media type the operation returns."""

    def __init__(self, app: ASGIApp, spec: Callable[[], dict[str, Any]], prefix: str = "/v1") -> None:
        self.app = app
        self.spec = spec
        self.prefix = prefix
        self._verdicts: dict[tuple[str, str, bytes], bool] = {}

    @cached_property
    def _offers(self) -> list[tuple[re.Pattern[str], dict[str, tuple[str, ...]]]]:
        return offered_types(self.spec())

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        """The next layer's awaitable, or the 406's (a plain function: see api.middleware's docstring)."""
        accept = header_value(scope, ACCEPT_HEADER) if "headers" in scope else None
        if scope["type"] != "http" or accept is None or not scope["path"].startswith(self.prefix):
            return self.app(scope, receive, send)
        key = (scope["method"], scope["path"], accept)
        verdict = self._verdicts.get(key)
        if verdict is None:
            verdict = self._verdict(scope["method"], scope["path"], accept.decode("latin-1"))
            if len(self._verdicts) < MAX_REMEMBERED:
                self._verdicts[key] = verdict
        if verdict:
            return self.app(scope, receive, send)
        offered = self._offered(scope["method"], scope["path"]) or ()
        detail = (
            f"Accept: {echo(accept.decode('latin-1'))} names none of the types this operation answers: "
            + ", ".join(offered)
        )
        response = problem_response(Request(scope), 406, ProblemCode.not_acceptable, detail)
        return response(scope, receive, send)

    def _offered(self, method: str, path: str) -> tuple[str, ...] | None:
        for pattern, by_method in self._offers:
            if pattern.match(path):
                return by_method.get(method)
        return None

    def _verdict(self, method: str, path: str, accept: str) -> bool:
        offered = self._offered(method, path)
        return offered is None or acceptable(accept, offered)
