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
shutdown stops the workers (``stop_shared_pool``), killing those still busy past the shutdown grace;
an API process killed outright leaves none behind either: the kernel sends each worker SIGKILL when
its parent dies (``PR_SET_PDEATHSIG``), and a watch thread exits it within half a second where
that is not available. Each worker's address space may grow by at most ``memory_bytes`` past
what it holds once started (``RLIMIT_AS``): past it an allocation fails, and the task answers
``WorkOutOfMemory`` instead of taking the machine's memory.
"""

import asyncio
import ctypes
import multiprocessing
import os
import resource
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from service.errors import WorkOutOfMemory
from service.work_budget import WorkBudget

T = TypeVar("T")
MAX_TASKS = 1024  # cancel flags, at least: one per task in flight
# Workers run at a lower priority than the API process: on a busy machine the scheduler gives the
# event loop (health checks, plans) the core first, and the sweeps every cycle it leaves (nice(2)).
WORKER_NICENESS = 5
PARENT_POLL_S = 0.5
PR_SET_PDEATHSIG = 1  # linux/prctl.h
KILL_WAIT_S = 2.0  # after SIGKILL, how long shutdown waits for a worker to be reaped

_flags: Any = None  # in a worker: the shared cancel flags, set by the initializer
_memory_bytes = 0  # in a worker: its address-space allowance, applied at its first task
_limited = False


class SharedFlag:
    """One byte of shared memory that behaves as the threading.Event a WorkBudget cancels with."""

    def __init__(self, flags: Any, index: int) -> None:
        self.flags, self.index = flags, index

    def set(self) -> None:
        self.flags[self.index] = 1

    def is_set(self) -> bool:
        return bool(self.flags[self.index])


def _start_worker(flags: Any, parent_pid: int, memory_bytes: int = 0, lifeline: Any = None, main: bool = False) -> None:
    global _flags
    _flags = flags
    if main:  # spawned by the parent's main thread, which lives as long as the parent (PR_SET_PDEATHSIG
        _die_with_parent()  # fires when the spawning thread ends)
    if os.getppid() != parent_pid:  # the parent died before the signal was asked for
        os._exit(0)
    if lifeline is not None:
        threading.Thread(target=_exit_at_eof, args=(lifeline,), daemon=True, name="lifeline").start()
    os.nice(WORKER_NICENESS)
    global _memory_bytes
    _memory_bytes = memory_bytes
    threading.Thread(target=_exit_with_parent, args=(parent_pid,), daemon=True, name="parent-watch").start()


def _die_with_parent() -> None:
    """Ask the kernel for SIGKILL when the parent dies (Linux prctl(2)); elsewhere the watch thread does it."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _limit_address_space(memory_bytes: int) -> None:
    """RLIMIT_AS at what the worker maps once started (interpreter, numpy) plus ``memory_bytes``."""
    try:
        with open("/proc/self/statm") as statm:
            mapped = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return
    limit = mapped + memory_bytes
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _exit_at_eof(lifeline: Any) -> None:
    """The parent holds the pipe's other end: end of file the moment the parent process is gone."""
    try:
        lifeline.recv_bytes()
    except (EOFError, OSError):
        pass
    os._exit(0)


def _exit_with_parent(parent_pid: int) -> None:
    """A worker whose API process is gone (killed with no time to stop its pool) exits too, within a second."""
    while os.getppid() == parent_pid:
        time.sleep(PARENT_POLL_S)
    os._exit(0)


def _run_task(task: Callable[[WorkBudget], T], index: int, stop_at: float | None, deadline_s: float | None) -> T:
    """In the worker: the task under a budget with the API process's deadline and cancel flag."""
    global _limited
    if _memory_bytes > 0 and not _limited:  # once the first task's modules are imported (by its unpickling)
        _limit_address_space(_memory_bytes)
        _limited = True
    try:
        return task(WorkBudget(deadline_s, stop_at=stop_at, cancelled=SharedFlag(_flags, index)))
    except MemoryError:
        raise WorkOutOfMemory(
            "the work needed more memory than a worker process may take (ZEROPLAN_WORKER_MEMORY_BYTES); ask for "
            "less (fewer axis values, layouts or rows)"
        ) from None


class WorkerPool:
    def __init__(self, workers: int, memory_bytes: int = 0) -> None:
        self.workers = workers
        self.memory_bytes = memory_bytes
        self._context = multiprocessing.get_context("spawn")
        size = max(MAX_TASKS, workers)
        self._flags: Any = self._context.RawArray("b", size)  # one byte per task in flight
        self._free = list(range(size))
        self._lock = threading.Lock()
        self._executor: ProcessPoolExecutor | None = None
        # Only this process holds the sending end; each worker watches the receiving end for end of file.
        self._lifeline, self._lifeline_end = self._context.Pipe(duplex=False)

    def _pool(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._executor is None:
                self._executor = ProcessPoolExecutor(
                    self.workers,
                    mp_context=self._context,
                    initializer=_start_worker,
                    initargs=(
                        self._flags,
                        os.getpid(),
                        self.memory_bytes,
                        self._lifeline,
                        threading.current_thread() is threading.main_thread(),
                    ),
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

    def shutdown(self, grace_s: float | None = None) -> None:
        """Stop the workers: at once when idle, else once their tasks end, or killed after ``grace_s``."""
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is None:
            return
        if grace_s is None:
            executor.shutdown(wait=True)
            return
        processes = list(getattr(executor, "_processes", {}).values())  # CPython's ProcessPoolExecutor
        executor.shutdown(wait=False, cancel_futures=True)
        stop_at = time.monotonic() + grace_s
        for process in processes:
            process.join(max(0.0, stop_at - time.monotonic()))
        for process in processes:
            if process.is_alive():
                process.kill()
                process.join(KILL_WAIT_S)


_shared: WorkerPool | None = None
_shared_lock = threading.Lock()


def shared_pool(workers: int, memory_bytes: int | None = None) -> WorkerPool:
    """This process's pool, with at least ``workers`` workers and (when given) that memory allowance per worker;
    a request for more workers or another allowance replaces it."""
    global _shared
    with _shared_lock:
        other_memory = memory_bytes is not None and _shared is not None and _shared.memory_bytes != memory_bytes
        if _shared is None or _shared.workers < workers or other_memory:
            old, _shared = _shared, WorkerPool(workers, memory_bytes or 0)
            if old is not None:  # its tasks in flight finish; then its workers exit
                threading.Thread(target=old.shutdown, daemon=True).start()
        return _shared


def stop_shared_pool(grace_s: float | None = None) -> None:
    """Stop this process's workers, once their tasks end (cancel those first: HeavyWork.cancel_running), killing
    those still busy after ``grace_s``. A later task starts the pool again."""
    with _shared_lock:
        pool = _shared
    if pool is not None:
        pool.shutdown(grace_s)
