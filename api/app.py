"""The FastAPI app factory."""

import gc
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio.to_thread
from fastapi import FastAPI
from fastapi.routing import APIRoute
from starlette.routing import Mount

from api.answers import AnswerCache
from api.docs import install_docs
from api.fast import DirectOperation, DirectPathMiddleware, direct_operation
from api.jobs import start_jobs, stop_jobs
from api.logs import SHUTDOWN_FLUSH_S, configure_logging, flush_access_lines
from api.metrics import record_build
from api.middleware import (
    WILDCARD_ADDRESSES,
    AllowedHostsMiddleware,
    BearerAuthMiddleware,
    BodyLimitMiddleware,
    JsonBodyMiddleware,
    RequestContextMiddleware,
    RouteTemplates,
    allowed_hosts,
)
from api.negotiation import AcceptMiddleware
from api.pool import stop_shared_pool
from api.problems import declare_shell_problems, install_problem_handlers, problem_media_in_spec
from api.routes import admission, figures, health, planning, search, simulations, sweep
from api.routes.web import install_web
from api.settings import Settings
from api.work import HeavyWork
from service.answers.plan_cost import light_plan

DESCRIPTION = """\
How many bytes each GPU holds under data parallel, ZeRO-1, ZeRO-2 and ZeRO-3 (FSDP), which of
them fit a card and from how many GPUs, and what each costs on the wire. Every number comes with
its arithmetic. Errors are RFC 9457 problem details (`application/problem+json`).

When the service runs with `ZEROPLAN_API_TOKEN` set, every `/v1` route needs
`Authorization: Bearer <token>`; `/healthz`, `/readyz`, `/metrics` and the docs stay open.
Every response carries an `X-Request-ID` header (echoed when the request sends a plain one).
"""

VERSION = "0.1.0"
BEARER_SCHEME = "bearerAuth"


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()
    configure_logging(settings.log_level)
    app = FastAPI(
        title="zeroplan",
        version=VERSION,
        description=DESCRIPTION,
        lifespan=_lifespan,
        docs_url=None,
        redoc_url=None,
        # The service's own observability is its Prometheus /metrics and JSON logs; FastAPI's native
        # OpenTelemetry, never configured here, otherwise asks the global providers on every request.
        telemetry={"tracing": False, "metrics": False, "logs": False},
    )
    app.state.settings = settings
    app.state.answers = AnswerCache(settings.answer_cache_bytes)
    app.state.heavy = HeavyWork(
        settings.max_concurrent_heavy_requests,
        settings.work_deadline_s,
        settings.heavy_queue_wait_s,
        processes=settings.heavy_work_processes,
        worker_memory_bytes=settings.worker_memory_bytes,
    )
    record_build(VERSION)
    install_problem_handlers(app)
    app.include_router(health.router)
    app.include_router(planning.router)
    app.include_router(sweep.router)
    app.include_router(search.router)
    app.include_router(figures.router)
    app.include_router(simulations.router)
    app.include_router(admission.router)
    install_web(app)
    install_docs(app)
    _install_middleware(app, settings)
    _document_contract(app)
    return app


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Start: open the job store, adopt what an earlier process left, take queued jobs. Stop: cancel the
    heavy requests in flight and stop the sweeps' worker processes, take no more jobs, let running jobs
    end within the grace period, hand the rest back (api/jobs.py)."""
    await anyio.to_thread.run_sync(start_jobs, app)
    _build_route_tables(app)
    _freeze_startup_objects()
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    try:
        yield
    finally:
        app.state.heavy.cancel_running()  # heavy requests in flight stop at their next check
        # Requests in flight had the grace already (uvicorn's timeout_graceful_shutdown): workers still busy a
        # moment later (work that does not check its budget) are killed.
        await anyio.to_thread.run_sync(stop_shared_pool, POOL_STOP_S)
        await anyio.to_thread.run_sync(stop_jobs, app)
        flush_access_lines(SHUTDOWN_FLUSH_S)


def _build_route_tables(app: FastAPI) -> None:
    """Build the spec and the route tables the middleware reads from it before the first request, not on it:
    built lazily, the first /v1 request of a fresh process waited 0.6-0.8 s for them, and every request that
    arrived meanwhile with it (the event loop was busy building)."""
    app.openapi()
    templates: RouteTemplates = app.state.route_templates
    templates.allowed("/v1/plan")  # compiles every template


def _freeze_startup_objects() -> None:
    """Move what start-up built (modules, schemas, the spec) out of the garbage collector's reach, once per
    process: a full collection then walks only what requests leave behind, not the ~130,000 objects
    of the imports, and pauses every request in flight for less (the CPython docs of ``gc.freeze``)."""
    global _frozen
    if not _frozen:
        gc.collect()
        gc.freeze()
        _frozen = True


_frozen = False
POOL_STOP_S = 1.0  # at shutdown, how long busy worker processes have after their work was cancelled
# A thread of heavy work (fit, figures) hands the interpreter lock to the event loop after 1 ms when it
# asks for it, not CPython's default 5 ms: /healthz and plans wait less behind it (sys.setswitchinterval).
SWITCH_INTERVAL_S = 0.001


def _install_middleware(app: FastAPI, settings: Settings) -> None:
    """add_middleware puts each new layer outside the previous: this reads innermost first."""
    # Every path the app serves labels metrics; the documented ones also carry their methods.
    templates = RouteTemplates(lambda: {path: {} for path in route_templates(app)} | app.openapi()["paths"])
    app.state.route_templates = templates
    app.add_middleware(DirectPathMiddleware, operations=direct_operations, answers=app.state.answers)
    app.add_middleware(JsonBodyMiddleware, templates=templates)
    app.add_middleware(AcceptMiddleware, spec=lambda: app.openapi())
    app.add_middleware(BodyLimitMiddleware, max_body_bytes=settings.max_body_bytes)
    token = settings.api_token.get_secret_value() if settings.api_token else None
    app.add_middleware(BearerAuthMiddleware, token=token)
    hosts = allowed_hosts(settings.allowed_hosts, settings.host)
    wildcard = settings.host.strip().strip("[]") in WILDCARD_ADDRESSES
    app.add_middleware(AllowedHostsMiddleware, hosts=hosts, any_local_address=wildcard)
    app.add_middleware(RequestContextMiddleware, templates=templates, log_requests=settings.access_log)


def direct_operations() -> dict[str, DirectOperation]:
    """The light operations valid requests reach without the framework's routing (api.fast)."""
    # path -> (the answer cache's operation, answer, whether a request is light enough for the event loop)
    answers: dict[str, tuple[str, Callable[[Any], bytes], Callable[[Any], bool]]] = {
        "/v1/plan": ("plan", planning.computed_plan, light_plan)
    }
    return {
        route.path: direct_operation(answers[route.path][0], route, answers[route.path][1], answers[route.path][2])
        for route in planning.router.routes
        if isinstance(route, APIRoute) and route.path in answers and "POST" in route.methods
    }


def route_templates(app: FastAPI) -> list[str]:
    """Every path the app serves, documented or not (docs, spec, page, mounts): metrics label them all."""
    out = []
    for route in app.routes:
        path = getattr(route, "path", None)
        if path is None:
            continue
        out.append(path + "/{path:path}" if isinstance(route, Mount) else path)
    return out


def _document_contract(app: FastAPI) -> None:
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = _declare_bearer(declare_shell_problems(problem_media_in_spec(build())))
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def _declare_bearer(spec: dict[str, Any]) -> dict[str, Any]:
    """The token is optional (only when configured): /v1 operations accept a bearer token or none."""
    schemes = spec.setdefault("components", {}).setdefault("securitySchemes", {})
    schemes[BEARER_SCHEME] = {"type": "http", "scheme": "bearer", "description": "ZEROPLAN_API_TOKEN, when set."}
    for path, methods in spec.get("paths", {}).items():
        if path.startswith("/v1"):
            for operation in methods.values():
                operation["security"] = [{BEARER_SCHEME: []}, {}]
    return spec
