"""The exact value of a small Abapa endgame under the real cycle rule, by brute force.

Nothing here shares code with :mod:`core.engine`: the rules core
(:class:`core.Position`) plays every move and ends the game at the first repetition
of a position since the last capture (each side keeping the seeds on its side). The
game tree is searched whole, every path of it, within a budget of positions: a
board's future depends on the positions seen since the last capture, so only a board
reached by a capture (no history) is remembered. That value, of a board with no
history, is the one the databases' game bounds must hold.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from core import Position

Board = tuple[int, ...]


def solved_boards(seeds: int, budget: int = 2_000) -> Iterator[tuple[Board, int]]:
    """Every board of ``seeds`` seeds with some on South's side (South to move), with
    :func:`exact_value` of it, where that stays within ``budget``.

    (Every board of 2 or 3 seeds solved within 20,000 positions is solved within 500:
    the rest circle for good, and a budget of 20,000 spent most of a test's three
    minutes on them.)"""
    for board in itertools.product(range(seeds + 1), repeat=12):
        if sum(board) != seeds or sum(board[:6]) == 0:
            continue
        south = exact_value(board, budget=budget)
        if south is not None:
            yield board, south


class OverBudget(Exception):
    """The tree holds more positions than the budget allows."""


def exact_value(board: Board, budget: int = 100_000) -> int | None:
    """Seeds of ``board`` (South to move, stores empty, no history) that South ends
    with under best play by both sides, each maximising its own final total; None if
    the tree holds more than ``budget`` positions."""
    fresh: dict[tuple[Board, int], int] = {}  # boards reached by a capture
    left = [budget]

    def south_total(p: Position) -> int:
        if p.is_over:
            assert p.ending is not None
            return p.ending.scores[0]
        key = (tuple(p.pits), p.to_move)
        if p.prev is None and key in fresh:
            return fresh[key] + p.stores[0]
        left[0] -= 1
        if left[0] < 0:
            raise OverBudget
        results = [south_total(p.play(pit)) for pit in p.legal_moves()]
        best = max(results) if p.to_move == 0 else min(results)
        if p.prev is None:
            fresh[key] = best - p.stores[0]
        return best

    try:
        return south_total(Position("abapa", board, (0, 0), 0, check_total=False))
    except OverBudget:
        return None
