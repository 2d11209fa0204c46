"""Simulation jobs in an embedded SQLite file, so results survive a restart of the service.

One row per job; the request and report are stored as JSON text. Every call opens its own
connection, so the job threads and the request handlers never share one.
"""

import json
import sqlite3
import time
from contextlib import closing
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS simulation_jobs (
    id TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    request TEXT NOT NULL,
    report TEXT,
    error TEXT,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
)
"""
ACTIVE = ("queued", "running")
FINAL = ("succeeded", "failed", "cancelled")


class JobStore:
    def __init__(self, path: str) -> None:
        self.path = path
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        with closing(self._connect()) as db, db:
            db.execute(SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=10)
        db.row_factory = sqlite3.Row
        return db

    def insert(self, job_id: str, request: dict[str, Any]) -> None:
        now = time.time()
        with closing(self._connect()) as db, db:
            db.execute(
                "INSERT INTO simulation_jobs VALUES (?, 'queued', ?, NULL, NULL, ?, ?)",
                (job_id, json.dumps(request), now, now),
            )

    def update(
        self,
        job_id: str,
        status: str,
        report: dict[str, Any] | None = None,
        error: str | None = None,
        only_if_active: bool = True,
    ) -> bool:
        """Set a job's status; a finished job is never overwritten (a cancel wins over a late result)."""
        guard = " AND status IN ('queued', 'running')" if only_if_active else ""
        with closing(self._connect()) as db, db:
            cur = db.execute(
                "UPDATE simulation_jobs SET status = ?, report = ?, error = ?, updated_at = ? WHERE id = ?" + guard,
                (status, json.dumps(report) if report is not None else None, error, time.time(), job_id),
            )
            return cur.rowcount == 1

    def get(self, job_id: str) -> dict[str, Any] | None:
        with closing(self._connect()) as db:
            row = db.execute("SELECT * FROM simulation_jobs WHERE id = ?", (job_id,)).fetchone()
        if row is None:
            return None
        job = dict(row)
        job["request"] = json.loads(job["request"])
        job["report"] = json.loads(job["report"]) if job["report"] else None
        return job

    def count_by_status(self) -> dict[str, int]:
        """How many jobs are in each status."""
        with closing(self._connect()) as db:
            rows = db.execute("SELECT status, COUNT(*) FROM simulation_jobs GROUP BY status").fetchall()
        return {str(status): int(count) for status, count in rows}

    def fail_orphans(self, reason: str) -> int:
        """Jobs left queued or running by a previous process: it is gone, so they failed."""
        with closing(self._connect()) as db, db:
            cur = db.execute(
                "UPDATE simulation_jobs SET status = 'failed', error = ?, updated_at = ? "
                "WHERE status IN ('queued', 'running')",
                (reason, time.time()),
            )
            return cur.rowcount
