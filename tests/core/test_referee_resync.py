"""The search for the game when it is lost (core.referee.resync)."""

from __future__ import annotations

from core.position import Position
from core.referee import resync
from core.referee.likelihood import log_likelihood_table
from core.referee.resync import Anchor, search


def test_lines_are_listed_once_per_position_object_and_found_the_same() -> None:
    start = Position.initial()
    table = log_likelihood_table(start.play(5).play(6).pits, 48)
    first = search([Anchor("root", start, 3)], table)
    assert first is not None and first.line == (5, 6)
    listed, boards = resync._lines_of(start, 3)
    again, boards_again = resync._lines_of(start, 3)
    # the same anchor, searched at every still board while the game is lost: listed once
    assert again is listed and boards_again is boards
    assert len(listed) == len(list(resync.lines(start, 3))) and boards.shape == (len(listed), 12)
    # an equal position is another object (its history may end lines otherwise): listed anew
    other = Position.initial()
    assert resync._lines_of(other, 3)[0] is not listed
    assert search([Anchor("root", other, 3)], table) == first
    # a line's position and board agree, whichever way it was listed
    for (line, q), row in zip(listed, boards, strict=True):
        assert tuple(row) == q.pits
        p = start
        for m in line:
            p = p.play(m)
        assert p == q
