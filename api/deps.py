"""Dependencies injected into routes."""

from fastapi import HTTPException, Request

from api.settings import Settings

JSON_MEDIA_TYPES = ("application/json",)


async def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def require_json_body(request: Request) -> None:
    """415 unless a request with a body says it is JSON (application/json or any +json type)."""
    if request.method not in ("POST", "PUT", "PATCH"):
        return
    media_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media_type in JSON_MEDIA_TYPES or media_type.endswith("+json"):
        return
    shown = media_type or "no Content-Type"
    raise HTTPException(415, f"the body must be application/json, not {shown}")
