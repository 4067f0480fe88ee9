"""Sensor cells misread for one reading: found when the next reading has them back, and unsaid.

A source whose noise changes frame to frame (a sensor board under the pits) now and
then reads a pit one seed off for a single reading, and now and then two in the same
reading. That reading is evidence like any other, and it can fit a mistake better than
the truth: one seed seen for a tenth of a second in the pit a player's sowing skipped
makes "the move sown right, then that pit lifted out of turn" the likelier story,
though the seed was never there; two cells off together can read as a seed sown the
wrong way. Play never puts a seed in a pit and takes it out again before the next
reading (the quickest lift comes two readings after the last seed lands,
``tracker.QUICKEST_LIFT``, though a quick player may beat it), nor moves seeds and
puts them back that fast, so pits that changed by one seed each for exactly one
reading (:data:`MOST_CELLS` at most), the rest of the board as it was, are taken for
the cells' noise: the referee weighs that reading again with those pits unseen
(:func:`unseen`). Unless play explains it: a seed that lands last in a pit of the
player to move next, who lifts it at once (the referee checks that).

>>> glitched_pits((1, 0, 4), (1, 1, 4), (1, 0, None))
(1,)
>>> glitched_pits((1, 0, 4), (2, 1, 4), (1, 0, 4))
(0, 1)
>>> glitched_pits((1, 0, 4), (1, 1, 5), (1, 0, 5)) is None  # e stayed: play
True
>>> glitched_pits((1, 0, 4), (1, 2, 4), (1, 0, 4)) is None  # two seeds: not a cell's noise
True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from core.referee.tracker import Evidence

Board = Sequence[int | None]

#: Cells misread in one reading that are still taken for noise. Three at once are rarer
#: than any mistake a player makes (each cell is off in about one reading of a hundred).
MOST_CELLS = 2


def changed_pits(before: Board, reading: Board) -> tuple[int, ...] | None:
    """The pits (one or two) whose count ``reading`` shows one seed off ``before``, no
    other pit seen in both having changed; otherwise None.

    >>> changed_pits((1, 0, 4), (1, 1, None))
    (1,)
    >>> changed_pits((1, 0, 4), (0, 1, 5)) is None
    True
    """
    changed = tuple(
        i
        for i, (a, b) in enumerate(zip(before, reading, strict=True))
        if a is not None and b is not None and a != b
    )
    if not 1 <= len(changed) <= MOST_CELLS:
        return None
    for i in changed:
        a, b = before[i], reading[i]
        assert a is not None and b is not None
        if abs(b - a) != 1:
            return None
    return changed


def glitched_pits(before: Board, reading: Board, after: Board) -> tuple[int, ...] | None:
    """The pits that ``reading`` alone showed one seed off (:func:`changed_pits`), between
    two readings that agree on each (``before`` and ``after``, each pit's likeliest count,
    None where unseen); otherwise None."""
    pits = changed_pits(before, reading)
    if pits is None or any(after[i] is None or after[i] != before[i] for i in pits):
        return None
    return pits


def unseen(ev: Evidence, pits: Sequence[int]) -> Evidence:
    """``ev`` with ``pits`` out of view: their readings tell nothing."""
    table = ev.table.copy()
    visible = ev.visible.copy()
    fresh = ev.fresh.copy()
    for pit in pits:
        table[pit] = 0.0
        visible[pit] = False
        fresh[pit] = False
    return dataclasses.replace(ev, table=table, visible=visible, fresh=np.asarray(fresh))
