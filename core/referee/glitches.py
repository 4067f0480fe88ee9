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
reading (:data:`MOST_CELLS` at most; other pits may have changed for good) are taken
for the cells' noise: the referee weighs that reading again with those pits unseen
(:func:`unseen`). Unless play explains it: a seed that lands last in a pit of the
player to move next, who lifts it at once (the referee says which pits, ``played``).

>>> glitched_pits((1, 0, 4), (1, 1, 4), (1, 0, None))
(1,)
>>> glitched_pits((1, 0, 4), (2, 1, 4), (1, 0, 4))
(0, 1)
>>> glitched_pits((1, 0, 4), (1, 1, 5), (1, 0, 5))  # the third pit's seed stayed
(1,)
>>> glitched_pits((1, 0, 4), (1, 1, 4), (1, 0, 4), played=[1]) is None  # lifted at once
True
>>> glitched_pits((1, 0, 4), (1, 2, 4), (1, 0, 4)) is None  # two seeds: not a cell's noise
True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Sequence

import numpy as np

from core.referee.tracker import Evidence

Board = Sequence[int | None]

#: Cells misread in one reading that are still taken for noise. Three at once are rarer
#: than any mistake a player makes (each cell is off in about one reading of a hundred).
MOST_CELLS = 2


def changed_pits(before: Board, reading: Board) -> tuple[int, ...]:
    """The pits seen in both whose count ``reading`` shows changed from ``before``.

    >>> changed_pits((1, 0, 4), (1, 1, None))
    (1,)
    """
    return tuple(
        i
        for i, (a, b) in enumerate(zip(before, reading, strict=True))
        if a is not None and b is not None and a != b
    )


def glitched_pits(
    before: Board, reading: Board, after: Board, played: Collection[int] = ()
) -> tuple[int, ...] | None:
    """The pits (one to :data:`MOST_CELLS`) that ``reading`` alone showed one seed off,
    between two readings that agree on each (``before`` and ``after``, each pit's
    likeliest count, None where unseen), but for those in ``played`` (seeds play put
    there, that the next player may have lifted at once); None if there are none. Other
    pits may have changed for good meanwhile (a hand at work)."""
    pits = tuple(
        i
        for i in changed_pits(before, reading)
        if after[i] is not None
        and after[i] == before[i]
        and abs(int(reading[i] or 0) - int(before[i] or 0)) == 1
        and i not in played
    )
    return pits if 1 <= len(pits) <= MOST_CELLS else None


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
