"""``GET /health``: is the service up, and how is each board's source doing."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from .deps import ServiceDep

router = APIRouter(tags=["health"])


@router.get("/health", summary="service, source, link and camera state of every board")
def health(service: ServiceDep) -> dict[str, Any]:
    return service.health()
