"""Run an operation in process (the core) or against a server (--url); both give the same answer dict."""

from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from api.problems import DOMAIN_STATUS, json_pointer
from api.settings import Settings
from cli.operations import Operation
from models.problem import ProblemCode
from service.errors import DomainError

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
        return Answer(422, _validation_problem(exc))
    try:
        answer = operation.core(request, settings)
    except DomainError as exc:
        status, code = DOMAIN_STATUS.get(type(exc), (422, ProblemCode.validation_error))
        errors = [{"detail": exc.detail, "pointer": exc.pointer}] if exc.pointer else []
        return Answer(status, {"status": status, "code": code.value, "detail": exc.detail, "errors": errors})
    return Answer(200, answer.model_dump(mode="json"))


def _validation_problem(exc: ValidationError) -> dict[str, Any]:
    errors = []
    for error in exc.errors():
        pointer = json_pointer(("body", *error["loc"]))
        message = str(error["msg"]).removeprefix("Value error, ")
        errors.append({"detail": f"{pointer.lstrip('/').replace('/', '.') or 'body'}: {message}", "pointer": pointer})
    detail = "; ".join(e["detail"] for e in errors)
    return {"status": 422, "code": ProblemCode.validation_error.value, "detail": detail, "errors": errors}


def run_remote(operation: Operation, body: dict[str, Any] | None, url: str, token: str | None) -> Answer:
    try:
        import httpx
    except ImportError:  # pragma: no cover - depends on the environment
        raise SystemExit("zeroplan --url needs httpx: pip install 'zeroplan[client]'") from None
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    with httpx.Client(base_url=url.rstrip("/"), timeout=TIMEOUT_S, headers=headers) as client:
        response = client.request(operation.method, operation.path, json=body)
    content_type = response.headers.get("content-type", "")
    if "json" not in content_type:
        return Answer(response.status_code, {"status": response.status_code, "detail": response.text[:500]})
    data = response.json()
    if response.is_success:
        data = operation.response_model.model_validate(data).model_dump(mode="json")
    return Answer(response.status_code, data)
