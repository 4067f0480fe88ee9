"""History: the games index, one game's record, exports (OGN, JSON, text), session logs.

Every game exports with every move, a missed capture too (an OGN comment, a
JSON field); a game corrected by hand starts its record at the correction (the
OGN ``FEN`` tag), see :func:`core.records.records_from_events`.

Games are looked up by their integer id in the SQLite index, never by a
file name from the request; the one file the API sends (a game's session
log) is the path the index holds, resolved and checked to lie inside the
data directory, so no request can make the server read another file.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Query
from fastapi import Path as PathParam
from fastapi.responses import FileResponse, Response

from core.records import GameRecord
from dashboard.contracts import GameArchive

from .deps import ServiceDep

router = APIRouter(prefix="/api/games", tags=["history"])

GameId = Annotated[int, PathParam(ge=1, le=2**62, description="game id from /api/games")]


def _index(service: ServiceDep) -> GameArchive:
    if service.index is None:
        raise HTTPException(503, "the service is still starting")
    return service.index


def _game(service: ServiceDep, game_id: int) -> dict[str, Any]:
    game = _index(service).game(game_id)
    if game is None:
        raise HTTPException(404, f"no game {game_id}")
    return game


def _record(game: dict[str, Any]) -> GameRecord:
    if game["record"] is None:
        # every game the service indexes has a record (a corrected one starts at its
        # correction, with a FEN tag); only rows written by older versions lack it
        raise HTTPException(
            409,
            f"game {game['id']} was indexed without a record (by an older version); "
            "download its session log instead",
        )
    record = GameRecord.from_json(game["record"])
    tags = {"Site": "oware-companion", "Round": str(game["board"])}
    tags["Date"] = time.strftime("%Y.%m.%d", time.localtime(game["started"]))
    if game["south"]:
        tags["South"] = game["south"]
    if game["north"]:
        tags["North"] = game["north"]
    record.tags = {**tags, **record.tags}
    return record


@router.get("", summary="the latest games, newest first")
def games(
    service: ServiceDep,
    limit: Annotated[int, Query(ge=1, le=1000)] = 50,
    board: Annotated[str | None, Query(pattern=r"^[0-9]{1,3}$")] = None,
) -> list[dict[str, Any]]:
    return _index(service).games(limit, board)


@router.get("/{game_id}", summary="one game: its record and metadata")
def game(service: ServiceDep, game_id: GameId) -> dict[str, Any]:
    found = _game(service, game_id)
    return {**found, "record": found["record"]}


@router.get("/{game_id}/export", summary="the game record as a download")
def export(
    service: ServiceDep,
    game_id: GameId,
    format: Annotated[Literal["ogn", "json", "text"], Query()] = "ogn",
) -> Response:
    record = _record(_game(service, game_id))
    name = f"game-{game_id}"
    if format == "ogn":
        body, media, ext = record.to_ogn(), "application/x-ogn", "ogn"
    elif format == "json":
        body, media, ext = json.dumps(record.to_json(), indent=2), "application/json", "json"
    else:
        body, media, ext = record.to_text(), "text/plain; charset=utf-8", "txt"
    return Response(
        body,
        media_type=media,
        headers={"Content-Disposition": f'attachment; filename="{name}.{ext}"'},
    )


@router.get("/{game_id}/log", summary="the session log the game was recorded in (JSONL)")
def session_log(service: ServiceDep, game_id: GameId) -> FileResponse:
    found = _game(service, game_id)
    root = service.data_dir.resolve()
    path = (root / found["log"]).resolve()
    # the index is ours, but a hand-edited database must not open the rest of the disk
    if not path.is_relative_to(root) or not path.is_file():
        raise HTTPException(404, "the session log is not in the data directory")
    return FileResponse(path, media_type="application/x-ndjson", filename=Path(found["log"]).name)
