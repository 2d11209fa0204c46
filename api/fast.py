"""A direct path for valid requests to light operations (/v1/plan): the same answer, less framework.

A plan is computed in a fraction of a millisecond, so the framework's per-request machinery
(routing over every route, the dependency solve, the exception and exit-stack layers, a Request and
a Response object) is a large share of its cost. For the operations registered here, a request
whose body parses and validates is answered directly: validated by the route's own body field
(what FastAPI runs), answered by the route's own answer function and kept in the answer cache
(api.answers) under the body as parsed, so a repeated request is answered before validation. Anything else (a body that
does not parse or validate, an error while answering, a client that disconnects) goes on to the
framework with its body replayed, so there is one set of error handlers and one contract.

It sits inside the shell's middleware (request id, access log, metrics, auth, body limit, Accept
and Content-Type checks), which every request passes first.
"""

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import orjson
from fastapi.routing import APIRoute
from pydantic_core import SchemaValidator
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.answers import AnswerCache

Answer = Callable[[Any], bytes]  # the validated request -> the JSON body
JSON_HEADERS = [(b"content-type", b"application/json")]


class InvalidBody(Exception):
    """A body the route's field refuses: the framework answers it, with its errors."""


@dataclass(frozen=True)
class DirectOperation:
    name: str  # the answer cache's operation
    route: APIRoute
    validate: Callable[[Any], Any]  # the validated request; raises for an invalid one
    answer: Answer
    light: Callable[[Any], bool]  # False: the route answers it as heavy work, off the event loop


class DirectPathMiddleware:
    """Answers POSTs to the registered paths directly when their body is valid JSON of the route's model."""

    def __init__(
        self, app: ASGIApp, operations: Callable[[], dict[str, DirectOperation]], answers: AnswerCache
    ) -> None:
        self.app = app
        self.answers = answers  # the app's (app.state.answers), held here: a State's attributes are read in Python
        self._operations_of = operations
        self._operations: dict[str, DirectOperation] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        operation = None
        if scope["type"] == "http" and scope["method"] == "POST" and not scope.get("root_path"):
            if self._operations is None:
                self._operations = self._operations_of()
            operation = self._operations.get(scope["path"])
        if operation is None:
            await self.app(scope, receive, send)
            return
        messages, body, failure = await _read_body(receive)
        answer = None if body is None else _answer(operation, self.answers, body)
        if answer is None:
            await self.app(scope, _replaying(messages, failure, receive), send)
            return
        scope["route"] = operation.route  # what the router would set: metrics and logs read its template
        headers = [(b"content-length", str(len(answer)).encode()), *JSON_HEADERS]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": answer})


def direct_operation(name: str, route: APIRoute, answer: Answer, light: Callable[[Any], bool]) -> DirectOperation:
    """The route's body field validates exactly as the framework would (fastapi.dependencies.utils)."""
    field = route.body_field
    if field is None:
        raise ValueError(f"{route.path} takes no body")
    return DirectOperation(name=name, route=route, validate=body_validation(field), answer=answer, light=light)


def body_validation(field: Any) -> Callable[[Any], Any]:
    """The validated body, or an exception. FastAPI's ``field.validate(value)`` runs its type adapter's
    ``validate_python(value, from_attributes=True)``, which hands its arguments to the core validator: that
    validator is called itself when the field has one built (three Python calls fewer a request). Its errors
    are left to the framework, which validates again to answer them."""
    validator = getattr(getattr(field, "_type_adapter", None), "validator", None)
    if isinstance(validator, SchemaValidator):
        return partial(validator.validate_python, from_attributes=True)

    def validated(value: Any) -> Any:
        valid, errors = field.validate(value, {}, loc=("body",))
        if errors:
            raise InvalidBody
        return valid

    return validated


def _answer(operation: DirectOperation, answers: AnswerCache, body: bytes) -> bytes | None:
    """The answer, or None when the framework must answer (invalid input or any error)."""
    try:
        parsed = orjson.loads(body)
        key, cached = answers.lookup_parsed(operation.name, parsed)
        if cached is not None:
            return cached
        value = operation.validate(parsed)
        if not operation.light(value):
            return None
        return answers.store(key, operation.answer(value))
    except Exception:
        return None  # the framework repeats the work and answers the error through its handlers


async def _read_body(receive: Receive) -> tuple[list[Message], bytes | None, Exception | None]:
    """Every message received and the whole body; no body when the client went away first or reading
    failed (the body limit's 413 is raised by ``receive``: the framework then sees the same failure)."""
    try:
        message = await receive()
    except Exception as exc:
        return [], None, exc
    if message["type"] == "http.request" and not message.get("more_body", False):
        return [message], message.get("body", b""), None  # the whole body in one message, as most come
    return await _read_rest(message, receive)


async def _read_rest(first: Message, receive: Receive) -> tuple[list[Message], bytes | None, Exception | None]:
    """``_read_body`` of a body in several messages, or of none, from its first message on."""
    messages: list[Message] = [first]
    if first["type"] != "http.request":
        return messages, None, None
    chunks: list[bytes] = [first.get("body", b"")]
    while True:
        try:
            message = await receive()
        except Exception as exc:
            return messages, None, exc
        messages.append(message)
        if message["type"] != "http.request":
            return messages, None, None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return messages, b"".join(chunks), None


def _replaying(messages: list[Message], failure: Exception | None, receive: Receive) -> Receive:
    """The messages already read, then the failure that ended the reading if any, then the client's own."""
    pending = list(messages)

    async def replay() -> Message:
        if pending:
            return pending.pop(0)
        if failure is not None:
            raise failure
        return await receive()

    return replay
