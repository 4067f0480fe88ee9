"""Finding the game again: which known position a still board shows.

When no history in the tracker explains the board, the referee says so once
and keeps looking (:mod:`core.referee.referee`). The board may show

* a position a few moves on from the last certain one (moves played while the
  board could not be read, or while a person's correction disagreed with it);
* the start of a new game (the players started again);
* the position a person set, or the one before a correction they made.

Each of those is an *anchor*; :func:`search` scores every line of up to
``depth`` moves from each anchor against the reading and returns the one that
explains it clearly, if any.

>>> from core import Position
>>> from core.referee.likelihood import log_likelihood_table
>>> start = Position.initial()
>>> seen = start.play(5).play(6).pits
>>> found = search([Anchor("root", start, 3)], log_likelihood_table(seen, 48))
>>> found.anchor.name, found.line
('root', (5, 6))
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from core.position import Position
from core.referee.likelihood import explains, score_boards

#: Log prior of each move of a line (more unseen moves are less likely).
PER_MOVE = -1.5
#: How far a line's fit may fall below the reading's own best board.
FLOOR = -8.0
#: How much better than any other board the found one must explain the reading.
MARGIN = 3.0


@dataclass(frozen=True, slots=True)
class Anchor:
    """A position the board may show, or have gone on from by up to ``depth`` moves."""

    name: str
    """``root``, ``before`` (the position before a person's correction) or ``start``."""
    position: Position
    depth: int


@dataclass(frozen=True, slots=True)
class Found:
    anchor: Anchor
    line: tuple[int, ...]
    position: Position
    score: float


def lines(pos: Position, depth: int) -> Iterator[tuple[tuple[int, ...], Position]]:
    """The position itself and every line of up to ``depth`` legal moves from it."""
    yield (), pos
    frontier: list[tuple[tuple[int, ...], Position]] = [((), pos)]
    for _ in range(depth):
        nxt: list[tuple[tuple[int, ...], Position]] = []
        for line, p in frontier:
            if p.is_over:
                continue
            for m in p.legal_moves():
                q = p.play(m)
                nxt.append(((*line, m), q))
                yield (*line, m), q
        frontier = nxt


#: The lines of the anchors searched last, by position object and depth: the same anchors
#: are searched at every still board while the game is lost, and listing a line of four
#: moves from a position (1,555 positions) costs more than scoring them.
_CACHE_SIZE = 8
_cache: OrderedDict[
    tuple[int, int],
    tuple[Position, list[tuple[tuple[int, ...], Position]], npt.NDArray[np.int64]],
] = OrderedDict()
_cache_lock = threading.Lock()


def _lines_of(
    pos: Position, depth: int
) -> tuple[list[tuple[tuple[int, ...], Position]], npt.NDArray[np.int64]]:
    """:func:`lines` of ``pos`` as a list, and their boards; kept for the same position
    object (not an equal one: whether a line ends the game may depend on its history)."""
    key = (id(pos), depth)
    with _cache_lock:
        hit = _cache.get(key)
        if hit is not None and hit[0] is pos:
            _cache.move_to_end(key)
            return hit[1], hit[2]
    listed = list(lines(pos, depth))
    boards = np.array([q.pits for _, q in listed], dtype=np.int64).reshape(len(listed), -1)
    with _cache_lock:
        _cache[key] = (pos, listed, boards)
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return listed, boards


def search(
    anchors: Sequence[Anchor],
    table: npt.NDArray[np.float64],
    *,
    floor: float = FLOOR,
    margin: float = MARGIN,
) -> Found | None:
    """The line from an anchor whose position explains the reading ``table`` clearly."""
    found: list[tuple[Anchor, tuple[int, ...], Position]] = []
    parts: list[npt.NDArray[np.int64]] = []
    for anchor in anchors:
        listed, boards_of = _lines_of(anchor.position, anchor.depth)
        found.extend((anchor, line, q) for line, q in listed)
        parts.append(boards_of)
    if not found:
        return None
    boards = np.concatenate(parts)
    fits = score_boards(table, boards) - float(table.max(axis=1).sum())
    scores = fits + PER_MOVE * np.array([len(line) for _, line, _ in found])
    order = np.argsort(-scores, kind="stable")
    best = int(order[0])
    top = float(scores[best])
    seen = tuple(int(c) for c in table.argmax(axis=1))
    seen_or_none = tuple(None if not table[i].any() else c for i, c in enumerate(seen))
    if not explains(-float(fits[best]), found[best][2].pits, seen_or_none, floor):
        return None
    runner = next(
        (float(scores[i]) for i in order[1:] if found[int(i)][2].pits != found[best][2].pits),
        float("-inf"),
    )
    if top - runner < margin:
        return None
    anchor, line, q = found[best]
    return Found(anchor, line, q, top)
