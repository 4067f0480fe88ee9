"""Closing the game bounds of small layers with proofs (:mod:`core.engine.tighten`).

The brute force of ``history_game.py`` (every path of the game tree, the rules core
ending each repetition) is the arbiter on boards of 2 and 3 seeds.
"""

from __future__ import annotations

import numpy as np

from core.engine import retrograde
from core.engine.ranking import CUMULATIVE, layer_offset, rank
from core.engine.tighten import tighten_layer
from tests.engine.history_game import solved_boards


def _open(lows: np.ndarray, highs: np.ndarray, seeds: int) -> int:
    start, stop = layer_offset(seeds), layer_offset(seeds + 1)
    return int(np.count_nonzero(lows[start:stop] < highs[start:stop]))


def test_the_closed_values_are_the_brute_forces_and_the_layers_up_to_five_close() -> None:
    values = retrograde.build(5)
    lows, highs = retrograde.game_bounds(6)
    old_lows, old_highs = lows.copy(), highs.copy()
    assert [_open(lows, highs, n) for n in range(2, 6)] == [13, 64, 371, 278]
    for seeds in range(2, 6):
        retrograde.bound_layer(seeds, lows, highs)  # captures scored by the closed layers
        report = tighten_layer(seeds, lows, highs, values)
        assert report.closed + report.narrowed <= report.open_before
    # every layer closed: the layers of 2 to 4 seeds by proofs, and then the one of 5
    # by the bounds alone, its captures now exact
    assert [_open(lows, highs, n) for n in range(2, 6)] == [0, 0, 0, 0]
    # nothing left the old intervals
    assert (old_lows <= lows).all() and (highs <= old_highs).all()
    compared = 0
    for seeds in (2, 3):
        for board, south in solved_boards(seeds):
            at = layer_offset(seeds) + rank(np.array(board, dtype=np.int8), CUMULATIVE)
            assert lows[at] == highs[at] == south, (board, south, lows[at], highs[at])
            compared += 1
    assert compared >= 150, compared


def test_without_a_budget_a_board_stays_as_it_was() -> None:
    """(With a budget of one node, the attractors at the root alone close 9 of these.)"""
    values = retrograde.build(4)
    lows, highs = retrograde.game_bounds(5)
    for seeds in range(2, 4):
        tighten_layer(seeds, lows, highs, values)
    retrograde.bound_layer(4, lows, highs)
    before = _open(lows, highs, 4)
    report = tighten_layer(4, lows, highs, values, max_nodes=0)
    assert report.open_before == before and report.closed == 0
    assert _open(lows, highs, 4) == before
