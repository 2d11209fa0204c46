"""The job manager: each simulation runs as its own process group, out of the API process.

A job is ``python -m service.sim --config C --out R`` started in a new session (so its
process-group id is its pid and one killpg reaches the launcher and every rank). A thread per
job waits for it with a hard wall-clock limit (``timeout_s`` plus a start-up margin), kills the
group when it is exceeded or the job is cancelled, and writes the outcome to the job store.
No torch here: the API imports this module whether or not the ``sim`` extra is installed.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from service.sim import require_sim
from service.sim.config import SimConfig
from service.sim.engines.torch_config import TorchSimConfig
from service.sim.errors import SimulationNotFound, TooManySimulations
from service.sim.store import JobStore

PROJECT_ROOT = Path(__file__).resolve().parents[2]
START_MARGIN_S = 15.0  # interpreter start, torch import and the report, beyond the ranks' own limit
RETRY_AFTER_S = 5
GROUP_EXIT_WAIT_S = 5.0
RESTART_REASON = "the service restarted while this job was running"


@dataclass
class _Running:
    process: subprocess.Popen[bytes]
    cancelled: bool = False
    done: threading.Event = field(default_factory=threading.Event)


class JobManager:
    def __init__(self, db_path: str, max_concurrent: int, timeout_s: float) -> None:
        self.store = JobStore(db_path)
        self.store.fail_orphans(RESTART_REASON)
        self.max_concurrent, self.timeout_s = max_concurrent, timeout_s
        self._running: dict[str, _Running] = {}
        self._lock = threading.Lock()

    def submit(self, request: dict[str, Any], cfg: SimConfig | TorchSimConfig) -> dict[str, Any]:
        require_sim()
        job_id = uuid.uuid4().hex
        with self._lock:
            if len(self._running) >= self.max_concurrent:
                raise TooManySimulations(
                    f"{len(self._running)} simulations are running, the limit is {self.max_concurrent}; retry later",
                    RETRY_AFTER_S,
                )
            self.store.insert(job_id, request)
            self._running[job_id] = _Running(self._start(job_id, cfg))
        self.store.update(job_id, "running")
        threading.Thread(target=self._wait, args=(job_id,), name=f"sim-{job_id[:8]}", daemon=True).start()
        return self.get(job_id)

    def _paths(self, job_id: str) -> tuple[Path, Path, Path]:
        root = Path(tempfile.gettempdir()) / f"zeroplan-job-{job_id}"
        return root / "config.json", root / "report.json", root / "stderr.txt"

    def _start(self, job_id: str, cfg: SimConfig | TorchSimConfig) -> subprocess.Popen[bytes]:
        config_path, out_path, err_path = self._paths(job_id)
        config_path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(cfg, SimConfig) and cfg.partial_checkpoint is not None:
            cfg = SimConfig.from_json({**cfg.to_json(), "checkpoint_dir": str(config_path.parent / "checkpoints")})
        config_path.write_text(json.dumps(cfg.to_json()))
        env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
        command = [
            sys.executable,
            "-m",
            "service.sim",
            "--config",
            str(config_path),
            "--out",
            str(out_path),
            "--timeout-s",
            str(self.timeout_s),
        ]
        with open(err_path, "wb") as err:
            return subprocess.Popen(
                command, cwd=PROJECT_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=err, start_new_session=True
            )

    def _wait(self, job_id: str) -> None:
        running = self._running[job_id]
        try:
            running.process.wait(timeout=self.timeout_s + START_MARGIN_S)
            timed_out = False
        except subprocess.TimeoutExpired:
            _kill_group(running.process)
            timed_out = True
        try:
            self._record(job_id, running, timed_out)
        finally:
            shutil.rmtree(self._paths(job_id)[0].parent, ignore_errors=True)
            with self._lock:
                self._running.pop(job_id, None)
            running.done.set()

    def _record(self, job_id: str, running: _Running, timed_out: bool) -> None:
        _, out_path, err_path = self._paths(job_id)
        if running.cancelled:
            return
        if timed_out:
            self.store.update(
                job_id, "failed", error=f"exceeded the hard limit of {self.timeout_s + START_MARGIN_S:g} s; killed"
            )
            return
        if not out_path.exists():
            tail = err_path.read_text(errors="replace")[-800:] if err_path.exists() else ""
            self.store.update(
                job_id, "failed", error=f"the simulation exited with code {running.process.returncode}: {tail}"
            )
            return
        report = json.loads(out_path.read_text())
        error = None if report["succeeded"] else _failure_summary(report)
        self.store.update(job_id, "succeeded" if report["succeeded"] else "failed", report=report, error=error)

    def get(self, job_id: str) -> dict[str, Any]:
        job = self.store.get(job_id)
        if job is None:
            raise SimulationNotFound(f"no simulation with id {job_id}")
        return job

    def cancel(self, job_id: str) -> dict[str, Any]:
        """Kill the job's process group (launcher and ranks); a finished job is returned unchanged."""
        self.get(job_id)
        with self._lock:
            running = self._running.get(job_id)
        if running is not None:
            running.cancelled = True
            self.store.update(job_id, "cancelled", error="cancelled by DELETE")
            _kill_group(running.process)
            running.done.wait(timeout=10)
        return self.get(job_id)

    def pid(self, job_id: str) -> int | None:
        running = self._running.get(job_id)
        return running.process.pid if running else None

    def wait(self, job_id: str, timeout_s: float) -> bool:
        running = self._running.get(job_id)
        return running.done.wait(timeout_s) if running else True

    def shutdown(self) -> None:
        for job_id in list(self._running):
            self.cancel(job_id)


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL the job's process group, reap the launcher and wait (briefly) until no rank runs."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()
    deadline = time.monotonic() + GROUP_EXIT_WAIT_S
    while live_group_members(process.pid) and time.monotonic() < deadline:
        time.sleep(0.02)


def live_group_members(pgid: int) -> list[int]:
    """Processes of group ``pgid`` that have not exited (zombies count as gone); Linux /proc."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] not in ("Z", "X") and int(fields[2]) == pgid:
            members.append(int(entry.name))
    return members


def _failure_summary(report: dict[str, Any]) -> str:
    failure = report.get("faults", {}).get("failure")
    if failure:
        return str(failure["summary"])
    return "the simulation did not complete"
