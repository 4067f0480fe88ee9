"""Suggestions from an outside engine: a program that speaks the engine protocol.

``serve --engine CMD`` (or ``[engine] command`` in the venue file) makes the
engine worker (:mod:`companion.service.engine_worker`) ask the program ``CMD``
instead of our own search: any engine that speaks the protocol of Aualé and
Aalina (:mod:`core.engine.protocol`), ours (``oware-companion engine``)
included. The program is spoken to with
:class:`companion.commands.engine_client.ProtocolEngine`; each board's worker
starts its own copy, on the worker's thread, when it first needs it.

What the worker does with it, position by position (:meth:`OutsideEngine.analyse`):

* it sends ``position fen F moves ...`` (the position reached by the last
  capture and the moves since, so that the engine knows the history the
  cycle rule needs) and ``go movetime MS`` (the worker's ``seconds``);
* every ``info`` line with a score and a line (``pv``) becomes a
  ``suggestion`` event with ``"final": false``, the ``bestmove`` one with
  ``"final": true``. The events have the keys of the built-in search's (see
  :mod:`companion.service.engine_worker`) and ``"engine"``, the program's
  ``id name``. An outside engine scores only the move it prefers, so
  ``values`` and ``moves`` hold that one move; ``score mate N`` is a known win
  (or loss, N ≤ 0): ``values`` says it as the built-in search's large number,
  the move's ``text`` as "win in N moves". ``nodes`` is None when the engine
  does not count them. A line is cut at its first illegal move; an ``info``
  line whose first move is illegal is left out;
* a new position (or :meth:`~companion.service.engine_worker.EngineWorker.close`)
  sends ``stop`` within :data:`POLL_SECONDS` and drops the rest of that
  search's lines up to its ``bestmove``: the worker's generation counter still
  guarantees that no event about an old position is published after
  ``update()`` returns;
* a ``bestmove 0000`` or an illegal ``bestmove`` (an engine set up for
  other rules than the board's) publishes no final event for that position;
  the worker logs it and counts it in ``rejected``.

Only two-player Oware positions go to the outside engine (:func:`usable_for`):
the protocol says a position, not a rule set, so the program must be set up
for the board's Oware rules itself (``oware-companion engine --rules NAME``).
Universal mancala boards (any number of players) keep our own search, with
or without ``--engine``.

Failures. ``serve`` starts the program once before anything else
(:func:`check_engine`): one that cannot be started or does not answer the
handshake stops the start-up with a one-line error saying what to do. An
engine that fails during the game (it exits, breaks the protocol, or sends
no ``bestmove`` in time) is logged and **restarted once**, and the same
position is asked again; if it fails a second time the worker gives up on it
for good and suggestions come from our own search from then on, for that
position too. The board's ``/health`` engine section shows it under
``outside_engine``: ``state`` (``not started``, ``starting``, ``running``,
``restarting``, ``failed``; ``stopped`` once the worker is closed), ``restarts``, ``error``
(the last failure, with the last line the program wrote to stderr),
``in_use`` and ``rejected``.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import queue
import shlex
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from companion.commands.engine_client import EngineFault, ProtocolEngine
from companion.service.preflight import StartError
from core.engine.evaluation import WIN
from core.engine.protocol import (
    Info,
    ProtocolError,
    go_command,
    move_pit,
    parse_bestmove,
    parse_info,
    position_command,
)
from core.engine.search import describe_score
from core.notation import move_name
from core.position import Position

log = logging.getLogger(__name__)

#: How often the search's reader looks whether the position has changed (seconds).
POLL_SECONDS = 0.02
#: Time for ``uciok`` after ``uci`` and for ``readyok`` after ``isready`` (seconds).
UCI_TIMEOUT = 30.0
READY_TIMEOUT = 300.0
#: Time for the ``bestmove`` beyond ``movetime``, and after ``stop`` (seconds).
BESTMOVE_GRACE = 10.0
STOP_GRACE = 5.0
#: Restarts of a failed program before the worker gives up on it.
MAX_RESTARTS = 1

#: ``analyse``'s outcome: the search ended (or had nothing to say), the position
#: changed, or the program failed for good (the caller searches itself).
Outcome = Literal["done", "cancelled", "failed"]
#: Hands an event (without ``fair_play``/``audience``) and ``final`` to the worker:
#: False when the position has changed in the meantime (nothing was published).
Emit = Callable[[dict[str, Any], bool], bool]


def usable_for(position: Position) -> bool:
    """Whether the protocol can express ``position``: two-player Oware."""
    return position.players == 2 and position.ruleset.family == "oware"


def protocol_line(position: Position) -> tuple[str, list[int]]:
    """The ``fen`` of the position after the last capture (or the start) and the moves
    since, as :func:`core.engine.protocol.position_command` takes them.

    >>> p = Position.initial().play(5).play(6)
    >>> protocol_line(p)
    ('4-4-4-4-4-4-4-4-4-4-4-4-0-0-S', [5, 6])
    """
    chain = [position]
    while chain[-1].prev is not None:
        earlier = chain[-1].prev
        assert earlier is not None
        chain.append(earlier)
    chain.reverse()
    moves: list[int] = []
    for before, after in itertools.pairwise(chain):
        pit = next((m for m in before.legal_moves() if before.play(m) == after), None)
        if pit is None:  # not a chain of moves (a position set by hand): no history
            return position.to_text(), []
        moves.append(pit)
    return chain[0].to_text(), moves


def _legal_line(position: Position, letters: tuple[str, ...]) -> list[int]:
    """The pits of a ``pv``, up to its first illegal move."""
    line: list[int] = []
    p = position
    for letter in letters:
        try:
            pit = move_pit(letter)
        except ProtocolError:
            break
        if p.is_over or not p.is_legal(pit):
            break
        line.append(pit)
        p = p.play(pit)
    return line


def outside_event(
    position: Position,
    engine: str,
    *,
    best: int,
    pv: list[int],
    info: Info | None,
) -> dict[str, Any]:
    """A ``suggestion`` event (without ``final``, ``fair_play``, ``audience``) for the
    move ``best`` with what the engine's ``info`` line said of it (None: nothing).

    >>> e = outside_event(Position.initial(), "x", best=5, pv=[5, 6],
    ...                   info=Info(depth=3, score_cp=-40, nodes=90, pv=("F", "a")))
    >>> e["best_name"], e["values"], e["moves"][0]["text"], e["pv"], e["depth"]
    ('F', {5: -0.4}, '-0.4 seeds', ['F', 'a'], 3)
    """
    score: int | None = None
    result: str | None = None
    text = "no score"
    mate = info.mate if info is not None else None
    if mate is not None:
        result = "win" if mate > 0 else "loss"
        score = WIN if mate > 0 else -WIN
        text = f"{result} in {abs(mate)} move{'s' if abs(mate) != 1 else ''}"
    elif info is not None and info.score_cp is not None:
        score = info.score_cp
        text = describe_score(score)
    name = move_name(best)
    move = {
        "pit": best,
        "name": name,
        "score": score,
        "exact": mate is not None,
        "bound": False,
        "result": result,
        "margin": None,
        "final": None,
        "text": text,
    }
    return {
        "type": "suggestion",
        "position": position.to_text(),
        "rules": position.rules,
        "to_move": position.to_move,
        "best": best,
        "best_name": name,
        "values": {best: score / 100} if score is not None else {},
        "moves": [move],
        "pv": [move_name(p) for p in pv],
        "depth": info.depth if info is not None and info.depth is not None else 0,
        "nodes": info.nodes if info is not None else None,
        "solved": mate is not None,
        "engine": engine,
    }


def _start(command: str) -> ProtocolEngine:
    """The program started and through its handshake; EngineFault (one line) otherwise."""
    try:
        words = shlex.split(command)
        if not words:
            raise ValueError("the command is empty")
        program = Path(words[0]).name  # what the messages call it
        engine = ProtocolEngine(
            command, program, uci_timeout=UCI_TIMEOUT, ready_timeout=READY_TIMEOUT
        )
    except (OSError, ValueError) as exc:  # not found, not executable, a bad quote, empty
        raise EngineFault(str(exc)) from None
    try:
        engine.send("setoption name OwnBook value false")  # a search, not a book move
        engine.new_game()
    except EngineFault:
        _end(engine, keep_log=True)
        raise
    return engine


def _end(engine: ProtocolEngine, *, keep_log: bool) -> None:
    """Stop the program (``quit``, else killed); its stderr log is kept after a failure."""
    with contextlib.suppress(OSError):
        engine.close(keep_log=keep_log)


def check_engine(command: str) -> str:
    """Start ``command`` once, through the handshake, and end it: the engine's name.

    Raises :class:`~companion.service.preflight.StartError` with one line
    saying what is wrong and what to do.
    """
    try:
        engine = _start(command)
    except EngineFault as exc:
        why = " ".join(str(exc).split())
        raise StartError(
            f"cannot start the engine {command!r}: {why}; give --engine (or [engine] command) "
            "a program that speaks the engine protocol, e.g. 'oware-companion engine', "
            "or leave it out to use the built-in search"
        ) from None
    title = engine.title
    _end(engine, keep_log=False)
    return title


def _stderr_tail(engine: ProtocolEngine) -> str:
    """The last line the program wrote to stderr, for a failure's message."""
    try:
        with open(engine.log.name, errors="replace") as f:
            tail = f.read()[-300:].strip().splitlines()
    except OSError:
        return ""
    return f" (stderr {engine.log.name}: {tail[-1]})" if tail else ""


class OutsideEngine:
    """One worker's outside engine program. Every method but :meth:`health` runs on the
    worker's thread (see the module docstring for what it does)."""

    def __init__(self, command: str, *, max_restarts: int = MAX_RESTARTS) -> None:
        self.command = command
        self.max_restarts = max_restarts
        self._engine: ProtocolEngine | None = None
        self._lock = threading.Lock()  # the fields health() reads
        self._state = "not started"  # until its board first has an Oware position
        self._name: str | None = None
        self._restarts = 0
        self._error: str | None = None
        self._rejected = 0

    @property
    def failed(self) -> bool:
        """The program failed more often than it may be restarted: the worker searches itself."""
        return self._state == "failed"

    def health(self) -> dict[str, Any]:
        """JSON-ready state, for the worker's ``health()`` (any thread)."""
        with self._lock:
            return {
                "command": self.command,
                "name": self._name,
                "state": self._state,
                "in_use": self._state != "failed",
                "restarts": self._restarts,
                "error": self._error,
                "rejected": self._rejected,
            }

    def close(self) -> None:
        """End the program (the worker is closing)."""
        if self._engine is not None:
            _end(self._engine, keep_log=False)
            self._engine = None
        with self._lock:
            if self._state != "failed":
                self._state = "stopped"

    def analyse(
        self,
        position: Position,
        movetime_ms: int,
        cancelled: Callable[[], bool],
        emit: Emit,
    ) -> Outcome:
        """Have the program think about ``position`` for ``movetime_ms``, handing each
        suggestion to ``emit``; ``cancelled()`` says the position has changed."""
        while not self.failed:
            if cancelled():
                return "cancelled"
            try:
                if self._engine is None:
                    with self._lock:
                        self._state = "starting" if self._restarts == 0 else "restarting"
                    self._engine = _start(self.command)
                    with self._lock:
                        self._name = self._engine.title
                        self._state = "running"
                return self._search(self._engine, position, movetime_ms, cancelled, emit)
            except EngineFault as exc:
                self._fault(" ".join(str(exc).split()))
        return "failed"

    def _fault(self, error: str) -> None:
        if self._engine is not None:
            engine, self._engine = self._engine, None
            if engine.proc.poll() is None:
                engine.proc.kill()  # it may be hung: no quit
            _end(engine, keep_log=True)
        with self._lock:
            self._error = error
            if self._restarts < self.max_restarts:
                self._restarts += 1
                self._state = "restarting"
            else:
                self._state = "failed"
        if self._state == "restarting":
            log.warning("outside engine %r failed: %s; restarting it", self.command, error)
        else:
            log.error(
                "outside engine %r failed again: %s; suggestions now come from the built-in search",
                self.command,
                error,
            )

    def _search(
        self,
        engine: ProtocolEngine,
        position: Position,
        movetime_ms: int,
        cancelled: Callable[[], bool],
        emit: Emit,
    ) -> Outcome:
        fen, moves = protocol_line(position)
        engine.send(position_command(fen, moves))
        engine.send(go_command(movetime_ms))
        limit = movetime_ms / 1000 + BESTMOVE_GRACE
        deadline = time.monotonic() + limit
        stopping = False
        last: tuple[Info, list[int]] | None = None
        while True:
            if not stopping and cancelled():
                engine.send("stop")
                stopping, deadline = True, time.monotonic() + STOP_GRACE
            try:
                line = engine.lines.get(timeout=POLL_SECONDS)
            except queue.Empty:
                if time.monotonic() > deadline:
                    when = "after stop" if stopping else f"within {limit:.1f} s"
                    raise EngineFault(
                        f"{engine.title} sent no bestmove {when}{_stderr_tail(engine)}"
                    ) from None
                continue
            if line is None:
                raise EngineFault(f"{engine.title} exited{_stderr_tail(engine)}")
            first = line.split()[:1]
            if first == ["bestmove"]:
                if stopping:
                    return "cancelled"  # that search's answer, about the old position
                self._final(engine, position, line, last, emit)
                return "done"
            if first != ["info"] or stopping:
                continue
            try:
                info = parse_info(line)
            except ProtocolError:
                continue
            pv = _legal_line(position, info.pv)
            if not pv or (info.score_cp is None and info.mate is None):
                continue
            last = (info, pv)
            event = outside_event(position, engine.title, best=pv[0], pv=pv, info=info)
            if not emit(event, False):
                engine.send("stop")
                stopping, deadline = True, time.monotonic() + STOP_GRACE

    def _final(
        self,
        engine: ProtocolEngine,
        position: Position,
        line: str,
        last: tuple[Info, list[int]] | None,
        emit: Emit,
    ) -> None:
        try:
            best, _ = parse_bestmove(line)
        except ProtocolError:
            best = None
        if best is None or not position.is_legal(best):
            with self._lock:
                self._rejected += 1
            log.warning(
                "outside engine %s answered %r for %s, not a legal move under %s: no "
                "suggestion (is it set up for these rules?)",
                engine.title,
                line,
                position.to_text(),
                position.rules,
            )
            return
        info: Info | None = None
        pv = [best]
        if last is not None and last[1][0] == best:
            info, pv = last
        elif last is not None:  # a move its lines did not end with: no score for it
            info = Info(depth=last[0].depth, nodes=last[0].nodes)
        emit(outside_event(position, engine.title, best=best, pv=pv, info=info), True)
