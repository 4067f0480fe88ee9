"""A small stand-in for the live service, for developing and testing the dashboard page.

It serves ``dashboard/static`` and speaks the WebSocket/REST protocol of
``docs/SERVICE_API.md`` with a real :class:`core.referee.Referee`: every event
the page sees was made by the referee from observations. Instead of a board,
the test feeds observations through ``POST /dev/board/1/observe`` (one
observation or a list), so a test decides exactly when each move happens.
``POST /dev/board/1/broadcast`` sends any message as is (suggestions, link
status), as the engine worker and the sources would; ``POST
/dev/board/1/reading`` sets the board's last still reading (what the referee
page's correction fills in from).

The real service (``oware-companion serve``) is what the final browser tests
use when it exists; this server stays for developing the page on its own:

    .venv/bin/python -m tests.dashboard.devserver --port 8765
    # then open http://127.0.0.1:8765/?view=referee
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from pathlib import Path
from typing import Any

import uvicorn
from fastapi import FastAPI, HTTPException, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse
from fastapi.staticfiles import StaticFiles

from core import Position
from core.records import GameRecord
from core.referee import Referee
from core.referee.referee import CommandError

STATIC = Path(__file__).resolve().parents[2] / "dashboard" / "static"


class DevBoard:
    """One board: the referee, the connected pages, and the games played so far."""

    def __init__(self, start: Position, token: str | None, fair_play: bool) -> None:
        self.referee = Referee(start, settle_time=0.0)
        self.token = token
        self.fair_play = fair_play
        self.sockets: list[tuple[WebSocket, str]] = []
        self.suggestion: dict[str, Any] | None = None
        self.link: dict[str, Any] = {"type": "link", "state": "connected", "detail": "dev"}
        self.games: list[dict[str, Any]] = []
        self.reading: dict[str, Any] | None = None
        """The last still board read, as the service's state carries it (set by the test)."""
        self.sent: list[dict[str, Any]] = []
        """Every message broadcast, with its server_time (the tests read it)."""

    def state(self) -> dict[str, Any]:
        return {
            "type": "state",
            **self.referee.state(),
            "board": "1",
            "fair_play": self.fair_play,
            "suggestion": self.suggestion,
            "link": self.link,
            "reading": self.reading,
        }

    async def broadcast(self, message: dict[str, Any]) -> None:
        message = {**message, "server_time": time.time()}
        if message.get("type") == "suggestion":
            self.suggestion = message
        if message.get("type") in ("link", "camera"):
            self.link = message
        self.sent.append(message)
        for ws, role in list(self.sockets):
            if message.get("type") == "suggestion" and role == "player" and self.fair_play:
                continue
            try:
                await ws.send_json(message)
            except (RuntimeError, WebSocketDisconnect):
                self.sockets.remove((ws, role))

    async def publish(self, events: list[dict[str, Any]]) -> None:
        for ev in events:
            await self.broadcast(ev)
            if ev["type"] in ("game_over",):
                self._archive()
        if any(ev["type"] in ("new_game", "corrected") for ev in events):
            await self.broadcast(self.state())

    def _archive(self) -> None:
        ref = self.referee
        record = GameRecord(ref.start, [o.pit for o in ref.moves], {"South": "S", "North": "N"})
        self.games.append(
            {
                "id": len(self.games) + 1,
                "board": "1",
                "started": "2026-11-21T20:00:00",
                "ended": "2026-11-21T20:30:00",
                "rules": ref.start.rules,
                "south": "S",
                "north": "N",
                "result": record.result(),
                "moves": len(ref.moves),
                "log": "dev.jsonl",
                "record": record,
            }
        )

    def authorised(self, token: str | None) -> bool:
        return self.token is None or token == self.token


def create_app(
    start: Position | None = None, *, token: str | None = None, fair_play: bool = False
) -> FastAPI:
    """The dev app; ``app.state.board`` is the :class:`DevBoard` (tests read ``sent``)."""
    app = FastAPI(title="dashboard dev server")
    board = DevBoard(start or Position.initial(), token, fair_play)
    app.state.board = board

    def meta(game: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in game.items() if k != "record"}

    def find_game(game_id: int) -> dict[str, Any]:
        for g in board.games:
            if g["id"] == game_id:
                return g
        raise HTTPException(404, f"no game {game_id}")

    @app.get("/health")
    def health() -> dict[str, Any]:
        return {"status": "ok", "boards": {"1": {"source": "dev://", "link": board.link}}}

    @app.get("/api/boards")
    def boards() -> list[dict[str, Any]]:
        p = board.referee.position
        return [{"board": "1", "source": "dev://", "rules": p.rules, "players": p.players}]

    @app.get("/api/home")
    def home() -> dict[str, Any]:
        p = board.referee.position
        views = ("referee", "player", "spectator", "overlay", "corner", "teaching")
        return {
            "boards": [
                {
                    "board": "1",
                    "source": "dev://",
                    "rules": p.rules,
                    "players": p.players,
                    "description": p.ruleset.describe(),
                    "links": {v: f"/board/1?view={v}" for v in views},
                    "link_state": board.link.get("state"),
                    "ended": False,
                    "problem": None,
                }
            ],
            "views": [{"name": v, "size": ""} for v in views],
            "token_required": board.token is not None,
        }

    @app.get("/api/board/1/state")
    def state() -> dict[str, Any]:
        return board.state()

    @app.post("/api/board/1/command")
    async def command(request: Request) -> JSONResponse:
        bearer = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        if not board.authorised(bearer or request.query_params.get("token")):
            return JSONResponse({"detail": "a valid token is needed to change the game"}, 401)
        try:
            events = [e.to_json() for e in board.referee.command(await request.json())]
        except CommandError as exc:
            return JSONResponse({"detail": str(exc)}, 400)
        await board.publish(events)
        return JSONResponse({"events": events})

    @app.get("/api/games")
    def games(limit: int = 50) -> list[dict[str, Any]]:
        return [meta(g) for g in reversed(board.games)][:limit]

    @app.get("/api/games/{game_id}")
    def game(game_id: int) -> dict[str, Any]:
        g = find_game(game_id)
        return {**meta(g), "record": g["record"].to_json()}

    @app.get("/api/games/{game_id}/export")
    def export(game_id: int, format: str = "ogn") -> PlainTextResponse:
        record: GameRecord = find_game(game_id)["record"]
        if format == "json":
            text = json.dumps(record.to_json(), indent=1)
        else:
            text = record.to_text() if format == "text" else record.to_ogn()
        disposition = f'attachment; filename="game-{game_id}.{format}"'
        return PlainTextResponse(text, headers={"Content-Disposition": disposition})

    @app.post("/dev/board/1/observe")
    async def observe(request: Request) -> dict[str, Any]:
        body = await request.json()
        items = body if isinstance(body, list) else [body]
        events: list[dict[str, Any]] = []
        for obs in items:
            events.extend(e.to_json() for e in board.referee.observe(obs))
        await board.publish(events)
        return {"events": events}

    @app.post("/dev/board/1/reading")
    async def reading(request: Request) -> dict[str, Any]:
        """What the board reads now (``{"pits": [...], "stores": [...]}``), as a source
        would have read it on a still board the referee could not explain."""
        board.reading = {"t": time.time(), **await request.json()}
        return {"ok": True}

    @app.post("/dev/board/1/broadcast")
    async def broadcast(request: Request) -> dict[str, Any]:
        await board.broadcast(await request.json())
        return {"ok": True}

    @app.websocket("/ws/board/1")
    async def ws(websocket: WebSocket) -> None:
        role = websocket.query_params.get("role", "spectator")
        token = websocket.query_params.get("token")
        await websocket.accept()
        await websocket.send_json({**board.state(), "server_time": time.time()})
        board.sockets.append((websocket, role))
        try:
            while True:
                cmd = await websocket.receive_json()
                if isinstance(cmd, dict) and cmd.get("type") == "auth":
                    # the page's token, sent as its first message (as the service takes it)
                    token = cmd.get("token")
                    ok = role == "referee" and board.authorised(token)
                    reply = {"type": "auth", "ok": ok, "detail": "", "server_time": time.time()}
                    await websocket.send_json(reply)
                    continue
                if role != "referee":
                    detail = "spectators cannot change the game"
                    await websocket.send_json(_result(False, detail))
                    continue
                if not board.authorised(token):
                    await websocket.send_json(_result(False, "a valid token is needed"))
                    continue
                try:
                    events = [e.to_json() for e in board.referee.command(cmd)]
                except CommandError as exc:
                    await websocket.send_json(_result(False, str(exc)))
                    continue
                await websocket.send_json(_result(True, ""))
                await board.publish(events)
        except WebSocketDisconnect:
            pass
        finally:
            if (websocket, role) in board.sockets:
                board.sockets.remove((websocket, role))

    # The same layout as dashboard/app.py: the page at / and /board/{b}, its files at /static.
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/")
    @app.get("/board/{b}")
    def page() -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    return app


def _result(ok: bool, detail: str) -> dict[str, Any]:
    return {"type": "command_result", "ok": ok, "detail": detail, "server_time": time.time()}


class ServerThread:
    """Run an ASGI app with uvicorn on a background thread (for tests)."""

    def __init__(self, app: FastAPI, port: int) -> None:
        config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", ws="auto")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.url = f"http://127.0.0.1:{port}"

    def __enter__(self) -> ServerThread:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the dev server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=5)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--rules", default="abapa")
    parser.add_argument("--token")
    args = parser.parse_args()
    app = create_app(Position.initial(args.rules), token=args.token)
    uvicorn.run(app, host="127.0.0.1", port=args.port)


if __name__ == "__main__":
    main()
