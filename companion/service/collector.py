"""Garbage collection between readings, not in the middle of one.

CPython's cyclic collector runs whenever allocations pass its thresholds,
wherever that happens to be: most often inside the referee, which allocates
the most. A pass over the oldest generation walks every live object, and
the referee's tracker keeps tens of thousands of them in its caches (the
graphs and reaches of the histories it follows), so such a pass takes about
as long as a slow observation itself, and the observation it lands in pays
both. The live service does not let it land there: while installed, the
automatic thresholds are only a safety valve (:data:`SAFETY`, for work that
never pauses), and :meth:`IdleCollector.idle`, called by each board once its
queue of readings is empty, runs the pass the default schedule
(:data:`SCHEDULE`) has made due. The collector does the same work; it does it
while the board waits for the next frame. ``bench/referee_games.py`` runs the
referee the same way and reports the time spent here apart from the
observations' own.

Installing is counted: several services (or a service and a bench) in one
process share the one collector, and the thresholds come back as they were
when the last of them uninstalls.

>>> import gc
>>> before = gc.get_threshold()
>>> c = IdleCollector()
>>> c.install()
>>> gc.get_threshold() == SAFETY
True
>>> junk = [[i] for i in range(2 * SCHEDULE[0])]
>>> c.idle() in (0, 1, 2)  # a pass was due: the youngest, or an older one in its turn
True
>>> c.idle() is None  # nothing due any more
True
>>> c.uninstall()
>>> gc.get_threshold() == before
True
"""

from __future__ import annotations

import gc
import threading
import time

#: Automatic thresholds while installed (gen 0 allocations, gen 0 passes, gen 1 passes):
#: high enough that a board with pauses between readings never reaches them.
SAFETY = (50_000, 50, 50)
#: When :meth:`IdleCollector.idle` runs a pass: CPython's own default thresholds.
SCHEDULE = (700, 10, 10)

_lock = threading.Lock()
_installed = 0
_saved: tuple[int, ...] | None = None


class IdleCollector:
    """Runs the collector's due pass when called between readings (see the module)."""

    def __init__(self) -> None:
        self._mine = False
        self.seconds = 0.0
        """Time spent in :meth:`idle` passes so far."""
        self.passes = [0, 0, 0]
        """Passes run by :meth:`idle`, per generation."""

    def install(self) -> None:
        """Make the automatic thresholds a safety valve (idempotent per instance)."""
        global _installed, _saved
        with _lock:
            if self._mine:
                return
            self._mine = True
            if _installed == 0:
                _saved = gc.get_threshold()
                gc.set_threshold(*SAFETY)
            _installed += 1

    def uninstall(self) -> None:
        """Give the thresholds back once no one else has the collector installed."""
        global _installed, _saved
        with _lock:
            if not self._mine:
                return
            self._mine = False
            _installed -= 1
            if _installed == 0 and _saved is not None:
                gc.set_threshold(*_saved)
                _saved = None

    def idle(self) -> int | None:
        """Run the pass that is due, if one is, as CPython would have: once the young
        objects reach the first :data:`SCHEDULE` threshold, the oldest generation whose
        count has reached its own. Returns its generation (None: none due)."""
        counts = gc.get_count()
        if counts[0] < SCHEDULE[0]:
            return None
        due = 2 if counts[2] >= SCHEDULE[2] else 1 if counts[1] >= SCHEDULE[1] else 0
        began = time.perf_counter()
        gc.collect(due)
        self.seconds += time.perf_counter() - began
        self.passes[due] += 1
        return due
