"""The runner: executes simulation jobs from the store, in the API process or a ``zeroplan worker``.

A job is ``python -m service.sim --config C --out R`` in its own session (its process-group id is
its pid; one killpg reaches the launcher and every rank), in a directory of its own that also
holds the simulation's temporary files (TMPDIR), with only the environment it needs. One thread
supervises every job this process owns: it notices exits, enforces the hard wall-clock limit,
renews the leases (store.py), ends the jobs a DELETE cancelled on any replica, claims queued jobs
while the store's count of running jobs is under the limit, and takes over jobs whose owner is
gone:

- on this node, a job whose processes still run is adopted (watched until they end); one whose
  processes ended is finished from its report on disk, or queued again when there is none;
- on another node (only once its lease expired), it is queued again: its files are out of reach,
  and its own processes end at their wall-clock limit.

A result is written to the store before the job's directory is removed, so a store that is
briefly locked or unreachable delays a result and never loses it. Shutting down stops claiming,
lets running jobs finish for a bounded grace period, then kills the rest, removes their
directories and queues them again for another runner. No torch here.
"""

import hashlib
import json
import logging
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from service.sim.config import SimConfig
from service.sim.db import DatabaseUnavailable
from service.sim.job_limits import START_MARGIN_S, JobLimits
from service.sim.procs import JOB_DIR_PREFIX, job_dir, job_env, job_processes, kill_job, new_owner, owner_dead
from service.sim.store import FINAL, JobStore

PROJECT_ROOT = Path(__file__).resolve().parents[2]
TICK_S = 0.2
CLAIM_EVERY_S = 0.5
CHECK_EVERY_S = 1.0  # lease renewal and cancellations; at most a third of the lease
RECOVER_EVERY_S = 1.0
SWEEP_EVERY_S = 30.0
MAX_STARTS = 3
HANDED_BACK = "the process running it shut down; queued again for another runner"

log = logging.getLogger("zeroplan.jobs")
Verdict = tuple[str, dict[str, Any] | None, str | None]  # status, report, error


@dataclass
class _Local:
    """A job this process owns: its child process, or the processes it adopted."""

    job_id: str
    workdir: Path
    deadline: float  # time.monotonic()
    process: subprocess.Popen[bytes] | None = None
    pgid: int | None = None
    verdict: Verdict | None = None  # decided, not yet written to the store

    def ended(self) -> bool:
        if self.process is not None:
            return self.process.poll() is not None
        return not job_processes(self.job_id)


class JobRunner:
    def __init__(self, store: JobStore, limits: JobLimits, root: Path | None = None) -> None:
        self.store, self.limits = store, limits
        self.root = root or default_root(store.url)
        self.owner = new_owner()
        self._local: dict[str, _Local] = {}
        self._lock = threading.RLock()
        self._wake, self._stop = threading.Event(), threading.Event()
        self._accepting = True
        self._thread: threading.Thread | None = None
        self._due = {"claim": 0.0, "check": 0.0, "recover": 0.0, "sweep": 0.0}

    # --- lifecycle ---

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="sim-jobs", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        self._due["claim"] = 0.0
        self._wake.set()

    def shutdown(self) -> None:
        """Stop claiming; give running jobs ``shutdown_grace_s`` to end; kill and queue again the rest.

        A job that has ended is not waited for, and its result is recorded before anything of it is
        removed: when the store cannot take it (a full disk, an outage), its directory and report stay
        where they are and the job stays running in the store, so the runner that takes it over once its
        lease expires finishes it from the report on disk instead of running it again."""
        self._accepting = False
        deadline = time.monotonic() + self.limits.shutdown_grace_s
        while self._thread is not None and self._still_running() and time.monotonic() < deadline:
            time.sleep(TICK_S)
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
        with self._lock:
            for job in list(self._local.values()):
                if job.verdict is None and job.ended():
                    job.verdict = _verdict(job)
                if job.verdict is not None:
                    self._record_or_keep(job, job.verdict)
                    continue
                self._end(job)
                try:
                    status = self.store.requeue(self.owner["id"], job.job_id, HANDED_BACK, MAX_STARTS)
                    if status is None:  # cancelled meanwhile: only its slot to free
                        self.store.release(self.owner["id"], job.job_id)
                except DatabaseUnavailable as exc:  # its lease expires and another runner takes it over
                    status = f"not written: {exc}"
                _event("handed back a running job at shutdown", job.job_id, logging.WARNING, status=status)
        try:
            self.root.rmdir()  # when no job of this store is left on this node
        except OSError:
            pass

    def _still_running(self) -> bool:
        """Whether a job of this runner has not ended yet (an ended one waiting on the store is not waited for)."""
        with self._lock:
            return any(job.verdict is None and not job.ended() for job in self._local.values())

    def _record_or_keep(self, job: _Local, verdict: Verdict) -> None:
        """At shutdown: record an ended job's outcome, or leave its directory for whoever takes it over."""
        try:
            self._record(job, verdict)
        except DatabaseUnavailable as exc:
            with self._lock:
                self._local.pop(job.job_id, None)  # forgotten here; its files and its store row stay
            _event(
                "kept an ended job's result on disk at shutdown: the store did not take it",
                job.job_id,
                logging.WARNING,
                error=str(exc),
            )

    def local_ids(self) -> list[str]:
        with self._lock:
            return list(self._local)

    def pgid(self, job_id: str) -> int | None:
        with self._lock:
            job = self._local.get(job_id)
            return job.pgid if job else None

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self.tick()
            except DatabaseUnavailable as exc:
                log.error("job store unavailable", extra={"fields": {"error": str(exc)}})
            except Exception:
                log.exception("job runner error")
            self._wake.wait(TICK_S)
            self._wake.clear()

    def tick(self) -> None:
        """One round: exits and deadlines, then (when due) leases and cancellations, take-overs,
        stale directories and claims."""
        now = time.monotonic()
        self._supervise()
        if self._is_due("check", now, min(CHECK_EVERY_S, self.limits.lease_ttl_s / 3)):
            self._check()
        if not self._accepting:
            return
        if self._is_due("recover", now, RECOVER_EVERY_S):
            self._recover()
        if self._is_due("sweep", now, SWEEP_EVERY_S):
            self._sweep_dirs()
        if self._is_due("claim", now, CLAIM_EVERY_S):
            self._claim()

    def _is_due(self, what: str, now: float, every_s: float) -> bool:
        if now < self._due[what]:
            return False
        self._due[what] = now + every_s
        return True

    # --- running our own jobs ---

    def _claim(self) -> None:
        slots = self.limits.max_concurrent - len(self.local_ids())
        if slots <= 0:
            return
        limits = self.limits
        claimed = self.store.claim_queued(
            self.owner, slots, limits.max_concurrent, limits.lease_ttl_s, limits.hard_limit_s
        )
        for row in claimed:
            self._start(row)

    def _start(self, row: dict[str, Any]) -> None:
        job_id, workdir = row["id"], job_dir(self.root, row["id"])
        job = _Local(job_id, workdir, time.monotonic() + (row["deadline_at"] - row["db_now"]))
        shutil.rmtree(workdir, ignore_errors=True)  # a earlier attempt's leftovers
        try:
            if row["config"] is None:
                raise ValueError("no configuration stored for this job")
            job.process = self._spawn(workdir, row["config"])
            job.pgid = job.process.pid
        except (OSError, ValueError, TypeError) as exc:
            job.verdict = ("failed", None, f"the simulation could not start: {exc}")
        with self._lock:
            self._local[job_id] = job
        if job.pgid is not None:
            self.store.set_process(self.owner["id"], job_id, job.pgid, str(workdir))

    def _spawn(self, workdir: Path, config: dict[str, Any]) -> subprocess.Popen[bytes]:
        """Start ``python -m service.sim`` on the stored configuration (it names its engine)."""
        (workdir / "tmp").mkdir(parents=True)
        if config.get("engine") is None:  # the rings: a partial checkpoint is written in the job's directory
            cfg = SimConfig.from_json(config)
            if cfg.partial_checkpoint is not None:
                config = {**cfg.to_json(), "checkpoint_dir": str(workdir / "checkpoints")}
        (workdir / "config.json").write_text(json.dumps(config))
        command = [sys.executable, "-m", "service.sim", "--config", str(workdir / "config.json")]
        command += ["--out", str(workdir / "report.json"), "--timeout-s", str(self.limits.timeout_s)]
        env = job_env({"PYTHONPATH": str(PROJECT_ROOT), "TMPDIR": str(workdir / "tmp")})
        with open(workdir / "stderr.txt", "wb") as err:
            return subprocess.Popen(
                command, cwd=PROJECT_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=err, start_new_session=True
            )

    def _supervise(self) -> None:
        for job_id in self.local_ids():
            with self._lock:
                job = self._local.get(job_id)
                if job is None:
                    continue
                if job.verdict is None and job.ended():
                    job.verdict = _verdict(job)
                elif job.verdict is None and time.monotonic() > job.deadline:
                    kill_job(job_id, job.pgid)
                    job.verdict = ("failed", None, self._overran())
                if job.verdict is not None:
                    self._record(job, job.verdict)

    def _overran(self) -> str:
        limits = self.limits
        return (
            f"ran past its wall-clock limit of {limits.hard_limit_s:g} s ({limits.timeout_s:g} s for the ranks "
            f"plus {START_MARGIN_S:g} s to start and report) and was killed"
        )

    def _record(self, job: _Local, verdict: Verdict) -> None:
        """Write the outcome (raises while the store is unavailable: the next tick tries again), then clean up."""
        status, report, error = verdict
        if self.store.finish(self.owner["id"], job.job_id, status, report, error):
            if status == "failed":
                _event("simulation failed", job.job_id, logging.ERROR, error=error)
        else:
            self.store.release(self.owner["id"], job.job_id)  # cancelled meanwhile: free its slot
        self._end(job)

    def _end(self, job: _Local) -> None:
        """Kill what is left of the job, reap our child, remove its directory; forget it."""
        kill_job(job.job_id, job.pgid)
        if job.process is not None:
            job.process.wait()
        shutil.rmtree(job.workdir, ignore_errors=True)
        with self._lock:
            self._local.pop(job.job_id, None)

    def end_if_local(self, job_id: str) -> None:
        """A DELETE on this process: end the job's processes now and free its slot."""
        with self._lock:
            job = self._local.get(job_id)
            if job is not None:
                self._end(job)
                self.store.release(self.owner["id"], job_id)

    def _check(self) -> None:
        """Renew our leases; end the jobs cancelled elsewhere; let go of the ones taken over."""
        ids = self.local_ids()
        if not ids:
            return
        states = self.store.renew(self.owner["id"], self.limits.lease_ttl_s, ids)
        for job_id in ids:
            with self._lock:
                job, row = self._local.get(job_id), states.get(job_id)
                if job is None or row is None or job.verdict is not None:
                    continue
                if row["owner"] != self.owner["id"]:
                    self._lost(job, row)
                elif row["status"] == "cancelled":
                    self._end(job)
                    self.store.release(self.owner["id"], job_id)

    def _lost(self, job: _Local, row: dict[str, Any]) -> None:
        """Another runner took the job over (our lease had expired): on this node it watches the
        processes now; elsewhere it runs the job again, so ours are ended."""
        _event("lost the lease of a running job", job.job_id, logging.WARNING, new_owner=row["owner"])
        if row["node"] != self.owner["node"]:
            self._end(job)
            return
        with self._lock:
            self._local.pop(job.job_id, None)
        process = job.process
        if process is not None:
            threading.Thread(target=process.wait, daemon=True).start()  # reap our child when it ends

    # --- taking over what others left ---

    def _recover(self) -> None:
        local = set(self.local_ids())
        for row in self.store.abandoned(self.owner):
            previous, here = row["owner"], row["node"] in (None, self.owner["node"])
            if row["id"] in local:
                continue
            expired = row["lease_expires_at"] is None or row["lease_expires_at"] < row["db_now"]
            # ours in the store but no longer watched, or its runner on this node is dead
            gone = previous == self.owner["id"] or (here and previous is not None and owner_dead(previous))
            if not expired and not gone:
                continue  # a live runner on this node still owns it
            if not self.store.take_over(self.owner, row["id"], previous, self.limits.lease_ttl_s, gone):
                continue
            reason = "its lease expired" if expired else "the process that ran it is gone"
            _event("took over a job", row["id"], previous_owner=previous, reason=reason, status=row["status"])
            self._adopt(row, here, reason)

    def _adopt(self, row: dict[str, Any], here: bool, reason: str) -> None:
        job_id = row["id"]
        workdir = Path(row["workdir"]) if row["workdir"] else job_dir(self.root, job_id)
        if row["status"] == "cancelled":
            if here:
                kill_job(job_id, row["pgid"])
                shutil.rmtree(workdir, ignore_errors=True)
            self.store.release(self.owner["id"], job_id)
            return
        if not here:
            self._requeue(job_id, f"its runner on {row['host']} stopped renewing its lease")
            return
        remaining_s = (row["deadline_at"] or row["db_now"] + self.limits.hard_limit_s) - row["db_now"]
        job = _Local(job_id, workdir, time.monotonic() + remaining_s, None, row["pgid"])
        if job_processes(job_id):
            with self._lock:
                self._local[job_id] = job  # still running: watch it to its end
        elif (workdir / "report.json").exists() or row["config"] is None:
            self._record(job, _verdict(job))  # a report on disk is the job's result
        else:
            shutil.rmtree(workdir, ignore_errors=True)
            self._requeue(job_id, f"{reason} and its simulation left no report")

    def _requeue(self, job_id: str, reason: str) -> None:
        status = self.store.requeue(self.owner["id"], job_id, reason, MAX_STARTS)
        _event("queued a job again", job_id, logging.WARNING, reason=reason, status=status)

    def _sweep_dirs(self) -> None:
        """Remove this node's job directories that no job needs any more (finished or unknown)."""
        local = set(self.local_ids())
        for path in self.root.glob(f"{JOB_DIR_PREFIX}*"):
            job_id = path.name.removeprefix(JOB_DIR_PREFIX)
            if job_id in local or not path.is_dir():
                continue
            row = self.store.get(job_id)
            if row is None or (row["status"] in FINAL and row["owner"] is None):
                kill_job(job_id, None)
                shutil.rmtree(path, ignore_errors=True)


def default_root(store_url: str) -> Path:
    """This store's job directories on this node: runners of other stores never sweep them."""
    return Path(tempfile.gettempdir()) / f"zeroplan-jobs-{hashlib.sha256(store_url.encode()).hexdigest()[:12]}"


def _verdict(job: _Local) -> Verdict:
    """The outcome of a job whose processes ended: its report, or why there is none."""
    report = _read_json(job.workdir / "report.json")
    if report is not None:
        return ("succeeded", report, None) if report["succeeded"] else ("failed", report, _failure_summary(report))
    if job.process is not None:
        tail = _tail(job.workdir / "stderr.txt")
        return "failed", None, f"the simulation exited with code {job.process.returncode} and no report: {tail}"
    return "failed", None, "the service restarted while this job was running and its simulation left no report"


def _event(message: str, job_id: str, level: int = logging.INFO, **fields: Any) -> None:
    log.log(level, message, extra={"fields": {"job_id": job_id, **fields}})


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _tail(path: Path, chars: int = 800) -> str:
    try:
        return path.read_text(errors="replace")[-chars:].strip()
    except OSError:
        return ""


def _failure_summary(report: dict[str, Any]) -> str:
    failure = report.get("faults", {}).get("failure")
    if failure:
        return str(failure["summary"])
    return "the simulation did not complete"
