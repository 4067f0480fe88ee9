"""``serve --engine CMD``: the live suggestions from an outside engine program (issue 28).

The outside engine is our own, started as a real subprocess (``python -m companion.cli
engine``); the failures are tiny real programs (``tmp_path/*.py``) that answer the
handshake and then die.
"""

from __future__ import annotations

import logging
import shlex
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from companion import endgame_store
from companion.service.engine_worker import EngineWorker
from core import Position
from core.rules import parse_rules_spec

from .conftest import ROOT, free_port

#: Our own engine, as any outside engine program (no endgame databases: quick to start).
OURS = f"{shlex.quote(sys.executable)} -m companion.cli engine --no-endgame"

#: Every key of the built-in search's ``suggestion`` events.
KEYS = {
    "type",
    "position",
    "rules",
    "to_move",
    "best",
    "best_name",
    "values",
    "moves",
    "pv",
    "depth",
    "nodes",
    "solved",
    "final",
    "fair_play",
    "audience",
}

#: A program that answers the handshake, then dies on its first ``go`` (stderr says why).
#: With a marker file, only its first run dies: the next runs are our engine.
CRASHER = """
import os, sys
marker = sys.argv[1] if len(sys.argv) > 1 else None
if marker and os.path.exists(marker):
    os.execv(sys.executable, [sys.executable, "-m", "companion.cli", "engine", "--no-endgame"])
if marker:
    open(marker, "w").close()
for line in sys.stdin:
    word = line.split()[:1]
    if word == ["uci"]:
        print("id name crasher\\nuciok", flush=True)
    elif word == ["isready"]:
        print("readyok", flush=True)
    elif word == ["go"]:
        print("boom: crashed on purpose", file=sys.stderr, flush=True)
        sys.exit(3)
"""


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Neither the tests nor the engine programs they start read the user's real cache;
    the failed programs' stderr logs stay in the test's folder."""
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setenv(endgame_store.CACHE_ENV, str(cache))
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # for the servers started
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # for the workers here
    return cache


def crasher(tmp_path: Path, *, once: bool = False) -> str:
    script = tmp_path / "crasher.py"
    script.write_text(textwrap.dedent(CRASHER))
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    return command + (f" {shlex.quote(str(tmp_path / 'crashed-once'))}" if once else "")


def wait_for(events: list[dict[str, Any]], count: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while len(events) < count and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(events) >= count, events


def test_suggestions_come_from_the_outside_engine() -> None:
    events: list[dict[str, Any]] = []
    worker = EngineWorker(events.append, seconds=0.5, engine_command=OURS)
    try:
        p = Position.initial().play(5)  # North to move
        worker.update(p)
        assert worker.idle(60)
        assert events and events[-1]["final"] and not any(e["final"] for e in events[:-1])
        for e in events:
            assert set(e) >= KEYS and e["engine"].startswith("oware-companion")
            assert e["position"] == p.to_text() and e["to_move"] == 1
            assert e["best"] in p.legal_moves() and e["best_name"] == "abcdef"[e["best"] - 6]
            # an outside engine scores only its best move
            assert set(e["values"]) == {e["best"]} and [m["pit"] for m in e["moves"]] == [e["best"]]
            assert e["pv"][0] == e["best_name"] and e["depth"] >= 1
        assert [e["depth"] for e in events] == sorted(e["depth"] for e in events)
        health = worker.health()
        assert health["published"] == len(events)
        assert health["outside_engine"]["state"] == "running"
        assert health["outside_engine"]["name"].startswith("oware-companion")
    finally:
        worker.close()
    assert worker.health()["outside_engine"]["state"] == "stopped"


def test_a_new_position_stops_the_outside_search_at_once() -> None:
    events: list[dict[str, Any]] = []
    worker = EngineWorker(events.append, seconds=30.0, engine_command=OURS)
    try:
        first = Position.initial()
        worker.update(first)
        wait_for(events, 1)
        second = first.play(2)
        worker.update(second)
        at_switch = len(events)  # published synchronously: nothing slips in after update()
        deadline = time.monotonic() + 30
        while not events[at_switch:] and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.3)
        later = events[at_switch:]
        assert later and all(e["position"] == second.to_text() for e in later)
        assert all(e["best"] >= 6 for e in later)
    finally:
        started = time.monotonic()
        worker.close()
        assert time.monotonic() - started < 5.0  # a 30 s search stops at once


def test_universal_mancala_keeps_the_built_in_search() -> None:
    events: list[dict[str, Any]] = []
    worker = EngineWorker(events.append, seconds=0.2, engine_command=OURS)
    try:
        p = Position.initial(parse_rules_spec("universal-3"))
        worker.update(p)
        assert worker.idle(60)
        assert events and all("engine" not in e for e in events)
        assert events[-1]["best"] in p.legal_moves()
        assert worker.health()["outside_engine"]["state"] == "not started"  # never needed
    finally:
        worker.close()


def test_a_crashed_engine_is_restarted_once_then_the_built_in_search_takes_over(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    events: list[dict[str, Any]] = []
    caplog.set_level(logging.WARNING, logger="companion.service.outside_engine")
    worker = EngineWorker(events.append, seconds=0.3, engine_command=crasher(tmp_path))
    try:
        p = Position.initial()
        worker.update(p)
        assert worker.idle(60)
        # the position still got its suggestions, from our own search
        assert events and events[-1]["final"] and events[-1]["best"] in p.legal_moves()
        assert all("engine" not in e for e in events)
        outside = worker.health()["outside_engine"]
        assert outside["state"] == "failed" and not outside["in_use"]
        assert outside["restarts"] == 1
        assert "exited" in outside["error"] and "boom: crashed on purpose" in outside["error"]
        said = [(r.levelname, r.getMessage()) for r in caplog.records]
        assert [level for level, _ in said] == ["WARNING", "ERROR"], said
        assert "restarting" in said[0][1] and "built-in search" in said[1][1]
        # later positions go straight to our search (no new start, no new message)
        events.clear()
        worker.update(p.play(0))
        assert worker.idle(60) and events and len(caplog.records) == 2
    finally:
        worker.close()


def test_an_engine_that_crashes_once_is_restarted(tmp_path: Path) -> None:
    events: list[dict[str, Any]] = []
    worker = EngineWorker(events.append, seconds=0.3, engine_command=crasher(tmp_path, once=True))
    try:
        p = Position.initial()
        worker.update(p)
        assert worker.idle(60)
        assert events and all(e["engine"].startswith("oware-companion") for e in events)
        outside = worker.health()["outside_engine"]
        assert outside["state"] == "running" and outside["restarts"] == 1 and outside["in_use"]
        assert "boom" in outside["error"]
    finally:
        worker.close()


@pytest.mark.parametrize(
    ("command", "words"),
    [
        ("/no/such/engine --fast", ("No such file", "/no/such/engine")),
        (f"{shlex.quote(sys.executable)} -c pass", ("exited",)),
    ],
)
def test_an_engine_that_cannot_start_is_one_line_at_start_up(
    tmp_path: Path, command: str, words: tuple[str, ...]
) -> None:
    data = tmp_path / "data"
    cmd = [sys.executable, "-m", "companion.commands.serve", "serve", "--engine", command]
    cmd += ["--data-dir", str(data), "--port", str(free_port())]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    (error,) = [ln for ln in done.stderr.splitlines() if "error" in ln.lower()]
    assert error.startswith("oware-companion: error: cannot start the engine")
    assert "--engine" in error and "built-in search" in error
    for word in words:
        assert word in error, error
    assert not list(data.glob("sessions/*.jsonl"))  # nothing was recorded


def test_serve_reports_a_crashed_engine_in_health_and_its_log(serve: Any, tmp_path: Path) -> None:
    server = serve("--source", "sim://?speed=0.5", "--engine", crasher(tmp_path))
    deadline = time.monotonic() + 60
    outside: dict[str, Any] = {}
    while time.monotonic() < deadline:
        boards = server.get("/health").json()["boards"]
        if "1" in boards:
            outside = boards["1"]["engine"]["outside_engine"]
            if outside["state"] == "failed":
                break
        time.sleep(0.2)
    assert outside["state"] == "failed" and outside["restarts"] == 1, outside
    assert "boom: crashed on purpose" in outside["error"]
    log = server.log_text()
    assert "suggestions from the outside engine crasher" in log
    assert "restarting it" in log and "suggestions now come from the built-in search" in log


def test_the_command_line_and_the_venue_file_name_the_engine(tmp_path: Path) -> None:
    from companion.cli import build_parser
    from companion.commands.serve import build_config
    from companion.service.config import ConfigError, parse_config

    assert (
        parse_config({"engine": {"command": "aalina-service"}}).engine_command == "aalina-service"
    )
    assert parse_config({}).engine_command is None
    with pytest.raises(ConfigError, match="command is empty"):
        parse_config({"engine": {"command": " "}})
    venue = tmp_path / "venue.toml"
    venue.write_text('[engine]\ncommand = "from-the-file"\n')
    parser = build_parser()
    args = parser.parse_args(["serve", "--config", str(venue)])
    assert build_config(args).engine_command == "from-the-file"
    args = parser.parse_args(["serve", "--config", str(venue), "--engine", "from the line"])
    assert build_config(args).engine_command == "from the line"  # the command line wins
    with pytest.raises(ValueError, match="contradict"):
        build_config(parser.parse_args(["serve", "--engine", "x", "--no-engine"]))
