"""Finding 2 of the attack on a fresh clone: a finished result is never thrown away at shutdown, and a job
that has ended does not hold the shutdown grace period.

A store that cannot record (its disk full: every write fails) used to see shutdown delete the ended job's
directory and report and queue it again (it ran twice), after waiting the whole grace for a job already
done. Now the report stays on disk, the job stays running in the store, and the next runner on the node
finishes it from the report: one start, its result kept."""

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from service.sim.db import DatabaseUnavailable
from service.sim.jobs import JobLimits
from service.sim.procs import job_dir
from service.sim.runner import JobRunner, _Local
from service.sim.store import JobStore

GRACE_S = 60.0  # far longer than the test allows itself: an ended job must not be waited for
ENDS_WITHIN_S = 20.0  # the job's process and the runner's ticks, on a loaded machine
REPORT = {"succeeded": True, "world_size": 2}
WRITE_REPORT = "import json, sys; open(sys.argv[1], 'w').write(json.dumps({'succeeded': True, 'world_size': 2}))"


@pytest.fixture
def store(tmp_path: Path) -> JobStore:
    return JobStore(f"sqlite:///{tmp_path / 'jobs.sqlite3'}")


def test_an_ended_job_the_store_cannot_record_keeps_its_report_and_runs_once(
    store: JobStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    limits = JobLimits(max_concurrent=0, shutdown_grace_s=GRACE_S)  # claims nothing of its own
    runner = JobRunner(store, limits, root=tmp_path)
    store.insert("done1", {"world_size": 2}, {"world_size": 2, "runs": []}, 100)
    (row,) = store.claim_queued(runner.owner, 1, 10, 600.0, 135.0)
    workdir = job_dir(tmp_path, row["id"])
    workdir.mkdir(parents=True)
    report_path = workdir / "report.json"
    process = subprocess.Popen([sys.executable, "-c", WRITE_REPORT, str(report_path)], start_new_session=True)
    store.set_process(runner.owner["id"], row["id"], process.pid, str(workdir))
    runner._local[row["id"]] = _Local(row["id"], workdir, time.monotonic() + 600, process, process.pid)

    def full_disk(*args: object, **kwargs: object) -> bool:
        raise DatabaseUnavailable("database or disk is full")

    monkeypatch.setattr(store, "finish", full_disk)
    runner.start()
    process.wait(timeout=ENDS_WITHIN_S)
    began = time.monotonic()
    runner.shutdown()
    assert time.monotonic() - began < ENDS_WITHIN_S < GRACE_S  # not the grace: the job had ended

    assert json.loads(report_path.read_text()) == REPORT  # the result is still on disk
    job = store.get(row["id"])
    assert job is not None and (job["status"], job["attempts"]) == ("running", 1)  # not queued to run again

    # The store recovers; once the lease has expired (the process that shut down is gone) the next runner on
    # this node takes the job over and finds the report on disk.
    monkeypatch.undo()
    with store.db.transaction() as cur:
        cur.run("UPDATE simulation_jobs SET lease_expires_at = 0 WHERE id = ?", (row["id"],))
    JobRunner(store, JobLimits(max_concurrent=0), root=tmp_path).tick()
    job = store.get(row["id"])
    assert job is not None
    assert (job["status"], job["report"], job["attempts"]) == ("succeeded", REPORT, 1)
    assert not workdir.exists()
