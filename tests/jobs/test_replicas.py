"""Issue 14, item 2: two API replicas and two `zeroplan worker` processes on one PostgreSQL.

The replicas only queue (``ZEROPLAN_SIM_RUNNER=worker``); the workers run. A job submitted on one
replica is read and finished on the other; a job running on a worker is cancelled through the
other replica and its processes end. Every process is a real one, on 127.0.0.1, stopped by SIGTERM.
"""

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from service.sim.procs import job_processes
from tests.postgres import fresh_database

pytestmark = [pytest.mark.sim]
pytest.importorskip("torch")

PROJECT_ROOT = Path(__file__).resolve().parents[2]
SMALL = {"world_size": 2, "arrangements": ["ddp", "zero3"], "steps": 2, "parameter_count": 5_000}
LONG = {"world_size": 2, "arrangements": ["zero3"], "steps": 100, "parameter_count": 4_000_000}
START_TIMEOUT_S = 60


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(condition: Callable[[], Any], what: str, timeout_s: float = 60) -> Any:
    deadline = time.monotonic() + timeout_s
    while not (value := condition()):
        assert time.monotonic() < deadline, f"{what}: not within {timeout_s} s"
        time.sleep(0.1)
    return value


def ready(url: str) -> bool:
    try:
        return httpx.get(f"{url}/readyz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


@pytest.fixture
def fleet(postgres_cluster: str, tmp_path: Path) -> Iterator[list[str]]:
    """Two replicas and two workers on a fresh database; yields the replicas' URLs."""
    env = {
        **os.environ,
        "ZEROPLAN_DATABASE_URL": fresh_database(postgres_cluster),
        "ZEROPLAN_SIM_RUNNER": "worker",
        "ZEROPLAN_SIM_MAX_CONCURRENT_JOBS": "2",
        "ZEROPLAN_ACCESS_LOG": "false",
        "ZEROPLAN_LOG_LEVEL": "warning",
        "TMPDIR": str(tmp_path),
    }
    ports = [free_port(), free_port()]
    commands = [["serve", "--host", "127.0.0.1", "--port", str(port)] for port in ports] + [["worker"], ["worker"]]
    processes = [
        subprocess.Popen([sys.executable, "-m", "cli", *command], cwd=PROJECT_ROOT, env=env) for command in commands
    ]
    urls = [f"http://127.0.0.1:{port}" for port in ports]
    try:
        for url in urls:
            wait_for(lambda url=url: ready(url), f"{url} ready", START_TIMEOUT_S)
        yield urls
    finally:
        for process in processes:
            process.send_signal(signal.SIGTERM)
        codes = [process.wait(timeout=60) for process in processes]
    # uvicorn ends a graceful shutdown by raising the signal it caught again; the workers exit 0
    assert codes == [-signal.SIGTERM, -signal.SIGTERM, 0, 0]
    assert [p.name for p in tmp_path.glob("zeroplan-jobs-*/*")] == []  # no job directory outlives its job


def poll(url: str, timeout_s: float = 60) -> dict[str, Any]:
    return wait_for(
        lambda: (job := httpx.get(url, timeout=10).json())["status"] not in ("queued", "running") and job,
        f"{url} to finish",
        timeout_s,
    )


def test_a_job_is_submitted_on_one_replica_and_read_finished_and_cancelled_on_the_other(fleet: list[str]) -> None:
    one, two = fleet
    started = httpx.post(f"{one}/v1/simulations", json=SMALL, timeout=10)
    assert started.status_code == 202, started.text
    job = started.json()
    elsewhere = httpx.get(f"{two}{started.headers['location']}", timeout=10)
    assert elsewhere.status_code == 200 and elsewhere.json()["id"] == job["id"]
    done = poll(f"{two}{started.headers['location']}")
    assert done["status"] == "succeeded", done["error"]
    assert all(a["payload_matches"] for a in done["report"]["arrangements"])

    long = httpx.post(f"{two}/v1/simulations", json=LONG, timeout=10)
    assert long.status_code == 202, long.text
    job_id = long.json()["id"]
    wait_for(lambda: len(job_processes(job_id)) >= 3, "a worker runs the launcher and two ranks")
    cancelled = httpx.delete(f"{one}/v1/simulations/{job_id}", timeout=30)
    assert cancelled.status_code == 200
    assert (cancelled.json()["status"], cancelled.json()["error"]) == ("cancelled", "cancelled by DELETE")
    assert job_processes(job_id) == []  # the worker that owned it ended them
    assert httpx.get(f"{two}/v1/simulations/{job_id}", timeout=10).json()["status"] == "cancelled"
