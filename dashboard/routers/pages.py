"""The pages: the home page at ``/`` (every board, every view, who it is for) and a
board's page at ``/board/{b}`` (``?view=referee|player|spectator|overlay|corner|teaching``).

* ``GET /`` – the home page (``static/home.html``); a link from before it existed,
  ``/?view=…&board=N``, is sent on to ``/board/N?view=…``;
* ``GET /board/{b}`` – the board's page (``static/index.html``), 404 for a board
  this server does not watch;
* ``GET /api/home`` – what the home page lists: the boards with their rules in
  words, each view's link and whether the board is heard (``link_state``, and
  ``problem``: the line ``/health`` gives while it is not followed), and whether
  commands need a token.

Without the static folder (a broken install) both pages are a short placeholder
saying where the API is. Scripts are files under ``/static``, never inline.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response

from dashboard.views import VIEWS, view_path

from .deps import BoardId, ServiceDep

router = APIRouter()

PLACEHOLDER = """<!doctype html><html lang="en"><meta charset="utf-8">
<title>oware-companion</title><h1>oware-companion</h1>
<p>The live service is running. The page is not installed here; see
<a href="/docs">/docs</a> for the API, <a href="/health">/health</a>,
and <code>/ws/board/1</code> for the live events.</p></html>"""


def _page(request: Request, name: str) -> Response:
    folder: Path = request.app.state.static_dir
    path = folder / name
    if path.is_file():
        return FileResponse(path, media_type="text/html")
    return HTMLResponse(PLACEHOLDER)


@router.get("/", include_in_schema=False)
def home(request: Request) -> Response:
    query = request.query_params
    if "view" in query or "board" in query:
        # a board's link from before the home page: the same view at its own address
        board = query.get("board", "1")
        if not board.isdigit() or len(board) > 3:
            raise HTTPException(404, f"no board {board!r}")
        rest = urlencode([(k, v) for k, v in query.multi_items() if k != "board"])
        return RedirectResponse(f"/board/{board}" + (f"?{rest}" if rest else ""), 307)
    return _page(request, "home.html")


@router.get("/board/{b}", include_in_schema=False)
def board_page(b: BoardId, request: Request, service: ServiceDep) -> Response:
    if b not in service.boards:
        known = ", ".join(service.boards) or "none"
        return HTMLResponse(
            f'<!doctype html><html lang="en"><meta charset="utf-8"><title>No board {b}</title>'
            f"<p>This server watches no board {b} (boards: {known}). "
            '<a href="/">All boards and views</a></p></html>',
            status_code=404,
        )
    return _page(request, "index.html")


@router.get("/api/home", tags=["pages"], summary="the boards and the link of each view")
async def home_data(service: ServiceDep) -> dict[str, Any]:
    boards = []
    for runtime in service.boards.values():
        rules = runtime.referee.position.ruleset
        boards.append(
            {
                "board": runtime.board,
                "source": runtime.url,
                "rules": rules.name,
                "players": rules.players,
                "description": rules.describe(),
                "links": {v.name: view_path(runtime.board, v.name) for v in VIEWS},
                "link_state": runtime.link.get("state"),
                "ended": bool(runtime.link.get("ended")),
                "problem": runtime.link_problem(),
            }
        )
    return {
        "boards": boards,
        "views": [{"name": v.name, "size": v.size} for v in VIEWS],
        "token_required": service.token_required,
    }
