"""The WebSocket hub: ``/ws/board/{b}?role=…``.

On connect the page gets ``{"type": "state", …}`` and then every message of
the board (events, suggestions, link status) in order, each stamped with
``server_time``. Pages with ``role=referee`` may send commands (the same
objects as ``POST /command``; a token when the server needs one) and get
``{"type": "command_result", "ok": …, "detail": …}``; every other role is
read-only.

The token: the page sends ``{"type": "auth", "token": …}`` as its first
message (never in the address, which logs would keep), and is answered
``{"type": "auth", "ok": …}`` and, when it may command, the referee's state.
Programs may send ``Authorization: Bearer …`` with the handshake instead.

Browsers send an ``Origin`` header with every WebSocket; a page from another
site must not be able to drive the board through a visitor's browser, so the
origin must be this server itself (the ``Host`` the browser connected to) or
one listed in the config's ``allowed_origins``. Clients that are not
browsers send no Origin and are let in (they could ignore it anyway). The
``Host`` itself is checked before (:mod:`dashboard.guard`).

Frames that are not a JSON text close the connection, with a close frame and
one log line (at most one such line every few seconds, however many clients
misbehave): a binary frame with 1003 (unsupported data), text that is not
strict JSON (:func:`core.referee.command_check.parse_json`) with 1007
(invalid payload).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from core.referee import CommandError
from core.referee.command_check import CommandInvalid, parse_json
from dashboard.contracts import CommandNotLogged, LiveBoard, LiveService
from dashboard.guard import origin_allowed
from dashboard.hub import ROLES, Hub, Role, Subscriber, role_named

router = APIRouter()
log = logging.getLogger(__name__)

#: WebSocket close code for "policy violation" (bad origin, unknown board…).
POLICY = 1008


#: WebSocket close codes: unsupported data (a binary frame), invalid payload (not JSON).
UNSUPPORTED = 1003
INVALID = 1007

#: Seconds between two log lines about misbehaving clients (the rest are counted).
NOISY_EVERY = 5.0


class _Quiet:
    """One log line per ``NOISY_EVERY`` seconds; the lines held back are counted in the next."""

    def __init__(self) -> None:
        self.last = float("-inf")
        self.held = 0

    def warn(self, message: str, *args: Any) -> None:
        now = time.monotonic()
        if now - self.last < NOISY_EVERY:
            self.held += 1
            return
        more = f" ({self.held} more since the last such line)" if self.held else ""
        log.warning(message + more, *args)
        self.last, self.held = now, 0


_closed_for_input = _Quiet()


class _Access:
    """What one connection may do; a referee's page gains commands by sending its token."""

    def __init__(self, role: Role, may_command: bool) -> None:
        self.role = role
        self.may_command = may_command


@router.websocket("/ws/board/{b}")
async def board_socket(
    ws: WebSocket, b: str, role: str = "spectator", token: str | None = None
) -> None:
    service: LiveService = ws.app.state.service
    runtime = service.boards.get(b)
    if runtime is None:
        await ws.close(POLICY, f"no board {b}")
        return
    page = role_named(role)
    if page is None:
        await ws.close(POLICY, f"unknown role {role!r}; roles: {', '.join(ROLES)}")
        return
    if not origin_allowed(
        ws.headers.get("origin"), ws.headers.get("host"), service.config.allowed_origins
    ):
        await ws.close(POLICY, "origin not allowed")
        return
    header = ws.headers.get("authorization", "")
    given = header[7:].strip() if header.lower().startswith("bearer ") else token
    access = _Access(page, page == "referee" and service.check_token(given))
    # the referee's page without the token it needs sees what a spectator sees (under fair
    # play the suggestions are the referee's alone) until it sends the token; its commands
    # are answered as refused
    seen_as: Role = "spectator" if page == "referee" and not access.may_command else page
    await ws.accept()
    sub = runtime.hub.subscribe(seen_as)
    close: tuple[int, str] | None = None
    try:
        # subscribed first: whatever happens while the state is on its way follows it
        await ws.send_text(Hub.encode({**runtime.state(seen_as), "type": "state"}))
        sender = asyncio.create_task(_send(ws, sub))
        receiver = asyncio.create_task(_receive(ws, sub, runtime, service, access))
        done, pending = await asyncio.wait({sender, receiver}, return_when=asyncio.FIRST_COMPLETED)
        if receiver in done and receiver.exception() is None:
            close = receiver.result()
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
        if close is not None:
            client = f"{ws.client.host}:{ws.client.port}" if ws.client else "?"
            _closed_for_input.warn(
                "board %s: %s connection from %s closed (%d): %s", b, role, client, *close
            )
            with contextlib.suppress(RuntimeError, WebSocketDisconnect):
                await ws.close(*close)
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
    ws: WebSocket, sub: Subscriber, runtime: LiveBoard, service: LiveService, access: _Access
) -> tuple[int, str]:
    """Answer the page's messages until it sends one that is not a JSON text: then the
    close code and reason (the caller closes)."""
    limit = service.config.max_body_bytes
    while True:
        message = await ws.receive()
        if message["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(message.get("code", 1000))
        text = message.get("text")
        if text is None:
            return UNSUPPORTED, "binary frames are not accepted: send JSON text"
        if len(text) > limit:
            return INVALID, f"message too large ({len(text)} bytes; limit {limit})"
        try:
            raw = parse_json(text)
        except CommandInvalid as exc:
            return INVALID, str(exc)[:120]  # a close reason is at most 123 bytes
        if isinstance(raw, dict) and raw.get("type") == "auth":
            results = _authenticate(raw.get("token"), sub, runtime, service, access)
        else:
            results = [_command_result(raw, runtime, access)]
        # through the queue, so that only the sender task writes to the socket
        for result in results:
            with contextlib.suppress(asyncio.QueueFull):
                sub.queue.put_nowait(Hub.encode(result))


def _authenticate(
    token: Any, sub: Subscriber, runtime: LiveBoard, service: LiveService, access: _Access
) -> list[dict[str, Any]]:
    """The page's token: a referee's page that gives the right one may command from now on
    and gets the referee's state (with the suggestion under fair play)."""
    if access.role != "referee":
        return [{"type": "auth", "ok": False, "detail": "only a referee's page gives a token"}]
    if access.may_command:
        return [{"type": "auth", "ok": True, "detail": "commands accepted"}]
    if not isinstance(token, str) or not service.check_token(token):
        return [{"type": "auth", "ok": False, "detail": "wrong token"}]
    access.may_command = True
    sub.role = "referee"
    return [
        {"type": "auth", "ok": True, "detail": "commands accepted"},
        {**runtime.state("referee"), "type": "state"},
    ]


def _command_result(raw: Any, runtime: LiveBoard, access: _Access) -> dict[str, Any]:
    def answer(ok: bool, detail: str, **extra: Any) -> dict[str, Any]:
        return {"type": "command_result", "ok": ok, "detail": detail, **extra}

    if access.role != "referee":
        return answer(False, f"a {access.role} connection is read-only; connect with role=referee")
    if not access.may_command:
        return answer(
            False, 'this server needs a token for commands: send {"type": "auth", "token": …}'
        )
    try:
        events = runtime.command(raw)
    except (CommandInvalid, CommandError, CommandNotLogged) as exc:
        return answer(False, str(exc))
    return answer(True, "done", events=len(events))
