"""Undo on the page while a move is still being read: the move the page shows goes.

A camera session with flat beliefs (the referee bench's desync session ``undo``, seed
2003, up to the moment a person pressed Undo) is replayed into the live service: North's
a is shown "reading…", the last move on the page. Pressing Undo takes back that move,
not South's D before it; the board, which still shows a, is said out of sync in one card.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from core import Observation, Position
from core.referee import presets
from core.referee.playthrough import CAMERA, FLAT_02, Command, desync_session
from core.referee.session import session_header
from tests.dashboard.conftest import TOKEN, open_view, run_service, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]


def _until_undo(path: Path) -> Path:
    """The session's readings up to the Undo the bench's person pressed."""
    start = Position.initial()
    play = desync_session(start, "undo", FLAT_02, CAMERA, random.Random(2003))
    undo_t = next(i.t for i in play.timeline if isinstance(i, Command))
    lines: list[dict[str, Any]] = [session_header(start, **presets.CAMERA)]
    lines += [i.to_json() for i in play.timeline if isinstance(i, Observation) and i.t < undo_t]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


@pytest.fixture(scope="module")
def undo_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("undo")
    log = _until_undo(folder / "undo.jsonl")
    with run_service(folder, [f"replay://{log}?speed=0"], "--no-engine") as url:
        yield url


def test_undo_takes_back_the_move_the_page_shows_being_read(
    undo_server: str, new_page: Any, page_errors: list[str]
) -> None:
    url = undo_server
    # (speed=0: the whole session at once; the page opens on the state it left)
    deadline = time.monotonic() + 60
    state = httpx.get(f"{url}/api/board/1/state", timeout=5).json()
    while state.get("link", {}).get("state") != "disconnected" and time.monotonic() < deadline:
        time.sleep(0.2)
        state = httpx.get(f"{url}/api/board/1/state", timeout=5).json()
    assert state["provisional"]["name"] == "a", state
    page = open_view(new_page(), url, "referee", token=TOKEN)
    page.wait_for_function(
        "document.getElementById('last-move').textContent.includes('reading move a')"
    )
    moves = page.locator("#move-list .move")
    assert moves.count() == 13 and moves.last.text_content() == "D"
    page.click("[data-command=undo]")
    page.wait_for_selector("article.alert-board_disturbed")
    assert "reading" not in (page.text_content("#last-move") or "")
    assert moves.count() == 13 and moves.last.text_content() == "D"
    screenshot(page, "undo-of-a-move-being-read")
    assert page.locator("article.alert-board_disturbed").count() == 1
    state = httpx.get(f"{url}/api/board/1/state", timeout=5).json()
    assert state["provisional"] is None and [m["name"] for m in state["moves"]][-1] == "D"
    assert page_errors == []
