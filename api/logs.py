"""Structured logs: one JSON object per line on stderr, for the service's own loggers."""

import logging
import sys
import time
from typing import Any

import orjson

ROOT_LOGGER = "zeroplan"
ACCESS_LOGGER = "zeroplan.access"


class JsonFormatter(logging.Formatter):
    """time, level, logger, message, the record's ``fields`` extra, and the exception type (no trace)."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        line.update(getattr(record, "fields", None) or {})
        if record.exc_info and record.exc_info[1] is not None:
            line["error"] = type(record.exc_info[1]).__name__
            line["traceback"] = self.formatException(record.exc_info)
        return orjson.dumps(line, default=str).decode()


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
