"""The job store's rules, on SQLite and PostgreSQL, with two stores standing for two processes:
limits counted in the store, leases that only expire or a dead owner release, guarded writes."""

import sqlite3
import time
from pathlib import Path

import pytest

from service.sim.store import JobStore, StoreFull

REQUEST = {"world_size": 2}
CONFIG = {"world_size": 2, "runs": []}
A = {"id": "host-a:1:1:aaaa", "node": "node-a", "host": "host-a"}
B = {"id": "host-b:2:2:bbbb", "node": "node-b", "host": "host-b"}
LONG_LEASE_S = 600.0
HARD_LIMIT_S = 135.0


def queue(store: JobStore, count: int, limit: int = 100) -> list[str]:
    ids = [f"job{i:02d}{time.monotonic_ns()}" for i in range(count)]
    for job_id in ids:
        store.insert(job_id, REQUEST, CONFIG, limit)
    return ids


def test_admission_counts_queued_and_running_jobs_of_every_process(store_url: str) -> None:
    one, two = JobStore(store_url), JobStore(store_url)
    queue(one, 2, limit=3)
    one.claim_queued(A, 1, 1, LONG_LEASE_S, HARD_LIMIT_S)  # one running, one queued
    queue(two, 1, limit=3)
    with pytest.raises(StoreFull) as full:
        queue(two, 1, limit=3)
    assert (full.value.active, full.value.limit) == (3, 3)


def test_the_running_limit_holds_across_runners(store_url: str) -> None:
    one, two = JobStore(store_url), JobStore(store_url)
    first, second, third = queue(one, 3)
    claimed_a = one.claim_queued(A, 5, 2, LONG_LEASE_S, HARD_LIMIT_S)
    claimed_b = two.claim_queued(B, 5, 2, LONG_LEASE_S, HARD_LIMIT_S)
    assert [r["id"] for r in claimed_a] == [first, second]  # oldest first, up to the limit of 2
    assert claimed_b == []
    assert one.finish(A["id"], first, "succeeded", {"succeeded": True}, None)
    assert [r["id"] for r in two.claim_queued(B, 5, 2, LONG_LEASE_S, HARD_LIMIT_S)] == [third]
    assert {r["owner"] for r in [two.get(second), two.get(third)] if r} == {A["id"], B["id"]}


def test_a_cancelled_job_holds_its_slot_until_its_owner_releases_it(store_url: str) -> None:
    store = JobStore(store_url)
    first, second = queue(store, 2)
    store.claim_queued(A, 1, 1, LONG_LEASE_S, HARD_LIMIT_S)
    assert store.cancel(first, "cancelled by DELETE")
    assert store.claim_queued(B, 1, 1, LONG_LEASE_S, HARD_LIMIT_S) == []  # A has not ended it yet
    store.release(A["id"], first)
    assert [r["id"] for r in store.claim_queued(B, 1, 1, LONG_LEASE_S, HARD_LIMIT_S)] == [second]


def test_a_live_lease_is_not_taken_over_an_expired_one_is(store_url: str) -> None:
    store = JobStore(store_url)
    (job_id,) = queue(store, 1)
    store.claim_queued(A, 1, 1, LONG_LEASE_S, HARD_LIMIT_S)
    assert not store.take_over(B, job_id, A["id"], LONG_LEASE_S)
    assert store.take_over(B, job_id, A["id"], LONG_LEASE_S, previous_gone=True)  # A known dead
    assert not store.take_over(A, job_id, A["id"], LONG_LEASE_S)  # A's compare-and-set now fails
    store.renew(B["id"], 0.05, [job_id])  # B's lease: 50 ms
    time.sleep(0.2)
    assert [r["id"] for r in store.abandoned(A)] == [job_id]
    assert store.take_over(A, job_id, B["id"], LONG_LEASE_S)


def test_writes_of_a_former_owner_change_nothing(store_url: str) -> None:
    store = JobStore(store_url)
    (job_id,) = queue(store, 1)
    store.claim_queued(A, 1, 1, LONG_LEASE_S, HARD_LIMIT_S)
    store.take_over(B, job_id, A["id"], LONG_LEASE_S, previous_gone=True)
    assert not store.finish(A["id"], job_id, "failed", None, "late")
    assert store.requeue(A["id"], job_id, "late", 3) is None
    assert store.renew(A["id"], LONG_LEASE_S, [job_id])[job_id]["owner"] == B["id"]
    assert store.finish(B["id"], job_id, "succeeded", {"succeeded": True}, None)
    job = store.get(job_id)
    assert job is not None and (job["status"], job["report"], job["owner"]) == ("succeeded", {"succeeded": True}, None)


def test_a_cancel_wins_over_a_late_result(store_url: str) -> None:
    store = JobStore(store_url)
    (job_id,) = queue(store, 1)
    store.claim_queued(A, 1, 1, LONG_LEASE_S, HARD_LIMIT_S)
    assert store.cancel(job_id, "cancelled by DELETE")
    assert not store.finish(A["id"], job_id, "succeeded", {"succeeded": True}, None)
    assert not store.cancel(job_id, "again")  # a finished job stays as it is
    job = store.get(job_id)
    assert job is not None and (job["status"], job["error"]) == ("cancelled", "cancelled by DELETE")


def test_requeue_counts_starts_and_gives_up_after_the_last(store_url: str) -> None:
    store = JobStore(store_url)
    (job_id,) = queue(store, 1)
    for start in (1, 2):
        store.claim_queued(A, 1, 1, LONG_LEASE_S, HARD_LIMIT_S)
        assert store.requeue(A["id"], job_id, f"lost {start}", 3) == "queued"
    store.claim_queued(A, 1, 1, LONG_LEASE_S, HARD_LIMIT_S)
    assert store.requeue(A["id"], job_id, "lost 3", 3) == "failed"
    job = store.get(job_id)
    assert job is not None and job["attempts"] == 3 and job["error"] == "gave up after 3 starts: lost 3"


def test_a_database_of_the_earlier_version_gains_the_lease_columns(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as db:  # the schema before leases, with a job left running
        db.execute(
            "CREATE TABLE simulation_jobs (id TEXT PRIMARY KEY, status TEXT NOT NULL, request TEXT NOT NULL, "
            "report TEXT, error TEXT, created_at REAL NOT NULL, updated_at REAL NOT NULL)"
        )
        db.execute("INSERT INTO simulation_jobs VALUES ('old', 'running', '{}', NULL, NULL, 1.0, 1.0)")
    store = JobStore(f"sqlite:///{path}")
    (row,) = store.abandoned(A)
    assert (row["id"], row["owner"], row["config"], row["attempts"]) == ("old", None, None, 0)
    assert store.take_over(A, "old", None, LONG_LEASE_S)


def test_a_database_url_of_another_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="expected sqlite:///PATH or postgresql://"):
        JobStore("mysql://root:secret@db/jobs")
