"""The live engine worker: suggestions off the event loop, cancelled when the game moves on."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from companion import endgame_store
from companion.service.engine_worker import EngineWorker
from core import Position


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Tests never read the user's real cache."""
    monkeypatch.setenv(endgame_store.CACHE_ENV, str(tmp_path))
    return tmp_path


def test_publishes_suggestions_for_the_position() -> None:
    events: list[dict[str, Any]] = []
    worker = EngineWorker(events.append, seconds=0.4)
    try:
        p = Position.initial()
        worker.update(p)
        assert worker.idle(60)
        assert events, "no suggestion published"
        last = events[-1]
        assert last["type"] == "suggestion" and last["final"]
        assert last["position"] == p.to_text()
        assert last["best"] in p.legal_moves()
        assert last["best_name"] == "ABCDEF"[last["best"]]
        assert set(last["values"]) == set(p.legal_moves())
        assert last["depth"] >= 2
        assert [e["depth"] for e in events] == sorted(e["depth"] for e in events)
        assert worker.health()["published"] == len(events)
    finally:
        worker.close()


def test_a_new_position_cancels_the_old_analysis() -> None:
    events: list[dict[str, Any]] = []
    worker = EngineWorker(events.append, seconds=30.0)
    try:
        first = Position.initial()
        worker.update(first)
        deadline = time.monotonic() + 60
        while not events and time.monotonic() < deadline:
            time.sleep(0.01)
        second = first.play(5)
        started = time.monotonic()
        worker.update(second)
        count_at_switch = len(events)
        while time.monotonic() - started < 1.0:
            time.sleep(0.05)
        # nothing about the first position after the switch, and the second is analysed
        later = events[count_at_switch:]
        assert later and all(e["position"] == second.to_text() for e in later)
        assert all(e["to_move"] == 1 and e["best"] >= 6 for e in later)
    finally:
        started = time.monotonic()
        worker.close()
        assert time.monotonic() - started < 5.0  # a 30 s search stops at once


def test_fair_play_marks_suggestions_for_spectators_only() -> None:
    events: list[dict[str, Any]] = []
    worker = EngineWorker(events.append, seconds=0.2, fair_play=True)
    try:
        worker.update(Position.initial())
        assert worker.idle(60)
        assert events and all(e["fair_play"] and e["audience"] == "spectators" for e in events)
        worker.set_fair_play(False)
        events.clear()
        worker.update(Position.initial().play(0))
        assert worker.idle(60)
        assert events and not events[-1]["fair_play"] and events[-1]["audience"] == "all"
    finally:
        worker.close()


def test_events_are_handed_to_the_event_loop() -> None:
    async def main() -> list[str]:
        loop = asyncio.get_running_loop()
        seen: list[str] = []
        done = asyncio.Event()

        def on_event(event: dict[str, Any]) -> None:
            # runs on the loop's thread: safe to touch loop objects
            seen.append(threading.current_thread().name)
            if event["final"]:
                done.set()

        worker = EngineWorker(on_event, seconds=0.2, loop=loop)
        worker.update(Position.initial("universal", players=3))
        await asyncio.wait_for(done.wait(), 60)
        worker.close()
        return seen

    # Run the loop in a thread of its own: another test (Playwright's sync API) may keep a
    # loop running in the main thread, where asyncio.run() is not allowed.
    result: list[list[str]] = []
    runner = threading.Thread(target=lambda: result.append(asyncio.run(main())), name="event-loop")
    runner.start()
    runner.join(90)
    names = result[0]
    assert names and set(names) == {"event-loop"}


def test_finished_games_are_not_analysed() -> None:
    events: list[dict[str, Any]] = []
    worker = EngineWorker(events.append, seconds=0.2)
    try:
        over = Position.from_text("0-0-0-0-0-0-0-0-0-0-0-0-24-24-S")
        worker.update(over)
        assert worker.idle(5)
        assert events == []
        assert worker.health()["position"] is None
    finally:
        worker.close()


def test_databases_in_the_cache_are_used_automatically(private_cache: Path) -> None:
    endgame_store.build(6, show_progress=False)
    events: list[dict[str, Any]] = []
    worker = EngineWorker(events.append, seconds=1.0)
    try:
        worker.update(Position.from_text("1-0-0-0-2-0-0-1-0-0-1-0-24-19-S"))
        assert worker.idle(60)
        # final splits come from the database (the search goes on through quiet
        # moves, whose values a repetition of the history could change)
        assert all(m["final"] == [24, 24] for m in events[-1]["moves"])
        assert events[-1]["moves"][0]["text"] == "draw"
        assert worker.health()["endgame_database"] == 6
        # (the bounds of the layers up to 10 seeds are built with the values)
        assert worker.health()["game_bounds"] == 6
    finally:
        worker.close()


def test_game_bounds_in_the_cache_are_loaded_with_the_databases(private_cache: Path) -> None:
    endgame_store.build(6, show_progress=False, bounds=True)
    worker = EngineWorker(lambda event: None, seconds=0.3)
    try:
        assert worker.health()["game_bounds"] == -1  # nothing loaded before a position
        worker.update(Position.from_text("1-0-0-0-2-0-0-1-0-0-1-0-24-19-S"))
        assert worker.idle(60)
        assert worker.health()["game_bounds"] == 6
        # the searcher plays with the stored files, not bounds it worked out itself
        searcher = next(iter(worker._searchers.values()))
        for mapped, path in zip(
            (searcher.lows, searcher.highs), endgame_store.bounds_paths(), strict=True
        ):
            assert isinstance(mapped, np.memmap)
            assert Path(str(mapped.filename)) == path.resolve()
    finally:
        worker.close()
