"""The opening book on disk: built here by our own search, mapped by the engine at start-up.

The format and the look-up are :mod:`core.engine.book` (no I/O); this module
enumerates the positions, runs the searches, and decides where the bytes go.

* :func:`build` walks every position reachable from the Abapa start in up
  to ``plies`` plies (one record per key: transpositions and mirrored boards
  are searched once), searches each with our engine for a fixed time or node
  count (endgame databases used when given), and writes the book. Every
  position searched is saved at once in ``PATH.partial`` (written to a
  temporary name and renamed, so it is always whole): a build that is
  stopped continues where it stopped when run again with the same budget.
  Records of an existing book at ``PATH`` made with the same budget are
  reused too, so a deeper book extends a shallower one. The finished book
  replaces ``PATH`` atomically and the partial file is removed.
* :func:`load` maps a book file (``numpy.memmap``, read-only): only the pages
  a look-up touches are read.

Where books live: the one shipped with the package (:func:`packaged_path`,
built by ``oware-companion book build``; the command is in
``docs/ENGINE.md``) and the user's own (:func:`user_path`, in the cache
directory), which wins when it exists (:func:`default_path`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import numpy as np
import numpy.typing as npt

from companion.endgame_store import cache_root
from companion.progress import Progress
from core.engine.analysis import analyze, make_searcher
from core.engine.book import (
    MILLISECONDS,
    NODES,
    Book,
    BookEntry,
    BookError,
    encode,
    position_key,
)
from core.position import Position

#: The book's file name (the shipped one and the user's).
FILE_NAME = "abapa-book.owb"


def packaged_path() -> Path:
    """The book shipped with the package (``companion/data/``)."""
    return Path(__file__).resolve().parent / "data" / FILE_NAME


def user_path(root: Path | None = None) -> Path:
    """The user's own book, in the cache directory (``book build``'s default output)."""
    return (root if root is not None else cache_root()) / "book" / FILE_NAME


def default_path(root: Path | None = None) -> Path | None:
    """The book the engine uses: the user's if built, else the shipped one (None: neither)."""
    for path in (user_path(root), packaged_path()):
        if path.exists():
            return path
    return None


def partial_path(path: Path) -> Path:
    """Where an unfinished build of ``path`` keeps the positions searched so far."""
    return path.with_name(path.name + ".partial")


def load(path: Path | None = None) -> Book | None:
    """Map the book at ``path`` (default: :func:`default_path`); None when there is none.

    Raises :class:`core.engine.book.BookError` for a file that is not a book.
    """
    where = path if path is not None else default_path()
    if where is None or not where.exists():
        return None
    if where.stat().st_size == 0:
        raise BookError(f"{where} is empty")
    return Book(np.memmap(where, dtype=np.uint8, mode="r"))


def positions(plies: int) -> list[Position]:
    """The positions reachable from the Abapa start in 0…``plies`` plies, one per key.

    In the order found (ply by ply, moves in pit order); finished games left out.

    >>> [len(positions(n)) for n in range(3)]
    [1, 7, 43]
    """
    if plies < 0:
        raise ValueError("plies must be zero or more")
    start = Position.initial()
    found = [start]
    seen = {position_key(start)}
    layer = [start]
    for _ in range(plies):
        following = []
        for position in layer:
            for pit in position.legal_moves():
                child = position.play(pit)
                key = position_key(child)
                if key in seen or child.is_over:
                    continue
                seen.add(key)
                following.append(child)
        found.extend(following)
        layer = following
    return found


@dataclass
class BuildReport:
    """What a :func:`build` run did."""

    total: int
    """Positions the book holds when finished."""
    reused: int
    """Taken from the partial file or an earlier book."""
    searched: int
    """Searched in this run."""
    finished: bool
    """The book was written (False: stopped at ``max_positions``; run again to go on)."""
    path: Path


def _write_atomically(path: Path, data: bytes) -> None:
    # named for this process: two builds of the same book must not write into one file
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def _reusable(path: Path, budget: int, kind: int, *, must_match: bool) -> list[BookEntry]:
    """Records of the book or partial file at ``path`` made with the same budget."""
    try:
        book = load(path)
    except BookError:
        if must_match:
            raise BookError(f"{path} is damaged; delete it to start the build again") from None
        return []
    if book is None:
        return []
    if (book.budget, book.budget_kind) != (budget, kind):
        if must_match:
            was = (
                f"{book.budget / 1000:g} s" if book.budget_kind == MILLISECONDS else "nodes"
            ) + " per position"
            raise ValueError(
                f"{path} was started with another budget ({book.budget} {was}); "
                "resume with the same one, or delete it to start again"
            )
        return []
    return list(book)


def build(
    plies: int,
    path: Path,
    *,
    seconds: float | None = None,
    nodes: int | None = None,
    database: npt.NDArray[np.uint8] | None = None,
    db_max: int = -1,
    max_positions: int | None = None,
    stream: TextIO | None = None,
    show_progress: bool = True,
    on_position: Callable[[Position, BookEntry], None] | None = None,
) -> BuildReport:
    """Build (or go on building) the book of every position up to ``plies`` plies into ``path``.

    Each position is searched for ``seconds`` or ``nodes`` (exactly one),
    with a cleared table, so a node budget gives the same book every time.
    ``max_positions`` stops this run after searching that many (the partial
    file keeps them; run again to go on). ``on_position`` sees each record made.
    """
    if (seconds is None) == (nodes is None):
        raise ValueError("give the search budget per position: seconds or nodes")
    if (seconds is not None and seconds <= 0) or (nodes is not None and nodes <= 0):
        raise ValueError("the budget per position must be positive")
    kind = MILLISECONDS if seconds is not None else NODES
    budget = round(seconds * 1000) if seconds is not None else int(nodes or 0)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = partial_path(path)
    targets = positions(plies)
    wanted = {position_key(p) for p in targets}
    done: dict[int, BookEntry] = {}
    for record in _reusable(path, budget, kind, must_match=False):
        if record.key in wanted:
            done[record.key] = record
    for record in _reusable(partial, budget, kind, must_match=True):
        if record.key in wanted:
            done[record.key] = record
    reused = len(done)
    todo = [p for p in targets if position_key(p) not in done]
    out = stream if stream is not None else sys.stderr
    bar = (
        Progress(len(targets), out, label="book", unit="positions", initial=reused)
        if show_progress
        else None
    )
    searcher = make_searcher(targets[0], database, db_max) if todo else None
    searched = 0
    try:
        for position in todo:
            if max_positions is not None and searched >= max_positions:
                break
            assert searcher is not None
            searcher.clear()
            found = analyze(
                position,
                seconds=seconds if kind == MILLISECONDS else None,
                nodes=nodes if kind == NODES else None,
                searcher=searcher,
                exact_all=False,
            )
            best = found.moves[0]
            record = BookEntry(
                position_key(position),
                best.pit - 6 * position.to_move,
                best.score,
                found.depth,
                found.solved,
            )
            done[record.key] = record
            searched += 1
            _write_atomically(
                partial, encode(done.values(), plies=plies, budget=budget, budget_kind=kind)
            )
            if on_position is not None:
                on_position(position, record)
            if bar is not None:
                bar.step(f"{position.to_text()} {best.name} d{found.depth}")
    finally:
        if bar is not None:
            bar.close()
    finished = len(done) == len(targets)
    if finished:
        _write_atomically(path, encode(done.values(), plies=plies, budget=budget, budget_kind=kind))
        partial.unlink(missing_ok=True)
    return BuildReport(len(targets), reused, searched, finished, path)
