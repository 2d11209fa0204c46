"""Simulation jobs in a database shared by every process that serves or runs them.

One row per job. A job is ``queued`` until a runner claims it, ``running`` while a runner owns
it, then ``succeeded``, ``failed`` or ``cancelled``. The runner that owns a running job holds a
lease (``owner``, ``lease_expires_at`` on the database's clock) and renews it; every write a
runner makes about a job is guarded by ``owner = me``, so once another process has taken a job
over (only after the lease expired, or its owner is known dead) the old owner's late writes
change nothing. A DELETE marks the job ``cancelled`` and leaves ``owner`` set: the owner kills
the processes, removes the directory and then clears ``owner``. Those jobs still hold a slot,
so the concurrency limit counts processes that really run, across every process and replica.
"""

import json
from typing import Any

from service.sim.db import Cursor, open_database

TABLE = "simulation_jobs"
COLUMNS = {
    "id": "TEXT PRIMARY KEY",
    "status": "TEXT NOT NULL",
    "request": "TEXT NOT NULL",
    "report": "TEXT",
    "error": "TEXT",
    "created_at": "DOUBLE PRECISION NOT NULL",
    "updated_at": "DOUBLE PRECISION NOT NULL",
    # Added for leases; a database written by an earlier version gains them on start-up.
    "config": "TEXT",
    "owner": "TEXT",
    "node": "TEXT",
    "host": "TEXT",
    "lease_expires_at": "DOUBLE PRECISION",
    "started_at": "DOUBLE PRECISION",
    "deadline_at": "DOUBLE PRECISION",
    "pgid": "INTEGER",
    "workdir": "TEXT",
    "attempts": "INTEGER NOT NULL DEFAULT 0",
}
ACTIVE = ("queued", "running")
FINAL = ("succeeded", "failed", "cancelled")
HOLDS_A_SLOT = "(status = 'running' OR (status = 'cancelled' AND owner IS NOT NULL))"
JSON_COLUMNS = ("request", "report", "config")


class StoreFull(Exception):
    """Admission refused: ``active`` jobs are queued or running, the limit is ``limit``."""

    def __init__(self, active: int, limit: int) -> None:
        super().__init__(f"{active} simulations are queued or running, the limit is {limit}")
        self.active, self.limit = active, limit


class JobStore:
    def __init__(self, url: str, timeout_s: float = 10.0) -> None:
        self.db = open_database(url, timeout_s)
        self.url = url
        self.dialect = self.db.dialect
        with self.db.transaction(exclusive=True) as cur:  # replicas starting together create it once
            self._create(cur)

    def _create(self, cur: Cursor) -> None:
        cur.run(f"CREATE TABLE IF NOT EXISTS {TABLE} ({', '.join(f'{n} {t}' for n, t in COLUMNS.items())})")
        present = set(self._columns(cur))
        for name, kind in COLUMNS.items():
            if name not in present:
                cur.run(f"ALTER TABLE {TABLE} ADD COLUMN {name} {kind.replace('PRIMARY KEY', '')}")
        cur.run(f"CREATE INDEX IF NOT EXISTS {TABLE}_status ON {TABLE} (status, created_at)")

    def _columns(self, cur: Cursor) -> list[str]:
        if self.dialect == "sqlite":
            return [str(r["name"]) for r in cur.run(f"PRAGMA table_info({TABLE})")]
        rows = cur.run("SELECT column_name FROM information_schema.columns WHERE table_name = ?", (TABLE,))
        return [str(r["column_name"]) for r in rows]

    def close(self) -> None:
        self.db.close()

    # --- what the API does: admit, read, cancel, count ---

    def insert(
        self,
        job_id: str,
        request: dict[str, Any],
        config: dict[str, Any],
        max_active: int,
        timeout_s: float | None = None,
    ) -> dict[str, Any]:
        """Queue a job unless ``max_active`` jobs are already queued or running (counted in the store); wait at
        most ``timeout_s`` for the store's write lock (the store's own timeout when None)."""
        with self.db.transaction(exclusive=True, timeout_s=timeout_s) as cur:
            active = _count(cur, "status IN ('queued', 'running')")
            if active >= max_active:
                raise StoreFull(active, max_active)
            cur.run(
                f"INSERT INTO {TABLE} (id, status, request, config, created_at, updated_at, attempts) "
                "VALUES (?, 'queued', ?, ?, {now}, {now}, 0)",
                (job_id, json.dumps(request), json.dumps(config)),
            )
            return _decode(cur.run(f"SELECT * FROM {TABLE} WHERE id = ?", (job_id,))[0])

    def get(self, job_id: str, timeout_s: float | None = None) -> dict[str, Any] | None:
        with self.db.transaction(timeout_s=timeout_s) as cur:
            rows = cur.run(f"SELECT * FROM {TABLE} WHERE id = ?", (job_id,))
        return _decode(rows[0]) if rows else None

    def cancel(self, job_id: str, reason: str) -> bool:
        """Mark a queued or running job cancelled; its owner (if any) ends its processes."""
        with self.db.transaction() as cur:
            cur.run(
                f"UPDATE {TABLE} SET status = 'cancelled', error = ?, updated_at = {{now}} "
                "WHERE id = ? AND status IN ('queued', 'running')",
                (reason, job_id),
            )
            return cur.rowcount == 1

    def count_by_status(self, timeout_s: float | None = None) -> dict[str, int]:
        with self.db.transaction(timeout_s=timeout_s) as cur:
            rows = cur.run(f"SELECT status, COUNT(*) AS n FROM {TABLE} GROUP BY status")
        return {str(r["status"]): int(r["n"]) for r in rows}

    def ping(self, timeout_s: float) -> None:
        """Take the store's write lock and read the table once, as a submission would: raises DatabaseUnavailable
        when the store is locked (by another process's exclusive lock, too), gone or corrupt."""
        with self.db.transaction(exclusive=True, timeout_s=timeout_s) as cur:
            cur.run(f"SELECT id FROM {TABLE} ORDER BY id LIMIT 1")

    # --- what a runner does: claim, renew, take over, finish, hand back ---

    def claim_queued(
        self, owner: dict[str, str], slots: int, max_running: int, ttl_s: float, limit_s: float
    ) -> list[dict[str, Any]]:
        """Take up to ``slots`` queued jobs, oldest first, while fewer than ``max_running`` hold a slot."""
        with self.db.transaction() as cur:  # a plain read first: an empty queue takes no lock
            if not cur.run(f"SELECT id FROM {TABLE} WHERE status = 'queued' LIMIT 1"):
                return []
        with self.db.transaction(exclusive=True) as cur:
            room = min(slots, max_running - _count(cur, HOLDS_A_SLOT))
            if room <= 0:
                return []
            skip = " FOR UPDATE SKIP LOCKED" if self.dialect == "postgresql" else ""
            ids = [
                str(r["id"])
                for r in cur.run(
                    f"SELECT id FROM {TABLE} WHERE status = 'queued' ORDER BY created_at, id LIMIT ?{skip}", (room,)
                )
            ]
            for job_id in ids:
                cur.run(
                    f"UPDATE {TABLE} SET status = 'running', owner = ?, node = ?, host = ?, "
                    "lease_expires_at = {now} + ?, started_at = {now}, deadline_at = {now} + ?, "
                    "attempts = attempts + 1, pgid = NULL, workdir = NULL, updated_at = {now} WHERE id = ?",
                    (owner["id"], owner["node"], owner["host"], ttl_s, limit_s, job_id),
                )
            return _select(cur, ids)

    def abandoned(self, owner: dict[str, str]) -> list[dict[str, Any]]:
        """Candidates for a take-over: owned jobs whose lease expired, or whose owner is on this node
        or is this runner (the caller checks whether that owner is gone, or no longer watches the
        job), and running jobs nobody owns (written by an earlier version of the service)."""
        with self.db.transaction() as cur:
            rows = cur.run(
                f"SELECT *, {{now}} AS db_now FROM {TABLE} WHERE "
                "(status = 'running' AND owner IS NULL) OR "
                "(status IN ('running', 'cancelled') AND owner IS NOT NULL "
                " AND (owner = ? OR node = ? OR lease_expires_at IS NULL OR lease_expires_at < {now}))",
                (owner["id"], owner["node"]),
            )
        return [_decode(r) for r in rows]

    def take_over(
        self, owner: dict[str, str], job_id: str, previous: str | None, ttl_s: float, previous_gone: bool = False
    ) -> bool:
        """Become the owner if ``previous`` still is (compare and set) and its lease has expired, or
        the caller knows ``previous`` is gone (a dead process on this node, or this runner itself)."""
        with self.db.transaction() as cur:
            cur.run(
                f"UPDATE {TABLE} SET owner = ?, node = ?, host = ?, lease_expires_at = {{now}} + ?, "
                "updated_at = {now} WHERE id = ? AND COALESCE(owner, '') = ? AND status IN ('running', 'cancelled') "
                "AND (lease_expires_at IS NULL OR lease_expires_at < {now} OR ?)",
                (owner["id"], owner["node"], owner["host"], ttl_s, job_id, previous or "", previous_gone),
            )
            return cur.rowcount == 1

    def set_process(self, owner_id: str, job_id: str, pgid: int, workdir: str) -> None:
        with self.db.transaction() as cur:
            sql = f"UPDATE {TABLE} SET pgid = ?, workdir = ? WHERE id = ? AND owner = ?"
            cur.run(sql, (pgid, workdir, job_id, owner_id))

    def renew(self, owner_id: str, ttl_s: float, job_ids: list[str]) -> dict[str, dict[str, Any]]:
        """Extend the lease of every running job this runner owns; answer the state of ``job_ids``."""
        with self.db.transaction() as cur:
            cur.run(
                f"UPDATE {TABLE} SET lease_expires_at = {{now}} + ? "
                "WHERE owner = ? AND status IN ('running', 'cancelled')",
                (ttl_s, owner_id),
            )
            rows = _select(cur, job_ids)
        return {str(r["id"]): r for r in rows}

    def finish(self, owner_id: str, job_id: str, status: str, report: dict[str, Any] | None, error: str | None) -> bool:
        """Record a running job's outcome; a cancelled job, or one now owned by another, is left as is."""
        with self.db.transaction() as cur:
            cur.run(
                f"UPDATE {TABLE} SET status = ?, report = ?, error = ?, owner = NULL, lease_expires_at = NULL, "
                "updated_at = {now} WHERE id = ? AND owner = ? AND status = 'running'",
                (status, json.dumps(report) if report is not None else None, error, job_id, owner_id),
            )
            return cur.rowcount == 1

    def requeue(self, owner_id: str, job_id: str, reason: str, max_attempts: int) -> str | None:
        """Put a running job back in the queue (``reason`` kept in ``error``), or fail it after
        ``max_attempts`` starts. Answers the new status, or None when the job was not this runner's."""
        with self.db.transaction() as cur:
            cur.run(
                f"UPDATE {TABLE} SET "
                "status = CASE WHEN attempts >= ? THEN 'failed' ELSE 'queued' END, "
                "error = CASE WHEN attempts >= ? THEN ? ELSE ? END, "
                "owner = NULL, lease_expires_at = NULL, pgid = NULL, workdir = NULL, updated_at = {now} "
                "WHERE id = ? AND owner = ? AND status = 'running'",
                (max_attempts, max_attempts, f"gave up after {max_attempts} starts: {reason}", reason)
                + (job_id, owner_id),
            )
            if cur.rowcount != 1:
                return None
            return str(cur.run(f"SELECT status FROM {TABLE} WHERE id = ?", (job_id,))[0]["status"])

    def release(self, owner_id: str, job_id: str) -> None:
        """A cancelled job's processes are gone: it no longer holds a slot."""
        with self.db.transaction() as cur:
            cur.run(
                f"UPDATE {TABLE} SET owner = NULL, lease_expires_at = NULL, updated_at = {{now}} "
                "WHERE id = ? AND owner = ? AND status <> 'running'",
                (job_id, owner_id),
            )


def _count(cur: Cursor, where: str) -> int:
    return int(cur.run(f"SELECT COUNT(*) AS n FROM {TABLE} WHERE {where}")[0]["n"])


def _select(cur: Cursor, job_ids: list[str]) -> list[dict[str, Any]]:
    if not job_ids:
        return []
    marks = ", ".join("?" * len(job_ids))
    return [_decode(r) for r in cur.run(f"SELECT *, {{now}} AS db_now FROM {TABLE} WHERE id IN ({marks})", job_ids)]


def _decode(row: dict[str, Any]) -> dict[str, Any]:
    job = dict(row)
    for name in JSON_COLUMNS:
        job[name] = json.loads(job[name]) if job.get(name) else None
    return job
