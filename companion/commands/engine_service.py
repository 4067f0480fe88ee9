"""``oware-companion engine``: the engine as a UCI-like service on stdin/stdout.

Speaks the dialect of Aualé and Aalina (parsing and formatting live in
:mod:`core.engine.protocol`; the commands and replies are listed there and in
``docs/ENGINE.md``). This module is the loop: it reads commands from a text
stream, runs one search at a time on a background thread (so ``stop``,
``isready`` and ``quit`` are answered while it thinks), and writes replies,
one line each, flushed at once.

A ``go`` (not ``infinite`` or ``ponder``) in a position of the opening book
(:mod:`companion.engine_book`, on unless ``setoption name OwnBook value
false``) is answered at once from it: ``info string book X ...`` and
``bestmove X``, with no ``info depth`` line, as Aalina answers from its book.

Only protocol lines go to the output stream: Aualé's client refuses any other
first word. Errors in a command are answered with ``info string error: ...``
and the loop goes on.
"""

from __future__ import annotations

import argparse
import sys
import threading
from typing import TextIO

import numpy as np
import numpy.typing as npt

from companion import __version__, endgame_store, engine_book
from core.engine.analysis import Analysis, analyze, database_applies, make_searcher
from core.engine.book import Book, BookError
from core.engine.protocol import (
    Command,
    ProtocolError,
    build_position,
    format_bestmove,
    format_info,
    move_letter,
    parse_command,
)
from core.engine.search import Searcher, database_bounds, warm_up
from core.position import Position
from core.rules import RuleSet, parse_rules_spec

#: Thinking time of a ``go`` without limits (milliseconds), as Aalina's default.
DEFAULT_MOVETIME_MS = 3600

#: Taken off ``movetime`` for reading the command, the last iteration's
#: book-keeping and writing the reply, so the move arrives within the time.
MARGIN_MS = 25


class EngineService:
    """One protocol session: commands in through :meth:`handle`, replies to ``out``."""

    def __init__(
        self,
        out: TextIO,
        *,
        rules: str | RuleSet = "abapa",
        use_database: bool = True,
        database: npt.NDArray[np.uint8] | None = None,
        own_book: bool = True,
        book: Book | None = None,
    ) -> None:
        self.out = out
        self.rules = rules
        self.use_database = use_database
        self._database = database
        self._db_loaded = database is not None or not use_database
        self._bounds: tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]] | None = None
        self.own_book = own_book
        self._book = book
        self._book_loaded = book is not None
        self._out_lock = threading.Lock()
        self._state_lock = threading.Lock()
        self._position: Position = build_position(None, (), rules)
        self._searcher: Searcher | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        # set just before the search's bestmove is written: from then on the
        # search thread is only ending, and a new go may wait for it
        self._answered = threading.Event()

    # -- output ------------------------------------------------------------------------
    def say(self, line: str) -> None:
        """Write one reply line and flush it."""
        with self._out_lock:
            self.out.write(line + "\n")
            self.out.flush()

    def _error(self, text: str) -> None:
        self.say(f"info string error: {text}")

    # -- commands ------------------------------------------------------------------------
    def handle(self, line: str) -> bool:
        """Act on one input line; False once the session should end (``quit``)."""
        try:
            command = parse_command(line)
        except ProtocolError as exc:
            self._error(str(exc))
            return True
        if command is None:
            return True
        name = command.name
        if name == "quit":
            self.stop_thinking()
            return False
        if name == "uci":
            self.say(f"id name oware-companion {__version__}")
            self.say("id author the oware-companion authors")
            self.say("option name UseLeaves type check default true")
            self.say("option name OwnBook type check default true")
            self.say("uciok")
        elif name == "isready":
            self._prepare()
            self.say("readyok")
        elif name == "ucinewgame":
            if self._thinking():
                self._error("a search is running; send stop first")
            elif self._searcher is not None:
                self._searcher.clear()
        elif name == "position":
            self._set_position(command)
        elif name == "go":
            self._go(command)
        elif name == "stop":
            self.stop_thinking()
        elif name == "setoption":
            self._set_option(command)
        elif name in ("ponderhit", "debug"):
            pass  # pondering goes on until stop; there is no debug output
        else:
            self._error(f"unknown command {name!r}")
        return True

    def _set_position(self, command: Command) -> None:
        try:
            position = build_position(command.fen, command.moves, self.rules)
        except ProtocolError as exc:
            self._error(str(exc))
            return
        with self._state_lock:
            self._position = position

    def _set_option(self, command: Command) -> None:
        if command.option == "UseLeaves" and command.value in ("true", "false"):
            self.use_database = command.value == "true"
            self._searcher = None  # rebuilt with or without the databases
            if self.use_database:
                self._db_loaded = self._database is not None
        elif command.option == "OwnBook" and command.value in ("true", "false"):
            self.own_book = command.value == "true"
        else:
            self._error(f"no option {command.option!r} with value {command.value!r}")

    def _prepare(self) -> None:
        """Load the databases and compile the search (what ``isready`` waits for)."""
        if not self._db_loaded:
            self._database = endgame_store.load()
            if self._database is not None:
                # the stored game bounds, where built (endgame build --bounds)
                self._bounds = endgame_store.load_bounds(
                    endgame_store.database_seeds(self._database)
                )
            self._db_loaded = True
        if self.own_book and not self._book_loaded:
            self._book_loaded = True
            try:
                self._book = engine_book.load()
            except (BookError, OSError) as exc:
                self._error(f"the opening book cannot be read ({exc}); playing without it")
        warm_up()
        if self._database is not None and self.use_database:
            # (the game bounds under 11 seeds, where none are stored, are computed: before
            # any clock starts)
            database_bounds(endgame_store.database_seeds(self._database), self._bounds)

    def _thinking(self) -> bool:
        """Whether a search is running (one that has answered is waited for here)."""
        thread = self._thread
        if thread is None or not thread.is_alive():
            return False
        if self._answered.is_set():
            thread.join()  # the GUI may answer our bestmove before the thread has ended
            return False
        return True

    def _go(self, command: Command) -> None:
        if self._thinking():
            self._error("already thinking; send stop first")
            return
        self._prepare()
        with self._state_lock:
            position = self._position
        if position.is_over:
            self.say(format_bestmove(None))
            return
        if self._answer_from_book(position, command):
            return
        seconds: float | None
        if command.infinite:
            seconds = None
        elif command.movetime_ms is not None:
            seconds = max(command.movetime_ms - MARGIN_MS, 1) / 1000
        elif command.depth is not None:
            seconds = None
        else:
            seconds = DEFAULT_MOVETIME_MS / 1000
        searcher = self._searcher_for(position)
        self._stop.clear()
        self._answered.clear()
        self._thread = threading.Thread(
            target=self._think,
            args=(position, searcher, seconds, command.depth, command.infinite),
            name="engine-search",
            daemon=True,
        )
        self._thread.start()

    def _answer_from_book(self, position: Position, command: Command) -> bool:
        """Answer ``go`` with the book's move if it has one here (never while pondering)."""
        if not self.own_book or self._book is None or command.infinite:
            return False
        found = self._book.probe(position)
        if found is None or not position.is_legal(found.pit):
            return False
        self.say(
            f"info string book {move_letter(found.pit)} score cp {found.score} "
            f"searched to depth {found.depth}"
        )
        self.say(format_bestmove(found.pit))
        return True

    def _searcher_for(self, position: Position) -> Searcher:
        if self._searcher is None:
            database = self._database if self.use_database else None
            db_max = endgame_store.database_seeds(database) if database is not None else -1
            if not database_applies(position):
                database, db_max = None, -1
            bounds = self._bounds if database is not None else None
            self._searcher = make_searcher(position, database, db_max, bounds)
        return self._searcher

    def _think(
        self,
        position: Position,
        searcher: Searcher,
        seconds: float | None,
        depth: int | None,
        infinite: bool,
    ) -> None:
        reported: list[Analysis] = []

        def report(a: Analysis) -> None:
            reported[:] = [a]
            self.say(
                format_info(
                    a.depth,
                    a.moves[0].score,
                    a.nodes,
                    a.seconds,
                    a.pv,
                    db_hits=int(a.extra.get("db_hits", 0)),
                )
            )

        try:
            found = analyze(
                position,
                seconds=seconds,
                searcher=searcher,
                exact_all=False,
                on_iteration=report,
                max_depth=depth if depth is not None else 60,
            )
        except Exception as exc:  # an engine fault: say so, and still answer with a move
            self._error(f"search failed: {exc}")
            # the deepest depth the search finished, else a plain search: the first
            # legal move, the answer before, may give the game away (it is A, and A
            # was game 9's losing move in the 0.5 s match, docs/ENGINE.md)
            move = reported[0].best if reported else _plain_move(position)
            self._answered.set()
            self.say(format_bestmove(move))
            return
        if infinite:  # go infinite/ponder: the move is given only when asked (stop)
            self._stop.wait()
        ponder = found.pv[1] if len(found.pv) > 1 else None
        self._answered.set()
        self.say(format_bestmove(found.best, ponder))

    def stop_thinking(self) -> None:
        """Stop the running search (its ``bestmove`` is written) and wait for it."""
        self._stop.set()
        thread = self._thread
        while thread is not None and thread.is_alive():
            # raised again until the thread ends: a search that had not yet
            # started when stop came would otherwise clear the flag and go on
            if self._searcher is not None:
                self._searcher.stop()
            thread.join(0.05)


def _plain_move(position: Position) -> int:
    """The move of a search without databases (so without the segment's play-out), to
    :data:`~core.engine.search.MIN_DEPTH` plies (a few milliseconds): the answer where
    the full analysis failed before it finished a depth; the first legal move if this
    fails too."""
    try:
        return analyze(position, seconds=0.001, exact_all=False).best
    except Exception:  # (the answer must come: a move, whatever is broken)
        return position.legal_moves()[0]


def serve(args: argparse.Namespace, stdin: TextIO | None = None, out: TextIO | None = None) -> int:
    """Run the protocol loop until ``quit`` or the end of the input."""
    rules = parse_rules_spec(args.rules)
    service = EngineService(
        out if out is not None else sys.stdout,
        rules=rules,
        use_database=not args.no_endgame,
    )
    source = stdin if stdin is not None else sys.stdin
    for line in source:
        if not service.handle(line):
            break
    else:
        service.stop_thinking()
    return 0
