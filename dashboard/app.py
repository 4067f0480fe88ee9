"""The FastAPI application: :func:`create_app` wires the routers around a live service.

>>> from companion.service.config import ServiceConfig
>>> from companion.service.service import Service
>>> app = create_app(Service(["sim://"], ServiceConfig()))
>>> paths = sorted(p for p in app.openapi()["paths"] if p.startswith("/api/board/"))
>>> paths[0], [p.rsplit("/", 1)[1] for p in paths[-3:]]
('/api/board/{b}/camera', ['command', 'events', 'state'])

The service starts with the app (lifespan) and stops with it, so uvicorn's
handling of SIGINT/SIGTERM closes the sources and the logs cleanly. Request
bodies above ``max_body_bytes`` are refused with 413 before they are read.
The pages (``dashboard/static/``): the home page at ``/``, listing every board
and view, and a board's page at ``/board/{b}`` (:mod:`.routers.pages`); their
files under ``/static``; without them a small placeholder says where the API is.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from companion import __version__
from companion.service.service import Service

from .routers import camera, games, health, pages, state, ws

STATIC_DIR = Path(__file__).parent / "static"


class BodyLimit:
    """Refuse request bodies larger than ``limit`` bytes with 413 (ASGI middleware)."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers", [])).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            await self._refuse(send)
            return
        seen = 0
        started = False

        async def counting_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise _TooLarge
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except _TooLarge:
            if not started:  # chunked bodies have no Content-Length: caught while reading
                await self._refuse(send)

    async def _refuse(self, send: Send) -> None:
        body = json.dumps({"detail": f"request body too large (limit {self.limit} bytes)"}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": body})


class _TooLarge(Exception):
    pass


def create_app(service: Service, static_dir: Path | None = None) -> FastAPI:
    """The web app serving ``service`` (started and stopped with the app)."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await service.start()
        try:
            yield
        finally:
            await service.stop()

    app = FastAPI(
        title="oware-companion",
        version=__version__,
        description="Live referee for a physical Oware board: game state, commands, "
        "history and exports; WebSocket /ws/board/{b} for live events "
        "(see docs/SERVICE_API.md).",
        lifespan=lifespan,
    )
    app.state.service = service
    folder = static_dir or STATIC_DIR
    app.state.static_dir = folder
    for module in (health, state, games, camera, ws, pages):
        app.include_router(module.router)
    if folder.is_dir():
        app.mount("/static", StaticFiles(directory=folder), name="static")
    app.add_middleware(BodyLimit, limit=service.config.max_body_bytes)
    return app
