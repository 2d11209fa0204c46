"""The FastAPI app factory."""

from typing import Any

from fastapi import FastAPI

from api.problems import install_problem_handlers, problem_media_in_spec
from api.routes import health, planning
from api.settings import Settings

DESCRIPTION = """\
How many bytes each GPU holds under data parallel, ZeRO-1, ZeRO-2 and ZeRO-3 (FSDP), which of
them fit a card and from how many GPUs, and what each costs on the wire. Every number comes with
its arithmetic. Errors are RFC 9457 problem details (`application/problem+json`).
"""

VERSION = "0.1.0"


def create_app(settings: Settings | None = None) -> FastAPI:
    app = FastAPI(title="zeroplan", version=VERSION, description=DESCRIPTION)
    app.state.settings = settings or Settings()
    install_problem_handlers(app)
    app.include_router(health.router)
    app.include_router(planning.router)
    _document_problems(app)
    return app


def _document_problems(app: FastAPI) -> None:
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = problem_media_in_spec(build())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
