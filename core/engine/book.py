"""The opening book's format: sorted position keys, and the move a deep search chose.

A book is for **Abapa** (the rule set whose grand slam captures nothing and
whose first repetition ends the game, as :func:`book_applies` checks): each
record holds a position's key, the move the search chose there, its score
and the depth it reached. ``companion.engine_book`` builds books with our
own search and maps them from disk; this module only turns records into
bytes and looks positions up in any buffer (``bytes``, an ndarray, a
``numpy.memmap``), without copying it.

The bytes (little-endian): a :data:`HEADER` of 32 bytes, then two columns
of ``count`` rows each, in ascending key order:

* ``keys``: ``uint64`` each, so a lookup is one :func:`numpy.searchsorted`
  over the mapped column (only the pages it touches are read);
* ``entries``: :data:`ENTRY`, 8 bytes each: ``score`` (int32, centi-seeds
  for the side to move, beyond ±WIN for a proven result, as the search
  gives them), ``move`` (the side to move's own pit, 0-5), ``depth``
  (plies searched), ``flags`` (bit 0: solved, every line searched to its end).

Keys (:func:`board_key`) are exact, not hashed, so two positions never share
one, and stable across runs and machines (they do not use Python's
``hash``). A position is seen from the side to move, its own pits first, as
the search's table sees it: South to move and the mirrored board with North
to move share a key and a record, which the symmetric rules make sound.
The 64 bits, from the lowest:

* bits 0-40: the board's index among all boards of at most 48 seeds: the
  boards with fewer seeds, then the board's rank among those with as many
  (:mod:`core.engine.ranking`);
* bits 41-46: the side to move's store; bits 47-52: the other store;
* bits 56-63: the rule set, :data:`ABAPA` (1).

>>> from core import Position
>>> start = Position.initial()
>>> hex(position_key(start))
'0x100012d6eaa5a42'
>>> after = start.play(5)
>>> record = BookEntry(position_key(start), move=5, score=30, depth=18, solved=False)
>>> data = encode([record], plies=0, budget=2000, budget_kind=MILLISECONDS)
>>> len(data)
48
>>> book = Book(data)
>>> len(book), book.plies, book.seconds
(1, 0, 2.0)
>>> book.probe(start)
BookMove(pit=5, score=30, depth=18, solved=False)
>>> book.probe(after) is None
True
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from core.engine.analysis import database_applies
from core.engine.kernel import to_relative
from core.engine.ranking import CUMULATIVE, MAX_SEEDS, layer_offset, rank, unrank_into
from core.position import Position
from core.rules import get_rules

#: The rule-set tag of Abapa keys (bits 56-63).
ABAPA = 1

#: The header's first bytes: the format's name and version.
MAGIC = b"OWBOOK01"

#: ``budget_kind``: the budget per position was a time in milliseconds, or a node count.
MILLISECONDS, NODES = 0, 1

HEADER = np.dtype(
    [
        ("magic", "S8"),
        ("count", "<u4"),
        ("rules", "<u2"),
        ("plies", "<u2"),
        ("budget", "<u8"),
        ("budget_kind", "u1"),
        ("reserved", "V7"),
    ]
)
"""32 bytes: format, record count, rule set, plies from the start, search budget."""

ENTRY = np.dtype(
    [("score", "<i4"), ("move", "u1"), ("depth", "u1"), ("flags", "u1"), ("reserved", "u1")]
)
"""8 bytes per position: what the search found there."""

KEY = np.dtype("<u8")

#: ``flags`` bit: the score is the game's value (every line was searched to its end).
SOLVED = 1

_BOARD_BITS = 41
_STORE_BITS = 6
_RULES_SHIFT = 56


class BookError(ValueError):
    """Bytes that are not a book of this format."""


@dataclass(frozen=True)
class BookEntry:
    """One record as stored: the key and the side to move's own pit (0-5)."""

    key: int
    move: int
    score: int
    depth: int
    solved: bool


@dataclass(frozen=True)
class BookMove:
    """A book's answer for a position: the pit to play (absolute, 0-11) and its figures."""

    pit: int
    score: int
    depth: int
    solved: bool


def book_applies(position: Position) -> bool:
    """Whether a book holds this position's rule set (Abapa, as the endgame databases)."""
    return position.players == 2 and database_applies(position)


def board_key(board: npt.ArrayLike, mine: int, theirs: int) -> int:
    """The key of a mover-relative board (the side to move's pits first) and both stores."""
    cells = np.asarray(board, dtype=np.int64)
    if cells.shape != (12,) or cells.min() < 0:
        raise ValueError("a board is 12 pits of zero or more seeds")
    seeds = int(cells.sum())
    limit = 1 << _STORE_BITS
    if seeds > MAX_SEEDS or not (0 <= mine < limit and 0 <= theirs < limit):
        raise ValueError(f"not an Oware board: {seeds} seeds on it, stores {mine} and {theirs}")
    index = layer_offset(seeds) + int(rank(cells.astype(np.int8), CUMULATIVE))
    return (
        (ABAPA << _RULES_SHIFT)
        | (theirs << (_BOARD_BITS + _STORE_BITS))
        | (mine << _BOARD_BITS)
        | index
    )


def position_key(position: Position) -> int:
    """The key of an Abapa position (see the module's docstring); raises for other rules.

    >>> from core import Position
    >>> north = Position.from_text("4-4-4-4-4-0-5-5-5-5-4-4-0-0-N")  # after F
    >>> position_key(north) == position_key(Position.from_text("5-5-5-5-4-4-4-4-4-4-4-0-0-0-S"))
    True
    """
    if not book_applies(position):
        raise ValueError(f"the opening book is for Abapa, not {position.rules}")
    mover = position.to_move
    return board_key(
        to_relative(position.pits, mover), position.stores[mover], position.stores[1 - mover]
    )


def decode_key(key: int) -> tuple[npt.NDArray[np.int8], int, int]:
    """The mover-relative board and the two stores (mover's first) a key stands for.

    >>> board, mine, theirs = decode_key(position_key(Position.initial()))
    >>> board.tolist(), mine, theirs
    ([4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4], 0, 0)
    """
    if key >> _RULES_SHIFT != ABAPA:
        raise ValueError(f"{key:#x} is not the key of an Abapa position")
    mask = (1 << _STORE_BITS) - 1
    mine = (key >> _BOARD_BITS) & mask
    theirs = (key >> (_BOARD_BITS + _STORE_BITS)) & mask
    index = key & ((1 << _BOARD_BITS) - 1)
    seeds = 0
    while seeds < MAX_SEEDS and layer_offset(seeds + 1) <= index:
        seeds += 1
    board = np.zeros(12, dtype=np.int8)
    unrank_into(index - layer_offset(seeds), seeds, CUMULATIVE, board)
    return board, int(mine), int(theirs)


def key_position(key: int) -> Position:
    """The position a key stands for, South to move (keys are seen from the side to move)."""
    board, mine, theirs = decode_key(key)
    return Position(get_rules("abapa"), [int(x) for x in board], [mine, theirs], 0)


def encode(
    records: Iterable[BookEntry], *, plies: int, budget: int, budget_kind: int = MILLISECONDS
) -> bytes:
    """The bytes of a book holding ``records`` (in any order; keys must differ).

    ``plies``: how far from the start the builder went; ``budget`` the search
    time (milliseconds) or nodes per position, as ``budget_kind`` says.
    """
    rows = sorted(records, key=lambda r: r.key)
    keys = np.array([r.key for r in rows], dtype=KEY)
    if len(rows) > 1 and bool(np.any(keys[1:] == keys[:-1])):
        raise ValueError("two records for one position")
    entries = np.zeros(len(rows), dtype=ENTRY)
    for i, r in enumerate(rows):
        if not 0 <= r.move < 6:
            raise ValueError(f"move {r.move} is not a pit of the side to move (0-5)")
        entries[i] = (r.score, r.move, r.depth, SOLVED if r.solved else 0, 0)
    header = np.zeros(1, dtype=HEADER)
    header[0] = (MAGIC, len(rows), ABAPA, plies, budget, budget_kind, b"\0" * 7)
    return header.tobytes() + keys.tobytes() + entries.tobytes()


class Book:
    """A book read from a buffer (bytes, an ndarray of bytes, a memory map), not copied."""

    def __init__(self, buffer: Any) -> None:
        if isinstance(buffer, np.ndarray) and buffer.dtype == np.uint8 and buffer.ndim == 1:
            raw = buffer  # a memory map stays one: its slices and views map the file too
        else:
            raw = np.frombuffer(buffer, dtype=np.uint8)
        if raw.shape[0] < HEADER.itemsize:
            raise BookError("too short for a book's header")
        head = raw[: HEADER.itemsize].view(HEADER)[0]
        if bytes(head["magic"]) != MAGIC:
            raise BookError("not an opening book of this format (its first bytes differ)")
        if int(head["rules"]) != ABAPA:
            raise BookError(f"a book for rule set {int(head['rules'])}, not Abapa")
        count = int(head["count"])
        start = HEADER.itemsize
        middle = start + count * KEY.itemsize
        end = middle + count * ENTRY.itemsize
        if raw.shape[0] != end:
            raise BookError(f"{raw.shape[0]} bytes where {count} records take {end}")
        self.plies = int(head["plies"])
        self.budget = int(head["budget"])
        self.budget_kind = int(head["budget_kind"])
        self.keys: npt.NDArray[np.uint64] = raw[start:middle].view(KEY)
        self.entries: npt.NDArray[np.void] = raw[middle:end].view(ENTRY)
        if count > 1 and not bool(np.all(self.keys[1:] > self.keys[:-1])):
            raise BookError("the keys are not in ascending order")

    def __len__(self) -> int:
        return int(self.keys.shape[0])

    @property
    def seconds(self) -> float | None:
        """Search time per position when the budget was a time, else None."""
        return self.budget / 1000 if self.budget_kind == MILLISECONDS else None

    def find(self, key: int) -> BookEntry | None:
        """The record of ``key``, or None (a binary search over the keys)."""
        i = int(np.searchsorted(self.keys, np.uint64(key)))
        if i >= len(self) or int(self.keys[i]) != key:
            return None
        return self._entry(i)

    def probe(self, position: Position) -> BookMove | None:
        """The book's move in ``position`` (None: not in the book, or not Abapa, or over)."""
        if not book_applies(position) or position.is_over:
            return None
        try:
            key = position_key(position)
        except ValueError:
            return None
        found = self.find(key)
        if found is None:
            return None
        return BookMove(found.move + 6 * position.to_move, found.score, found.depth, found.solved)

    def __iter__(self) -> Iterator[BookEntry]:
        """Every record, in key order."""
        return (self._entry(i) for i in range(len(self)))

    def _entry(self, i: int) -> BookEntry:
        e = self.entries[i]
        return BookEntry(
            int(self.keys[i]),
            int(e["move"]),
            int(e["score"]),
            int(e["depth"]),
            bool(int(e["flags"]) & SOLVED),
        )
