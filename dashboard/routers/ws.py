"""The WebSocket hub: ``/ws/board/{b}?role=…&token=…``.

On connect the page gets ``{"type": "state", …}`` and then every message of
the board (events, suggestions, link status) in order, each stamped with
``server_time``. Pages with ``role=referee`` may send commands (the same
objects as ``POST /command``; a token when the server needs one) and get
``{"type": "command_result", "ok": …, "detail": …}``; every other role is
read-only.

Browsers send an ``Origin`` header with every WebSocket; a page from another
site must not be able to drive the board through a visitor's browser, so the
origin must be this server itself (the ``Host`` the browser connected to) or
one listed in the config's ``allowed_origins``. Clients that are not
browsers send no Origin and are let in (they could ignore it anyway).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from companion.service.board import BoardRuntime
from companion.service.commands import CommandInvalid
from companion.service.hub import ROLES, Hub, Subscriber
from companion.service.service import Service
from core.referee import CommandError

router = APIRouter()
log = logging.getLogger(__name__)

#: WebSocket close code for "policy violation" (bad origin, unknown board…).
POLICY = 1008


def origin_allowed(origin: str | None, host: str | None, extra: tuple[str, ...]) -> bool:
    """Whether a WebSocket with this ``Origin`` may connect (see the module docstring).

    >>> origin_allowed("http://127.0.0.1:8000", "127.0.0.1:8000", ())
    True
    >>> origin_allowed("http://evil.example", "127.0.0.1:8000", ())
    False
    >>> origin_allowed(None, "127.0.0.1:8000", ())
    True
    """
    if origin is None:
        return True
    if origin.rstrip("/") in {o.rstrip("/") for o in extra}:
        return True
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and bool(host) and parts.netloc == host


@router.websocket("/ws/board/{b}")
async def board_socket(
    ws: WebSocket, b: str, role: str = "spectator", token: str | None = None
) -> None:
    service: Service = ws.app.state.service
    runtime = service.boards.get(b)
    if runtime is None:
        await ws.close(POLICY, f"no board {b}")
        return
    if role not in ROLES:
        await ws.close(POLICY, f"unknown role {role!r}; roles: {', '.join(ROLES)}")
        return
    if not origin_allowed(
        ws.headers.get("origin"), ws.headers.get("host"), service.config.allowed_origins
    ):
        await ws.close(POLICY, "origin not allowed")
        return
    header = ws.headers.get("authorization", "")
    given = header[7:].strip() if header.lower().startswith("bearer ") else token
    may_command = role == "referee" and service.check_token(given)
    # the referee's page without the token it needs sees what a spectator sees (under fair
    # play the suggestions are the referee's alone); its commands are answered as refused
    seen_as = "spectator" if role == "referee" and not may_command else role
    await ws.accept()
    sub = runtime.hub.subscribe(seen_as)
    try:
        # subscribed first: whatever happens while the state is on its way follows it
        await ws.send_text(Hub.encode({**runtime.state(seen_as), "type": "state"}))
        sender = asyncio.create_task(_send(ws, sub))
        receiver = asyncio.create_task(_receive(ws, sub, runtime, service, role, may_command))
        done, pending = await asyncio.wait({sender, receiver}, return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            # a page closing its socket ends a task with WebSocketDisconnect: expected, but
            # it must be retrieved, or asyncio logs "Task exception was never retrieved"
            error = task.exception()
            if error is not None and not isinstance(error, WebSocketDisconnect | RuntimeError):
                log.error("board %s: WebSocket task failed", b, exc_info=error)
        for task in pending:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, WebSocketDisconnect, RuntimeError):
                await task
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        runtime.hub.unsubscribe(sub)
        if sub.dropped:
            with contextlib.suppress(RuntimeError):
                await ws.close(1013, "too slow: reconnect to get the state again")


async def _send(ws: WebSocket, sub: Subscriber) -> None:
    while True:
        text = await sub.queue.get()
        if not text:  # the hub dropped this client
            return
        await ws.send_text(text)


async def _receive(
    ws: WebSocket,
    sub: Subscriber,
    runtime: BoardRuntime,
    service: Service,
    role: str,
    may_command: bool,
) -> None:
    limit = service.config.max_body_bytes
    while True:
        text = await ws.receive_text()
        result = _command_result(text, runtime, role, may_command, limit)
        # through the queue, so that only the sender task writes to the socket
        with contextlib.suppress(asyncio.QueueFull):
            sub.queue.put_nowait(Hub.encode(result))


def _command_result(
    text: str, runtime: BoardRuntime, role: str, may_command: bool, limit: int
) -> dict[str, Any]:
    def answer(ok: bool, detail: str, **extra: Any) -> dict[str, Any]:
        return {"type": "command_result", "ok": ok, "detail": detail, **extra}

    if role != "referee":
        return answer(False, f"a {role} connection is read-only; connect with role=referee")
    if not may_command:
        return answer(False, "this server needs a token for commands (?token=…)")
    if len(text) > limit:
        return answer(False, f"message too large ({len(text)} bytes; limit {limit})")
    try:
        raw = json.loads(text)
    except json.JSONDecodeError:
        return answer(False, "a command must be a JSON object")
    try:
        events = runtime.command(raw)
    except (CommandInvalid, CommandError) as exc:
        return answer(False, str(exc))
    return answer(True, "done", events=len(events))
