import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.settings import Settings


@pytest.fixture(scope="session")
def client() -> TestClient:
    return TestClient(create_app(Settings()))


SEED_P = 30_000_000_000
SEED_CARD = "seed-80gb"


def plan_body(arrangement: object, world_size: int = 8, parameter_count: int = SEED_P, **extra: object) -> dict:
    body = {
        "model": {"parameter_count": parameter_count},
        "cluster": {"world_size": world_size, "gpus_per_node": 8, "gpu": SEED_CARD},
        "arrangement": arrangement,
    }
    body.update(extra)
    return body
