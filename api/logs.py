"""Structured logs: one JSON object per line on stderr, for the service's own loggers."""

import atexit
import logging
import os
import sys
import threading
import time
from contextlib import nullcontext
from functools import lru_cache
from typing import Any

import orjson

from api.metrics import ACCESS_LINES_DROPPED

ROOT_LOGGER = "zeroplan"
ACCESS_LOGGER = "zeroplan.access"
_access = logging.getLogger(ACCESS_LOGGER)  # loggers live as long as the process: looked up once


class JsonFormatter(logging.Formatter):
    """time, level, logger, message, the record's ``fields`` extra, and the exception type (no trace)."""

    def format(self, record: logging.LogRecord) -> str:
        line = json_line(record.created, record.levelname.lower(), record.name, record.getMessage())
        line.update(getattr(record, "fields", None) or {})
        if record.exc_info and record.exc_info[1] is not None:
            line["error"] = type(record.exc_info[1]).__name__
            line["traceback"] = self.formatException(record.exc_info)
        return orjson.dumps(line, default=str).decode()


def json_line(created_s: float, level: str, logger: str, message: str) -> dict[str, Any]:
    """The fields every line starts with; the time in UTC to the millisecond."""
    return {"time": _utc_time(created_s), "level": level, "logger": logger, "message": message}


def _utc_time(created_s: float) -> str:
    whole_s = int(created_s)
    return f"{_utc_second(whole_s)}.{int((created_s - whole_s) * 1000):03d}Z"


@lru_cache(maxsize=4)  # strftime once a second
def _utc_second(whole_s: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole_s))


def write_access_line(fields: dict[str, Any]) -> None:
    """``logging.getLogger(ACCESS_LOGGER).info("request", extra={"fields": fields})``, written as the JSON
    handler would write it. While that handler is the only place the line goes (no other handler or
    filter; the set-up of ``configure_logging``), the line skips the log record (with its caller lookup,
    thread and process names, most of what logging costs a request) and goes to the handler's stream through
    ``ACCESS_LINES``, written by a thread of its own."""
    access = _access
    if not access.isEnabledFor(logging.INFO):
        return
    handler = _sole_json_handler(access)
    if handler is None:
        access.info("request", extra={"fields": fields})
        return
    # json_line's fields, then the request's
    line = {"time": _utc_time(time.time()), "level": "info", "logger": ACCESS_LOGGER, "message": "request", **fields}
    ACCESS_LINES.add(handler, orjson.dumps(line, default=str).decode() + handler.terminator)


# The event loop never writes an access line itself: stderr is a pipe whose reader (a terminal, a container
# runtime, a log collector) may pause, and a write to a full pipe (64 KiB on Linux, pipe(7)) blocks until it
# drains, stalling every request in flight. A reader that drained every 0.2 s held cached plans at 1,437 req/s
# with p99 183 ms (10.4 ms with stderr on /dev/null). Lines wait in memory instead, up to 0.1 s, and a
# thread writes them, many in one write; what a stalled reader leaves unread is bounded, and past the bound
# lines are dropped and counted (a warning line with the count once the reader catches up, and
# zeroplan_access_log_dropped_lines_total), never the requests slowed.
ACCESS_LOG_BUFFER_BYTES = 8 * 2**20
ACCESS_LOG_INTERVAL_S = 0.1  # how long the writer gathers lines before one write
SHUTDOWN_FLUSH_S = 1.0  # at shutdown, how long a write in progress may hold the last lines back


class AccessLines:
    """Access lines on their way to the JSON handler's stream, written by a daemon thread."""

    def __init__(self, max_bytes: int = ACCESS_LOG_BUFFER_BYTES, interval_s: float = ACCESS_LOG_INTERVAL_S) -> None:
        self.max_bytes = max_bytes
        self.interval_s = interval_s
        self._lines: list[str] = []
        self._bytes = 0
        self._dropped = 0
        self._handler: logging.StreamHandler | None = None  # type: ignore[type-arg]
        self._lock = threading.Lock()  # the lines waiting
        self._write_lock = threading.Lock()  # one write at a time, in the order the lines came
        self._wakeup = _held_lock()  # released once when a line comes to an idle writer, which waits to take it
        self._writer_started = False
        self._writer_idle = False

    def add(self, handler: logging.StreamHandler, text: str) -> None:  # type: ignore[type-arg]
        with self._lock:
            if self._bytes + len(text) > self.max_bytes:
                self._dropped += 1
                return
            self._lines.append(text)
            self._bytes += len(text)
            self._handler = handler
            if self._writer_started and not self._writer_idle:
                return  # the writer takes the line at its next interval
            start = not self._writer_started
            self._writer_started, self._writer_idle = True, False
        if start:
            threading.Thread(target=self._write_forever, name="zeroplan-access-log", daemon=True).start()
        else:
            self._wakeup.release()

    def flush(self, timeout_s: float = -1) -> None:
        """Write every line waiting (and the count of lines dropped since the last write), now; ``timeout_s``:
        how long to wait for a write in progress (at shutdown a reader that never drains must not hold the
        process; -1 waits)."""
        if not self._write_lock.acquire(timeout=timeout_s):
            return
        try:
            self._write()
        finally:
            self._write_lock.release()

    def _write(self) -> None:
        with self._lock:
            lines, dropped, handler = self._lines, self._dropped, self._handler
            self._lines, self._bytes, self._dropped = [], 0, 0
        if handler is None or not (lines or dropped):
            return
        if dropped:
            ACCESS_LINES_DROPPED.inc(dropped)
            warning = json_line(time.time(), "warning", ACCESS_LOGGER, "access lines dropped")
            warning["dropped_lines"] = dropped
            warning["detail"] = f"the reader of the log fell {self.max_bytes:,} bytes behind"
            lines.append(orjson.dumps(warning).decode() + handler.terminator)
        try:
            with handler.lock or nullcontext():
                handler.stream.write("".join(lines))
                handler.flush()
        except Exception:  # a closed or broken stream: like logging.Handler.handleError, go on without the lines
            pass

    def forget_after_fork(self) -> None:
        """In a forked child: no writer thread (threads do not survive a fork), the parent's lines are the
        parent's to write, and a lock held at the fork would never be released."""
        self._lines, self._bytes, self._dropped = [], 0, 0
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._wakeup = _held_lock()
        self._writer_started = False
        self._writer_idle = False

    def _write_forever(self) -> None:
        """Write what came every interval; with nothing waiting, sleep until a line comes. While requests keep
        coming the event loop never wakes this thread (a wake-up hands it the interpreter lock, and on a busy
        machine the loop then waits for the thread to be scheduled): the thread wakes itself, once an
        interval."""
        while True:
            time.sleep(self.interval_s)  # the lines of the interval join one write
            self.flush()
            with self._lock:
                if self._lines or self._dropped:
                    continue
                self._writer_idle = True
            # Held until the next line's ``add`` releases it (once: it marks the writer busy as it does), whether
            # that came before this wait or comes during it; taking it holds it again for the next idle wait.
            self._wakeup.acquire()


def _held_lock() -> threading.Lock:
    """A lock already taken: a wake-up signal that costs its waker one call in C (an Event's ``set`` runs a
    condition's Python code under its own lock)."""
    lock = threading.Lock()
    lock.acquire()
    return lock


ACCESS_LINES = AccessLines()
atexit.register(ACCESS_LINES.flush, SHUTDOWN_FLUSH_S)
os.register_at_fork(after_in_child=ACCESS_LINES.forget_after_fork)


def flush_access_lines(timeout_s: float = -1) -> None:
    """Write the access lines still waiting (at shutdown; tests that read the stream)."""
    ACCESS_LINES.flush(timeout_s)


def _sole_json_handler(access: logging.Logger) -> logging.StreamHandler | None:  # type: ignore[type-arg]
    parent = access.parent
    if access.handlers or access.filters or not access.propagate or access.disabled or parent is None:
        return None
    if parent.name != ROOT_LOGGER or parent.propagate or parent.filters or len(parent.handlers) != 1:
        return None
    handler = parent.handlers[0]
    plain = type(handler) is logging.StreamHandler and type(handler.formatter) is JsonFormatter
    return handler if plain and not handler.filters and handler.level <= logging.INFO else None  # type: ignore[return-value]


def configure_logging(level: str) -> None:
    """Give the zeroplan loggers one JSON handler on stderr; calling it again only changes the level."""
    logger = logging.getLogger(ROOT_LOGGER)
    logger.setLevel(level.upper())
    if not any(isinstance(h.formatter, JsonFormatter) for h in logger.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(JsonFormatter())
        logger.addHandler(handler)
    logger.propagate = False


def uvicorn_log_config(level: str) -> dict[str, Any]:
    """uvicorn's own loggers (start-up, shutdown, errors) as JSON lines too: a dictConfig for uvicorn.run."""
    handler = {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": JsonFormatter}},
        "handlers": {"json": handler},
        "loggers": {
            name: {"handlers": ["json"], "level": level.upper(), "propagate": False}
            for name in ("uvicorn", "uvicorn.error", "uvicorn.access")
        },
    }
