"""``oware-companion book``: build the opening book with our own search, or say which is used.

Examples::

    oware-companion book build --plies 3 --seconds 2          # into the cache directory
    oware-companion book build --plies 3 --seconds 2 --out companion/data/abapa-book.owb
    oware-companion book status

``build`` is resumable: stop it at any time (or give ``--max-positions``) and
run the same command again. The engine (``oware-companion engine``) answers
from the user's book when there is one, else from the book shipped with the
package; see :mod:`companion.engine_book`.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from companion import endgame_store, engine_book
from companion.commands.numbers import at_least_one


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``book build`` and ``book status`` to the command line."""
    p = subparsers.add_parser("book", help="the engine's opening book (Abapa)")
    sub = p.add_subparsers(dest="book_command", metavar="ACTION", required=True)
    b = sub.add_parser(
        "build",
        help="search every position up to N plies from the start and store the moves (resumable)",
        description="Search every position reachable from the Abapa start in up to N plies "
        "with our engine and store its move, score and depth in a book file. Interrupt at "
        "any time: the same command resumes.",
    )
    b.add_argument(
        "--plies", type=int, required=True, metavar="N", help="plies from the start (3: 233)"
    )
    budget = b.add_mutually_exclusive_group(required=True)
    budget.add_argument("--seconds", type=float, metavar="S", help="search time per position")
    budget.add_argument(
        "--nodes", type=int, metavar="N", help="nodes per position (the same book every time)"
    )
    b.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="PATH",
        help=f"book file (default: {engine_book.user_path()})",
    )
    b.add_argument(
        "--max-positions",
        type=at_least_one,
        default=None,
        metavar="N",
        help="search at most N positions in this run (the next run goes on)",
    )
    b.add_argument("--no-endgame", action="store_true", help="do not use the endgame databases")
    b.add_argument("--quiet", action="store_true", help="no progress bar")
    b.set_defaults(func=run_build)
    s = sub.add_parser("status", help="which book the engine uses, and what it holds")
    s.add_argument("--book", type=Path, default=None, metavar="PATH", help="a book file to show")
    s.set_defaults(func=run_status)


def run_build(args: argparse.Namespace) -> int:
    """Handler of ``book build``."""
    if not 0 <= args.plies <= 8:
        raise ValueError("--plies must be between 0 and 8 (each ply about five times as many)")
    path: Path = args.out if args.out is not None else engine_book.user_path()
    database = None if args.no_endgame else endgame_store.load()
    db_max = endgame_store.database_seeds(database) if database is not None else -1
    started = time.monotonic()
    try:
        report = engine_book.build(
            args.plies,
            path,
            seconds=args.seconds,
            nodes=args.nodes,
            database=database,
            db_max=db_max,
            max_positions=args.max_positions,
            show_progress=not args.quiet,
        )
    except KeyboardInterrupt:
        print(f"stopped; the same command goes on from {engine_book.partial_path(path)}")
        return 130
    took = time.monotonic() - started
    done = report.reused + report.searched
    if not report.finished:
        print(
            f"{done} of {report.total} positions done ({report.searched} searched in "
            f"{took:.0f} s); run the same command again to go on"
        )
        return 0
    print(
        f"book of {report.total} positions ({report.searched} searched, {report.reused} reused) "
        f"in {path}, {path.stat().st_size} bytes ({took:.0f} s)"
    )
    return 0


def run_status(args: argparse.Namespace) -> int:
    """Handler of ``book status``."""
    path: Path | None = args.book if args.book is not None else engine_book.default_path()
    if path is None or not path.exists():
        print(f"no opening book (looked for {engine_book.user_path()} and the shipped one)")
        _unfinished(path)
        return 0
    book = engine_book.load(path)
    assert book is not None
    budget = f"{book.seconds:g} s" if book.seconds is not None else f"{book.budget} nodes"
    print(
        f"{path}: {len(book)} positions up to {book.plies} plies from the start, "
        f"{budget} of search each, {path.stat().st_size} bytes"
    )
    _unfinished(path)
    return 0


def _unfinished(path: Path | None) -> None:
    """Say so when a build of ``path`` or of the user's book was stopped before the end."""
    for book_path in dict.fromkeys(p for p in (path, engine_book.user_path()) if p is not None):
        partial = engine_book.partial_path(book_path)
        if partial.exists():
            unfinished = engine_book.load(partial)
            count = len(unfinished) if unfinished is not None else 0
            print(f"an unfinished build: {count} positions in {partial}")
