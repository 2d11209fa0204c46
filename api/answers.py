"""A bounded cache of serialised answers: the planning operations are pure functions of the request.

Schedulers ask the same question again and again; the answer to a validated request never
changes while the service runs, so its JSON bytes are kept (least recently used first out).
The key is the operation and the request's canonical JSON, so equal requests written with other
spacing or field order share an entry. ``ZEROPLAN_ANSWER_CACHE_ENTRIES=0`` turns it off.
"""

import threading
from collections import OrderedDict
from collections.abc import Callable

from prometheus_client import Counter
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from api.metrics import ANSWER_CACHE


class AnswerCache:
    def __init__(self, max_entries: int) -> None:
        self.max_entries = max_entries
        self._entries: OrderedDict[tuple[str, str], bytes] = OrderedDict()
        self._lock = threading.Lock()
        self._counters: dict[tuple[str, bool], Counter] = {}

    def answer(self, operation: str, request: BaseModel, compute: Callable[[], BaseModel]) -> bytes:
        """The cached answer, or compute it here (for work short enough for the event loop)."""
        key = self._key(operation, request)
        body = self._get(operation, key)
        if body is None:
            body = self._put(key, compute().model_dump_json().encode())
        return body

    async def answer_off_loop(self, operation: str, request: BaseModel, compute: Callable[[], BaseModel]) -> bytes:
        """The cached answer at once, or compute it in the thread pool so the event loop stays free."""
        key = self._key(operation, request)
        body = self._get(operation, key)
        if body is None:
            answer = await run_in_threadpool(compute)
            body = self._put(key, answer.model_dump_json().encode())
        return body

    def _key(self, operation: str, request: BaseModel) -> tuple[str, str] | None:
        return (operation, request.model_dump_json()) if self.max_entries > 0 else None

    def _get(self, operation: str, key: tuple[str, str] | None) -> bytes | None:
        if key is None:
            return None
        with self._lock:
            body = self._entries.get(key)
            if body is not None:
                self._entries.move_to_end(key)
        self._count(operation, body is not None)
        return body

    def _count(self, operation: str, hit: bool) -> None:
        # Children bound once per (operation, result): labels() locks and builds a key on every call.
        child = self._counters.get((operation, hit))
        if child is None:
            child = self._counters[(operation, hit)] = ANSWER_CACHE.labels(operation, "hit" if hit else "miss")
        child.inc()

    def _put(self, key: tuple[str, str] | None, body: bytes) -> bytes:
        if key is not None:
            with self._lock:
                self._entries[key] = body
                while len(self._entries) > self.max_entries:
                    self._entries.popitem(last=False)
        return body

    def __len__(self) -> int:
        return len(self._entries)
