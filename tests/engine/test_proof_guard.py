"""The search keeps the result the game bounds prove at its root (``Searcher.guard``):
from 11 seeds up a database value may rest on the cycle convention below it, and a
line that trades a proven draw or win for a value's promise must not be chosen."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from core.engine import retrograde
from core.engine.kernel import NO_CAPTURE, flip_into, play_into
from core.engine.search import Searcher

Arrays = tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8], npt.NDArray[np.uint8]]

#: Nodes per search: fixed, so that the tests do not depend on the machine's speed.
NODES = 100_000


@pytest.fixture(scope="module")
def arrays() -> Arrays:
    """Values and game bounds to 12 seeds (about 4 s)."""
    lows, highs = retrograde.game_bounds(13)
    return retrograde.build(12), lows, highs


def proven_after(arrays: Arrays, board: npt.NDArray[np.int8], pit: int, mine: int) -> int:
    """The seeds the mover is proven to end with after playing ``pit`` (the opponent's
    upper bound at the child, as the bounds hold it without a history)."""
    _, _, highs = arrays
    after = np.zeros(12, np.int8)
    child = np.zeros(12, np.int8)
    taken = play_into(board, pit, after, NO_CAPTURE)
    flip_into(after, child)
    return mine + taken + int(child.sum()) - retrograde.lookup(highs, child)


def searcher(arrays: Arrays, guard: bool = True) -> Searcher:
    values, lows, highs = arrays
    return Searcher(values, 12, bounds=(lows, highs), guard=guard)


def test_a_proven_draw_is_kept_where_the_values_promise_more(arrays: Arrays) -> None:
    """South, 21 seeds to North's 16, has 11 on the board: the bounds prove a draw
    (24 seeds). Without the guard the search plays E, whose line the values rate two
    seeds up but the bounds leave at 23; with it, a move that keeps the draw."""
    board = np.array([0, 0, 0, 1, 1, 3, 0, 0, 2, 2, 1, 1], dtype=np.int8)
    guarded = searcher(arrays)
    assert guarded.proven_target(board, 21, 16) == 24
    kept = guarded.search(board, 21, 16, nodes=NODES, exact_all=False).best
    trusting = searcher(arrays, guard=False).search(board, 21, 16, nodes=NODES, exact_all=False)
    assert proven_after(arrays, board, kept, 21) >= 24
    assert proven_after(arrays, board, trusting.best, 21) < 24


def test_every_proven_result_is_kept(arrays: Arrays) -> None:
    """Random boards of 11 and 12 seeds where the bounds prove a draw or a win for the
    mover: the guarded search's move keeps it every time."""
    rng = np.random.default_rng(7)
    tried = 0
    while tried < 40:
        seeds = int(rng.integers(11, 13))
        cuts = np.sort(rng.integers(0, seeds + 1, 11))
        board = np.diff(np.concatenate([[0], cuts, [seeds]])).astype(np.int8)
        mine = int(rng.integers(12, 25))
        theirs = 48 - seeds - mine
        if board[:6].sum() == 0 or board[6:].sum() == 0 or not 0 <= theirs <= 24:
            continue
        engine = searcher(arrays)
        target = engine.proven_target(board, mine, theirs)
        if target == 0:
            continue
        tried += 1
        best = engine.search(board, mine, theirs, nodes=NODES, exact_all=False).best
        assert proven_after(arrays, board, best, mine) >= target, (board.tolist(), mine)


def test_no_target_without_bounds_above_10_seeds_or_without_a_proof(arrays: Arrays) -> None:
    """The computed bounds stop under 11 seeds: nothing to keep there; and a board whose
    bounds prove only a loss has no target either."""
    values = arrays[0]
    board = np.array([0, 1, 1, 1, 3, 3, 0, 0, 1, 0, 1, 0], dtype=np.int8)
    assert Searcher(values, 12).proven_target(board, 19, 18) == 0
    assert searcher(arrays).proven_target(board, 12, 25) == 0
    assert searcher(arrays, guard=True).proven_target(board, 30, 7) == 25
