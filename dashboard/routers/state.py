"""Boards, game state, the event history, and commands (new game, correct, undo, confirm…)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Query, Request

from core.referee import CommandError
from core.referee.command_check import CommandInvalid, parse_json
from dashboard.contracts import CommandNotLogged

from .deps import BoardDep, ServiceDep, require_json, require_token

router = APIRouter(prefix="/api", tags=["game"])

# The routes that read a board's referee are coroutines: the referee is fed on the event
# loop, and a plain ``def`` route would run in the thread pool and read it half-updated.


@router.get("/boards", summary="the boards this server watches")
async def boards(service: ServiceDep) -> list[dict[str, Any]]:
    return service.board_list()


@router.get("/board/{b}/state", summary="the game on a board, as the referee sees it")
async def state(board: BoardDep) -> dict[str, Any]:
    return board.state()


@router.get("/board/{b}/events", summary="events of the board's session, oldest first")
async def events(
    board: BoardDep,
    since: Annotated[int, Query(ge=0, description="first list index to return")] = 0,
    limit: Annotated[int, Query(ge=1, le=5000)] = 1000,
) -> dict[str, Any]:
    return {
        "events": board.events[since : since + limit],
        "total": len(board.events),
    }


@router.post(
    "/board/{b}/command",
    summary="give the referee a command",
    dependencies=[Depends(require_token), Depends(require_json)],
    responses={
        400: {"description": "malformed command"},
        401: {"description": "token missing or wrong"},
        403: {"description": "sent by another site's page"},
        409: {"description": "the referee refused it (e.g. an illegal move)"},
        415: {"description": "the body is not declared application/json"},
        503: {"description": "not applied: the session log could not be written"},
    },
)
async def command(board: BoardDep, request: Request) -> dict[str, Any]:
    """Body: ``{"command": "new_game" | "set_position" | "undo" | "confirm" |
    "declare_cycle_end" | "fair_play", ...}`` (see docs/SERVICE_API.md)."""
    try:
        return {"events": board.command(parse_json(await request.body()))}
    except CommandInvalid as exc:
        raise HTTPException(400, str(exc)) from None
    except CommandError as exc:
        raise HTTPException(409, str(exc)) from None
    except CommandNotLogged as exc:
        raise HTTPException(503, str(exc)) from None
