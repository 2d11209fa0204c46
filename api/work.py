"""Heavy requests (sweep, fit, recommend and limits misses, figures) run bounded, off the event loop.

- At most ``max_concurrent`` at once per process: one more is refused at once with a 429 and
  ``Retry-After`` rather than queued, so a burst cannot pile up threads and memory.
- In a worker thread, with a WorkBudget (service.work_budget): its deadline stops the work at the
  core's next check, and so does the client going away (an ``http.disconnect`` on the request's
  receive channel cancels the budget).
- The event loop only waits: /healthz and cached answers stay fast while the work runs.
"""

from collections.abc import Callable
from typing import TypeVar

import anyio
from starlette.requests import Request

from api.problems import too_many_requests
from service.work_budget import WorkBudget

T = TypeVar("T")


class HeavyWork:
    def __init__(self, max_concurrent: int, deadline_s: float, retry_after_s: int = 1) -> None:
        self.max_concurrent = max_concurrent
        self.deadline_s = deadline_s
        self.retry_after_s = retry_after_s
        self.running = 0  # touched only on the event loop: no lock

    async def run(self, request: Request, work: Callable[[WorkBudget], T]) -> T:
        if self.running >= self.max_concurrent:
            raise too_many_requests(
                f"{self.running} heavy requests (sweep, fit, recommend, limits, figures) are running; the limit is "
                f"{self.max_concurrent} (ZEROPLAN_MAX_CONCURRENT_HEAVY_REQUESTS)",
                retry_after_s=self.retry_after_s,
            )
        self.running += 1
        budget = WorkBudget(self.deadline_s)
        failure: Exception | None = None
        try:
            async with anyio.create_task_group() as watchers:
                watchers.start_soon(_cancel_on_disconnect, request, budget)
                try:
                    result = await anyio.to_thread.run_sync(work, budget)
                except Exception as exc:  # raised after the group, not wrapped in an ExceptionGroup
                    failure = exc
                finally:
                    watchers.cancel_scope.cancel()
        finally:
            self.running -= 1
        if failure is not None:
            raise failure
        return result


async def _cancel_on_disconnect(request: Request, budget: WorkBudget) -> None:
    """Wait on the request's receive channel: after the body, the next message is the disconnect."""
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            budget.cancel()
            return
