"""Dependencies shared by the routers: the service, one board, the command token."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, HTTPException, Path, Query, Request

from dashboard.contracts import LiveBoard, LiveService


def get_service(request: Request) -> LiveService:
    service: LiveService = request.app.state.service
    return service


ServiceDep = Annotated[LiveService, Depends(get_service)]

#: Board numbers are short digit strings; anything else never reaches a lookup.
BoardId = Annotated[str, Path(pattern=r"^[0-9]{1,3}$", description="board number: 1, 2, …")]


def get_board(b: BoardId, service: ServiceDep) -> LiveBoard:
    runtime = service.boards.get(b)
    if runtime is None:
        known = ", ".join(service.boards) or "none"
        raise HTTPException(404, f"no board {b}; boards: {known}")
    return runtime


BoardDep = Annotated[LiveBoard, Depends(get_board)]


def bearer_token(request: Request, token: str | None = None) -> str | None:
    """The token from ``Authorization: Bearer …`` or ``?token=…``."""
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip()
    return token


def require_token(
    request: Request,
    service: ServiceDep,
    token: Annotated[str | None, Query(max_length=200)] = None,
) -> None:
    """401 unless the command carries the right token (when one is needed)."""
    if not service.check_token(bearer_token(request, token)):
        raise HTTPException(
            401,
            "this server needs a token for commands: send 'Authorization: Bearer TOKEN' "
            "(the token is printed when the server starts, or set in the config file)",
            headers={"WWW-Authenticate": "Bearer"},
        )


def require_json(request: Request) -> None:
    """415 unless the body is declared ``application/json``.

    A page of another site can send ``text/plain`` or a form across origins
    without the browser asking this server first (``fetch`` with
    ``mode: "no-cors"``); it cannot send JSON that way.
    """
    declared = request.headers.get("content-type", "")
    if declared.split(";")[0].strip().lower() != "application/json":
        raise HTTPException(415, "send the command as JSON, with 'Content-Type: application/json'")
