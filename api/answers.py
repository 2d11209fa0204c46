"""A cache of serialised answers, bounded in bytes: the planning operations are pure functions.

Schedulers ask the same question again and again; the answer to a validated request never
changes while the service runs, so its JSON bytes are kept (least recently used first out).
The key is the operation and the request's canonical JSON, so equal requests written with other
spacing or field order share an entry. Requests on the direct path (api.fast) are keyed by their
body as parsed, its object keys sorted, before any validation: a repeated request is answered
without being validated again (only a request that validated and was answered is ever stored, and
validation is a pure function of the body). The cache holds at most ``max_bytes`` of keys and
answers together (``ZEROPLAN_ANSWER_CACHE_BYTES``; 0 turns it off), and an answer larger than a
sixteenth of that is served but not kept, so one large fit grid cannot flush the rest.
"""

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import orjson
from pydantic import BaseModel

from api.encoding import model_json
from api.metrics import ANSWER_CACHE, counting_by_one

Key = tuple[str, str, str]  # (operation, "model" or "body", canonical JSON): the two forms never share an entry
LARGEST_SHARE = 16  # an entry may take at most 1/16 of the budget


class AnswerCache:
    def __init__(self, max_bytes: int, largest_share: int = LARGEST_SHARE) -> None:
        self.max_bytes = max_bytes
        self.largest_share = largest_share
        self.bytes = 0
        self._entries: OrderedDict[Key, bytes] = OrderedDict()
        self._lock = threading.Lock()
        self._counters: dict[tuple[str, bool], Callable[[float], None]] = {}

    def answer(self, operation: str, request: BaseModel, compute: Callable[[], BaseModel]) -> bytes:
        """The cached answer, or compute it here (for work short enough for the event loop)."""
        key, body = self.lookup(operation, request)
        if body is None:
            body = self.store(key, model_json(compute()))
        return body

    def lookup(self, operation: str, request: BaseModel) -> tuple[Key | None, bytes | None]:
        """The key to store under (None when the cache is off) and the cached answer, if any."""
        if self.max_bytes <= 0:
            return None, None
        return self._get((operation, "model", request.model_dump_json()))

    def lookup_parsed(self, operation: str, body: Any) -> tuple[Key | None, bytes | None]:
        """As ``lookup``, keyed by a request body as parsed from JSON, before validation (api.fast)."""
        if self.max_bytes <= 0:
            return None, None
        return self._get((operation, "body", orjson.dumps(body, option=orjson.OPT_SORT_KEYS).decode()))

    def _get(self, key: Key) -> tuple[Key, bytes | None]:
        with self._lock:
            body = self._entries.get(key)
            if body is not None:
                self._entries.move_to_end(key)
        count = self._counters.get((key[0], body is not None))
        if count is None:
            count = self._counter(key[0], body is not None)
        count(1)
        return key, body

    def store(self, key: Key | None, body: bytes) -> bytes:
        size = _size(key, body) if key is not None else 0
        if key is None or size > self.max_bytes // self.largest_share:
            return body
        # A copy of exactly its size: an encoder's buffer (orjson's) is shrunk in place, and the memory it
        # gave back stays scattered between long-lived entries (64 MiB of plans grew RSS by 141 MiB, 66 with copies).
        body = bytes(memoryview(body))
        with self._lock:
            previous = self._entries.pop(key, None)
            if previous is not None:
                self.bytes -= _size(key, previous)
            self._entries[key] = body
            self.bytes += size
            while self.bytes > self.max_bytes:
                old_key, old_body = self._entries.popitem(last=False)
                self.bytes -= _size(old_key, old_body)
        return body

    def _counter(self, operation: str, hit: bool) -> Callable[[float], None]:
        """The look-ups' counter of (operation, result), bound once: labels() locks and builds a key on every call."""
        count = counting_by_one(ANSWER_CACHE.labels(operation, "hit" if hit else "miss"))
        self._counters[(operation, hit)] = count
        return count

    def __len__(self) -> int:
        return len(self._entries)


def _size(key: Key, body: bytes) -> int:
    return len(key[0]) + len(key[2]) + len(body)
