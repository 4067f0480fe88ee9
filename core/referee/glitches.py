"""One sensor cell misread for one reading: found when the next reading is back, and unsaid.

A source whose noise changes frame to frame (a sensor board under the pits) now and
then reads one pit one seed off for a single reading. That reading is evidence like any
other, and it can fit a mistake better than the truth: one seed seen for a tenth of a
second in the pit a player's sowing skipped makes "the move sown right, then that pit
lifted out of turn" the likelier story, though the seed was never there. Play never
puts a seed in a pit and takes it out again before the next reading (the quickest
lift comes two readings after the last seed lands, ``tracker.QUICKEST_LIFT``, though
a quick player may beat it), so a pit that changed by one seed for exactly one reading,
the rest of the board as it was, is taken for the cell's noise: the referee weighs that
reading again with the pit unseen (:func:`unseen`). Unless play explains it: a seed
that lands last in a pit of the player to move next, who lifts it at once.

>>> glitched_pit((1, 0, 4), (1, 1, 4), (1, 0, None))
1
>>> glitched_pit((1, 0, 4), (1, 1, 5), (1, 0, 5)) is None  # two pits changed: play
True
>>> glitched_pit((1, 0, 4), (1, 2, 4), (1, 0, 4)) is None  # two seeds: not one cell's noise
True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from core.referee.tracker import Evidence

Board = Sequence[int | None]


def changed_pit(before: Board, reading: Board) -> int | None:
    """The one pit whose count ``reading`` shows one seed off ``before``, no other pit seen
    in both having changed; otherwise None.

    >>> changed_pit((1, 0, 4), (1, 1, None))
    1
    >>> changed_pit((1, 0, 4), (1, 1, 5)) is None
    True
    """
    changed = [
        i
        for i, (a, b) in enumerate(zip(before, reading, strict=True))
        if a is not None and b is not None and a != b
    ]
    if len(changed) != 1:
        return None
    a, b = before[changed[0]], reading[changed[0]]
    assert a is not None and b is not None
    return changed[0] if abs(b - a) == 1 else None


def glitched_pit(before: Board, reading: Board, after: Board) -> int | None:
    """The pit that ``reading`` alone showed one seed off (:func:`changed_pit`), between
    two readings that agree on it (``before`` and ``after``, each pit's likeliest count,
    None where unseen); otherwise None."""
    i = changed_pit(before, reading)
    if i is None or after[i] is None or after[i] != before[i]:
        return None
    return i


def unseen(ev: Evidence, pit: int) -> Evidence:
    """``ev`` with ``pit`` out of view: its reading tells nothing."""
    table = ev.table.copy()
    table[pit] = 0.0
    visible = ev.visible.copy()
    visible[pit] = False
    fresh = ev.fresh.copy()
    fresh[pit] = False
    return dataclasses.replace(ev, table=table, visible=visible, fresh=np.asarray(fresh))
