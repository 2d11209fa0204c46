"""Structured logs: one JSON object per line on stderr, for the service's own loggers."""

import logging
import sys
import time
from contextlib import nullcontext
from functools import lru_cache
from typing import Any

import orjson

ROOT_LOGGER = "zeroplan"
ACCESS_LOGGER = "zeroplan.access"


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
    filter; the set-up of ``configure_logging``), the line is written to its stream directly: a log record
    (with its caller lookup, thread and process names) is most of what logging costs a request."""
    access = logging.getLogger(ACCESS_LOGGER)
    if not access.isEnabledFor(logging.INFO):
        return
    handler = _sole_json_handler(access)
    if handler is None:
        access.info("request", extra={"fields": fields})
        return
    line = json_line(time.time(), "info", ACCESS_LOGGER, "request")
    line.update(fields)
    text = orjson.dumps(line, default=str).decode() + handler.terminator
    with handler.lock or nullcontext():
        handler.stream.write(text)
        handler.flush()


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
