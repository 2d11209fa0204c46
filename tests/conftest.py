import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings

from api.app import create_app
from api.settings import Settings

# Property tests assert properties, not speed: no per-example deadline and no "too slow" health
# check, both wall-clock limits that a busy machine trips (timing belongs in bench/).
settings.register_profile("zeroplan", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("zeroplan")

# TestClient's requests name the host "testserver"; served tests use 127.0.0.1, allowed by default. Set on
# import, before test modules build their Settings.
os.environ.setdefault("ZEROPLAN_ALLOWED_HOSTS", "testserver,localhost,127.0.0.1,::1")


@pytest.fixture(scope="session", autouse=True)
def _job_store_in_a_temporary_directory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Apps built with default settings keep their simulation jobs here, not in the working directory,
    and give a job-store read (readiness, metrics) time enough on a loaded machine."""
    overrides = {
        "ZEROPLAN_SIM_DB_PATH": str(Path(tmp_path_factory.mktemp("jobs")) / "simulations.sqlite3"),
        "ZEROPLAN_STORE_TIMEOUT_S": "10",
    }
    previous = {name: os.environ.get(name) for name in overrides}
    os.environ.update(overrides)
    yield
    for name, value in previous.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture(scope="session")
def client() -> TestClient:
    return TestClient(create_app(Settings()))


SEED_P = 30_000_000_000
SEED_CARD = "seed-80gb"


def plan_body(arrangement: object, world_size: int = 8, parameter_count: int = SEED_P, **extra: object) -> dict:
    """A /v1/plan body; sharding flags (a dict) go in `sharding`, explicit dtypes in `precision_spec`."""
    body: dict = {
        "model": {"parameter_count": parameter_count},
        "cluster": {"world_size": world_size, "gpus_per_node": 8, "gpu": SEED_CARD},
    }
    body["sharding" if isinstance(arrangement, dict) else "arrangement"] = arrangement
    if isinstance(extra.get("precision"), dict):
        extra["precision_spec"] = extra.pop("precision")
    body.update(extra)
    return body
