"""The command line: `rules`, `replay` (events, text, OGN) and `calibrate` dispatch.

Runs the installed `oware-companion` console script in a subprocess on real files.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from core import Position
from core.records import GameRecord
from core.referee import Referee
from core.referee.scenarios import random_game, render_game
from core.referee.session import session_header

CLI = [sys.executable, "-m", "companion.cli"]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=120)


@pytest.fixture
def session_file(tmp_path: Path) -> tuple[Path, list[dict[str, object]], list[int]]:
    start = Position.initial()
    moves = random_game(start, 25, seed=8)
    session = render_game(
        start,
        moves,
        style="seed",
        noise=0.2,
        seed=8,
        mistakes=[(6, "wrong_capture"), (12, "disturbed")],
    )
    ref = Referee(start)
    path = tmp_path / "session.jsonl"
    live: list[dict[str, object]] = []
    with path.open("w") as fh:
        fh.write(json.dumps(session_header(start)) + "\n")
        for obs in session.observations:
            fh.write(json.dumps(obs.to_json()) + "\n")
            for e in ref.observe(obs):
                live.append(e.to_json())
                fh.write(json.dumps(e.to_json()) + "\n")
    return path, live, moves


def test_replay_prints_exactly_the_live_events(session_file: tuple[Path, list, list]) -> None:
    path, live, _ = session_file
    result = cli("replay", str(path))
    assert result.returncode == 0, result.stderr
    printed = [json.loads(line) for line in result.stdout.splitlines()]
    assert printed == live
    assert any(e["type"] == "board_disturbed" for e in printed)


def test_replay_ogn_and_text(session_file: tuple[Path, list, list]) -> None:
    path, _, moves = session_file
    ogn = cli("replay", str(path), "--ogn")
    assert ogn.returncode == 0, ogn.stderr
    assert GameRecord.from_ogn(ogn.stdout).moves == moves
    text = cli("replay", str(path), "--format", "text")
    assert text.returncode == 0 and "Rules: Oware" in text.stdout
    assert text.stdout.count("\n") >= len(moves)


def test_replay_survives_a_torn_last_line(session_file: tuple[Path, list, list]) -> None:
    path, live, _ = session_file
    with path.open("a") as fh:
        fh.write('{"t": 99.0, "source": "sim", "sta')  # the process died mid-write
    result = cli("replay", str(path))
    assert result.returncode == 0
    assert len(result.stdout.splitlines()) == len(live)


def test_replay_errors_are_sentences(tmp_path: Path) -> None:
    missing = cli("replay", str(tmp_path / "nope.jsonl"))
    assert missing.returncode == 1 and "no session log at" in missing.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"format": "something-else"}\n')
    result = cli("replay", str(bad))
    assert result.returncode == 1 and "not a session log" in result.stderr


def test_rules_lists_presets_and_options() -> None:
    result = cli("rules")
    assert result.returncode == 0
    for word in ("abapa", "mankala-pl", "universal-4", "grand_slam", "relay_sowing"):
        assert word in result.stdout
    as_json = json.loads(cli("rules", "--json").stdout)
    assert as_json["mankala-pl"]["options"]["grand_slam"] == "forbidden"


def test_calibrate_refuses_an_unknown_scheme() -> None:
    result = cli("calibrate", "--source", "ftp://board")
    assert result.returncode == 1
    assert "cannot calibrate 'ftp://board'" in result.stderr
