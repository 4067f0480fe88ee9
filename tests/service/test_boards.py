"""Two boards in one process: each page gets its own board's events and nothing else.

Two virtual boards with different seeds play different games at once. A
spectator of each board must receive exactly its board's events (the ones
its own session log holds, in order), never one of the other board's;
``/api/boards`` and ``/health`` list both.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from websockets.sync.client import connect

from core.referee.session import replay

from .conftest import Server, read_jsonl

SOURCES = ("sim://?speed=0&seed=3&mistakes=0.1", "sim://?speed=0&seed=4&mistakes=0.1")


def _listen(server: Server, board: str, moves: int, out: list[dict[str, Any]]) -> None:
    """Messages of ``board`` until ``moves`` moves were seen (20 s at most)."""
    deadline = time.monotonic() + 20
    with connect(f"{server.ws}/ws/board/{board}?role=spectator") as ws:
        while time.monotonic() < deadline and sum(m["type"] == "move" for m in out) < moves:
            try:
                out.append(json.loads(ws.recv(timeout=max(0.05, deadline - time.monotonic()))))
            except TimeoutError:
                break


def _log(data: Path, board: str) -> Path:
    (path,) = sorted((data / "sessions").glob(f"board{board}-*.jsonl"))
    return path


def test_two_boards_each_page_gets_only_its_own_board(serve: Any) -> None:
    server = serve("--source", SOURCES[0], "--source", SOURCES[1], "--no-engine")
    assert server.get("/api/boards").json() == [
        {"board": "1", "source": SOURCES[0], "rules": "abapa", "players": 2},
        {"board": "2", "source": SOURCES[1], "rules": "abapa", "players": 2},
    ]
    got: dict[str, list[dict[str, Any]]] = {"1": [], "2": []}
    threads = [threading.Thread(target=_listen, args=(server, b, 6, got[b])) for b in got]
    for th in threads:
        th.start()
    for th in threads:
        th.join()

    health = server.get("/health").json()["boards"]
    assert set(health) == {"1", "2"}
    for b, url in zip(("1", "2"), SOURCES, strict=True):
        assert health[b]["source"] == url
        assert health[b]["link_state"] == "connected"
        assert health[b]["moves"] >= 6 and health[b]["log"].startswith(f"sessions/board{b}-")
    assert server.stop() in (0, -15)

    games: dict[str, list[str]] = {}
    for b, messages in got.items():
        assert messages[0]["type"] == "state" and messages[0]["board"] == b
        # every message to this page is stamped with this board, never the other one
        assert {m["board"] for m in messages} == {b}, b
        received = [
            {k: v for k, v in m.items() if k not in ("board", "server_time")}
            for m in messages
            if "seq" in m and m["type"] != "state"
        ]
        assert sum(e["type"] == "move" for e in received) >= 6, server.log_text()[-2000:]
        # exactly this board's events, from its own log, none missing, in order
        log = _log(server.data_dir, b)
        expected = {
            e["seq"]: e
            for e in (json.loads(json.dumps(x.to_json())) for x in replay(read_jsonl(log)))
        }
        seqs = [e["seq"] for e in received]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
        assert received == [expected[s] for s in seqs]
        games[b] = [e["name"] for e in expected.values() if e["type"] == "move"]
    # the seeds made two different games: a mix-up between boards could not pass unseen
    assert games["1"][:6] != games["2"][:6]
