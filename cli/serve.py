"""zeroplan serve: uvicorn with the ZEROPLAN_* settings; flags override them for this run."""

import argparse
import os
from typing import Any

from api.logs import uvicorn_log_config
from api.settings import Settings

OVERRIDES = ("host", "port", "workers", "log_level")


def add_serve_parser(commands: Any) -> None:
    sub = commands.add_parser("serve", help="run the HTTP service (uvicorn)")
    sub.add_argument("--host", help="address to bind (ZEROPLAN_HOST, default 127.0.0.1)")
    sub.add_argument("--port", type=int, help="port (ZEROPLAN_PORT, default 8000)")
    sub.add_argument("--workers", type=int, help="worker processes (ZEROPLAN_WORKERS, default 1)")
    sub.add_argument("--log-level", help="critical, error, warning, info, debug (ZEROPLAN_LOG_LEVEL)")
    sub.set_defaults(handler=serve)


def serve(args: argparse.Namespace) -> int:
    import uvicorn

    # Workers build their own app from the environment: the flags travel there as ZEROPLAN_* variables.
    for name in OVERRIDES:
        value = getattr(args, name)
        if value is not None:
            os.environ["ZEROPLAN_" + name.upper()] = str(value)
    settings = Settings()
    uvicorn.run(
        "api.app:create_app",
        factory=True,
        host=settings.host,
        port=settings.port,
        workers=settings.workers,
        log_level=settings.log_level,
        log_config=uvicorn_log_config(settings.log_level),
        access_log=False,  # the app writes its own JSON access line
        server_header=False,
        timeout_keep_alive=settings.keep_alive_timeout_s,  # type: ignore[arg-type]
        timeout_graceful_shutdown=settings.shutdown_grace_s,  # type: ignore[arg-type]
        **http_protocol(settings),
    )
    return 0


def http_protocol(settings: Settings) -> dict[str, Any]:
    """uvicorn's HTTP protocol with the header limit: httptools (its default) wrapped, else h11's own."""
    try:
        import httptools  # noqa: F401
    except ImportError:
        return {"http": "h11", "h11_max_incomplete_event_size": settings.max_header_bytes}
    from api.protocol import PROTOCOL

    return {"http": PROTOCOL}
