"""The limits one request's work runs under: a deadline and a cancel flag, checked between steps.

The core stays free of HTTP: the transport creates a WorkBudget, cancels it when the client goes
away, and the core calls ``check()`` between its steps (sweep groups, encoding chunks), which
raises a domain error the transport maps to a status. Work already running in a thread cannot be
interrupted from outside in Python; checking between steps of bounded size is how it stops.
"""

import threading
import time
from typing import Protocol

from service.errors import DeadlineExceeded, WorkCancelled


class Flag(Protocol):
    """What cancels: a threading.Event, or a flag another process can raise."""

    def set(self) -> None: ...

    def is_set(self) -> bool: ...


class WorkBudget:
    def __init__(
        self, deadline_s: float | None = None, stop_at: float | None = None, cancelled: Flag | None = None
    ) -> None:
        """``stop_at``: the deadline's instant on time.monotonic() when the work began elsewhere (the
        clock is system-wide); ``cancelled``: a flag shared with whoever cancels."""
        self.deadline_s = deadline_s
        if stop_at is None and deadline_s is not None:
            stop_at = time.monotonic() + deadline_s
        self._stop_at = stop_at
        self._cancelled: Flag = cancelled if cancelled is not None else threading.Event()

    @property
    def stop_at(self) -> float | None:
        return self._stop_at

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
