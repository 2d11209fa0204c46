"""Job-store fixtures: the same tests on SQLite and on a throwaway PostgreSQL cluster."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.postgres import ClusterUnavailable, fresh_database, throwaway_cluster


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[str]:
    try:
        with throwaway_cluster() as url:
            yield url
    except ClusterUnavailable as exc:
        pytest.skip(f"no PostgreSQL: {exc}")


@pytest.fixture
def postgres_url(postgres_cluster: str) -> str:
    return fresh_database(postgres_cluster)


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'jobs.sqlite3'}"
    return str(request.getfixturevalue("postgres_url"))
