"""Checkpoints (issue 26, defect 5): a referee pickled and loaded in the middle of a session
goes on exactly as the one that never stopped; a checkpoint that does not fit is not used."""

from __future__ import annotations

import itertools
import json
import pickle
from pathlib import Path
from typing import Any

from companion.service import checkpoint
from companion.service.recorder import SessionLog
from companion.sources import open_source
from core import Position
from core.observation import Observation
from core.referee import Referee
from core.referee.session import feed_line, referee_from_header, session_header

LINES = 600


def _recorded() -> list[dict[str, Any]]:
    """A real virtual-board session: moves, a mistake now and then."""
    source = open_source("sim://?speed=0&seed=7&mistakes=0.2")
    source.open()
    try:
        observations = (i for i in source if isinstance(i, Observation))
        lines = [o.to_json() for o in itertools.islice(observations, LINES)]
    finally:
        source.close()
    return [session_header(Position.initial()), *json.loads(json.dumps(lines))]


def _events(referee: Referee, lines: list[dict[str, Any]], every: int | None) -> list[Any]:
    out: list[Any] = []
    for n, line in enumerate(lines, 1):
        out.extend(e.to_json() for e in feed_line(referee, line))
        if every and n % every == 0:
            referee = pickle.loads(pickle.dumps(referee))  # a checkpoint, then a restart
    return out


def test_a_referee_restored_from_checkpoints_gives_the_same_events() -> None:
    lines = _recorded()
    straight = _events(referee_from_header(lines[0]), lines[1:], None)
    assert sum(e["type"] == "move" for e in straight) >= 3
    assert _events(referee_from_header(lines[0]), lines[1:], 37) == straight


def test_a_checkpoint_that_does_not_fit_its_log_is_not_used(tmp_path: Path) -> None:
    log_path = tmp_path / "board1-x.jsonl"
    session = SessionLog.create(log_path, session_header(Position.initial()))
    session.append({"t": 1.0, "source": "sim", "stable": True, "pits": [4] * 12})
    saver = checkpoint.Checkpointer(log_path, 0, 0)
    event = {"type": "move", "seq": 0}
    saver.save({"referee": 1}, offset=session.size, lines=session.lines, events=[event])
    saver.close()
    found = checkpoint.load(log_path)
    assert found is not None and found.events == [event] and found.state == {"referee": 1}
    # the log rewritten under it (same length, other bytes): the whole log is replayed
    data = log_path.read_bytes()
    log_path.write_bytes(data.replace(b"1.0", b"2.0"))
    assert checkpoint.load(log_path) is None
    log_path.write_bytes(data)
    assert checkpoint.load(log_path) is not None
    # its events file cut short
    events = checkpoint.events_path(log_path)
    events.write_bytes(events.read_bytes()[:-3])
    assert checkpoint.load(log_path) is None
