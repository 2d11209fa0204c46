"""Health routes: open even when a token protects /v1."""

from fastapi import APIRouter
from pydantic import BaseModel

router = APIRouter(tags=["health"])


class Health(BaseModel):
    status: str


@router.get("/healthz", operation_id="healthz", summary="Liveness: the process answers", response_model=Health)
async def healthz() -> Health:
    return Health(status="ok")
