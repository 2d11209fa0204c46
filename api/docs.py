"""Swagger UI at /docs and ReDoc at /redoc, served with their assets from this process.

FastAPI's own pages load both from a CDN: on an air-gapped cluster they are blank. The assets
come from the `fastapi-offline` package (a maintained PyPI release of swagger-ui-dist and
redoc's standalone bundle), mounted read-only under /docs/assets; nothing is copied by hand and
nothing is fetched from elsewhere (no Google fonts, no external favicon).
"""

from importlib.resources import files
from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.staticfiles import StaticFiles
from starlette.requests import Request
from starlette.responses import HTMLResponse

DOCS_URL = "/docs"
REDOC_URL = "/redoc"
OAUTH2_REDIRECT_URL = "/docs/oauth2-redirect"
ASSETS_URL = "/docs/assets"
FAVICON_URL = "/static/favicon.svg"


# The page's headers (api/routes/web.py), with the inline script and style both documentation pages are
# built with (FastAPI's get_swagger_ui_html and get_redoc_html) and ReDoc's blob: worker.
DOCS_CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; font-src 'self'; worker-src 'self' blob:; object-src 'none'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
DOCS_HEADERS = {
    "Content-Security-Policy": DOCS_CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}


def _secured(response: HTMLResponse) -> HTMLResponse:
    response.headers.update(DOCS_HEADERS)
    return response


def assets_dir() -> Path:
    """The directory of swagger-ui-bundle.js, swagger-ui.css and redoc.standalone.js."""
    return Path(str(files("fastapi_offline") / "static"))


def install_docs(app: FastAPI, openapi_url: str = "/openapi.json") -> None:
    """Create the app with docs_url=None and redoc_url=None, then call this."""

    async def swagger_ui(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return _secured(
            get_swagger_ui_html(
                openapi_url=root + openapi_url,
                title=f"{app.title} - Swagger UI",
                oauth2_redirect_url=root + OAUTH2_REDIRECT_URL,
                swagger_js_url=f"{root}{ASSETS_URL}/swagger-ui-bundle.js",
                swagger_css_url=f"{root}{ASSETS_URL}/swagger-ui.css",
                swagger_favicon_url=root + FAVICON_URL,
            )
        )

    async def redoc(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return _secured(
            get_redoc_html(
                openapi_url=root + openapi_url,
                title=f"{app.title} - ReDoc",
                redoc_js_url=f"{root}{ASSETS_URL}/redoc.standalone.js",
                redoc_favicon_url=root + FAVICON_URL,
                with_google_fonts=False,
            )
        )

    async def oauth2_redirect() -> HTMLResponse:
        return _secured(get_swagger_ui_oauth2_redirect_html())

    app.mount(ASSETS_URL, StaticFiles(directory=assets_dir()), name="docs_assets")
    app.add_api_route(DOCS_URL, swagger_ui, methods=["GET"], include_in_schema=False, name="swagger_ui")
    app.add_api_route(REDOC_URL, redoc, methods=["GET"], include_in_schema=False, name="redoc")
    app.add_api_route(OAUTH2_REDIRECT_URL, oauth2_redirect, methods=["GET"], include_in_schema=False)
