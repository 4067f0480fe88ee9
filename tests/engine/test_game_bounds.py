"""The databases' game bounds (:func:`core.engine.retrograde.game_bounds`) against the
exact value of small boards under the real cycle rule, found by brute force."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import numpy as np
import pytest

from core.engine import retrograde
from core.engine.ranking import CUMULATIVE, layer_offset, rank
from tests.engine.brute_force import boards
from tests.engine.history_game import exact_value


@pytest.fixture
def deep_recursion() -> Iterator[None]:
    """The brute force recurses once per move of a segment (hundreds at 3 seeds)."""
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(max(before, 20_000))
    yield
    sys.setrecursionlimit(before)


def at(board: tuple[int, ...]) -> int:
    return layer_offset(sum(board)) + rank(np.array(board, dtype=np.int8), CUMULATIVE)


def test_the_convention_is_not_the_game_value_but_the_bounds_hold_it(
    deep_recursion: None,
) -> None:
    """South has a seed in B and one in F, North none: the databases' convention gives
    South both (the cycle closed where it is scored), the cycle rule one."""
    board = (0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0)
    values = retrograde.build(2)
    lows, highs = retrograde.game_bounds(3)
    assert exact_value(board) == 1
    assert values[at(board)] == 2
    assert lows[at(board)] <= 1 <= highs[at(board)]


def test_the_game_bounds_hold_the_exact_value_of_small_boards(deep_recursion: None) -> None:
    lows, highs = retrograde.game_bounds(4)
    solved = 0
    for n in (1, 2, 3):
        for board in boards(n):
            value = exact_value(board, budget=3000)
            if value is None:
                continue  # a tree too big for the budget
            solved += 1
            assert lows[at(board)] <= value <= highs[at(board)], board
    assert solved >= 12 + 78 + 150, solved


def test_the_game_bounds_are_looser_than_the_one_layer_bounds_they_contain() -> None:
    """The one-layer bounds score captures by the stored values (which may rest on the
    convention), the game bounds by the lower layers' own bounds."""
    values = retrograde.build(8)
    lows, highs = retrograde.game_bounds(9)
    low1, high1 = retrograde.cycle_bounds(values, 9)
    assert (lows <= low1).all() and (high1 <= highs).all()
    assert (lows < low1).any() or (high1 < highs).any()


def test_from_11_seeds_the_lower_layers_convention_leaves_positions_open() -> None:
    """No value of the 11-seed layer rests on a cycle of its own, but its captures lead
    into layers whose values may: the game bounds leave most of it open."""
    lows, highs = retrograde.game_bounds(12)
    start, stop = layer_offset(11), layer_offset(12)
    assert int((lows[start:stop] < highs[start:stop]).sum()) > (stop - start) // 2
