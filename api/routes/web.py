"""The web page for people: `GET /` serves api/static/index.html, `/static/...` its script and style.

Transport only, like every router here: the page computes nothing; it calls the public /v1 API
from the browser. Neither route appears in the OpenAPI document. The Content-Security-Policy
keeps the page to its own origin: no CDN, no external font, nothing fetched from elsewhere.
"""

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"
INDEX_FILE = STATIC_DIR / "index.html"
WEB_ROUTE = "web_index"  # app.url_path_for(WEB_ROUTE) is "/" once install_web has run

# blob: for the figure images the script builds from SVG responses.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
)
PAGE_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


async def index() -> FileResponse:
    return FileResponse(INDEX_FILE, media_type="text/html; charset=utf-8", headers=PAGE_HEADERS)


def install_web(app: FastAPI) -> None:
    """Route `/` to the page and mount its assets under `/static`, both outside the OpenAPI schema."""
    app.add_api_route("/", index, methods=["GET"], include_in_schema=False, name=WEB_ROUTE)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
