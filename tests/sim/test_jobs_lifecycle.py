"""Issue 14, item 1: jobs that are never lost, with real simulations.

- ``kill -9`` of the process running a job: the simulation runs on; the next runner on the node
  adopts it and records its report; nothing is left behind.
- Shutdown hands a running job back to the queue within its grace period, processes and
  directory gone.
- A DELETE answered by another replica ends the processes of the runner that owns the job.
- A simulation gets no token and keeps its temporary files in the job's directory.
"""

import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from models.simulation import SimulationRequest
from service.sim.jobs import JobLimits, Jobs
from service.sim.procs import job_processes
from service.sim.request import sim_config
from service.sim.runner import HANDED_BACK, JobRunner
from service.sim.store import JobStore

pytestmark = [pytest.mark.sim, pytest.mark.sim_timeout(120)]
pytest.importorskip("torch")

PROJECT_ROOT = Path(__file__).resolve().parents[2]
MEDIUM = {"world_size": 2, "arrangements": ["zero2"], "steps": 60, "parameter_count": 400_000}
LONG = {"world_size": 2, "arrangements": ["zero3"], "steps": 100, "parameter_count": 4_000_000}
LIMITS = JobLimits(max_concurrent=2, max_queued=4, timeout_s=90, lease_ttl_s=30, shutdown_grace_s=0)


def submit(jobs: Jobs, body: dict[str, Any]) -> str:
    request = SimulationRequest.model_validate(body)
    return str(jobs.submit(request.model_dump(mode="json"), sim_config(request, 10.0))["id"])


def wait_for(condition: Callable[[], Any], what: str, timeout_s: float = 60) -> Any:
    deadline = time.monotonic() + timeout_s
    while not (value := condition()):
        assert time.monotonic() < deadline, f"{what}: not within {timeout_s} s"
        time.sleep(0.1)
    return value


def final(store: JobStore, job_id: str) -> dict[str, Any]:
    return wait_for(lambda: (j := store.get(job_id)) and j["status"] not in ("queued", "running") and j, "job end")


def test_kill_9_of_the_runner_then_restart_adopts_the_simulation_and_records_its_report(tmp_path: Path) -> None:
    url, root = f"sqlite:///{tmp_path / 'jobs.sqlite3'}", tmp_path / "jobs"
    script = textwrap.dedent(f"""
        import time
        from pathlib import Path
        from tests.sim.test_jobs_lifecycle import LIMITS, MEDIUM, submit
        from service.sim.jobs import Jobs
        from service.sim.runner import JobRunner
        from service.sim.store import JobStore
        store = JobStore({url!r})
        runner = JobRunner(store, LIMITS, root=Path({str(root)!r}))
        runner.start()
        print(submit(Jobs(store, LIMITS, runner), MEDIUM), flush=True)
        time.sleep(600)
    """)
    server = subprocess.Popen([sys.executable, "-c", script], cwd=PROJECT_ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        job_id = server.stdout.readline().strip()
        wait_for(lambda: len(job_processes(job_id)) >= 3, "launcher and two ranks")  # the ranks run
    finally:
        server.kill()  # SIGKILL: no shutdown hook runs
        server.wait()
    store = JobStore(url)
    assert store.get(job_id)["status"] == "running"  # type: ignore[index]
    assert job_processes(job_id)  # orphaned, still computing
    runner = JobRunner(store, LIMITS, root=root)
    runner.start()
    try:
        job = final(store, job_id)
    finally:
        runner.shutdown()
    assert job["status"] == "succeeded", job["error"]
    assert job["report"]["succeeded"] and job["report"]["arrangements"][0]["payload_matches"]
    assert job["attempts"] == 1  # adopted, not run again
    assert job_processes(job_id) == []
    assert not root.exists() or list(root.iterdir()) == []


def test_shutdown_hands_a_running_job_back_and_leaves_nothing(tmp_path: Path) -> None:
    store = JobStore(f"sqlite:///{tmp_path / 'jobs.sqlite3'}")
    root = tmp_path / "jobs"
    runner = JobRunner(store, LIMITS, root=root)
    runner.start()
    job_id = submit(Jobs(store, LIMITS, runner), LONG)
    wait_for(lambda: len(job_processes(job_id)) >= 3, "launcher and two ranks")
    runner.shutdown()
    job = store.get(job_id)
    assert job is not None
    assert (job["status"], job["error"], job["owner"]) == ("queued", HANDED_BACK, None)
    assert job_processes(job_id) == []
    assert not root.exists()
    assert Jobs(store, LIMITS).cancel(job_id)["status"] == "cancelled"


def test_a_cancel_on_another_replica_ends_the_owners_processes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZEROPLAN_API_TOKEN", "secret-token")
    url, root = f"sqlite:///{tmp_path / 'jobs.sqlite3'}", tmp_path / "jobs"
    owner_store = JobStore(url)
    runner = JobRunner(owner_store, LIMITS, root=root)
    runner.start()
    try:
        job_id = submit(Jobs(owner_store, LIMITS, runner), LONG)
        pgid = wait_for(lambda: runner.pgid(job_id), "the job starts")
        wait_for(lambda: len(job_processes(job_id)) >= 3, "launcher and two ranks")
        environ = dict(
            item.split("=", 1) for item in Path(f"/proc/{pgid}/environ").read_text().split("\0") if "=" in item
        )
        assert "ZEROPLAN_API_TOKEN" not in environ
        workdir = root / f"zeroplan-job-{job_id}"
        assert environ["TMPDIR"] == str(workdir / "tmp")
        other_replica = Jobs(JobStore(url), LIMITS)  # no runner: another API process
        cancelled = other_replica.cancel(job_id)
        assert (cancelled["status"], cancelled["error"]) == ("cancelled", "cancelled by DELETE")
        assert job_processes(job_id) == []
        assert not workdir.exists()
        assert owner_store.get(job_id)["owner"] is None  # type: ignore[index]
    finally:
        runner.shutdown()
