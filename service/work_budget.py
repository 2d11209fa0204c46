"""The limits one request's work runs under: a deadline and a cancel flag, checked between steps.

The core stays free of HTTP: the transport creates a WorkBudget, cancels it when the client goes
away, and the core calls ``check()`` between its steps (sweep groups, encoding chunks), which
raises a domain error the transport maps to a status. Work already running in a thread cannot be
interrupted from outside in Python; checking between steps of bounded size is how it stops.
"""

import threading
import time

from service.errors import DeadlineExceeded, WorkCancelled


class WorkBudget:
    def __init__(self, deadline_s: float | None = None) -> None:
        self.deadline_s = deadline_s
        self._stop_at = None if deadline_s is None else time.monotonic() + deadline_s
        self._cancelled = threading.Event()

    def cancel(self) -> None:
        self._cancelled.set()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def check(self) -> None:
        """Raise if the work should stop: the caller left, or the deadline passed."""
        if self._cancelled.is_set():
            raise WorkCancelled("the client closed the connection; the work was stopped")
        if self._stop_at is not None and time.monotonic() > self._stop_at:
            raise DeadlineExceeded(
                f"the work ran past its deadline of {self.deadline_s:g} s and was stopped; ask for less "
                "(fewer axis values, a smaller grid)"
            )
