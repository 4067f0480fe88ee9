"""Proofs that a side forces the win of a small Abapa endgame under the cycle rule.

The databases' value of a small board may rest on their cycle convention, and the game
bounds (:func:`core.engine.retrograde.game_bounds`) leave most boards open; the
segment's attractors (:mod:`core.engine.segment`) settle a board only where one side
forces its result without ever coming back to a position. Between them lie boards whose
result under the real rule depends on the positions the play goes through: a position
played is seen, and a return to it ends the game.

:func:`prove_win` searches those paths: an AND-OR search over the moves from the
position, each node carrying its history (the rules core's chain of positions since the
last capture), to a given number of plies. A node is proven for the winner where the
segment's attractor with that history already forces the win (a node of the other side
is refuted where it forces a draw or better), at a capture by the game bound of the
board it makes worst for the winner, and at the end of the game by the rules. Deepened
ply by ply until proven, or until a budget of nodes is spent: a proof holds under the
real rule as far as the game bounds do; no proof says nothing.

>>> from core.engine import retrograde
>>> from core import Position
>>> values, bounds = retrograde.build(2), retrograde.game_bounds(2)
>>> def board(stores):  # South: a seed in B and one in F; North: none
...     return Position("abapa", (0, 1, 0, 0, 0, 1) + (0,) * 6, stores, 0, check_total=False)
>>> [prove_win(board((23, 22)), side, values, bounds).proven for side in (0, 1)]
[True, False]
>>> [prove_win(board((23, 23)), side, values, bounds).proven for side in (0, 1)]
[False, False]

Under the rule South keeps one of its two seeds there (the databases' convention gives
it both): a win from 23-22, a draw from 23-23.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from core.engine.analysis import segment_plan, since_capture
from core.engine.kernel import to_relative
from core.engine.ranking import layer_offset
from core.engine.retrograde import lookup
from core.position import Position

U8 = npt.NDArray[np.uint8]


@dataclass(frozen=True)
class Proof:
    """What :func:`prove_win` found."""

    proven: bool
    """The winner forces the win against any defence, under the cycle rule."""
    plies: int
    """The depth the proof needed, or the deepest searched in full."""
    nodes: int
    """Positions visited, all depths together."""


class _OutOfNodes(Exception):
    """The budget of nodes, or of time, is spent."""


def prove_win(
    position: Position,
    winner: int,
    values: U8,
    bounds: tuple[U8, U8],
    max_plies: int = 80,
    max_nodes: int = 200_000,
    max_seconds: float | None = None,
) -> Proof:
    """Whether ``winner`` (0 South, 1 North) forces the win from ``position``, with its
    history, under Abapa's cycle rule; ``values`` and ``bounds`` the endgame databases
    and their game bounds, holding every layer under the position's. The search stops
    unproven past ``max_nodes`` positions or ``max_seconds`` (a node of ten seeds plays
    out a segment of up to 400,000 positions: about a fifth of a second)."""
    nodes = 0
    deadline = None if max_seconds is None else time.perf_counter() + max_seconds
    # each deepening visits the shallower nodes again, with the same histories: what
    # their segments settle is kept (a node is its position and the positions since
    # the last capture)
    settled: dict[tuple[tuple[tuple[int, ...], int], ...], bool | None] = {}

    def won(p: Position, plies: int, root: bool) -> bool:
        nonlocal nodes
        nodes += 1
        if nodes > max_nodes or (deadline is not None and time.perf_counter() > deadline):
            raise _OutOfNodes
        if p.is_over:
            return p.scores[winner] > p.scores[1 - winner]
        if p.prev is None and not root:
            return _capture_won(p, winner, bounds)
        key = tuple((q.pits, q.to_move) for q in (*since_capture(p), p))
        if key not in settled:
            plan = segment_plan(p, values, bounds)
            settled[key] = None
            if plan is not None and (plan.result == 1 or p.to_move != winner):
                # the winner forces its win, or the other side a draw at least
                settled[key] = p.to_move == winner
        known = settled[key]
        if known is not None:
            return known
        if plies == 0:
            return False
        children = (won(p.play(pit), plies - 1, False) for pit in p.legal_moves())
        return any(children) if p.to_move == winner else all(children)

    searched = 0
    try:
        for plies in range(0, max_plies + 1, 2):
            if won(position, plies, True):
                return Proof(True, plies, nodes)
            searched = plies
    except _OutOfNodes:
        pass
    return Proof(False, searched, nodes)


def _capture_won(p: Position, winner: int, bounds: tuple[U8, U8]) -> bool:
    """Whether the board a capture made (no history) is the winner's by the game bound
    worst for it; False where its layer is not held."""
    mover = p.to_move
    board = to_relative(p.pits, mover)
    seeds = int(board.sum())
    if layer_offset(seeds + 1) > min(bounds[0].shape[0], bounds[1].shape[0]):
        return False
    share = lookup(bounds[0] if mover == winner else bounds[1], board) if seeds else 0
    total = p.stores[winner] + (share if mover == winner else seeds - share)
    return 2 * total > p.stores[0] + p.stores[1] + seeds
