"""Jobs under chaos: kill -9 and restarts while 10 simulation jobs run and wait in the queue.

Two scenarios, each with its own database and temporary directory (TMPDIR of every process):
- sqlite: one API process running the simulations; it is killed with SIGKILL twice and started
  again while jobs run; two jobs are cancelled on the way.
- postgresql: a throwaway cluster, two API replicas (queue only) and two ``zeroplan worker``
  processes; a worker and a replica are killed with SIGKILL and started again, the other worker
  is stopped with SIGTERM (it hands its jobs back) and started again; two jobs are cancelled.

Figures per scenario: jobs lost (a job that did not end succeeded with its report, or cancelled
when asked), orphan processes (any process of these jobs left once every service process is
stopped), temporary directories left (job directories under the scenario's TMPDIR). All three
must be 0. Every process binds 127.0.0.1 and is stopped at the end.
"""

import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from service.sim.procs import job_processes
from service.sim.store import JobStore

ROOT = Path(__file__).resolve().parents[2]
JOB = {"world_size": 2, "arrangements": ["zero2"], "steps": 40, "parameter_count": 200_000}
START_TIMEOUT_S = 90.0
FINISH_TIMEOUT_S = 600.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("jobs")
    group.add_argument("--jobs", type=int, default=10, help="simulation jobs per scenario (default 10)")
    group.add_argument("--cancel", type=int, default=2, help="of which cancelled on the way (default 2)")
    group.add_argument("--concurrent", type=int, default=3, help="ZEROPLAN_SIM_MAX_CONCURRENT_JOBS (default 3)")
    group.add_argument("--scenario", action="append", choices=["sqlite", "postgresql"], help="default: both")


def run(args: argparse.Namespace) -> dict[str, Any]:
    checks: dict[str, bool] = {}
    figures: dict[str, Any] = {}
    for scenario in args.scenario or ["sqlite", "postgresql"]:
        result = SCENARIOS[scenario](args)
        if result is None:
            continue
        figures[scenario] = result
        for key in ("jobs_lost", "orphan_processes", "temp_dirs_left"):
            checks[f"{scenario} {key} = 0"] = result[key] == 0
    return {"figures": figures, "checks": checks}


class Fleet:
    """Service processes sharing one environment; each can be killed and started again."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.commands: dict[str, list[str]] = {}
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.urls: dict[str, str] = {}

    def serve(self, name: str) -> str:
        port = _free_port()
        self.commands[name] = ["serve", "--host", "127.0.0.1", "--port", str(port)]
        self.urls[name] = f"http://127.0.0.1:{port}"
        self.start(name)
        return self.urls[name]

    def worker(self, name: str) -> None:
        self.commands[name] = ["worker"]
        self.start(name)

    def start(self, name: str) -> None:
        self.processes[name] = subprocess.Popen(
            [sys.executable, "-m", "cli", *self.commands[name]], cwd=ROOT, env=self.env
        )
        if name in self.urls:
            _wait(lambda: _ready(self.urls[name]), f"{name} ready", START_TIMEOUT_S)

    def kill9(self, name: str) -> None:
        self.processes[name].kill()
        self.processes[name].wait()
        print(f"  kill -9 {name}", flush=True)

    def term(self, name: str) -> None:
        self.processes[name].send_signal(signal.SIGTERM)
        self.processes[name].wait(timeout=120)
        print(f"  SIGTERM {name}", flush=True)

    def stop_all(self) -> list[int | None]:
        for process in self.processes.values():
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        return [process.wait(timeout=120) for process in self.processes.values()]


def sqlite_scenario(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="zeroplan-chaos-") as tmp:
        db = Path(tmp) / "jobs.sqlite3"
        fleet = Fleet(_env(tmp, args, ZEROPLAN_SIM_DB_PATH=str(db), ZEROPLAN_SIM_RUNNER="api"))
        api = fleet.serve("api")
        started = time.monotonic()
        try:
            ids = [_submit(api) for _ in range(args.jobs)]
            cancelled = set(ids[-args.cancel :]) if args.cancel else set()
            _wait_running(api, ids, 2)
            fleet.kill9("api")
            fleet.start("api")
            for job_id in cancelled:
                _cancel(api, job_id)
            _wait_running(api, ids, 1)
            fleet.kill9("api")
            fleet.start("api")
            return _settle("sqlite", fleet, api, f"sqlite:///{db}", ids, cancelled, Path(tmp), started)
        finally:
            fleet.stop_all()  # a scenario that fails half-way leaves no service behind


def postgresql_scenario(args: argparse.Namespace) -> dict[str, Any] | None:
    from tests.postgres import ClusterUnavailable, fresh_database, throwaway_cluster

    try:
        cluster = throwaway_cluster()
        cluster_url = cluster.__enter__()
    except ClusterUnavailable as exc:
        print(f"  postgresql: skipped ({exc})")
        return None
    try:
        with tempfile.TemporaryDirectory(prefix="zeroplan-chaos-") as tmp:
            url = fresh_database(cluster_url)
            fleet = Fleet(_env(tmp, args, ZEROPLAN_DATABASE_URL=url, ZEROPLAN_SIM_RUNNER="worker"))
            one, two = fleet.serve("replica-1"), fleet.serve("replica-2")
            fleet.worker("worker-1")
            fleet.worker("worker-2")
            started = time.monotonic()
            try:
                ids = [_submit(one if i % 2 else two) for i in range(args.jobs)]
                cancelled = set(ids[-args.cancel :]) if args.cancel else set()
                _wait_running(two, ids, 2)
                fleet.kill9("worker-1")
                fleet.start("worker-1")
                fleet.kill9("replica-1")
                fleet.start("replica-1")
                for job_id in cancelled:
                    _cancel(two, job_id)
                _wait_running(two, ids, 1)
                fleet.term("worker-2")
                fleet.start("worker-2")
                return _settle("postgresql", fleet, one, url, ids, cancelled, Path(tmp), started)
            finally:
                fleet.stop_all()
    finally:
        cluster.__exit__(None, None, None)


SCENARIOS = {"sqlite": sqlite_scenario, "postgresql": postgresql_scenario}


def _settle(
    name: str, fleet: Fleet, api: str, store_url: str, ids: list[str], cancelled: set[str], tmp: Path, started: float
) -> dict[str, Any]:
    jobs = _wait(lambda: _all_final(api, ids), "every job ends", FINISH_TIMEOUT_S)
    wall_s = time.monotonic() - started
    codes = fleet.stop_all()
    store = JobStore(store_url)
    attempts = sum(int(store.get(job_id)["attempts"]) for job_id in ids)  # type: ignore[index]
    store.close()
    lost = [
        job["id"]
        for job in jobs
        if not (
            (job["status"] == "succeeded" and job["report"] and job["report"]["succeeded"])
            or (job["status"] == "cancelled" and job["id"] in cancelled)
        )
    ]
    orphans = [pid for job_id in ids for pid in job_processes(job_id)]
    dirs = [str(p) for p in tmp.rglob("zeroplan-job-*")] + [str(p) for p in tmp.rglob("zeroplan-sim-*")]
    result = {
        "jobs": len(ids),
        "succeeded": sum(job["status"] == "succeeded" for job in jobs),
        "cancelled": sum(job["status"] == "cancelled" for job in jobs),
        "jobs_lost": len(lost),
        "orphan_processes": len(orphans),
        "temp_dirs_left": len(dirs),
        "starts": attempts,
        "wall_s": round(wall_s, 1),
        "exit_codes": codes,
    }
    print(
        f"  {name}: {result['jobs']} jobs, {result['succeeded']} succeeded, {result['cancelled']} cancelled "
        f"(asked {len(cancelled)}), jobs lost {result['jobs_lost']}, orphan processes {result['orphan_processes']}, "
        f"temp dirs left {result['temp_dirs_left']}; {attempts} starts for {len(ids) - len(cancelled)} finished "
        f"jobs, {wall_s:.1f} s",
        flush=True,
    )
    if lost:
        print(f"  lost: {[(j['id'], j['status'], j['error']) for j in jobs if j['id'] in lost]}")
    return result


def _env(tmp: str, args: argparse.Namespace, **settings: str) -> dict[str, str]:
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith("ZEROPLAN_")},
        "TMPDIR": tmp,
        "ZEROPLAN_SIM_MAX_CONCURRENT_JOBS": str(args.concurrent),
        "ZEROPLAN_SIM_MAX_QUEUED_JOBS": str(args.jobs),
        "ZEROPLAN_SIM_SHUTDOWN_GRACE_S": "5",
        "ZEROPLAN_ACCESS_LOG": "false",
        "ZEROPLAN_LOG_LEVEL": "warning",
        **settings,
    }


def _submit(api: str) -> str:
    response = httpx.post(f"{api}/v1/simulations", json=JOB, timeout=30)
    response.raise_for_status()
    return str(response.json()["id"])


def _cancel(api: str, job_id: str) -> None:
    response = httpx.delete(f"{api}/v1/simulations/{job_id}", timeout=30)
    response.raise_for_status()
    print(f"  DELETE {job_id[:8]}: {response.json()['status']}", flush=True)


def _wait_running(api: str, ids: list[str], count: int) -> None:
    """Until ``count`` jobs have their ranks running (launcher and two ranks each), or none is left to run (a
    short scenario's jobs may all have ended before the next kill)."""

    def running() -> bool:
        return sum(len(job_processes(i)) >= 3 for i in ids) >= count or _all_final(api, ids) is not None

    _wait(running, f"{count} jobs running", START_TIMEOUT_S)


def _all_final(api: str, ids: list[str]) -> list[dict[str, Any]] | None:
    try:
        jobs = [httpx.get(f"{api}/v1/simulations/{job_id}", timeout=10).json() for job_id in ids]
    except httpx.HTTPError:
        return None
    return jobs if all(job["status"] not in ("queued", "running") for job in jobs) else None


def _ready(url: str) -> bool:
    try:
        return httpx.get(f"{url}/readyz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def _wait(condition: Any, what: str, timeout_s: float) -> Any:
    deadline = time.monotonic() + timeout_s
    while not (value := condition()):
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not within {timeout_s:g} s")
        time.sleep(0.2)
    return value


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
