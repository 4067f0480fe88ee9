"""The FastAPI application: :func:`create_app` wires the routers around a live service.

The service is anything that has what :class:`dashboard.contracts.LiveService` names
(``oware-companion serve`` gives it ``companion.service.service.Service``; its
docstring shows the routes an app serves). The service starts with the app (lifespan)
and stops with it, so uvicorn's handling of SIGINT/SIGTERM closes the sources and the
logs cleanly. Request bodies above ``max_body_bytes`` are refused with 413 before they
are read, and :class:`dashboard.guard.Guard` checks every request's ``Host`` and
``Origin`` and gives the pages their security headers (``docs/SECURITY.md``); a token
in a logged address is written ``token=…`` (:class:`RedactTokens`).
The pages (``dashboard/static/``): the home page at ``/``, listing every board
and view, and a board's page at ``/board/{b}`` (:mod:`.routers.pages`); their
files under ``/static``; without them a small placeholder says where the API is.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .contracts import LiveService
from .guard import Guard, ServedHosts
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


#: ``token=…`` in a logged address (a query string), up to the next separator.
_TOKEN_IN_URL = re.compile(r"(?i)\b(token=)[^&\s\"'#]*")

#: The loggers that print request addresses: uvicorn's access log, and its WebSocket lines.
ADDRESS_LOGGERS = ("uvicorn.access", "uvicorn.error")


class RedactTokens(logging.Filter):
    """Write ``token=…`` instead of a token in any logged address (a program may still send
    one in the query string; the pages never do).

    >>> record = logging.LogRecord("uvicorn.access", 20, "", 0, '%s - "%s %s"', (
    ...     "127.0.0.1:5", "GET", "/ws/board/1?role=referee&token=s3cret-token"), None)
    >>> RedactTokens().filter(record) and record.getMessage()
    '127.0.0.1:5 - "GET /ws/board/1?role=referee&token=…"'
    """

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "token=" in message.lower():
            record.msg = _TOKEN_IN_URL.sub(r"\1…", message)
            record.args = None
        return True


def redact_tokens_in_logs() -> None:
    """Install :class:`RedactTokens` on the loggers that print addresses (once)."""
    for name in ADDRESS_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactTokens) for f in logger.filters):
            logger.addFilter(RedactTokens())


def create_app(
    service: LiveService, static_dir: Path | None = None, *, version: str = "unknown"
) -> FastAPI:
    """The web app serving ``service`` (started and stopped with the app); ``version``
    is the application's, shown in the API's description (``/docs``)."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await service.start()
        try:
            yield
        finally:
            await service.stop()

    app = FastAPI(
        title="oware-companion",
        version=version,
        description="Live referee for a physical Oware board: game state, commands, "
        "history and exports; WebSocket /ws/board/{b} for live events "
        "(see docs/SERVICE_API.md).",
        lifespan=lifespan,
    )
    app.state.service = service
    redact_tokens_in_logs()
    folder = static_dir or STATIC_DIR
    app.state.static_dir = folder
    for module in (health, state, games, camera, ws, pages):
        app.include_router(module.router)
    if folder.is_dir():
        app.mount("/static", StaticFiles(directory=folder), name="static")
    app.add_middleware(BodyLimit, limit=service.config.max_body_bytes)
    config = service.config
    # outermost: a request for another Host or from another site's page goes no further
    app.add_middleware(
        Guard,
        hosts=ServedHosts(config.host, config.port, config.allowed_origins),
        allowed_origins=config.allowed_origins,
    )
    return app
