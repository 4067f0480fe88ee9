"""The game before a command, followed while the board may still show it.

A person presses *New game* or *Undo*, or sets a position, and the board does not
show it: the referee says so once (out of sync, :mod:`core.referee.referee`) and
looks for the game on the board. Often the players simply played on, and the board
shows the game before the command some moves further on. The resync search
(:mod:`core.referee.resync`) looks only a few moves from that position, and a noisy
still board can pass before it finds it; the game is then out of its reach. A
:class:`Shadow` follows that game the way the referee follows any game: a tracker
of its own, fed every observation, its first move taken as certain once the belief
says so, however many moves the players make, so the referee can take the game up
at any still board that shows it. A command the board seemed to show is weighed
against it in the same way (``AfterCommand`` in :mod:`core.referee.referee`): a
position set one seed from the board's is within a noisy camera's reach.

>>> from core import Position
>>> shadow = Shadow.following(Position.initial(), [None] * 12)
>>> shadow.line, shadow.position().to_text()
([], '4-4-4-4-4-4-4-4-4-4-4-4-0-0-S')
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from core.position import Position
from core.referee.likelihood import best_counts, explains
from core.referee.stages import Record
from core.referee.tracker import Evidence, Fit, Snapshot, Tracker, fresh_pits


@dataclass
class Shadow:
    """The game before a command, as the board shows it since (see the module)."""

    tracker: Tracker
    line: list[Record]
    """The moves taken as certain since the position before the command."""
    looked: list[int | None]
    """The most likely count of each pit when this game last explained it (what a new
    reading is compared with, as the referee's own :attr:`Evidence.fresh`)."""
    last_key: Any = None
    fits: bool = False
    """The last observation was explained by this game."""
    fit: Fit | None = None
    """How well this game explained the last observation, if it was a new reading and
    this game explained it (what the referee weighs against its own game)."""

    @classmethod
    def following(
        cls, before: Position, looked: list[int | None], tracker: Tracker | None = None
    ) -> Shadow:
        """The game from ``before`` (with ``tracker``: the histories the referee held from
        there when the command came, the moves it was still reading among them)."""
        return cls(Tracker(before) if tracker is None else tracker, [], list(looked))

    def position(self) -> Position:
        """The position of the likeliest history of this game."""
        return self.tracker.best_position()

    def observe(
        self,
        ev: Evidence,
        key: tuple[Any, ...],
        *,
        floor: float,
        commit: float,
    ) -> None:
        """Move this game on by one observation (``key``: what the referee calls the
        reading, so a reading seen again pays for stillness only, as in the game
        followed; its readings come first), and take its first move as certain once it
        holds ``commit``."""
        tracker = self.tracker
        readings = key[0]
        self.fit = None
        if key == self.last_key:
            tracker.pay_stillness(ev.hand_away, ev.capture_wait)
            return
        seen = best_counts(readings)
        ev = replace(ev, fresh=fresh_pits(seen, self.looked))
        saved = Snapshot.of(tracker)
        fit: Fit = tracker.update(ev)
        self.fits = explains(fit.deficit, fit.board, seen, floor)
        if not self.fits:
            saved.restore(tracker)  # (a reading this game does not explain tells nothing)
            return
        self.last_key = key
        self.fit = fit
        for i, s in enumerate(seen):
            if s is not None:
                self.looked[i] = s
        while True:
            done = [(m, r) for r, m in tracker.masses().items() if r is not None]
            if not done:
                break
            mass, record = max(done)
            if mass < commit:
                break
            tracker.commit(record)
            self.line.append(record)

    @property
    def played(self) -> int:
        """Moves played since the position before the command in this game's likeliest
        history (those taken as certain among them)."""
        tracker = self.tracker
        return len(self.line) + len(tracker.keys[tracker.best()][0])
