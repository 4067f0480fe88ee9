"""The hall's web page: read-only, every board at once.

``GET /`` the hall page (``dashboard/static/hall.html``), ``GET /api/hall`` what it
shows (:meth:`companion.hall.gatherer.Gatherer.snapshot`, for scripts that poll),
``GET /api/hall/stream`` the same kept up to date as it changes (the page's feed,
:mod:`companion.hall.stream`), ``GET /round/R.ogn`` the round's games. Nothing here
changes a board: commands go to each board's own service (its URL is in the board's
summary), with that board's token.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException
from fastapi.responses import FileResponse, PlainTextResponse, Response, StreamingResponse

from .gatherer import Gatherer
from .stream import HallStream

STATIC = Path(__file__).resolve().parents[2] / "dashboard" / "static"
#: Seconds one snapshot of the hall answers every page's poll.
SNAPSHOT_FOR = 0.25
#: What the hall page loads, and nothing else of the boards' pages: its own files, the
#: modules it shares with a board's page (its words and the way an alert is said) and
#: their dictionaries.
PAGE_FILES = {
    "hall.js": "application/javascript",
    "hall.css": "text/css",
    **{f"js/{n}.js": "application/javascript" for n in ("i18n", "view", "board", "rules")},
    **{f"i18n/{lang}.json": "application/json" for lang in ("en", "pl", "de", "cs", "fr")},
}


def create_hall_app(gatherer: Gatherer) -> FastAPI:
    stream = HallStream(gatherer)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        await stream.close()  # open pages end their feed, so the server can stop

    app = FastAPI(
        title="oware-companion hall",
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
        lifespan=lifespan,
    )
    app.state.stream = stream

    @app.get("/")
    def page() -> FileResponse:
        return FileResponse(STATIC / "hall.html", media_type="text/html")

    @app.get("/static/{name:path}")
    def static(name: str) -> FileResponse:
        if name not in PAGE_FILES:
            raise HTTPException(404)
        return FileResponse(STATIC / name, media_type=PAGE_FILES[name])

    cache: dict[str, Any] = {"at": 0.0, "body": b""}

    @app.get("/api/hall")
    def hall() -> Response:
        # every spectator polls once a second: one snapshot serves them all for a while
        now = time.monotonic()
        if now - cache["at"] > SNAPSHOT_FOR:
            cache["body"] = json.dumps(gatherer.snapshot(), separators=(",", ":")).encode()
            cache["at"] = now
        return Response(cache["body"], media_type="application/json")

    @app.get("/api/hall/stream")
    async def hall_stream() -> StreamingResponse:
        page = stream.subscribe()
        return StreamingResponse(
            stream.feed(page),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )

    @app.get("/round/{number}.ogn")
    def round_ogn(number: int) -> PlainTextResponse:
        if number != gatherer.round:
            raise HTTPException(404, f"this hall broadcasts round {gatherer.round}")
        return PlainTextResponse(gatherer.round_ogn(), media_type="text/plain; charset=utf-8")

    return app
