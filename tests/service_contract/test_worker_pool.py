"""Sweeps run in worker processes (api.pool): the same answers as in a thread, domain errors intact
across the boundary, the deadline, a client leaving and shutdown stop the work there, and a worker
that dies fails its request and leaves a working pool behind."""

import asyncio
import os
import pickle
import subprocess
import sys
import time
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from api import pool
from api.work import HeavyWork
from service.errors import DeadlineExceeded, InvalidHfConfig, InvalidLayout, OutOfRange, WorkCancelled
from tests.service_contract.conftest import PLAN_BODY, app_with, assert_problem, client_with

ROOT = Path(__file__).resolve().parents[2]

SWEEP = {"base": PLAN_BODY, "axes": {"world_size": [8, 16, 32, 64], "arrangement": ["zero1", "zero2", "zero3"]}}


class GoneClient:
    """A request whose client has already gone: its receive channel answers http.disconnect."""

    async def receive(self):
        return {"type": "http.disconnect"}


class StayingClient:
    """A request whose client stays until the work is done."""

    async def receive(self):
        await asyncio.sleep(3600)


# Tasks: module-level, so a worker process can import them by name.
def checked_loop(budget):
    for _ in range(20_000):  # at most 20 s; the test stops it long before
        budget.check()
        time.sleep(0.001)
    raise AssertionError("the budget never stopped the work")


def pid_of_worker(budget):
    budget.check()
    return os.getpid()


def niceness(budget):
    return os.nice(0)


def invalid_layout(budget):
    raise InvalidLayout(
        [("tensor 3 does not divide 8 GPUs", "/parallelism/tensor"), ("pipeline 5", "/parallelism/pipeline")]
    )


def die(budget):
    os._exit(3)


def run(heavy, task, client=None):
    return asyncio.run(heavy.run_in_process(client or StayingClient(), task))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "error",
    [
        OutOfRange("estimator.largest_layer_parameters is more than the model", pointer="/estimator"),
        InvalidLayout([("a", "/parallelism/tensor"), ("b", "/parallelism/pipeline")]),
        InvalidHfConfig("config.json lacks two fields", [("no hidden_size", "/model/hf_config/hidden_size")]),
        WorkCancelled("the client closed the connection"),
    ],
)
def test_domain_errors_survive_pickling(error):
    back = pickle.loads(pickle.dumps(error))
    assert type(back) is type(error)
    assert (back.detail, back.pointer, back.field_errors(), str(back)) == (
        error.detail,
        error.pointer,
        error.field_errors(),
        str(error),
    )


def test_a_sweep_in_a_worker_process_answers_what_a_thread_answers():
    in_thread = client_with(access_log=False, heavy_work_processes=False)
    in_process = client_with(access_log=False)
    for accept in ("application/json", "text/csv"):
        threaded = in_thread.post("/v1/sweep", json=SWEEP, headers={"accept": accept})
        pooled = in_process.post("/v1/sweep", json=SWEEP, headers={"accept": accept})
        assert threaded.status_code == pooled.status_code == 200, pooled.text
        assert pooled.content == threaded.content


def test_a_sweep_runs_in_another_process():
    heavy = HeavyWork(max_concurrent=1, deadline_s=60)
    assert run(heavy, pid_of_worker) != os.getpid()
    assert heavy.running == 0


def test_a_domain_error_in_the_worker_arrives_whole():
    heavy = HeavyWork(max_concurrent=1, deadline_s=60)
    with pytest.raises(InvalidLayout) as raised:
        run(heavy, invalid_layout)
    assert raised.value.field_errors() == [
        ("tensor 3 does not divide 8 GPUs", "/parallelism/tensor"),
        ("pipeline 5", "/parallelism/pipeline"),
    ]
    assert heavy.running == 0


def test_the_deadline_stops_work_in_the_worker():
    heavy = HeavyWork(max_concurrent=1, deadline_s=0.5)
    with pytest.raises(DeadlineExceeded):
        run(heavy, checked_loop)
    assert heavy.running == 0


def test_the_client_leaving_stops_work_in_the_worker():
    heavy = HeavyWork(max_concurrent=1, deadline_s=60)
    with pytest.raises(WorkCancelled):
        run(heavy, checked_loop, GoneClient())
    assert heavy.running == 0


def test_shutdown_stops_work_in_the_worker():
    heavy = HeavyWork(max_concurrent=1, deadline_s=60)

    async def scenario():
        work = asyncio.create_task(heavy.run_in_process(StayingClient(), checked_loop))  # type: ignore[arg-type]
        while heavy.running == 0:
            await asyncio.sleep(0.01)
        heavy.cancel_running()
        return await work

    with pytest.raises(WorkCancelled):
        asyncio.run(scenario())
    assert heavy.running == 0


def test_a_worker_that_dies_fails_its_request_and_the_next_gets_a_fresh_pool():
    heavy = HeavyWork(max_concurrent=1, deadline_s=60)
    with pytest.raises(BrokenProcessPool):
        run(heavy, die)
    assert heavy.running == 0
    assert run(heavy, pid_of_worker) != os.getpid()


def test_a_worker_that_dies_is_a_500_problem(monkeypatch):
    from api.routes import sweep

    monkeypatch.setattr(sweep, "compute_sweep", _dying_sweep)
    client = client_with(access_log=False)
    assert_problem(client.post("/v1/sweep", json=SWEEP), 500, "internal_error")
    monkeypatch.undo()
    assert client.post("/v1/sweep", json=SWEEP).status_code == 200


def _dying_sweep(*args):
    os._exit(3)


def test_without_processes_the_work_runs_in_a_thread():
    heavy = HeavyWork(max_concurrent=1, deadline_s=60, processes=False)
    assert run(heavy, pid_of_worker) == os.getpid()


def test_workers_run_at_a_lower_priority_than_the_api_process():
    heavy = HeavyWork(max_concurrent=1, deadline_s=60)
    assert run(heavy, niceness) == min(19, os.nice(0) + pool.WORKER_NICENESS)


def test_the_service_stopping_stops_its_workers():
    from fastapi.testclient import TestClient

    with TestClient(app_with(access_log=False)) as client:
        assert client.post("/v1/sweep", json=SWEEP).status_code == 200
        shared = pool.shared_pool(1)
        workers = list(shared._executor._processes.values())  # type: ignore[union-attr]
        assert workers
    assert shared._executor is None
    assert all(not worker.is_alive() for worker in workers)


KILLED_API = """
import asyncio, os
from api.work import HeavyWork
from tests.service_contract.test_worker_pool import StayingClient, pid_of_worker
heavy = HeavyWork(max_concurrent=1, deadline_s=60)
print(asyncio.run(heavy.run_in_process(StayingClient(), pid_of_worker)), flush=True)
os.kill(os.getpid(), 9)
"""


def running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")  # a zombie has exited; whether its new parent reaps it is not ours


def test_workers_exit_when_their_api_process_is_killed():
    done = subprocess.run([sys.executable, "-c", KILLED_API], cwd=ROOT, capture_output=True, text=True, timeout=120)
    worker = int(done.stdout.split()[0])
    for _ in range(300):  # the worker looks for its parent every 0.5 s: at most 30 s
        if not running(worker):
            break
        time.sleep(0.1)
    assert not running(worker)
