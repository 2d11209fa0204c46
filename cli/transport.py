"""Run an operation in process (the core) or against a server (--url); both give the same answer dict."""

import time
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from api.problems import DOMAIN_STATUS
from api.settings import Settings
from cli.operations import Operation
from models.problem import ProblemCode
from service.errors import DomainError, validation_field_errors

TIMEOUT_S = 30.0


@dataclass(frozen=True)
class Answer:
    status: int
    body: dict[str, Any]

    @property
    def ok(self) -> bool:
        return self.status < 400


def run_local(operation: Operation, body: dict[str, Any] | None, settings: Settings) -> Answer:
    try:
        request = operation.request_model.model_validate(body) if operation.request_model else None
    except ValidationError as exc:
        return Answer(422, validation_problem(exc, body))
    try:
        answer = operation.core(request, settings)
    except DomainError as exc:
        return domain_problem(exc)
    if isinstance(answer, BaseModel):
        return Answer(200, answer.model_dump(mode="json"))
    return Answer(200, _plain(answer))


def domain_problem(exc: DomainError) -> Answer:
    """The problem the service answers for a refusal of the core (api.problems maps the classes alike)."""
    status, code = DOMAIN_STATUS.get(type(exc), (422, ProblemCode.validation_error))
    errors = [{"detail": detail, "pointer": pointer} for detail, pointer in exc.field_errors()]
    return Answer(status, {"status": status, "code": code.value, "detail": exc.detail, "errors": errors})


def _plain(value: Any) -> Any:
    """numpy columns and scalars as JSON-ready Python values."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if hasattr(value, "tolist"):
        return value.tolist()
    return value


def validation_problem(exc: ValidationError, body: Any) -> dict[str, Any]:
    """The service's 422 for a body that does not validate: each error located in ``body`` as sent."""
    errors = [{"detail": detail, "pointer": pointer} for pointer, detail in validation_field_errors(exc.errors(), body)]
    detail = "; ".join(e["detail"] for e in errors)
    return {"status": 422, "code": ProblemCode.validation_error.value, "detail": detail, "errors": errors}


POLL_INTERVAL_S = 0.5
POLL_LIMIT_S = 600.0
FINISHED = ("succeeded", "failed", "cancelled")


def _poll(client: Any, location: str) -> Any:
    """GET the job until it has finished (bounded in time)."""
    deadline = time.monotonic() + POLL_LIMIT_S
    while True:
        response = client.get(location)
        if response.status_code != 200 or response.json().get("status") in FINISHED:
            return response
        if time.monotonic() > deadline:
            return response
        time.sleep(POLL_INTERVAL_S)


class Unreachable(Exception):
    """The server could not be asked: one line for the user, no traceback."""


def run_remote(operation: Operation, body: dict[str, Any] | None, url: str, token: str | None) -> Answer:
    import httpx

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        with httpx.Client(base_url=url.rstrip("/"), timeout=TIMEOUT_S, headers=headers) as client:
            response = client.request(operation.method, operation.path, json=body)
            if operation.poll and response.status_code == 202:
                response = _poll(client, response.headers["location"])
    except httpx.InvalidURL as exc:
        raise Unreachable(f"--url {url}: {exc}") from None
    except httpx.HTTPError as exc:
        reason = str(exc) or type(exc).__name__
        raise Unreachable(f"cannot reach {url}: {reason}") from None
    content_type = response.headers.get("content-type", "")
    if "json" not in content_type:
        return Answer(response.status_code, {"status": response.status_code, "detail": response.text[:500]})
    data = response.json()
    if response.is_success:
        data = operation.response_model.model_validate(data).model_dump(mode="json")
    return Answer(response.status_code, data)
