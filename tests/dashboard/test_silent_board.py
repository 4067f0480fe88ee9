"""A board that stops sending frames with its link still open (issue 26, defect 8).

A ``replay://`` session plays the start position for half a second, says nothing
for about five seconds (a hung board: the port open, no frame), then plays on.
With ``--silent-after 1`` the service reports the link ``silent`` in ``/health``,
to every page (the alert card, in the page's language) and on the WebSocket, and
``connected`` again by itself when the frames come back.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from websockets.sync.client import connect

from core import Position
from core.observation import Observation
from core.referee.session import session_header
from tests.service.conftest import start_server


def _hanging_log(path: Path) -> Path:
    start = Position.initial()

    def frame(t: float) -> dict[str, Any]:
        raw = {"t": t, "source": "test", "stable": True, "pits": list(start.pits)}
        return Observation.from_json(raw).to_json()

    times = [round(0.1 * k, 1) for k in range(6)] + [round(6.0 + 0.1 * k, 1) for k in range(40)]
    lines = [session_header(start), *(frame(t) for t in times)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _link_state(server: Any) -> str:
    return str(server.get("/health").json()["boards"]["1"]["link_state"])


def _wait_for(server: Any, state: str, within: float) -> float:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if _link_state(server) == state:
            return time.monotonic()
        time.sleep(0.05)
    raise AssertionError(f"the link did not become {state!r} within {within} s")


def _messages(ws: Any) -> list[dict[str, Any]]:
    """Every message already received on ``ws``."""
    out = []
    while True:
        try:
            out.append(json.loads(ws.recv(timeout=0.5)))
        except TimeoutError:
            return out


def test_a_hung_board_is_silent_and_recovers(
    tmp_path: Path, new_page: Any, page_errors: list[str]
) -> None:
    log = _hanging_log(tmp_path / "hang.jsonl")
    server = start_server(
        tmp_path / "data",
        "--source",
        f"replay://{log}?speed=1",
        "--no-engine",
        "--silent-after",
        "1",
    )
    try:
        with connect(f"{server.ws}/ws/board/1?role=spectator") as ws:
            page = new_page()
            page.goto(f"{server.url}/board/1?view=spectator")
            page.wait_for_selector("body[data-ready=true]", timeout=10_000)
            _wait_for(server, "silent", within=5)
            whole = server.get("/health").json()
            health = whole["boards"]["1"]
            assert health["last_frame_s"] >= 1.0
            # a board not followed is a problem for the venue's monitoring, not "ok"
            assert whole["status"] == "degraded"
            assert whole["problems"] == [
                "board 1: link silent: no frame from the board for 1 s: is it on and plugged in?"
            ]
            card = page.wait_for_selector("#alerts .alert-link", timeout=5_000)
            assert "link silent: no reading from the board" in (card.text_content() or "")
            # the header does not read "Connected" while the board is not heard
            status = page.locator("#link-status")
            assert status.get_attribute("data-state") == "disconnected"
            assert status.inner_text() == "Board link silent: no reading from the board"
            _wait_for(server, "connected", within=10)
            assert server.get("/health").json()["problems"] == []
            page.wait_for_selector("#alerts .alert-link", state="detached", timeout=5_000)
            assert status.inner_text() == "Connected"
            assert status.get_attribute("data-state") == "connected"
            # the spectator's socket got both, in order (read after the fact: they wait)
            states = [m["state"] for m in _messages(ws) if m["type"] == "link"]
            assert states[-2:] == ["silent", "connected"], states
            # the end of the recorded session is the end of a file, not a fault
            _wait_for(server, "disconnected", within=15)
            assert server.get("/health").json()["status"] == "ok"
    finally:
        server.stop()
    assert "silent (no frame for" in server.log_text()
    assert page_errors == []
