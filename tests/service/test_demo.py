"""The README's run command, for real: ``oware-companion demo --port P --data-dir D``.

The installed console script is started as a person would start it. The
test checks what a newcomer sees: the URL printed, ``/health`` and the page
answering, a live ``move`` on the WebSocket within seconds (the virtual
board plays a lively game), and Ctrl+C (SIGINT) ending the process cleanly
with its session log closed and no traceback.
"""

from __future__ import annotations

import json
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import connect

from core.rules import PRESETS, get_rules

from .conftest import Server, free_port, launch, read_jsonl, session_log

#: The console script of this environment (``pip install -e .`` puts it next to python).
SCRIPT = Path(sys.executable).with_name("oware-companion")


def _first_move(server: Server, timeout: float) -> tuple[dict[str, Any], list[str]]:
    """The first ``move`` a spectator receives, and the types of everything before it."""
    seen: list[str] = []
    deadline = time.monotonic() + timeout
    with connect(f"{server.ws}/ws/board/1?role=spectator") as ws:
        while time.monotonic() < deadline:
            try:
                msg = json.loads(ws.recv(timeout=max(0.05, deadline - time.monotonic())))
            except TimeoutError:
                break
            if msg["type"] == "move":
                return msg, seen
            seen.append(msg["type"])
    raise AssertionError(f"no move within {timeout} s; got {seen}\n{server.log_text()[-2000:]}")


def test_demo_command_serves_a_live_game_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    assert SCRIPT.is_file(), f"{SCRIPT} missing: install the package (pip install -e .)"
    port = free_port()
    data = tmp_path / "demo-data"
    server = launch([str(SCRIPT), "demo", "--port", str(port), "--data-dir", str(data)], port, data)
    try:
        assert f"oware-companion: open http://127.0.0.1:{port}/" in server.log_text()
        health = server.get("/health").json()
        assert health["status"] == "ok"
        assert list(health["boards"]) == ["1"]
        assert health["boards"]["1"]["source"].startswith("sim://")
        page = server.get("/")
        assert page.status_code == 200 and "text/html" in page.headers["content-type"]
        # the home page (its boards come from /api/home), and the board's own page
        assert 'id="home-boards"' in page.text
        board_page = server.get("/board/1")
        assert board_page.status_code == 200 and 'id="board"' in board_page.text

        move, before = _first_move(server, timeout=30)
        assert before[0] == "state"  # the state first, then the live messages
        assert move["board"] == "1" and move["name"] in "ABCDEFabcdef"
        assert move["player"] in (0, 1) and len(move["scores"]) == 2
        assert isinstance(move["seq"], int) and "server_time" in move
    finally:
        code = server.stop(signal.SIGINT)
    out = server.log_text()
    # Ctrl+C: uvicorn shuts the app down, then the CLI ends with 0 or 130 (interrupted)
    assert code in (0, 130, -signal.SIGINT), (code, out[-2000:])
    assert "service stopped; logs closed" in out, out[-2000:]
    assert "Traceback" not in out, out[-3000:]
    # the move the page saw was in the session log, which the demo wrote in the data dir
    logged = [ln for ln in read_jsonl(session_log(data)) if ln.get("type") == "move"]
    assert {k: v for k, v in move.items() if k not in ("board", "server_time")} in logged


def test_demo_and_serve_print_every_view_of_every_board(tmp_path: Path) -> None:
    port = free_port()
    data = tmp_path / "data"
    server = launch(
        [str(SCRIPT), "demo", "--port", str(port), "--data-dir", str(data), "--no-engine"],
        port,
        data,
    )
    try:
        printed = server.log_text()
    finally:
        server.stop(signal.SIGINT)
    base = f"http://127.0.0.1:{port}"
    for view in ("referee", "player", "overlay", "corner", "teaching"):
        assert f"{base}/board/1?view={view} " in printed, printed
    assert f"spectator  {base}/board/1 " in printed
    assert "1920 × 1080 or 1280 × 720" in printed  # the size to give the streaming software


@pytest.mark.slow
@pytest.mark.parametrize("rules", sorted(PRESETS))
def test_demo_plays_every_rule_set(tmp_path: Path, rules: str) -> None:
    """``demo --rules NAME`` for every rule set of the rules core (``sim://?rules=…`` and
    ``sim://?players=N`` would do it for any board of ``serve``)."""
    port = free_port()
    data = tmp_path / "data"
    cmd = [str(SCRIPT), "demo", "--rules", rules, "--speed", "0", "--mistakes", "0"]
    server = launch([*cmd, "--port", str(port), "--data-dir", str(data), "--no-engine"], port, data)
    try:
        move, _ = _first_move(server, timeout=30)
        players = get_rules(rules).players
        assert len(move["scores"]) == players and len(move["position"]["pits"]) == 6 * players
        assert server.get("/api/boards").json()[0]["rules"] == rules
    finally:
        server.stop(signal.SIGINT)
    assert "Traceback" not in server.log_text()
