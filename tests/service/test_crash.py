"""Crash safety: SIGKILL a real ``serve`` at random moments, start it again, nothing is lost.

After each kill the test reads the session log itself (as a post-mortem
would), replays it with the core referee, and checks the restarted server
resumed exactly that game: every logged event (moves, alerts, captures)
again at the head of its event history, every confirmed move in its state.
"""

from __future__ import annotations

import json
import random
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from core.referee.session import feed_line, referee_from_header

from .conftest import read_jsonl, session_log, start_server


def _replay(log: Path) -> tuple[list[dict[str, Any]], list[str], list[dict[str, Any]]]:
    """(events a replay gives, names of the confirmed moves, events the log holds)."""
    lines = read_jsonl(log)
    referee = referee_from_header(lines[0])
    events: list[dict[str, Any]] = []
    for line in lines[1:]:
        events.extend(json.loads(json.dumps(e.to_json())) for e in feed_line(referee, line))
    logged = [ln for ln in lines[1:] if "type" in ln]
    return events, [o.name for o in referee.moves], logged


@pytest.mark.slow
def test_sigkill_at_random_moments_resumes_the_logged_game(tmp_path: Path) -> None:
    rng = random.Random(20261121)  # random moments, the same ones on every run
    data = tmp_path / "data"
    args = ("--source", "sim://?speed=0&seed=11&mistakes=0.15", "--no-engine")
    server = start_server(data, *args)
    try:
        total_moves = 0
        alerts = 0
        for _ in range(4):
            time.sleep(rng.uniform(0.3, 2.5))
            server.stop(signal.SIGKILL)
            assert server.proc.returncode == -signal.SIGKILL
            log = session_log(data)  # one log across every restart
            replayed, moves, logged = _replay(log)
            # what was written is what the referee says: the log is consistent at any moment
            assert replayed[: len(logged)] == logged
            server = start_server(data, *args)
            health = server.get("/health").json()["boards"]["1"]
            assert health["resumed"] is True
            history = server.get("/api/board/1/events", params={"limit": 5000}).json()["events"]
            assert history[: len(replayed)] == replayed
            state = server.get("/api/board/1/state").json()
            shown = [m["name"] for m in state["moves"]]
            if shown[: len(moves)] != moves:
                # The restarted virtual board lays out a fresh game (a real board keeps its
                # seeds where they are): the referee, resumed at the logged game, sees the
                # start position laid out and starts the next game itself.
                after = server.get("/api/board/1/events", params={"limit": 5000}).json()
                news = [e for e in after["events"][len(replayed) :] if e["type"] == "new_game"]
                assert news and news[0].get("auto") is True, (shown, moves)
            total_moves = len(moves)
            alerts = sum(e["type"] in ("illegal_sowing", "board_disturbed") for e in replayed)
        # the kills landed mid-game, after real progress (not an empty log each time)
        assert total_moves >= 3
        assert alerts >= 1
    finally:
        server.stop()
