"""The live product's engine worker: suggestions that follow the game.

The service calls :meth:`EngineWorker.update` with every new position (after
each move the referee accepts). The worker analyses it on its own thread, so
the asyncio event loop never waits for the engine, and publishes a
``suggestion`` event after every finished search depth::

    {"type": "suggestion", "position": "4-4-...-S", "to_move": 0,
     "best": 5, "best_name": "F", "values": {5: -0.6, 0: -1.1, ...},
     "moves": [{"pit": 5, "name": "F", "text": "-0.6 seeds", ...}, ...],
     "pv": ["F", "e", "C"], "depth": 13, "nodes": 734674, "solved": false,
     "final": false, "fair_play": false, "audience": "all"}

``values`` maps pit (an int; a string once in JSON) -> value in seeds for the
side to move (a known win or loss is a large number; ``moves`` has the words).
A new position cancels the analysis of the old one at once: nothing about a
stale position is published after :meth:`update` returns.

Fair play: in the playing hall the players must not see suggestions. With
``fair_play`` on, events still flow (spectators and the recorder get them) but
say ``"audience": "spectators"`` and ``"fair_play": true``; the service shows
them only on spectator screens. The flag can be switched during a game.

An outside engine: with ``engine_command`` (``serve --engine CMD``) the
suggestions for two-player Oware positions come from that program, spoken
to through the engine protocol on this same thread
(:mod:`companion.service.outside_engine` says how, what its events hold, and
what happens when it fails: restarted once, then our own search). Universal
mancala positions always get our own search. ``health()`` has an
``outside_engine`` section then.

The numba search releases the GIL, so a thread is enough (no process).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from companion import endgame_store
from companion.service.outside_engine import Outcome, OutsideEngine, usable_for
from core.engine.analysis import Analysis, analyze, make_searcher, oware_mode
from core.engine.search import Searcher
from core.position import Position

Publish = Callable[[dict[str, Any]], None]


class Cancelled(Exception):
    """The position changed while it was being analysed."""


def suggestion_event(analysis: Analysis, *, final: bool, fair_play: bool) -> dict[str, Any]:
    """The ``suggestion`` event for an analysis (see the module docstring)."""
    position = analysis.position
    return {
        "type": "suggestion",
        "position": position.to_text(),
        "rules": position.rules,
        "to_move": position.to_move,
        "best": analysis.best,
        "best_name": analysis.best_name,
        "values": {m.pit: m.score / 100 for m in analysis.moves},
        "moves": [m.to_json() for m in analysis.moves],
        "pv": analysis.pv_names,
        "depth": analysis.depth,
        "nodes": analysis.nodes,
        "solved": analysis.solved,
        "final": final,
        "fair_play": fair_play,
        "audience": "spectators" if fair_play else "all",
    }


class EngineWorker:
    """Analyses the latest position on a background thread and publishes suggestions.

    ``publish`` receives each event; give ``loop`` to have it called on that
    asyncio loop (thread-safe hand-over) instead of on the worker thread.
    ``seconds`` is the thinking time per position. ``database`` is an Abapa
    endgame database with its top layer ``db_max``; by default (``"auto"``)
    the worker loads whatever :mod:`companion.endgame_store` has in the cache,
    on its own thread so the event loop never waits for the disk.
    ``engine_command`` names an outside engine program (see the module docstring).
    """

    def __init__(
        self,
        publish: Publish,
        *,
        seconds: float = 3.0,
        database: np.ndarray | Literal["auto"] | None = "auto",
        db_max: int = -1,
        fair_play: bool = False,
        loop: asyncio.AbstractEventLoop | None = None,
        engine_command: str | None = None,
    ) -> None:
        self._publish_cb = publish
        self._loop = loop
        self.seconds = seconds
        self._database = database
        self._db_max = db_max
        #: The stored game bounds, loaded with the databases from the cache.
        self._bounds: tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]] | None = None
        self._fair_play = fair_play
        # re-entrant: a publish callback may call update() from the worker thread
        self._lock = threading.RLock()
        self._wake = threading.Condition(self._lock)
        self._position: Position | None = None
        self._generation = 0
        self._closed = False
        self._busy = False
        self._searchers: dict[int, Searcher] = {}
        self._current: Searcher | None = None
        self._published = 0
        self._last: dict[str, Any] | None = None
        self._outside = OutsideEngine(engine_command) if engine_command else None
        self._thread = threading.Thread(target=self._run, name="engine-worker", daemon=True)
        self._thread.start()

    # -- controls (any thread) ------------------------------------------------------
    @property
    def fair_play(self) -> bool:
        return self._fair_play

    def set_fair_play(self, on: bool) -> None:
        """Hide (``True``) or show suggestions on the players' screens from now on."""
        self._fair_play = on

    def update(self, position: Position | None) -> None:
        """Analyse ``position`` from now on (``None``: stop analysing)."""
        with self._lock:
            if position is not None and self._position is not None and position == self._position:
                return  # same board, same stores, same side to move: keep thinking
            self._generation += 1
            self._finished_generation = False
            self._position = position if position is not None and not position.is_over else None
            if self._current is not None:
                self._current.stop()
            self._wake.notify()

    def close(self, timeout: float = 5.0) -> None:
        """Stop the worker thread (the running search is cancelled)."""
        with self._lock:
            self._closed = True
            self._generation += 1
            if self._current is not None:
                self._current.stop()
            self._wake.notify()
        self._thread.join(timeout)

    def idle(self, timeout: float = 30.0) -> bool:
        """Wait until the current position is fully analysed (for tests and scripts)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if not self._busy and (self._position is None or self._finished_generation):
                    return True
            time.sleep(0.01)
        return False

    def health(self) -> dict[str, Any]:
        """JSON-ready state for the service's /health endpoint."""
        with self._lock:
            out: dict[str, Any] = {
                "running": self._thread.is_alive(),
                "busy": self._busy,
                "position": self._position.to_text() if self._position else None,
                "fair_play": self._fair_play,
                "published": self._published,
                "last_depth": self._last["depth"] if self._last else None,
                "endgame_database": self._db_max,
                # the game bounds stored beside the values (-1: none; the search then
                # works out what it needs of them itself, for small boards only)
                "game_bounds": (
                    endgame_store.database_seeds(self._bounds[0])
                    if self._bounds is not None
                    else -1
                ),
            }
        if self._outside is not None:
            out["outside_engine"] = self._outside.health()
        return out

    # -- the worker thread ------------------------------------------------------------
    _finished_generation = False

    def _run(self) -> None:
        try:
            self._loop_forever()
        finally:
            if self._outside is not None:
                self._outside.close()

    def _loop_forever(self) -> None:
        while True:
            with self._lock:
                while not self._closed and (self._position is None or self._finished_generation):
                    self._wake.wait()
                if self._closed:
                    return
                position = self._position
                generation = self._generation
                self._busy = True
                self._finished_generation = False
                assert position is not None
                outside = self._outside
                if outside is not None and (outside.failed or not usable_for(position)):
                    outside = None
                searcher = None if outside is not None else self._searcher_for(position)
                self._current = searcher
            try:
                if outside is None or self._ask_outside(outside, position, generation) == "failed":
                    if outside is not None:  # it failed for good: our own search takes over
                        with self._lock:
                            if generation != self._generation:
                                raise Cancelled
                            searcher = self._searcher_for(position)
                            self._current = searcher
                    self._analyse(position, generation, searcher)
            except Cancelled:
                pass
            finally:
                with self._lock:
                    self._busy = False
                    self._current = None
                    if generation == self._generation:
                        self._finished_generation = True

    def _searcher_for(self, position: Position) -> Searcher | None:
        if isinstance(self._database, str):  # "auto": load once, here on the worker thread
            loaded = endgame_store.load()
            self._database = loaded
            self._db_max = endgame_store.database_seeds(loaded) if loaded is not None else -1
            if loaded is not None:
                self._bounds = endgame_store.load_bounds(self._db_max)
        mode = oware_mode(position)
        if mode is None:
            return None  # universal mancala: the paranoid search needs no table
        if mode not in self._searchers:
            self._searchers[mode] = make_searcher(
                position, self._database, self._db_max, self._bounds
            )
        return self._searchers[mode]

    def _analyse(self, position: Position, generation: int, searcher: Searcher | None) -> None:
        def on_iteration(analysis: Analysis) -> None:
            if generation != self._generation:
                raise Cancelled
            self._emit(analysis, generation, final=False)

        result = analyze(
            position, seconds=self.seconds, searcher=searcher, on_iteration=on_iteration
        )
        self._emit(result, generation, final=True)

    def _ask_outside(self, outside: OutsideEngine, position: Position, generation: int) -> Outcome:
        def emit(fields: dict[str, Any], final: bool) -> bool:
            return self._publish(fields, generation, final=final)

        return outside.analyse(
            position,
            max(round(self.seconds * 1000), 1),
            lambda: generation != self._generation,
            emit,
        )

    def _publish(self, fields: dict[str, Any], generation: int, *, final: bool) -> bool:
        """Publish an outside engine's event unless the position has changed (False)."""
        with self._lock:
            if generation != self._generation:
                return False
            fair_play = self._fair_play
            event = {
                **fields,
                "final": final,
                "fair_play": fair_play,
                "audience": "spectators" if fair_play else "all",
            }
            self._hand_over(event)
            return True

    def _emit(self, analysis: Analysis, generation: int, *, final: bool) -> None:
        with self._lock:
            if generation != self._generation:
                raise Cancelled
            self._hand_over(suggestion_event(analysis, final=final, fair_play=self._fair_play))

    def _hand_over(self, event: dict[str, Any]) -> None:
        """Count and publish ``event``; called with the lock held."""
        self._published += 1
        self._last = event
        # published under the lock: update() cannot slip in between the
        # generation check and the hand-over, so no stale event escapes
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._publish_cb, event)
        else:
            self._publish_cb(event)
