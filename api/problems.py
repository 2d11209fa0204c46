"""Errors as RFC 9457 problem details: one table maps every error to a status and a code."""

import logging
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from models.problem import PROBLEM_MEDIA_TYPE, PROBLEM_TYPE_BASE, FieldError, Problem, ProblemCode
from service import errors as domain
from service.errors import body_pointer, echo, field_name, validation_message

log = logging.getLogger("zeroplan.api")

CLIENT_CLOSED = 499
TITLES = {CLIENT_CLOSED: "Client Closed Request"}

# The one place that knows which HTTP status each domain error becomes.
DOMAIN_STATUS: dict[type[domain.DomainError], tuple[int, ProblemCode]] = {
    domain.NonMonotoneSharding: (422, ProblemCode.non_monotone_sharding),
    domain.InvalidClusterShape: (422, ProblemCode.invalid_cluster_shape),
    domain.EmptyGrid: (422, ProblemCode.empty_grid),
    domain.GridTooLarge: (422, ProblemCode.grid_too_large),
    domain.MissingArchitecture: (422, ProblemCode.missing_architecture),
    domain.InvalidModel: (422, ProblemCode.validation_error),
    domain.SweepTooLarge: (422, ProblemCode.sweep_too_large),
    domain.SearchTooLarge: (422, ProblemCode.search_too_large),
    domain.SweepOverflow: (422, ProblemCode.sweep_overflow),
    domain.UnknownSortKey: (422, ProblemCode.validation_error),
    domain.InvalidHfConfig: (422, ProblemCode.validation_error),
    domain.ResponseTooLarge: (422, ProblemCode.response_too_large),
    domain.AnswerOutOfRange: (422, ProblemCode.answer_out_of_range),
    domain.DeadlineExceeded: (503, ProblemCode.deadline_exceeded),
    domain.WorkOutOfMemory: (503, ProblemCode.work_out_of_memory),
    # The client has gone: nobody reads this answer, the status is for the log (nginx's 499).
    domain.WorkCancelled: (CLIENT_CLOSED, ProblemCode.work_cancelled),
}

HTTP_CODES: dict[int, ProblemCode] = {
    400: ProblemCode.malformed_json,  # the framework's only 400: a body it could not parse
    401: ProblemCode.unauthorized,
    404: ProblemCode.not_found,
    405: ProblemCode.method_not_allowed,
    406: ProblemCode.not_acceptable,
    413: ProblemCode.payload_too_large,
    415: ProblemCode.unsupported_media_type,
    429: ProblemCode.too_many_requests,
}


def _problem_content(description: str) -> dict[str, Any]:
    return {"description": description, "model": Problem, "content": {PROBLEM_MEDIA_TYPE: {}}}


PROBLEM_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: _problem_content("Malformed JSON body."),
    415: _problem_content("The body is not application/json."),
    422: _problem_content("A field is invalid; `errors` points at each one."),
    500: _problem_content("Internal error; the body carries a request id, never a stack trace."),
}

# For routes that refuse work when a limit is reached (simulation jobs): `responses=PROBLEM_RESPONSES | TOO_MANY`.
TOO_MANY: dict[int | str, dict[str, Any]] = {
    429: _problem_content("Too many jobs in flight; retry after the `Retry-After` header's seconds."),
}
# For heavy routes (api.work): a concurrency limit and a deadline.
HEAVY: dict[int | str, dict[str, Any]] = {
    429: _problem_content(
        "Too many heavy requests running (ZEROPLAN_MAX_CONCURRENT_HEAVY_REQUESTS); retry after `Retry-After` seconds."
    ),
    503: _problem_content(
        "The work ran past ZEROPLAN_WORK_DEADLINE_S and was stopped, or needed more memory than a worker process "
        "may take (ZEROPLAN_WORKER_MEMORY_BYTES)."
    ),
}

# Problems the middleware returns before a route runs (api.middleware); the spec gains them in
# declare_shell_problems, so every route, present or future, documents them.
UNAUTHORIZED_DESCRIPTION = "A token is configured and the request has no valid `Authorization: Bearer` header."
TOO_LARGE_DESCRIPTION = "The body is larger than ZEROPLAN_MAX_BODY_BYTES."
NOT_ACCEPTABLE_DESCRIPTION = "The Accept header names none of the media types this operation answers with."


# A validation problem lists this many field errors at most, and counts them all: a request
# with a hundred thousand bad values gets a short answer, not one many times its own size.
MAX_LISTED_ERRORS = 20
MALFORMED_DETAIL = "the request body is not valid JSON"


def problem_response(
    request: Request,
    status: int,
    code: ProblemCode,
    detail: str,
    errors: list[FieldError] | None = None,
    error_count: int | None = None,
) -> JSONResponse:
    body = Problem(
        type=PROBLEM_TYPE_BASE + code.value.replace("_", "-"),
        title=TITLES.get(status) or HTTPStatus(status).phrase,
        status=status,
        detail=detail,
        code=code,
        instance=echo(request.url.path),
        request_id=getattr(request.state, "request_id", None),
        errors=errors,
        error_count=error_count,
    )
    return JSONResponse(body.model_dump(exclude_none=True), status_code=status, media_type=PROBLEM_MEDIA_TYPE)


def too_many_requests(detail: str, retry_after_s: int) -> StarletteHTTPException:
    """Raise it from a route: a 429 problem with a Retry-After header."""
    return StarletteHTTPException(429, detail, headers={"Retry-After": str(retry_after_s)})


def internal_error_response(request: Request) -> JSONResponse:
    return problem_response(
        request, 500, ProblemCode.internal_error, "internal error; quote the request id when reporting it"
    )


def json_pointer(loc: tuple[Any, ...]) -> str:
    """('body', 'cluster', '~spec', 'world_size') -> '/cluster/world_size'."""
    parts = (
        [str(p) for p in loc[1:] if not str(p).startswith("~")] if loc and loc[0] == "body" else [str(p) for p in loc]
    )
    return "".join("/" + p.replace("~", "~0").replace("/", "~1") for p in parts)


def request_pointer(loc: tuple[Any, ...], body: Any) -> str:
    """The JSON pointer of an error's location in the request's own body (service.errors.body_pointer)."""
    if not loc or loc[0] != "body":
        return json_pointer(loc)
    return body_pointer(loc[1:], body)


def _validation_errors(exc: RequestValidationError) -> tuple[list[FieldError], int]:
    """The first MAX_LISTED_ERRORS field errors, and how many there are in all."""
    all_errors = exc.errors()
    out = []
    for error in all_errors[:MAX_LISTED_ERRORS]:
        pointer = request_pointer(tuple(error.get("loc", ())), exc.body)
        out.append(FieldError(detail=f"{field_name(pointer)}: {validation_message(error)}", pointer=pointer))
    return out, len(all_errors)


def malformed_json_detail(request: Request) -> str:
    encoding = request.headers.get("content-encoding")
    if encoding and encoding.strip().lower() != "identity":
        return f"{MALFORMED_DETAIL}: Content-Encoding {encoding} is not accepted, send the JSON uncompressed"
    return (
        f"{MALFORMED_DETAIL}: it must be UTF-8 text without NaN or Infinity, nested fewer than 1,024 levels, "
        "with numbers a double can hold (RFC 8259)"
    )


async def _on_validation(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    if any(e.get("type") == "json_invalid" for e in exc.errors()):
        return problem_response(request, 400, ProblemCode.malformed_json, malformed_json_detail(request))
    errors, count = _validation_errors(exc)
    detail = "; ".join(e.detail for e in errors)
    if count > len(errors):
        detail += f"; and {count - len(errors):,} more errors (the first {len(errors)} are listed)"
    return problem_response(request, 422, ProblemCode.validation_error, detail, errors, count)


async def _on_domain(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, domain.DomainError)
    status, code = DOMAIN_STATUS.get(type(exc), (422, ProblemCode.validation_error))
    errors = [FieldError(detail=detail, pointer=pointer) for detail, pointer in exc.field_errors()] or None
    return problem_response(request, status, code, exc.detail, errors)


async def _on_http(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    code = HTTP_CODES.get(exc.status_code, ProblemCode.internal_error)
    detail = str(exc.detail)
    if exc.status_code == 404 and detail == "Not Found":
        detail = f"no route {echo(request.method)} {echo(request.url.path)}; see /docs or openapi/openapi.json"
    elif exc.status_code == 400:
        detail = malformed_json_detail(request)
    headers = dict(exc.headers or {})
    if exc.status_code == 405:
        allowed = _allowed_methods(request)
        if allowed:
            headers["Allow"] = ", ".join(allowed)
        answers = headers.get("Allow", "none")
        detail = f"{echo(request.method)} is not allowed on {echo(request.url.path)}; it answers {answers}"
    response = problem_response(request, exc.status_code, code, detail)
    for name, value in headers.items():
        response.headers[name] = value
    return response


def _allowed_methods(request: Request) -> list[str]:
    """Every method the path answers, across all its operations (Starlette names only one route's)."""
    templates = getattr(request.app.state, "route_templates", None)
    return sorted(templates.allowed(request.url.path)) if templates is not None else []


async def _on_unexpected(request: Request, exc: Exception) -> JSONResponse:
    log.exception("unhandled error", extra={"fields": {"request_id": getattr(request.state, "request_id", None)}})
    return internal_error_response(request)


def problem_media_in_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """FastAPI files a response model under application/json; errors are application/problem+json."""
    for methods in spec.get("paths", {}).values():
        for operation in methods.values():
            for status, response in operation.get("responses", {}).items():
                content = response.get("content", {})
                if status[0] in "45" and PROBLEM_MEDIA_TYPE in content and "application/json" in content:
                    content[PROBLEM_MEDIA_TYPE] = content.pop("application/json")
    return spec


def _problem_ref(description: str) -> dict[str, Any]:
    schema = {"$ref": "#/components/schemas/Problem"}
    return {"description": description, "content": {PROBLEM_MEDIA_TYPE: {"schema": schema}}}


def declare_shell_problems(spec: dict[str, Any], prefix: str = "/v1") -> dict[str, Any]:
    """Every /v1 operation may answer 401 (auth on) and 406 (Accept); every one with a body may answer 413."""
    for path, methods in spec.get("paths", {}).items():
        if not path.startswith(prefix):
            continue
        for operation in methods.values():
            responses = operation.setdefault("responses", {})
            responses.setdefault("401", _problem_ref(UNAUTHORIZED_DESCRIPTION))
            responses.setdefault("406", _problem_ref(NOT_ACCEPTABLE_DESCRIPTION))
            if "requestBody" in operation:
                responses.setdefault("413", _problem_ref(TOO_LARGE_DESCRIPTION))
            operation["responses"] = dict(sorted(responses.items()))
    return spec


def install_problem_handlers(app: FastAPI) -> None:
    app.add_exception_handler(RequestValidationError, _on_validation)
    app.add_exception_handler(domain.DomainError, _on_domain)
    app.add_exception_handler(StarletteHTTPException, _on_http)
    app.add_exception_handler(Exception, _on_unexpected)
