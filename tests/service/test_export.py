"""Exports of games whose moves do not all follow from their start (issue 7).

A game corrected by hand (``set_position``) used to answer 409 on export.
Now its record starts at the correction (OGN ``FEN`` tag, JSON ``start``)
and holds the moves played from there, so every format downloads and reads
back to the position the referee stands at.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from core import Position
from core.observation import Observation
from core.records import GameRecord, records_from_events
from core.referee import Referee
from core.referee.session import session_header

#: The board after F, a with one seed moved by hand from pit A to pit B.
CORRECTED = "3-5-4-4-4-0-0-6-6-6-5-5-0-0-S"
#: Where the game stands after E, d are played from the correction.
FINAL = "4-6-5-5-0-1-1-7-7-0-6-6-0-0-S"


def _corrected_session(path: Path) -> None:
    """F, a; the referee sets the position by hand; the board shows it; E, d follow."""
    lines: list[dict[str, Any]] = [session_header(Position.initial())]
    t = 0.0
    p = Position.initial()
    lines.append(Observation(t, "script", True, p.pits).to_json())
    for name in ("F", "a"):
        p = p.play_name(name)
        t += 1.0
        lines.append(Observation(t, "script", True, p.pits).to_json())
    t += 1.0
    lines.append({"command": "set_position", "position": CORRECTED, "t": t})
    p = Position.from_text(CORRECTED)
    t += 1.0
    lines.append(Observation(t, "script", True, p.pits).to_json())
    for name in ("E", "d"):
        p = p.play_name(name)
        t += 1.0
        lines.append(Observation(t, "script", True, p.pits).to_json())
    path.write_text("".join(json.dumps(ln) + "\n" for ln in lines))


def test_a_game_corrected_by_hand_exports_from_its_correction(serve: Any, tmp_path: Path) -> None:
    rec = tmp_path / "corrected.jsonl"
    _corrected_session(rec)
    server = serve("--source", f"replay://{rec}?speed=0", "--no-engine")
    deadline = time.monotonic() + 20
    while server.get("/api/board/1/state").json()["text"] != FINAL:
        assert time.monotonic() < deadline, server.log_text()[-2000:]
        time.sleep(0.1)
    events = server.get("/api/board/1/events").json()["events"]
    assert "corrected" in [e["type"] for e in events]  # the correction really happened
    (game,) = server.get("/api/games").json()
    gid = game["id"]

    ogn = server.get(f"/api/games/{gid}/export", params={"format": "ogn"})
    assert ogn.status_code == 200, ogn.text
    assert f'[FEN "{CORRECTED}"]' in ogn.text and "1. E d" in ogn.text
    assert 'filename="game-' in ogn.headers["content-disposition"]
    from_ogn = GameRecord.from_ogn(ogn.text)
    assert from_ogn.start.to_text() == CORRECTED
    assert from_ogn.moves == [4, 9]
    assert from_ogn.final().to_text() == FINAL
    assert from_ogn.tags["Round"] == "1" and from_ogn.tags["Site"] == "oware-companion"

    as_json = server.get(f"/api/games/{gid}/export", params={"format": "json"})
    assert as_json.status_code == 200
    from_json = GameRecord.from_json(as_json.json())
    assert from_json.start.to_text() == CORRECTED and from_json.moves == [4, 9]
    assert as_json.json()["final"] == Position.from_text(FINAL).to_json()

    text = server.get(f"/api/games/{gid}/export", params={"format": "text"})
    assert text.status_code == 200 and "E" in text.text and text.text.strip()

    # the game's own view carries the same record (without the export's tags)
    stored = GameRecord.from_json(server.get(f"/api/games/{gid}").json()["record"])
    assert (stored.start, stored.moves) == (from_json.start, from_json.moves)


def test_record_of_a_game_with_nothing_played_yet() -> None:
    """A session with no event yet: its record is the start with no moves."""
    start = Position.initial()
    (record,) = records_from_events(start, [])
    assert record.start == start and record.moves == []
    assert record.result() == "*"


def test_record_starts_at_a_correction() -> None:
    referee = Referee(Position.initial())
    events = referee.command({"command": "set_position", "position": CORRECTED, "t": 1.0}, 1.0)
    (record,) = records_from_events(Position.initial(), [e.to_json() for e in events])
    assert record.start.to_text() == CORRECTED and record.moves == []
    assert f'[FEN "{CORRECTED}"]' in record.to_ogn()
