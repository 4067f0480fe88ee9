"""The garbage collector runs between readings, not in the middle of one
(``companion.service.collector``): the thresholds it sets and gives back, the pass it
runs when one is due, and a live board whose collections all land outside the
referee's handling of a reading."""

from __future__ import annotations

import gc
import sys
import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from companion.service.board import BoardRuntime
from companion.service.collector import SAFETY, SCHEDULE, IdleCollector
from companion.service.config import ServiceConfig
from companion.service.service import Service
from dashboard.app import create_app


def test_installs_are_counted_and_the_thresholds_come_back_with_the_last() -> None:
    before = gc.get_threshold()
    a, b = IdleCollector(), IdleCollector()
    a.install()
    a.install()  # (twice by one owner counts once)
    b.install()
    assert gc.get_threshold() == SAFETY
    a.uninstall()
    assert gc.get_threshold() == SAFETY  # b still has it
    b.uninstall()
    assert gc.get_threshold() == before
    b.uninstall()  # (once more changes nothing)
    assert gc.get_threshold() == before


def test_a_pass_runs_only_once_it_is_due_and_resets_the_young_count() -> None:
    c = IdleCollector()
    c.install()
    try:
        gc.collect()
        assert c.idle() is None
        junk = [[i] for i in range(2 * SCHEDULE[0])]
        assert gc.get_count()[0] >= SCHEDULE[0]
        generation = c.idle()
        assert generation in (0, 1, 2)
        assert gc.get_count()[0] < SCHEDULE[0]
        assert sum(c.passes) == 1 and c.seconds > 0
        del junk
    finally:
        c.uninstall()


def test_the_oldest_generation_due_is_the_one_collected() -> None:
    c = IdleCollector()
    c.install()
    try:
        gc.collect()
        seen: list[int] = []
        kept: list[list[list[int]]] = []  # (objects freed count against the young count)
        for _ in range(2 * SCHEDULE[1] * SCHEDULE[2]):
            kept.append([[i] for i in range(SCHEDULE[0] + 10)])
            generation = c.idle()
            assert generation is not None
            seen.append(generation)
        # as CPython's own schedule: a gen 1 pass every tenth, a full one every hundredth
        assert seen.count(2) >= 1 and seen.count(1) >= SCHEDULE[2] - 1
        assert seen[: SCHEDULE[1] - 1] == [0] * (SCHEDULE[1] - 1)
    finally:
        c.uninstall()


def _in_handle() -> bool:
    frame: Any = sys._getframe(1)
    handle = BoardRuntime.handle.__code__
    while frame is not None:
        if frame.f_code is handle:
            return True
        frame = frame.f_back
    return False


def test_a_live_board_collects_between_readings_only(tmp_path: Path) -> None:
    before = gc.get_threshold()
    passes: list[tuple[int, bool]] = []

    def watch(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            passes.append((int(info["generation"]), _in_handle()))

    config = ServiceConfig(data_dir=tmp_path / "data", port=8000)
    service = Service(["sim://?seed=3&speed=20"], config, engine=False, resume=False)
    app = create_app(service)
    gc.callbacks.append(watch)
    try:
        with TestClient(app, base_url="http://127.0.0.1:8000") as client:
            deadline = time.monotonic() + 20
            while "1" not in service.boards and time.monotonic() < deadline:
                time.sleep(0.05)
            board = service.boards["1"]
            assert gc.get_threshold() == SAFETY
            deadline = time.monotonic() + 30
            while sum(board.collector.passes) < 3 and time.monotonic() < deadline:
                time.sleep(0.1)
            moves = client.get("/api/board/1/state").json()
    finally:
        gc.callbacks.remove(watch)
    assert moves  # the board was playing
    assert sum(board.collector.passes) >= 3, board.collector.passes
    assert board.prepared > 0  # (the referee prepared the next readings meanwhile too)
    inside = [g for g, in_handle in passes if in_handle]
    assert inside == [], f"{len(inside)} of {len(passes)} collections inside handle()"
    assert gc.get_threshold() == before
