"""``GET /health``: is the service up, and how is each board's source doing."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from .deps import ServiceDep

router = APIRouter(tags=["health"])


@router.get(
    "/health",
    summary="service, source, link and camera state of every board",
    responses={503: {"description": "boards are still resuming their logs after a restart"}},
)
async def health(service: ServiceDep) -> Any:
    found = service.health()
    if found["status"] == "resuming":  # up, answering, but not playing yet
        return JSONResponse(found, status_code=503)
    return found
