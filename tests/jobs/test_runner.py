"""What a runner does with what others left, without running a simulation: a report on disk is a
result, a job without one is queued again, a live owner's job is left alone, stale directories go,
job errors are JSON log lines, and a simulation's environment carries no token."""

import json
import logging
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from api.logs import JsonFormatter
from service.sim.jobs import JobLimits
from service.sim.procs import job_dir, job_env, new_owner, node_id, start_ticks
from service.sim.runner import JobRunner
from service.sim.store import JobStore

NO_CLAIMS = JobLimits(max_concurrent=0)  # the runner takes over and records, but starts nothing
LEASE_S = 600.0


def dead_owner() -> dict[str, str]:
    """The identity a process on this node had before it died (a real pid, now gone)."""
    # The child waits for its stdin to close, so it is alive (not yet a zombie) when its start time is read.
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    ticks = start_ticks(child.pid)
    assert child.stdin is not None and ticks is not None
    child.stdin.close()
    child.wait()
    return {"id": f"gone:{child.pid}:{ticks}:dead", "node": node_id(), "host": "gone"}


@pytest.fixture
def store(tmp_path: Path) -> JobStore:
    return JobStore(f"sqlite:///{tmp_path / 'jobs.sqlite3'}")


def running_job(store: JobStore, owner: dict[str, str], root: Path, config: dict | None = None) -> tuple[str, Path]:
    job_id = f"job{len(store.count_by_status())}{owner['id'][-4:]}"
    store.insert(job_id, {"world_size": 2}, config or {"world_size": 2, "runs": []}, 100)
    (row,) = store.claim_queued(owner, 1, 10, LEASE_S, 135.0)
    workdir = job_dir(root, row["id"])
    workdir.mkdir(parents=True)
    store.set_process(owner["id"], row["id"], 999_999, str(workdir))
    return row["id"], workdir


def test_a_report_on_disk_is_the_result_of_a_job_whose_runner_died(store: JobStore, tmp_path: Path) -> None:
    job_id, workdir = running_job(store, dead_owner(), tmp_path)
    report = {"succeeded": True, "world_size": 2}
    (workdir / "report.json").write_text(json.dumps(report))
    JobRunner(store, NO_CLAIMS, root=tmp_path).tick()
    job = store.get(job_id)
    assert job is not None
    assert (job["status"], job["report"], job["error"], job["owner"]) == ("succeeded", report, None, None)
    assert not workdir.exists()


def test_a_job_whose_runner_died_without_a_report_is_queued_again(store: JobStore, tmp_path: Path) -> None:
    job_id, workdir = running_job(store, dead_owner(), tmp_path)
    JobRunner(store, NO_CLAIMS, root=tmp_path).tick()
    job = store.get(job_id)
    assert job is not None and (job["status"], job["owner"], job["attempts"]) == ("queued", None, 1)
    assert "left no report" in job["error"]
    assert not workdir.exists()


def test_a_live_owner_keeps_its_job_until_its_lease_expires(store: JobStore, tmp_path: Path) -> None:
    elsewhere = {"id": "other:1:1:live", "node": "another-node", "host": "other"}
    job_id, workdir = running_job(store, elsewhere, tmp_path)
    (workdir / "report.json").write_text(json.dumps({"succeeded": True}))
    runner = JobRunner(store, NO_CLAIMS, root=tmp_path)
    runner.tick()
    job = store.get(job_id)
    assert job is not None and (job["status"], job["owner"]) == ("running", elsewhere["id"])
    assert workdir.exists()  # another node's files are not this runner's to judge
    store.renew(elsewhere["id"], -1.0, [job_id])  # its lease runs out
    runner._due["recover"] = 0.0
    runner.tick()
    job = store.get(job_id)
    assert job is not None and (job["status"], job["owner"]) == ("queued", None)
    assert job["error"] == "its runner on other stopped renewing its lease"


def test_a_cancelled_job_of_a_dead_runner_frees_its_slot(store: JobStore, tmp_path: Path) -> None:
    job_id, workdir = running_job(store, dead_owner(), tmp_path)
    store.cancel(job_id, "cancelled by DELETE")
    JobRunner(store, NO_CLAIMS, root=tmp_path).tick()
    job = store.get(job_id)
    assert job is not None and (job["status"], job["owner"]) == ("cancelled", None)
    assert not workdir.exists()


def test_stale_directories_go_and_active_ones_stay(store: JobStore, tmp_path: Path) -> None:
    live = {"id": "other:1:1:live", "node": "another-node", "host": "other"}
    active_id, active_dir = running_job(store, live, tmp_path)
    unknown_dir = job_dir(tmp_path, "0" * 32)
    unknown_dir.mkdir()
    JobRunner(store, NO_CLAIMS, root=tmp_path).tick()
    assert active_dir.exists() and not unknown_dir.exists()


@pytest.fixture
def job_log() -> Iterator[list[dict]]:
    lines: list[dict] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(json.loads(JsonFormatter().format(record)))

    logger, handler = logging.getLogger("zeroplan.jobs"), Collect()
    logger.addHandler(handler)
    try:
        yield lines
    finally:
        logger.removeHandler(handler)


def test_a_failed_job_is_a_json_log_line_naming_it(store: JobStore, tmp_path: Path, job_log: list[dict]) -> None:
    job_id, workdir = running_job(store, dead_owner(), tmp_path)
    with store.db.transaction() as cur:  # as an earlier version left it: no configuration to run again
        cur.run("UPDATE simulation_jobs SET config = NULL WHERE id = ?", (job_id,))
    JobRunner(store, NO_CLAIMS, root=tmp_path).tick()
    job = store.get(job_id)
    assert job is not None and job["status"] == "failed"
    failed = [line for line in job_log if line["message"] == "simulation failed"]
    assert failed == [
        {
            "time": failed[0]["time"],
            "level": "error",
            "logger": "zeroplan.jobs",
            "message": "simulation failed",
            "job_id": job_id,
            "error": "the service restarted while this job was running and its simulation left no report",
        }
    ]


def test_a_simulation_inherits_no_token_and_no_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZEROPLAN_API_TOKEN", "secret-token")
    monkeypatch.setenv("ZEROPLAN_DATABASE_URL", "postgresql://user:password@db/jobs")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "cloud-secret")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    env = job_env({"TMPDIR": "/tmp/zeroplan-job-x/tmp"})
    assert env["PATH"] == "/usr/bin:/bin" and env["TMPDIR"] == "/tmp/zeroplan-job-x/tmp"
    assert not any(name.startswith("ZEROPLAN_") or "SECRET" in name for name in env)


def test_an_owner_is_known_dead_only_on_its_node() -> None:
    from service.sim.procs import owner_dead

    assert not owner_dead(new_owner()["id"])  # this very process
    assert owner_dead(dead_owner()["id"])
