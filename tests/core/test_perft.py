"""Perft: the number of move sequences of length d from the initial Abapa position."""

from __future__ import annotations

import pytest

from core import Position


def perft(p: Position, depth: int) -> int:
    if depth == 0:
        return 1
    return sum(perft(p.play(m), depth - 1) for m in p.legal_moves())


@pytest.mark.parametrize(
    ("depth", "expected"),
    [(1, 6), (2, 36), (3, 190), (4, 1014), (5, 5219), (6, 27332), (7, 139157)],
)
def test_perft_initial_abapa(depth: int, expected: int) -> None:
    assert perft(Position.initial("abapa"), depth) == expected
