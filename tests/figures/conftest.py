import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.settings import Settings

SEED_30B_BODY = {
    "model": {"parameter_count": 30_000_000_000},
    "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "seed-80gb"},
}
SEED_30B_QUERY = {"parameter_count": 30_000_000_000, "world_size": 8, "gpus_per_node": 8, "gpu": "seed-80gb"}


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(Settings(access_log=False)))
