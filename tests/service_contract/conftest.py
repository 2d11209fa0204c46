import json
import logging
from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from api.app import create_app
from api.logs import ACCESS_LOGGER, ROOT_LOGGER
from api.settings import Settings

PROBLEM = "application/problem+json"
TOKEN = "test-token-6f1d"


def app_with(**settings: object) -> FastAPI:
    return create_app(Settings(**settings))  # type: ignore[arg-type]


def client_with(**settings: object) -> TestClient:
    return TestClient(app_with(**settings), raise_server_exceptions=False)


def assert_problem(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM), response.headers
    body = response.json()
    assert body["status"] == status and body["code"] == code, body
    assert {"type", "title", "detail"} <= body.keys()
    assert body["request_id"] == response.headers["x-request-id"]
    return body


class JsonLines(logging.Handler):
    """Collects what the JSON formatter would write, parsed back."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[dict] = []

    def emit(self, record: logging.LogRecord) -> None:
        formatter = logging.getLogger(ROOT_LOGGER).handlers[0].formatter
        self.lines.append(json.loads(formatter.format(record)))


@pytest.fixture
def logged() -> Iterator[JsonLines]:
    create_app(Settings())  # installs the JSON handler whose formatter this reads
    handler = JsonLines()
    logger = logging.getLogger(ROOT_LOGGER)
    logger.addHandler(handler)
    previous = logging.getLogger(ACCESS_LOGGER).level
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logging.getLogger(ACCESS_LOGGER).setLevel(previous)


PLAN_BODY = {
    "model": {"parameter_count": 30_000_000_000},
    "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "seed-80gb"},
    "arrangement": "zero3",
}
FIT_BODY = {
    "model": {"parameter_count": 30_000_000_000},
    "cluster": {"gpus_per_node": 8, "gpu": "seed-80gb"},
    "max_gpus": 64,
}
