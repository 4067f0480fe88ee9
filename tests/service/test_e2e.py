"""End to end over real HTTP and WebSockets: a started server, a virtual board, recorded sessions.

The claim under test: what a page receives live is exactly what the referee
gives when the session log is replayed (``core.referee.session.replay``),
for a game from ``sim://`` and for a game from ``replay://``.
"""

from __future__ import annotations

import inspect
import json
import random
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import connect

from core import Position
from core.observation import Observation
from core.records import GameRecord
from core.referee import presets
from core.referee.playthrough import CAMERA as CAMERA_PACE
from core.referee.playthrough import GROWING, random_full_game, render_game
from core.referee.session import replay, session_header

from .conftest import read_jsonl, session_log


def _collect(ws: Any, until: int, timeout: float) -> list[dict[str, Any]]:
    """Messages until ``until`` moves were seen (or the timeout)."""
    got: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    moves = 0
    while moves < until and time.monotonic() < deadline:
        try:
            msg = json.loads(ws.recv(timeout=max(0.05, deadline - time.monotonic())))
        except TimeoutError:
            break
        got.append(msg)
        moves += msg.get("type") == "move"
    return got


def _event(msg: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in msg.items() if k not in ("server_time", "board")}


def _replayed(log: Path) -> list[dict[str, Any]]:
    return [json.loads(json.dumps(e.to_json())) for e in replay(read_jsonl(log))]


def test_sim_game_then_its_replay_give_the_same_events(serve: Any, tmp_path: Path) -> None:
    live = serve("--source", "sim://?speed=0&seed=7&mistakes=0.15", "--no-engine")
    with connect(f"{live.ws}/ws/board/1?role=spectator") as ws:
        first = json.loads(ws.recv(timeout=10))
        assert first["type"] == "state" and first["board"] == "1"
        assert "server_time" in first
        got = _collect(ws, until=8, timeout=40)
    assert sum(m["type"] == "move" for m in got) >= 8, live.log_text()[-2000:]
    # SIGTERM: a clean shutdown (uvicorn re-raises the signal once it has finished)
    assert live.stop() in (0, -15)
    assert "service stopped; logs closed" in live.log_text()
    log = session_log(live.data_dir)
    expected = {e["seq"]: e for e in _replayed(log)}
    received = [_event(m) for m in got if "seq" in m]
    seqs = [e["seq"] for e in received]
    # every event from the state's snapshot on, in order, none missing
    assert seqs == list(range(first["seq"], first["seq"] + len(seqs)))
    assert received == [expected[s] for s in seqs]
    # the log holds those same events, written before they were sent
    logged = [ln for ln in read_jsonl(log) if "type" in ln]
    assert logged == list(expected.values())

    # the recorded session through replay://, in a fresh server: the same events again
    again = serve("--source", f"replay://{log}?speed=0", "--no-engine", data_dir=tmp_path / "again")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if again.get("/health").json()["boards"]["1"]["link"]["finished"]:
            break
        time.sleep(0.1)
    # The source has read its last line; the referee may still be working through the
    # queue (the whole session arrives at once): wait until it has judged it all.
    while time.monotonic() < deadline + 30:
        events = again.get("/api/board/1/events", params={"limit": 5000}).json()["events"]
        if len(events) >= len(expected):
            break
        time.sleep(0.2)
    assert events == list(expected.values())
    with connect(f"{again.ws}/ws/board/1?role=referee") as ws:
        state = json.loads(ws.recv(timeout=10))
        assert state["type"] == "state" and state["seq"] == len(events)
        assert [m["name"] for m in state["moves"]] == [
            e["name"] for e in _replayed(log) if e["type"] == "move"
        ][: len(state["moves"])]
        ws.send(json.dumps({"command": "new_game"}))
        # new_game, the state, the command's result and, as the replayed board does not
        # show the start position, the referee's one out-of-sync alert (issue 24)
        answers: list[dict[str, Any]] = []
        while not {"new_game", "command_result", "state"} <= {a["type"] for a in answers}:
            answers.append(json.loads(ws.recv(timeout=10)))
            assert len(answers) <= 6, answers
    types = [a["type"] for a in answers]
    assert "new_game" in types and "command_result" in types and "state" in types
    assert next(a for a in answers if a["type"] == "command_result")["ok"] is True


def _scripted_session(path: Path, names: list[str]) -> None:
    """A session log of a game played by ``names``, each board settled and exact."""
    p = Position.initial()
    lines: list[dict[str, Any]] = [session_header(p)]
    t = 0.0
    lines.append(Observation(t, "script", True, p.pits).to_json())
    for name in names:
        p = p.play_name(name)
        t += 1.0
        lines.append(Observation(t, "script", True, p.pits).to_json())
    path.write_text("".join(json.dumps(ln) + "\n" for ln in lines))


def test_history_export_and_log_download(serve: Any, tmp_path: Path) -> None:
    rec = tmp_path / "scripted.jsonl"
    _scripted_session(rec, ["F", "a", "E"])
    server = serve("--source", f"replay://{rec}?speed=0", "--no-engine")
    deadline = time.monotonic() + 20
    while server.get("/api/board/1/state").json()["moves"].__len__() < 3:
        assert time.monotonic() < deadline, server.log_text()
        time.sleep(0.1)
    games = server.get("/api/games").json()
    assert len(games) == 1 and games[0]["moves"] == 3 and games[0]["result"] == "*"
    gid = games[0]["id"]
    game = server.get(f"/api/games/{gid}").json()
    assert GameRecord.from_json(game["record"]).moves == [5, 6, 4]
    ogn = server.get(f"/api/games/{gid}/export", params={"format": "ogn"})
    assert ogn.status_code == 200 and "1. F a 2. E" in ogn.text
    assert 'attachment; filename="game-' in ogn.headers["content-disposition"]
    assert GameRecord.from_ogn(ogn.text).moves == [5, 6, 4]
    as_json = server.get(f"/api/games/{gid}/export", params={"format": "json"}).json()
    assert GameRecord.from_json(as_json).final().to_text() == "4-4-4-4-0-1-1-7-7-6-5-5-0-0-N"
    text = server.get(f"/api/games/{gid}/export", params={"format": "text"})
    assert text.status_code == 200 and text.text.strip()
    bad = server.get(f"/api/games/{gid}/export", params={"format": "pdf"})
    assert bad.status_code == 422
    log = server.get(f"/api/games/{gid}/log")
    assert log.status_code == 200
    assert json.loads(log.text.splitlines()[0])["format"] == "oware-observations"
    assert server.get("/api/games/999/export").status_code == 404
    # a new game with names, over REST: the index starts a second game with its players
    r = server.post(
        "/api/board/1/command", json={"command": "new_game", "south": "Ama", "north": "Kofi"}
    )
    assert r.status_code == 200 and r.json()["events"][0]["type"] == "new_game"
    latest = server.get("/api/games").json()[0]
    assert (latest["south"], latest["north"], latest["moves"]) == ("Ama", "Kofi", 0)
    assert server.get("/api/boards").json() == [
        {"board": "1", "source": f"replay://{rec}?speed=0", "rules": "abapa", "players": 2}
    ]
    assert server.get("/docs").status_code == 200
    assert server.get("/openapi.json").json()["info"]["title"] == "oware-companion"
    assert server.get("/").status_code == 200


@pytest.mark.slow
def test_engine_suggestions_reach_the_referee_alone_in_fair_play(serve: Any) -> None:
    """Under fair play the players may see any screen but the referee's (issue 27, item 9):
    the spectators' and the players' pages get no suggestion, the referee's does."""
    server = serve("--source", "sim://?speed=3&seed=1", "--engine-seconds", "0.5", "--fair-play")
    got: dict[str, list[dict[str, Any]]] = {"referee": [], "spectator": [], "player": []}

    def listen(role: str) -> None:
        with connect(f"{server.ws}/ws/board/1?role={role}") as ws:
            # (the engine's first search follows its start-up, which on a loaded machine
            # takes tens of seconds; the loop ends as soon as the suggestion is there)
            end = time.monotonic() + 45
            while time.monotonic() < end and not any(
                m["type"] == "suggestion" for m in got["referee"]
            ):
                try:
                    got[role].append(json.loads(ws.recv(timeout=0.5)))
                except TimeoutError:
                    continue

    threads = [threading.Thread(target=listen, args=(role,)) for role in got]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    suggestions = [m for m in got["referee"] if m["type"] == "suggestion"]
    assert suggestions, server.log_text()[-2000:]
    assert suggestions[0]["fair_play"] is True and suggestions[0]["best_name"]
    for role in ("spectator", "player"):
        assert not [m for m in got[role] if m["type"] == "suggestion"], role
    assert server.get("/health").json()["boards"]["1"]["engine"]["running"] is True


def test_routes_that_read_the_referee_run_on_its_event_loop() -> None:
    """The referee is fed on the event loop; a plain ``def`` route runs in FastAPI's thread
    pool and can read it half-updated (CI once got a 500 from ``/state``: the tracker's
    arrays of two sizes). So each route that reads a board's referee is a coroutine."""
    from dashboard.routers import health, pages, state

    readers = [state.boards, state.state, state.events, health.health, pages.home_data]
    assert [r.__name__ for r in readers if not inspect.iscoroutinefunction(r)] == []


def test_moves_the_referee_takes_back_by_itself_reach_the_page_and_the_record(
    serve: Any, tmp_path: Path
) -> None:
    # Game 1115 of the referee bench (a camera whose belief spreads as piles grow): two
    # quick one-seed moves are missed, and 31 moves later the referee finds them, takes
    # those moves back and confirms them again (docs/REFEREE.md, "Two quick moves never
    # seen"). A page that was watching gets the state again after the correction, with
    # the record as it now stands, and the game's record in the history is the true one.
    rng = random.Random(1115)
    start = Position.initial()
    moves = random_full_game(start, rng)
    play = render_game(start, moves, GROWING, CAMERA_PACE, rng)
    rec = tmp_path / "quick-moves.jsonl"
    lines = [session_header(start, **presets.CAMERA)]
    lines += [item.to_json() for item in play.timeline if isinstance(item, Observation)]
    rec.write_text("".join(json.dumps(ln) + "\n" for ln in lines))
    names = [start.ruleset.pit_name(m) for m in moves]
    server = serve("--source", f"replay://{rec}?speed=20", "--no-engine")
    got: list[dict[str, Any]] = []
    with connect(f"{server.ws}/ws/board/1?role=spectator") as ws:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and not any(m["type"] == "game_over" for m in got):
            try:
                got.append(json.loads(ws.recv(timeout=max(0.05, deadline - time.monotonic()))))
            except TimeoutError:
                break
    assert got and got[0]["type"] == "state", server.log_text()[-2000:]
    assert got[0]["seq"] == 0 or not got[0]["moves"]  # watching from the game's start
    back = next(i for i, m in enumerate(got) if m["type"] == "corrected")
    assert got[back]["action"] == "resync" and got[back]["ply"] == 11
    state = next(m for m in got[back:] if m["type"] == "state")
    shown = [m["name"] for m in state["moves"]]
    assert shown == names[: len(shown)] and len(shown) > 13
    assert any(m["type"] == "game_over" for m in got)
    games = server.get("/api/games").json()
    record = server.get(f"/api/games/{games[0]['id']}").json()["record"]
    assert GameRecord.from_json(record).moves == moves
