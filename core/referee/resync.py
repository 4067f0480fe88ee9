"""Finding the game again: which known position a still board shows.

When no history in the tracker explains the board, the referee says so once
and keeps looking (:mod:`core.referee.referee`). The board may show

* a position a few moves on from the last certain one (moves played while the
  board could not be read, or while a person's correction disagreed with it);
* the start of a new game (the players started again);
* the position a person set, or the one before a correction they made;
* the game as confirmed, but with two quick moves in a row that were never seen
  (put in anywhere among the last moves confirmed): one misread pile can
  hide two one-seed moves, and the game then runs on a seed off until no line
  from the position taken explains the board (:func:`missed_pairs`).

Each of the first three is an *anchor*; :func:`search` scores every line of up
to ``depth`` moves from each anchor, and every line of the last kind it is
given, against the reading and returns the one that explains it clearly, if
any.

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
#: The most seeds a move the referee never saw can have sown: a one-seed move changes
#: two pits by a seed each, which one misread pile can hide; a longer sowing is seen.
HIDDEN_SEEDS = 1


@dataclass(frozen=True, slots=True)
class Anchor:
    """A position the board may show, or have gone on from by up to ``depth`` moves."""

    name: str
    """``root``, ``before`` (the position before a person's correction), ``start``, or
    ``earlier`` (a position the game's record went through: :func:`missed_pairs`)."""
    position: Position
    depth: int
    ply: int | None = None
    """For ``earlier``: the moves of the record before it."""


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


@dataclass(frozen=True, slots=True)
class Rewrites:
    """Lines that rewrite the game's record (:func:`missed_pairs`), listed once while the
    game is lost and scored at every still board: each with the moves it adds, which
    alone pay :data:`PER_MOVE` (the record's own moves were seen)."""

    found: list[tuple[Anchor, tuple[int, ...], Position]]
    boards: npt.NDArray[np.int64]
    added: npt.NDArray[np.int64]

    @classmethod
    def of(
        cls, listed: Sequence[tuple[Anchor, tuple[int, ...], Position, int]], pits: int
    ) -> Rewrites:
        boards = np.array([q.pits for _, _, q, _ in listed], dtype=np.int64)
        return cls(
            [(a, line, q) for a, line, q, _ in listed],
            boards.reshape(len(listed), pits),
            np.array([n for *_, n in listed], dtype=np.int64),
        )


def missed_pairs(
    record: Sequence[tuple[Position, int]], depth: int
) -> list[tuple[Anchor, tuple[int, ...], Position, int]]:
    """The game's ``record`` (each confirmed move with the position it was played from,
    oldest first) played again with two moves more in a row put in at one point (in a
    two-player game, a move of each player: two quick moves never seen), each of at most
    :data:`HIDDEN_SEEDS` seeds, and then up to ``depth`` moves on: each as an ``earlier``
    anchor at the point the two went in, the line from there, its position, and the
    moves it adds. A line whose record moves are no longer legal is left out.

    >>> from core import Position
    >>> before = Position.from_text("1-0-0-0-0-4-1-0-0-0-0-4-17-21-S")
    >>> [(a.ply, line) for a, line, _, _ in missed_pairs([(before, 5)], 0)]
    [(0, (0, 6, 5)), (1, (7, 0)), (1, (8, 0)), (1, (9, 0))]

    Before F, only A and a hold one seed; after it, North's one-seed pits are b, c and d
    and South's A.
    """
    out: list[tuple[Anchor, tuple[int, ...], Position, int]] = []
    if not record:
        return out
    moves = [m for _, m in record]
    last, m = record[-1]
    for i, p in enumerate([*(p for p, _ in record), last.play(m)]):
        for x, y in _hidden_pairs(p):
            q = _replayed(p.play(x).play(y), moves[i:])
            if q is None:
                continue
            head = (x, y, *moves[i:])
            anchor = Anchor("earlier", p, len(head) + depth, ply=i)
            out.extend((anchor, (*head, *tail), e, 2 + len(tail)) for tail, e in lines(q, depth))
    return out


def _hidden_pairs(p: Position) -> Iterator[tuple[int, int]]:
    """Two moves in a row from ``p`` that the camera may not have seen."""
    if p.is_over:
        return
    for x in p.legal_moves():
        if p.pits[x] > HIDDEN_SEEDS:
            continue
        q = p.play(x)
        if q.is_over:
            continue
        yield from ((x, y) for y in q.legal_moves() if q.pits[y] <= HIDDEN_SEEDS)


def _replayed(p: Position, moves: Sequence[int]) -> Position | None:
    """``moves`` played on from ``p``, if they all still are legal there."""
    for m in moves:
        if p.is_over or m not in p.legal_moves():
            return None
        p = p.play(m)
    return p


def search(
    anchors: Sequence[Anchor],
    table: npt.NDArray[np.float64],
    *,
    floor: float = FLOOR,
    margin: float = MARGIN,
    rewrites: Rewrites | None = None,
) -> Found | None:
    """The line from an anchor, or among ``rewrites``, whose position explains the
    reading ``table`` clearly."""
    found: list[tuple[Anchor, tuple[int, ...], Position]] = []
    parts: list[npt.NDArray[np.int64]] = []
    added: list[int] = []
    for anchor in anchors:
        listed, boards_of = _lines_of(anchor.position, anchor.depth)
        found.extend((anchor, line, q) for line, q in listed)
        parts.append(boards_of)
        added.extend(len(line) for line, _ in listed)
    if rewrites is not None and rewrites.found:
        found.extend(rewrites.found)
        parts.append(rewrites.boards)
        added.extend(rewrites.added.tolist())
    if not found:
        return None
    boards = np.concatenate(parts)
    fits = score_boards(table, boards) - float(table.max(axis=1).sum())
    scores = fits + PER_MOVE * np.array(added)
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
