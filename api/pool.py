"""Heavy work in worker processes, so its CPU time does not hold the API process's interpreter lock.

A sweep of a million cells keeps a core busy for seconds. In a thread of the API process it holds
the interpreter lock the event loop needs, and every other request, /healthz included, waits its
turn for it. In a worker process it competes only for a core, which the operating system shares
finely, the more so as the workers run at a lower priority. The pool is one per API process
(``spawn``: no fork of a process that runs threads), with as many workers as heavy requests may
run at once (api.work bounds those), started on demand.

A task is a picklable callable taking a WorkBudget (a ``functools.partial`` of a module-level
function). Its budget crosses the boundary as the deadline's instant on the monotonic clock
(system-wide on Linux) and a cancel flag in shared memory that the API process raises when the
client leaves; the core checks both between its steps, as it does in a thread. Domain errors come
back pickled and are answered as usual. A worker that dies (killed, out of memory) breaks the
executor: the task fails as an internal error, and the next task gets a fresh pool. The service's
shutdown stops the workers (``stop_shared_pool``); an API process killed outright leaves none
behind either: each worker exits once its parent is gone.
"""

import asyncio
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from service.work_budget import WorkBudget

T = TypeVar("T")
MAX_TASKS = 1024  # cancel flags, at least: one per task in flight
# Workers run at a lower priority than the API process: on a busy machine the scheduler gives the
# event loop (health checks, plans) the core first, and the sweeps every cycle it leaves (nice(2)).
WORKER_NICENESS = 5
PARENT_POLL_S = 0.5

_flags: Any = None  # in a worker: the shared cancel flags, set by the initializer


class SharedFlag:
    """One byte of shared memory that behaves as the threading.Event a WorkBudget cancels with."""

    def __init__(self, flags: Any, index: int) -> None:
        self.flags, self.index = flags, index

    def set(self) -> None:
        self.flags[self.index] = 1

    def is_set(self) -> bool:
        return bool(self.flags[self.index])


def _start_worker(flags: Any, parent_pid: int) -> None:
    global _flags
    _flags = flags
    os.nice(WORKER_NICENESS)
    threading.Thread(target=_exit_with_parent, args=(parent_pid,), daemon=True, name="parent-watch").start()


def _exit_with_parent(parent_pid: int) -> None:
    """A worker whose API process is gone (killed with no time to stop its pool) exits too, within a second."""
    while os.getppid() == parent_pid:
        time.sleep(PARENT_POLL_S)
    os._exit(0)


def _run_task(task: Callable[[WorkBudget], T], index: int, stop_at: float | None, deadline_s: float | None) -> T:
    """In the worker: the task under a budget with the API process's deadline and cancel flag."""
    return task(WorkBudget(deadline_s, stop_at=stop_at, cancelled=SharedFlag(_flags, index)))


class WorkerPool:
    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._context = multiprocessing.get_context("spawn")
        size = max(MAX_TASKS, workers)
        self._flags: Any = self._context.RawArray("b", size)  # one byte per task in flight
        self._free = list(range(size))
        self._lock = threading.Lock()
        self._executor: ProcessPoolExecutor | None = None

    def _pool(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._executor is None:
                self._executor = ProcessPoolExecutor(
                    self.workers,
                    mp_context=self._context,
                    initializer=_start_worker,
                    initargs=(self._flags, os.getpid()),
                )
            return self._executor

    def budget(self, deadline_s: float | None) -> tuple[WorkBudget, int]:
        """A budget for one task whose cancel flag the worker sees, and the flag's index."""
        with self._lock:
            index = self._free.pop()
        self._flags[index] = 0
        return WorkBudget(deadline_s, cancelled=SharedFlag(self._flags, index)), index

    def release(self, index: int) -> None:
        with self._lock:
            self._free.append(index)

    async def run(
        self, task: Callable[[WorkBudget], T], budget: WorkBudget, index: int, ended: Callable[[], None]
    ) -> T:
        """The task's result; ``ended`` is called once the task has ended in its worker (or never started),
        which may be after this await was cancelled (a request answered at its deadline)."""
        try:
            executor = self._pool()
            future = executor.submit(_run_task, task, index, budget.stop_at, budget.deadline_s)
        except BaseException:
            ended()
            raise
        future.add_done_callback(lambda _: ended())
        try:
            return await asyncio.wrap_future(future)
        except BrokenProcessPool:
            self._discard(executor)
            raise

    def _discard(self, executor: ProcessPoolExecutor) -> None:
        """A worker died: every task of this executor has failed; the next one starts a fresh pool."""
        with self._lock:
            if self._executor is executor:
                self._executor = None
        executor.shutdown(wait=False, cancel_futures=True)

    def shutdown(self) -> None:
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True)


_shared: WorkerPool | None = None
_shared_lock = threading.Lock()


def shared_pool(workers: int) -> WorkerPool:
    """This process's pool, with at least ``workers`` workers (a larger request replaces it)."""
    global _shared
    with _shared_lock:
        if _shared is None or _shared.workers < workers:
            old, _shared = _shared, WorkerPool(workers)
            if old is not None:  # its tasks in flight finish; then its workers exit
                threading.Thread(target=old.shutdown, daemon=True).start()
        return _shared


def stop_shared_pool() -> None:
    """Stop this process's workers, once their tasks end (cancel those first: HeavyWork.cancel_running).
    A later task starts the pool again."""
    with _shared_lock:
        pool = _shared
    if pool is not None:
        pool.shutdown()
