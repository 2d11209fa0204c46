"""A per-test wall-clock limit for the simulation tests (SIGALRM: the project has no
pytest-timeout). Mark a test ``@pytest.mark.sim_timeout(seconds)``; the default is 60 s."""

import signal
from collections.abc import Iterator

import pytest

DEFAULT_TIMEOUT_S = 60


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "sim_timeout(seconds): wall-clock limit of one simulation test")


@pytest.fixture(autouse=True)
def _time_limit(request: pytest.FixtureRequest) -> Iterator[None]:
    marker = request.node.get_closest_marker("sim_timeout")
    seconds = int(marker.args[0]) if marker else DEFAULT_TIMEOUT_S

    def expire(signum: int, frame: object) -> None:
        raise TimeoutError(f"{request.node.nodeid} ran past its {seconds} s limit")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
