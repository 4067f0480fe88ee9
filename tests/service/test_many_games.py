"""The demo plays game after game: the virtual board, accelerated, through the live service.

When a game ends the virtual players gather the seeds and lay out the next game
(``firmware_bridge.virtual_board``), and the service records each game the
referee starts as the next game of the session (a ``new_game`` event, from the
New game button or, once the referee recognises a start position set up on the
board, on its own: the referee says ``new_game`` with ``auto: true``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from core.records import GameRecord

from .conftest import Server, start_server

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

#: Flat out (the pty paces the board), a lively game with no mistakes, looping.
SOURCE = "sim://?speed=0&seed=5"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    data = tmp_path_factory.mktemp("many") / "data"
    running = start_server(data, "--source", SOURCE, "--no-engine", "--fresh")
    yield running
    running.stop()


def _board(server: Server) -> tuple[dict[str, Any], dict[str, Any]]:
    state = server.get("/api/board/1/state").json()
    health = server.get("/health").json()["boards"]["1"]["link"]["virtual_board"]
    return state, health


def _wait(server: Server, done: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} within {timeout} s:\n{server.log_text()[-2000:]}")
        time.sleep(0.5)


def test_the_virtual_board_lays_out_the_next_game_and_plays_on(server: Server) -> None:
    # The referee starts the next game as soon as the start is laid out (issue 24), so
    # "game over" may show only a moment: wait for the first game's result in the index.
    def finished() -> list[dict[str, Any]]:
        return [g for g in server.get("/api/games").json() if g["result"] not in (None, "*")]

    _wait(server, lambda: bool(finished()), 200, "no game over")
    game = finished()[0]
    first_game = game["moves"]
    assert first_game >= 20
    # the first game is recorded move for move, to its result
    record = GameRecord.from_json(server.get(f"/api/games/{game['id']}").json()["record"])
    assert record.final().is_over and record.result() != "*"
    # the players do not stop: they set up the next game and play it
    _wait(
        server,
        lambda: _board(server)[1]["moves_played"] >= first_game + 10,
        120,
        "the virtual board did not play a next game",
    )


def test_three_games_in_a_row_are_recorded_move_for_move(server: Server) -> None:
    def finished() -> list[dict[str, Any]]:
        return [g for g in server.get("/api/games").json() if g["result"] not in (None, "*")]

    # The board's move count runs on across games; the referee's starts again at each.
    # So a game over (known by its moves) is timed in the board's moves from the first
    # time it is seen.
    seen_over: dict[str, int] = {}

    def stuck() -> bool:
        # the referee still at a game's end while the board is well into the next
        state, health = _board(server)
        if state["game_over"] is None:
            return False
        since = seen_over.setdefault(repr(state["moves"]), health["moves_played"])
        return health["moves_played"] > since + 40

    deadline = time.monotonic() + 240
    while len(finished()) < 3:
        assert not stuck(), "the referee stayed at game over while the board played on"
        assert time.monotonic() < deadline, "three games were not played in time"
        time.sleep(1)
    for game in finished()[:3]:
        record = GameRecord.from_json(server.get(f"/api/games/{game['id']}").json()["record"])
        assert record.start == record.positions()[0] and record.final().is_over
        assert len(record.moves) == game["moves"] >= 20
