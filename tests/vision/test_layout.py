"""Pit numbering in the rectified view follows ARCHITECTURE.md (sowing order)."""

import pytest

from vision.geometry.layout import BoardLayout


def test_sowing_order_runs_counter_clockwise() -> None:
    lay = BoardLayout()
    cells = [lay.cell_of(p) for p in range(12)]
    # South (row 1) left to right, then North (row 0) right to left.
    assert cells[:6] == [(1, c) for c in range(6)]
    assert cells[6:] == [(0, c) for c in range(5, -1, -1)]
    # Consecutive pits are neighbours, except across the ends of the rows.
    for p in range(11):
        (r0, c0), (r1, c1) = cells[p], cells[p + 1]
        assert abs(r0 - r1) + abs(c0 - c1) == 1


def test_geometry_and_json() -> None:
    lay = BoardLayout(cell=50)
    assert lay.size == (300, 100)
    assert lay.centre(0) == (25.0, 75.0)
    assert lay.box(6) == (250, 0, 300, 50)
    assert BoardLayout.from_json(lay.to_json()) == lay
    with pytest.raises(ValueError, match="pit 12"):
        lay.cell_of(12)
