"""The page when the board leaves the game: one card, updated in place, gone when it is back.

The development server's real referee is fed a board that someone disturbed (two piles
knocked, then two more), then set right again. The page must show a single
out-of-sync card whose coloured pits follow the board (not one card per reading, as
it once did: 45 cards), and drop it when the board matches the game again.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.dashboard.conftest import free_port, open_view, screenshot
from tests.dashboard.devserver import ServerThread, create_app

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

START = [4] * 12


@pytest.fixture(scope="module")
def dev_server() -> Iterator[tuple[str, Any]]:
    app = create_app()
    with ServerThread(app, free_port()) as server:
        yield server.url, app.state.board


def feed(url: str, board: list[int], t0: float, seconds: float) -> list[dict[str, Any]]:
    """The board held still for ``seconds`` (ten readings a second) from ``t0``."""
    obs = [
        {"t": round(t0 + 0.1 * k, 3), "source": "test", "stable": True, "pits": board}
        for k in range(1, round(seconds * 10) + 1)
    ]
    events: list[dict[str, Any]] = httpx.post(
        f"{url}/dev/board/1/observe", json=obs, timeout=30
    ).json()["events"]
    return events


def shown_pits(page: Any) -> list[int]:
    card = page.query_selector("article.alert-board_disturbed")
    return sorted(int(p) for p in card.get_attribute("data-pits").split(","))


def test_one_out_of_sync_card_follows_the_board_and_goes(
    dev_server: tuple[str, Any], new_page: Any, page_errors: list[str]
) -> None:
    url, board = dev_server
    board.referee.command({"command": "new_game", "t": 0.0})
    page = open_view(new_page(), url, "referee")
    page.wait_for_selector("#board .pit")
    # Count the cards the page ever shows at once, from before the first disturbance.
    page.evaluate(
        """() => { window.mostCards = 0; setInterval(() => { window.mostCards = Math.max(
             window.mostCards, document.querySelectorAll('article.alert').length); }, 20); }"""
    )
    knocked = START.copy()
    knocked[0], knocked[1] = 2, 6  # two seeds pushed from A into B
    events = feed(url, knocked, 1.0, 2.0)
    assert [e["type"] for e in events].count("board_disturbed") == 1
    page.wait_for_selector("article.alert-board_disturbed")
    assert shown_pits(page) == [0, 1]
    # More piles knocked: the same card now colours all four pits.
    knocked[2], knocked[3] = 3, 5
    events = feed(url, knocked, 3.0, 2.0)
    updates = [e for e in events if e["type"] == "board_disturbed"]
    assert updates and all(e.get("update") for e in updates)
    page.wait_for_function(
        "document.querySelector('article.alert-board_disturbed')?.dataset.pits === '0,1,2,3'"
    )
    assert page.locator("article.alert").count() == 1
    for p in (0, 1, 2, 3):
        assert "alert" in (page.get_attribute(f"#board .pit[data-pit='{p}']", "class") or "")
    screenshot(page, "out-of-sync-one-card")
    # Set right again: the card goes, and the game goes on where it was.
    events = feed(url, START, 5.0, 1.5)
    assert "board_restored" in [e["type"] for e in events]
    page.wait_for_function("document.querySelectorAll('article.alert').length === 0")
    assert page.evaluate("window.mostCards") == 1
    assert page_errors == []
