import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from api.app import create_app
from api.routes import figures
from api.settings import Settings

SEED_30B_BODY = {
    "model": {"parameter_count": 30_000_000_000},
    "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "seed-80gb"},
}
SEED_30B_QUERY = {"parameter_count": 30_000_000_000, "world_size": 8, "gpus_per_node": 8, "gpu": "seed-80gb"}


def with_figures(app: FastAPI) -> FastAPI:
    """The app with the figure routes, whether or not api/app.py includes them yet."""
    if not any(getattr(route, "path", "").startswith("/v1/figures") for route in app.routes):
        app.include_router(figures.router)
        app.openapi_schema = None
    return app


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(with_figures(create_app(Settings(access_log=False))))
