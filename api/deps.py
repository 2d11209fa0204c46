"""Dependencies injected into routes."""

from fastapi import Request

from api.settings import Settings


async def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings
