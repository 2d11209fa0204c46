"""Heavy requests (sweep, fit, recommend and limits misses, figures) run bounded, off the event loop.

- At most ``max_concurrent`` at once per process. One more waits, on the event loop and holding
  no thread, up to ``queue_wait_s`` for a slot (a page asking for a plan's fit, recommendation,
  limits and figures together is served, not refused); past that wait, or with
  ``max_waiting`` already waiting, it is refused with a 429 and ``Retry-After``, so a burst cannot
  pile up threads and memory.
- In a worker thread, or (``run_in_process``: sweeps, searches and figures) in a worker process of
  api.pool, with a WorkBudget (service.work_budget): its deadline stops the work at the core's
  next check, and so does the client going away (an ``http.disconnect`` on the request's receive
  channel cancels the budget), and so does the service shutting down (``cancel_running``).
- The event loop only waits: /healthz and cached answers stay fast while the work runs. Work in a
  thread still takes the interpreter lock from the event loop; work in a process does not.
- The answer keeps its deadline even when the work does not check its budget often enough (a
  figure of ten thousand bars drawing in a library): at the deadline plus ``DEADLINE_MARGIN_S``
  the request is answered 503 ``deadline_exceeded`` and its budget cancelled. The work's slot stays
  taken until the work has really ended, so abandoned work never runs beyond the limit in number.
"""

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import anyio
from starlette.requests import Request

from api.pool import WorkerPool, shared_pool
from api.problems import too_many_requests
from service.errors import DeadlineExceeded
from service.work_budget import WorkBudget

T = TypeVar("T")
WAITING_PER_SLOT = 8  # requests that may wait for a slot, per slot
POLL_S = 0.005
# Past its deadline, work that has not stopped by itself is abandoned this much later, and answered.
DEADLINE_MARGIN_S = 1.0


class HeavyWork:
    def __init__(
        self,
        max_concurrent: int,
        deadline_s: float,
        queue_wait_s: float = 0.0,
        max_waiting: int | None = None,
        retry_after_s: int = 1,
        processes: bool = True,
        worker_memory_bytes: int = 0,
    ) -> None:
        self.max_concurrent = max_concurrent
        self.deadline_s = deadline_s
        self.queue_wait_s = queue_wait_s
        self.max_waiting = WAITING_PER_SLOT * max_concurrent if max_waiting is None else max_waiting
        self.retry_after_s = retry_after_s
        self.processes = processes  # False: run_in_process runs in a thread too
        self.worker_memory_bytes = worker_memory_bytes  # each worker process's address-space allowance
        self.running = 0  # slots taken on the event loop, given back by the work's own thread when it ends
        self.waiting = 0
        self._slots = threading.Lock()
        self._budgets: set[WorkBudget] = set()

    def _try_slot(self) -> bool:
        with self._slots:
            if self.running < self.max_concurrent:
                self.running += 1
                return True
            return False

    def _give_slot(self) -> None:
        with self._slots:
            self.running -= 1

    async def _take_slot(self) -> None:
        if self._try_slot():
            return
        if self.queue_wait_s <= 0 or self.waiting >= self.max_waiting:
            raise self._refusal(f"{self.waiting} more are waiting")
        self.waiting += 1
        try:
            give_up_at = time.monotonic() + self.queue_wait_s
            # Polled rather than a loop-bound primitive: the app may serve from more than one event loop.
            while not self._try_slot():
                if time.monotonic() >= give_up_at:
                    raise self._refusal(f"none finished within {self.queue_wait_s:g} s")
                await anyio.sleep(POLL_S)
        finally:
            self.waiting -= 1

    def _refusal(self, why: str) -> Exception:
        return too_many_requests(
            f"{self.running} heavy requests (sweep, fit, recommend, limits, figures) are running, the limit of "
            f"{self.max_concurrent} (ZEROPLAN_MAX_CONCURRENT_HEAVY_REQUESTS), and {why}",
            retry_after_s=self.retry_after_s,
        )

    async def run(self, request: Request, work: Callable[[WorkBudget], T]) -> T:
        """The work in a worker thread of this process."""
        await self._take_slot()
        budget = WorkBudget(self.deadline_s)

        def in_thread() -> T:
            try:
                return work(budget)
            finally:
                self._give_slot()  # when the work ends, even after its request was answered

        return await self._watched(request, budget, lambda: in_daemon_thread(in_thread))

    async def run_in_process(self, request: Request, task: Callable[[WorkBudget], T]) -> T:
        """A picklable task (a functools.partial of a module-level function) in a worker process."""
        if not self.processes:
            return await self.run(request, task)
        await self._take_slot()
        try:
            pool: WorkerPool = shared_pool(self.max_concurrent, self.worker_memory_bytes)
            budget, index = pool.budget(self.deadline_s)
        except BaseException:
            self._give_slot()
            raise

        def ended() -> None:  # the task's end in its worker: its cancel flag and slot are free again
            pool.release(index)
            self._give_slot()

        return await self._watched(request, budget, lambda: pool.run(task, budget, index, ended))

    async def _watched(self, request: Request, budget: WorkBudget, call: Callable[[], Awaitable[T]]) -> T:
        """Await the work with its slot taken, cancelling its budget when the client goes away."""
        failure: Exception | None = None
        self._budgets.add(budget)
        try:
            async with anyio.create_task_group() as watchers:
                watchers.start_soon(_cancel_on_disconnect, request, budget)
                try:
                    with anyio.fail_after(self.deadline_s + DEADLINE_MARGIN_S):
                        result = await call()
                except TimeoutError:
                    budget.cancel()  # the work stops at its next check; its slot is given back then
                    failure = DeadlineExceeded(
                        f"the work ran past its deadline of {self.deadline_s:g} s and was abandoned; ask for less "
                        "(fewer stages, layers or axis values, a smaller grid)"
                    )
                except Exception as exc:  # raised after the group, not wrapped in an ExceptionGroup
                    failure = exc
                finally:
                    watchers.cancel_scope.cancel()
        finally:
            self._budgets.discard(budget)
        if failure is not None:
            raise failure
        return result

    def cancel_running(self) -> None:
        """Stop every heavy request in flight at its next check (the service is shutting down)."""
        for budget in list(self._budgets):
            budget.cancel()


async def in_daemon_thread(call: Callable[[], T]) -> T:
    """``call()`` in a daemon thread of its own: awaiting it may be abandoned (its deadline), and a thread still
    running at shutdown does not keep the process alive the way the thread pools' non-daemon threads do."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(result: Any, failure: BaseException | None) -> None:
        if future.done():  # abandoned at its deadline, or its request cancelled
            return
        if failure is not None:
            future.set_exception(failure)
        else:
            future.set_result(result)

    def target() -> None:
        result: Any = None
        failure: BaseException | None = None
        try:
            result = call()
        except BaseException as exc:  # handed to the awaiting task
            failure = exc
        try:
            loop.call_soon_threadsafe(settle, result, failure)
        except RuntimeError:
            pass  # the loop has closed: nobody waits any more

    threading.Thread(target=target, daemon=True, name="heavy-work").start()
    return await future


async def _cancel_on_disconnect(request: Request, budget: WorkBudget) -> None:
    """Wait on the request's receive channel: after the body, the next message is the disconnect."""
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            budget.cancel()
            return
