"""The array kernel of the Abapa rules: perft and hand-checked positions."""

from __future__ import annotations

import numpy as np
import pytest

from core.engine.kernel import (
    CAPTURE_ALL,
    FORBIDDEN,
    NO_CAPTURE,
    NOT_OVER,
    flip_into,
    game_end,
    legal_moves,
    perft,
    play_into,
    to_relative,
)

PERFT = [6, 36, 190, 1014, 5219, 27332, 139157]


def board(*pits: int) -> np.ndarray:
    return np.array(pits, dtype=np.int8)


@pytest.mark.parametrize("depth", range(1, 8))
def test_perft_from_the_start(depth: int) -> None:
    assert perft(np.full(12, 4, dtype=np.int8), depth) == PERFT[depth - 1]


def test_chained_capture() -> None:
    # F (5 seeds) sows into a..e; b..e had 1, 2, 1, 2 -> 2, 3, 2, 3; e back to b captured
    b = board(0, 0, 0, 0, 0, 5, 4, 1, 2, 1, 2, 0)
    out = np.zeros(12, dtype=np.int8)
    assert play_into(b, 5, out) == 10
    assert out.tolist() == [0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0]


def test_grand_slam_captures_nothing_in_abapa_and_everything_otherwise() -> None:
    b = board(0, 0, 0, 0, 0, 2, 1, 1, 0, 0, 0, 0)
    out = np.zeros(12, dtype=np.int8)
    assert play_into(b, 5, out, NO_CAPTURE) == 0
    assert out.tolist() == [0, 0, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0]
    assert play_into(b, 5, out, CAPTURE_ALL) == 4
    moves = np.zeros(6, dtype=np.int64)
    assert legal_moves(b, moves, FORBIDDEN) == 0  # the only move would leave North bare
    assert game_end(b, FORBIDDEN) == 2  # so each side keeps its own seeds


def test_laps_skip_the_emptied_pit() -> None:
    b = board(12, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1)
    out = np.zeros(12, dtype=np.int8)
    play_into(b, 0, out)
    assert out[0] == 0
    assert out[1] == 2 and out.sum() == 18


def test_must_feed_and_endings() -> None:
    moves = np.zeros(6, dtype=np.int64)
    starving = board(1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0)
    assert legal_moves(starving, moves) == 0
    assert game_end(starving) == 2  # mover cannot feed: takes everything
    feedable = board(1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0)
    assert legal_moves(feedable, moves) == 1 and moves[0] == 4
    assert game_end(feedable) == NOT_OVER
    assert game_end(board(0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 1)) == 0  # no seeds: opponent's


def test_flip_and_relative_views() -> None:
    pits = list(range(12))
    north = to_relative(pits, 1)
    assert north.tolist() == pits[6:] + pits[:6]
    back = np.zeros(12, dtype=np.int8)
    flip_into(north, back)
    assert back.tolist() == pits
