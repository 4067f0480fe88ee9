"""The referee: turns a stream of noisy board readings into the game, and catches mistakes.

>>> from core import Position, Observation
>>> ref = Referee(Position.initial())
>>> def seen(t, pits, stable=True):
...     return ref.observe(Observation(t, "example", stable, tuple(pits)))
>>> [e.type for e in seen(0.0, [4] * 12)]
[]
>>> [e.type for e in seen(1.0, [4, 4, 4, 4, 4, 0, 5, 5, 5, 5, 4, 4])]
['move']
>>> ref.position.to_text()
'4-4-4-4-4-0-5-5-5-5-4-4-0-0-N'
>>> seen(2.0, [4, 4, 4, 4, 4, 0, 5, 5, 5, 5, 4, 9])   # five seeds appeared on f
[]
>>> e = seen(2.5, [4, 4, 4, 4, 4, 0, 5, 5, 5, 5, 4, 9])   # ... and stayed
>>> e[0].type, e[0]["text"]
('board_disturbed', 'the board matches no legal move or known mistake: pit f: expected 4, seen 9')
>>> [e.type for e in seen(3.0, [4, 4, 4, 4, 4, 0, 5, 5, 5, 5, 4, 4])]
['board_restored']

How it decides (``docs/REFEREE.md`` says it in full):

1. The tracker (:mod:`core.referee.tracker`) keeps a belief over the histories
   the board may have gone through since the last certain position, and
   weighs every one by every observation.
2. A move is confirmed once the histories that contain it hold
   ``commit`` of the belief (:meth:`Referee._commit`), whether the evidence came
   from a still board or from the next move's sowing. Until then it may be
   announced as provisional.
3. A mistake is announced once its histories hold ``alert`` of the belief on a
   still board (:mod:`core.referee.mistakes`).
4. A still board that no history explains puts the referee out of sync: one
   alert, updated in place, until the board shows the game again, a new game's
   start, a position a person set, or the game's record with two quick moves in it
   that were never seen (:mod:`core.referee.resync`).
5. A doubt that a still board cannot settle is asked about: count a pit, or
   confirm the move played.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from dataclasses import InitVar, dataclass, field, replace
from typing import Any

import numpy as np

from core.observation import Observation, ObservationError, PitReading, most_likely
from core.position import MoveOutcome, Position
from core.records import GameRecord
from core.referee import commands, wording
from core.referee.commands import CommandError
from core.referee.events import Event
from core.referee.glitches import changed_pits, glitched_pits, unseen
from core.referee.likelihood import (
    best_counts,
    claimed_table,
    differing_pits,
    explains,
    log_likelihood_table,
)
from core.referee.resync import Anchor, Found, Rewrites, missed_pairs, search
from core.referee.shadow import Shadow
from core.referee.stages import (
    MISTAKE,
    PROPOSING_STAGES,
    MoveGraph,
    Record,
    missed_capture_position,
)
from core.referee.tracker import (
    CAPTURE_WAIT_MAX,
    CAPTURE_WAIT_PER_S,
    HAND_AWAY,
    HAND_AWAY_MAX,
    HAND_AWAY_PER_S,
    WIDTH,
    Evidence,
    Fit,
    NodeKey,
    Snapshot,
    Tracker,
    fresh_pits,
    slips,
)

__all__ = ["CommandError", "Referee"]

#: A still board explained only this loosely (log likelihood below the reading's own best
#: board) is checked against lines of moves further than the histories reach.
LOOSE_FIT = 3.0
#: Log likelihood of seeds in a hand while a person counts a pit (the players have stopped).
COUNTING_STILL = -6.0
#: Moves the game may go on past an undecided move before the likelier one is taken: by
#: then the moves since explain the board as well in every history (the doubt is about
#: a pile no later move touched), so waiting tells nothing more and would only leave
#: the page that many moves behind. A person can still undo it or set the position.
STALE_DEPTH = 10
#: ... if it holds at least this much of the belief (a doubt split more evenly waits).
STALE_MASS = 0.75
#: A doubt about a game's last moves that will not be settled (asked and left unanswered,
#: or spread too thin to ask about: :meth:`Referee._end_doubt_closed`) is taken as the
#: likelier line if it holds at least this much: no move comes after the end to settle
#: it, and the board tells nothing more however long it stands, so waiting would leave
#: the game unfinished on the page for good. A question asked stays asked: a person's
#: late answer judges the end again.
END_MASS = 0.5
#: A board no history explains, but one history's board at rest differs from it in this
#: many pits or fewer (and fewer than any other's, the last certain position's included):
#: that history's moves were played, and then a hand disturbed those pits.
DISTURBED_PITS = 2
#: How many moves on from a known position the referee looks when it has lost the game.
RESYNC_DEPTH = 4
#: ... and from the start position (a new game whose first moves were made quickly).
NEW_GAME_DEPTH = 2
#: How many confirmed moves back the referee looks, once it has lost the game, for two
#: quick moves it never saw (:func:`core.referee.resync.missed_pairs`) ...
MISSED_BACK = 40
#: ... and how many moves on from the record so rewritten.
MISSED_DEPTH = 3
#: A still board showing the start position ends a finished game's watch when it fits
#: this well (log likelihood below the reading's own best board).
NEW_GAME_FLOOR = -6.0
#: After a command, the game before it is followed for at most this many moves named
#: from the command's position, unless the still readings settle sooner which of the two
#: the board shows (:class:`AfterCommand`).
COMMAND_WATCH = 8


@dataclass
class AfterCommand:
    """The game before the last command (New game, Undo, a position set), followed while
    the board may still show it.

    A position set one seed or two from the board's, or one move on from it, is within a
    noisy camera's reach of the board: the command is taken at its word, and the game
    named from it. Each new still reading then weighs the two games: the game before the
    command (its histories as the referee held them, the moves it was still reading among
    them) against the game named since. Once the game before leads by the referee's
    margin, the board never showed the command: the moves named since are taken back and
    that game taken up where the board shows it. Once the game named since leads by the
    margin, after a move, the game before is forgotten."""

    before: Position
    shadow: Shadow
    cause: str
    set: Position
    """The position the command put in place."""
    history: int
    """Entries in the record's history when the command had put it in place."""
    lead: float = 0.0
    """Log likelihood by which the game before explains the still readings since better
    than the game named since."""


@dataclass
class OutOfSync:
    """The board shows nothing the game explains: what was said, and what to look for."""

    alert_id: int
    cause: str
    seen: tuple[int | None, ...]
    """The board when it began: showing it again changes nothing."""
    diff: tuple[tuple[int, int | None], ...]
    before: Position | None
    """The position before the command that caused it, if one did."""
    shadow: Shadow | None = None
    """The game before that command, followed in case the players played it on."""
    rewrites: Rewrites | None = None
    """The record with two moves it missed put in (listed at the first still board that
    needs them)."""


@dataclass(frozen=True, slots=True)
class Counted:
    """A pit a person counted (``Referee.confirm``)."""

    count: int
    read: int | None
    """The reading's most likely count then; None: a hand hid the pit (counting it)."""
    ply: int
    """Moves confirmed when it was given: it was about the board of the next one."""


@dataclass(frozen=True, slots=True)
class LateDoubt:
    """A question about a game's last moves, unanswered when the game's end was judged: the
    likelier line was taken, and a person's answer may still overturn it."""

    alert_id: int
    history: int
    """Entries of the referee's history before the moves taken."""
    tracker: Tracker
    """The belief over the histories just before they were taken, to judge again from."""

    @property
    def board(self) -> tuple[int, ...]:
        """The board the line taken leaves (the likeliest history's; what a count is
        compared with)."""
        tracker = self.tracker
        return tracker.stage(tracker.keys[tracker.best()]).board


@dataclass(frozen=True, slots=True)
class _Clocks:
    """What waits to be said, and since when (the referee's ``_since``, ``_sure_frames``
    and ``_due``), as it stood before a reading."""

    since: dict[Any, float]
    sure_frames: dict[Any, int]
    due: Any

    def restored(self) -> tuple[dict[Any, float], dict[Any, int], Any]:
        return dict(self.since), dict(self.sure_frames), self.due


@dataclass(slots=True)
class _Fed:
    """The last reading the tracker took, kept to weigh it again if a pit or two in it turn
    out to be a sensor cell's glitch (:meth:`Referee._weigh_glitch_again`)."""

    saved: Snapshot
    clocks: _Clocks
    ev: Evidence
    before: tuple[int | None, ...] | None
    """The board of the reading the tracker took before it."""
    board: tuple[int | None, ...]
    played: frozenset[int]
    """Pits one seed up on ``before`` that play put there (see
    :meth:`Referee._lifted_at_once`)."""
    tracker: InitVar[Tracker]
    commits: list[Record] = field(default_factory=list)
    """Moves confirmed on this reading: confirmed again after it is weighed again."""
    _after: tuple[Any, ...] = ()

    def __post_init__(self, tracker: Tracker) -> None:
        self._after = self._beam(tracker)

    @staticmethod
    def _beam(tracker: Tracker) -> tuple[Any, ...]:
        # Every change to the tracker's beam puts new lists and arrays in place.
        return (tracker.keys, tracker.prior, tracker.closed, tracker.open)

    def committed(self, record: Record, tracker: Tracker, clocks: _Clocks) -> None:
        """``record`` was confirmed on this reading, the referee's ``clocks`` as it left
        them."""
        self.commits.append(record)
        self.clocks = clocks
        self._after = self._beam(tracker)

    def current(self, tracker: Tracker) -> bool:
        """Nothing changed the tracker since it took this reading."""
        return all(a is b for a, b in zip(self._after, self._beam(tracker), strict=True))


class Referee:
    """Keeps the game and decides what the board shows (see the module docstring)."""

    def __init__(
        self,
        start: Position | None = None,
        *,
        settle_time: float = 0.5,
        margin: float = 3.0,
        min_log_likelihood: float = -8.0,
        ambiguity_time: float = 2.0,
        stall_time: float = 5.0,
        commit: float = 0.999,
        commit_still: float = 0.99,
        alert: float = 0.95,
        provisional: float = 0.9,
        sees_hands: bool = False,
        independent_frames: bool = False,
    ) -> None:
        self.settle_time = settle_time
        """Seconds a reading must stay the same to count as still without the source's word."""
        self.margin = margin
        """How much better (log likelihood) a found line must explain the board than others."""
        self.min_log_likelihood = min_log_likelihood
        """Below this (against the reading's own best board), nothing explains a board."""
        self.ambiguity_time = ambiguity_time
        """Seconds a still board leaves a doubt open before the referee asks about it."""
        self.stall_time = stall_time
        """Seconds a still board shows a move half sown before the referee asks about it."""
        self.sees_hands = sees_hands
        """The source shows a hand over the board (a camera: hidden pits), so a still board
        with every pit in view has no seeds in a hand. A sensor board sees no hands."""
        self.independent_frames = independent_frames
        """A sensor's noise changes frame to frame: its frames add up, as far as each
        reading's own belief goes (a pile's weight error stays with it). A camera reads an
        untouched pile the same way frame after frame: only a reading that changes is new
        evidence (see :mod:`core.referee.tracker`)."""
        self.commit_mass = commit
        """Posterior mass at which a move is confirmed while the board moves or is hidden."""
        self.commit_still = commit_still
        """... and on a still board with every pit in view, where nothing more is to come."""
        self.alert_mass = alert
        self.provisional_mass = provisional
        self._seq = 0
        self._last_obs: Observation | None = None
        self._last_sig: tuple[int | None, ...] | None = None
        self._last_change = float("-inf")
        self._still_since: float | None = None
        self._last_key: tuple[Any, ...] | None = None
        self._told = False
        """Judging again because a person counted a pit: their word needs no second look."""
        self._unexplained_boards = {}
        self._reset_game(start or Position.initial())

    # -- state -------------------------------------------------------------------------
    def _reset_game(self, start: Position) -> None:
        self.start = start
        self.moves: list[MoveOutcome] = []
        self._missed: list[bool] = []
        """For each move, whether its capture was left on the board."""
        self._history: list[tuple[Position, MoveOutcome | None]] = []
        self.alerts: list[Event] = []
        self._tracker = Tracker(start)
        self._fed: _Fed | None = None
        self._fed_board: tuple[int | None, ...] | None = None
        """The board of the last reading the tracker took."""
        self._looked: list[int | None] = [None] * start.ruleset.num_pits
        self._sync: OutOfSync | None = None
        self._pending_check: tuple[str, Position | None] | None = None
        self._new_position(keep_counts=False)

    def _new_position(self, *, keep_counts: bool = True) -> None:
        """Forget what was said about the move in progress (after a move or a correction).

        A move keeps the pits people counted, for as long as they stand
        (:func:`_counts_still_standing`); a correction forgets them."""
        self._emitted: set[Any] = set()
        self._sure_frames: dict[Any, int] = {}
        """Successive observations that showed each mistaken board sure."""
        self._since: dict[Any, float] = {}
        """Since when each thing that waits to be said has been seen on a still board."""
        self._due = None
        """A mistake shown on the last still board, not yet said: (board, key, mistake)."""
        self._held = None
        self._unexplained_boards.clear()
        self._forgiven = False
        """The last still reading was taken for one cell's glitch."""
        self._ready: Record | None = None
        self._ready_seen: set[int] = set()
        """The pits ``_ready`` changed that were in view when it was first sure."""
        self._touched: int | None = None
        self._provisional: tuple[Record, int] | None = None
        self._question: int | None = None
        self._question_at = 0.0
        """When the open question was asked."""
        self._question_pits: frozenset[int] = frozenset()
        """The pits the open question asks to count ..."""
        self._answered: set[int] = set()
        """... and those a person has counted since."""
        self._late: LateDoubt | None = None
        if not keep_counts:
            self._after_command: AfterCommand | None = None
            """The game before the last command, while the still readings do not settle
            whether the board shows it (see :class:`AfterCommand`)."""
        if not keep_counts:
            self._overrides: dict[int, Counted] = {}
        self._last_key = None
        self.alerts = [a for a in self.alerts if a.type == "board_disturbed"]

    @property
    def position(self) -> Position:
        """The last certain position."""
        return self._tracker.root

    @property
    def phase(self) -> str:
        """waiting | moving | capturing | disturbed | ambiguous | mistake | over"""
        if self.position.is_over:
            return "over"
        if self._sync is not None:
            return "disturbed"
        if self._question is not None:
            return "ambiguous"
        key = self._tracker.keys[self._tracker.best()]
        if key[0]:
            return "moving"
        kind = key[1][0]
        return {"idle": "waiting", "sow": "moving", "cap": "capturing"}.get(kind, "mistake")

    def _event(self, type_: str, t: float, **data: Any) -> Event:
        ev = Event(type_, self._seq, t, data)
        self._seq += 1
        return ev

    def _alert(self, t: float, alert: Mapping[str, Any], **extra: Any) -> Event:
        rules = self.position.ruleset
        data = {k: v for k, v in alert.items() if k not in ("type", "key")}
        data["names"] = [rules.pit_name(p) for p in data.get("pits", [])]
        data.update(extra)
        data.setdefault("alert_id", self._seq)
        ev = self._event(str(alert["type"]), t, **data)
        self.alerts = [a for a in self.alerts if a.get("alert_id") != data["alert_id"]]
        self.alerts.append(ev)
        return ev

    # -- observations ---------------------------------------------------------------------
    def observe(self, obs: Observation | Mapping[str, Any]) -> list[Event]:
        """Take one observation; return the events it causes (often none)."""
        n = self.position.ruleset.num_pits
        if not isinstance(obs, Observation):
            try:
                obs = Observation.from_json(obs, pits=n)
            except ObservationError as exc:
                return [self._bad_observation(obs, str(exc))]
        if len(obs.pits) != n:
            return [self._bad_observation(obs, f"expected {n} pits, got {len(obs.pits)}")]
        total = self.position.ruleset.total_seeds
        # a count above every seed in the game, read for sure or as the likeliest count
        if any((c := most_likely(r)) is not None and c > total for r in obs.pits):
            return [self._bad_observation(obs, f"a pit cannot hold more than the {total} seeds")]
        lasted = self._unexplained_lasted(obs)
        self._gap = obs.t - self._last_obs_t
        self._last_obs, self._last_obs_t = obs, obs.t
        sig = best_counts(obs.pits)
        if sig != self._last_sig:
            self._last_sig = sig
            self._last_change = obs.t
        if self._overrides:
            self._overrides = _counts_still_standing(
                self._overrides, sig, self.position.pits, len(self.moves)
            )
        if obs.lifted is not None and self._touched is None and self.position.ruleset.touch_move:
            self._touched = obs.lifted
        settled = None not in sig and (obs.stable or obs.t - self._last_change >= self.settle_time)
        # How long the board has been still *and unchanged* (a sensor calls every seed's
        # board stable: each is a still board of its own).
        previous_still = self._still_since if self._last_change < obs.t else None
        self._still_since = (
            (previous_still if previous_still is not None else obs.t) if settled else None
        )
        if self.position.is_over:
            return [*lasted, *self._after_game(obs, settled)]
        return [*lasted, *self._judge(obs, settled, previous_still)]

    def _unexplained_lasted(self, obs: Observation) -> list[Event]:
        """A still board nothing explains, said out of sync when that board ends if it
        stood ``settle_time``: a source that sends a board only when it changes (and once
        a second when it does not) may have read it last well before that, while it still
        stood (as :meth:`_overdue_mistake` does for a mistake). Judged with the last
        reading, before ``obs`` takes its place."""
        held, self._held = self._held, None
        if held is None or self._sync is not None or self.position.is_over:
            return []
        last, ev, board = held
        # (since that very board was first read: a run of glitches, each a board of its
        # own for a reading, is no board that lasted)
        since, reads = self._unexplained_boards.get(board, (0.0, 0))
        if not reads or obs.t - since < self.settle_time:
            return []
        if self.independent_frames and reads < 2 and not self._told:
            # (a sensor cell's glitch in the last reading before a hand stands as long as
            # the hand takes to come: as for a mistake, its board is read twice first)
            return []
        if best_counts(self._readings(obs)) == board:
            return []  # (the same board again: judged at this reading as any still one)
        caught = self._catch_up(last, ev, -np.inf)
        if caught is not None:
            return caught
        played = self._played_before_disturbance(last)
        return [*played, *self._out_of_sync(obs.t, "board", None)]

    def _bad_observation(self, raw: Any, message: str) -> Event:
        t = raw.get("t", 0.0) if isinstance(raw, Mapping) else getattr(raw, "t", 0.0)
        try:
            t = float(t)
        except (TypeError, ValueError):
            t = 0.0
        if not np.isfinite(t):
            t = 0.0
        return self._event(
            "bad_observation",
            t,
            pits=[],
            names=[],
            text=f"a malformed observation was ignored: {message}",
        )

    def _readings(self, obs: Observation) -> tuple[PitReading, ...]:
        if not self._overrides:
            return obs.pits
        return tuple(
            self._overrides[i].count if i in self._overrides else r for i, r in enumerate(obs.pits)
        )

    def _evidence(
        self, obs: Observation, settled: bool, previous_still: float | None
    ) -> tuple[Evidence, tuple[Any, ...]]:
        readings = self._readings(obs)
        table = log_likelihood_table(readings, self.position.ruleset.total_seeds)
        visible = np.array([r is not None for r in readings], dtype=bool)
        seen = best_counts(readings)
        fresh = fresh_pits(seen, self._looked)
        away = away_new = wait = 0.0
        if settled and self.sees_hands:
            away = away_new = HAND_AWAY
        if settled and previous_still is not None:
            # (a still board goes on: what its seconds since the last observation cost)
            still = (self._last_still_elapsed, obs.t - previous_still)
            wait = _accrued(CAPTURE_WAIT_PER_S, CAPTURE_WAIT_MAX, *still)
            if self.sees_hands:
                away = _accrued(HAND_AWAY_PER_S, HAND_AWAY_MAX - HAND_AWAY, *still)
        self._last_still_elapsed = (
            0.0 if not settled or previous_still is None else obs.t - previous_still
        )
        still_start = settled and previous_still is None
        hand_pits: tuple[bool, ...] | None = None
        if self.sees_hands:
            hand_pits = self._hands_over or (False,) * len(readings)
            if still_start:
                self._hands_over = ()
            elif not settled and not visible.all():
                # (the union of the pits a hand hid since the last still board)
                self._hands_over = tuple(
                    h or not v for h, v in zip(hand_pits, visible.tolist(), strict=True)
                )
        ev = Evidence(
            table,
            visible,
            fresh,
            settled,
            away,
            away_new,
            still_start,
            hand_pits,
            self._gap,
            wait,
            # a sensor board under the pits reads each seed as it lands
            ends_seen=self.independent_frames and not self.sees_hands,
            t=obs.t,
            cap=(
                claimed_table(readings, self.position.ruleset.total_seeds)
                if self.independent_frames
                else None
            ),
        )
        return ev, (
            readings,
            settled,
        )

    def _looked_at(self, obs: Observation) -> None:
        """Remember the most likely count of every pit in view (see :attr:`Evidence.fresh`)."""
        for i, s in enumerate(best_counts(self._readings(obs))):
            if s is not None:
                self._looked[i] = s

    _last_still_elapsed = 0.0
    _held: tuple[Observation, Evidence, tuple[int | None, ...]] | None = None
    """The last still reading and its board, if nothing explained it (see
    :meth:`_unexplained_lasted`)."""
    _unexplained_boards: dict[tuple[int | None, ...], tuple[float, int]]
    """Each still board nothing explained since the last explained reading (or the board
    was said out of sync): when it was first read, and how many readings showed it. Past
    the settle time since the first of them, the board is out of sync."""
    _due: tuple[Any, Any, Any] | None = None
    _forgiven = False
    _clocks: _Clocks | None = None
    _last_obs_t = -math.inf
    _gap = math.inf
    """Seconds between the last two observations (see :data:`tracker.HANDOVER`)."""
    _hands_over: tuple[bool, ...] = ()
    """The pits a camera saw a hand over since the last still board (empty: none)."""

    def _judge(self, obs: Observation, settled: bool, previous_still: float | None) -> list[Event]:
        ev, key = self._evidence(obs, settled, previous_still)
        if self._sync is not None:
            self._due = None
            return self._while_out_of_sync(obs, ev, key)
        if self._after_command is not None:
            self._follow(self._after_command.shadow, ev, key)
        if self.independent_frames:
            # (only a source whose noise changes frame to frame glitches for one reading)
            if self._fed is not None:
                self._weigh_glitch_again(best_counts(key[0]))
            self._clocks = self._clocks_now()
        overdue = self._overdue_mistake(obs, settled)  # (before this reading moves it on)
        return [*overdue, *self._judged(obs, settled, ev, key)]

    def _judged(
        self, obs: Observation, settled: bool, ev: Evidence, key: tuple[Any, ...]
    ) -> list[Event]:
        if self._pending_check is not None and settled:
            cause, before = self._pending_check
            self._pending_check = None
            if not self._command_fits(obs, ev, cause, before):
                return self._out_of_sync(obs.t, cause, before)
        tracker = self._tracker
        if key == self._last_key:
            if self.independent_frames:
                # (the same reading again: a cell's noise does not repeat)
                self._fed, self._fed_board = None, best_counts(key[0])
            tracker.pay_stillness(ev.hand_away, ev.capture_wait)
            self._unexplained_boards.clear()
        else:
            saved = Snapshot.of(tracker)
            extra = self._proposals(obs)
            fit = tracker.update(ev, extra)
            if self.independent_frames and self._clocks is not None:
                seen = best_counts(key[0])
                lifted = self._lifted_at_once(self._fed_board, seen)
                self._fed = _Fed(saved, self._clocks, ev, self._fed_board, seen, lifted, tracker)
                self._fed_board = seen
            if not self._explains(obs, fit.deficit, fit.board):
                if not (settled and self.sees_hands and self.independent_frames):
                    saved.restore(tracker)  # nothing explains it: it tells nothing about the game
                    if self._fed is not None:  # (nor is it what the next reading follows)
                        self._fed_board = self._fed.before
                        self._fed = None
                # (but a still board with the hands seen away, from a source whose noise
                # changes frame to frame, is evidence all the same: two cells glitching
                # in one reading can mimic a one-seed move, and the next reading, one cell
                # off and so unexplained, is what shows the move was never played)
                if settled and self._started_again(obs, ev, None):
                    return self._lay_out_anew(obs)
                if not settled:
                    return []
                board = best_counts(self._readings(obs))
                since, reads = self._unexplained_boards.get(board, (obs.t, 0))
                self._unexplained_boards[board] = (since, reads + 1)
                first = min(since for since, _ in self._unexplained_boards.values())
                if obs.t - first >= self.settle_time:
                    # (unexplained boards, one or several, have stood the settle time)
                    caught = self._catch_up(obs, ev, -np.inf)
                    if caught is not None:
                        return caught
                    played = self._played_before_disturbance(obs)
                    return [*played, *self._out_of_sync(obs.t, "board", None)]
                self._held = (obs, ev, board)
                return []
            self._unexplained_boards.clear()
            if settled and self._started_again(obs, ev, fit):
                return self._lay_out_anew(obs)
            if settled and self._after_command is not None:
                overruled = self._weigh_command(obs, fit)
                if overruled is not None:
                    return overruled
            if settled and fit.deficit > LOOSE_FIT:
                # Only loosely explained: more moves than a history reaches between two
                # observations may have gone by unseen, and explain it far better.
                caught = self._catch_up(obs, ev, self.margin - fit.deficit)
                if caught is not None:
                    return caught
            self._last_key = key
            self._looked_at(obs)
        return self._decide(obs, settled)

    def _started_again(self, obs: Observation, ev: Evidence, fit: Fit | None) -> bool:
        """Whether the still reading ``obs`` shows the start position laid out mid-game
        (the players started again). ``fit``: how well the game explains it, if it does at
        all; with flat beliefs a history may explain ten pits each a little misread, and
        the start must then explain it better by the margin."""
        if fit is not None and self._cost(fit) <= self.margin:
            return False  # (no board beats a fit that good by the margin: most readings)
        start = Position.initial(self.position.ruleset)
        if start == self.position:
            return False
        theirs = self._deficit(ev, start.pits)
        if fit is not None and theirs + self.margin >= self._cost(fit):
            return False
        return self._explains(obs, theirs, start.pits)

    def _lay_out_anew(self, obs: Observation) -> list[Event]:
        """The players laid out a new game mid-game: at once, no alarm, however briefly
        the start stays still."""
        self._unexplained_boards.clear()
        events = self._begin_game(obs.t, Position.initial(self.position.ruleset), auto=True)
        self._looked_at(obs)
        return events

    def _clocks_now(self) -> _Clocks:
        return _Clocks(dict(self._since), dict(self._sure_frames), self._due)

    def _set_clocks(self, clocks: _Clocks) -> None:
        self._since, self._sure_frames, self._due = clocks.restored()

    def _lifted_at_once(
        self, before: tuple[int | None, ...] | None, board: tuple[int | None, ...]
    ) -> frozenset[int]:
        """The pits the reading the tracker just took shows one seed up on ``before`` where
        play explains it however soon the seed is gone: the likely histories (half the
        belief) have just sown it last, and the player to move may lift that pit at once.
        The next reading showing it gone is no glitch (:mod:`core.referee.glitches`)."""
        if before is None:
            return frozenset()
        grown = [
            i
            for i in changed_pits(before, board)
            if (b := board[i]) is not None and (a := before[i]) is not None and b == a + 1
        ]
        if not grown:
            return frozenset()
        tracker = self._tracker
        plain = dict.fromkeys(grown, 0.0)
        for key, p in zip(tracker.keys, tracker.posterior(), strict=True):
            if key[1] != ("idle",) or not key[0] or slips(key):
                continue
            stage_board, moves = tracker.stage(key).board, tracker.graph(key[0]).moves
            for pit in grown:
                if stage_board[pit] == board[pit] and pit in moves:
                    plain[pit] += float(p)
        return frozenset(pit for pit, mass in plain.items() if mass >= 0.5)

    def _weigh_glitch_again(self, board: tuple[int | None, ...]) -> None:
        """The last reading the tracker took showed a pit or two one seed off, and ``board``
        has them back (:func:`glitches.glitched_pits`): weigh that reading again with those
        pits unseen, if nothing but the moves confirmed on it moved the tracker on since
        (they stay confirmed), and forget what it started or stopped waiting to be said."""
        fed = self._fed
        if fed is None or fed.before is None:
            return
        pits = glitched_pits(fed.before, fed.board, board, fed.played)
        if pits is None:
            return
        self._fed = None
        # (the glitch is not what the next reading is compared with)
        before = fed.before
        self._fed_board = tuple(before[i] if i in pits else c for i, c in enumerate(fed.board))
        if not fed.current(self._tracker):
            return
        fed.saved.restore(self._tracker)
        hidden = tuple(None if i in pits else c for i, c in enumerate(fed.board))
        self._tracker.update(unseen(fed.ev, pits), self._proposals_for(hidden))
        for record in fed.commits:
            self._tracker.commit(record)
        self._set_clocks(fed.clocks)
        self._last_key = None  # (the reading now is weighed, whatever came before the glitch)

    def _lasts(self, what: Any, t: float) -> bool:
        """``what`` is seen on a still board now: has it lasted ``settle_time``? Only then is
        a mistake announced or the board called out of sync (a sensor cell's glitch, or a
        camera's one bad frame, is neither)."""
        since = self._since.setdefault(what, t)
        return t - since >= self.settle_time

    def _decide(self, obs: Observation, settled: bool) -> list[Event]:
        threshold = self.commit_mass
        game_end = False
        if settled:
            threshold = self.commit_still
            game_end = (
                self._still_since is not None
                and obs.t - self._still_since >= self.ambiguity_time
                and self._tracker.best_position().is_over
            )
            if game_end:
                # The last move of a game has no next move to settle a doubt too small to ask
                # a person about, and a board that stayed still this long tells nothing more
                # (a camera reads it the same way). Earlier in a game the next move's sowing
                # settles it: a doubt that held 2 s was, on the bench, as often two held
                # misreads that mimic a move as a real one.
                threshold = min(threshold, self.alert_mass)
        events = self._commit(obs.t, threshold, settled=settled, game_end=game_end)
        if self.position.is_over:
            return events
        if settled:
            events += self._mistake_alerts(obs)
            events += self._touch_move(obs.t)
            events += self._capture_pending(obs.t)
            events += self._questions(obs)
        events += self._provisional_events(obs.t)
        return events

    def _proposals(self, obs: Observation) -> list[tuple[int, NodeKey, float]]:
        """Wrong captures the reading shows, from the nodes where a capture was due or done
        (or a wrong one is under way)."""
        return self._proposals_for(best_counts(self._readings(obs)))

    def _proposals_for(self, seen: Sequence[int | None]) -> list[tuple[int, NodeKey, float]]:
        out: list[tuple[int, NodeKey, float]] = []
        tracker = self._tracker
        for j, (hist, skey) in enumerate(tracker.keys):
            if skey[0] not in PROPOSING_STAGES:
                continue
            proposed = tracker.graph(hist).propose_wrong_capture(skey, seen)
            if proposed is not None:
                out.append((j, (hist, proposed[0]), proposed[1]))
        return out

    # -- committing moves ---------------------------------------------------------------------
    def _commit(
        self, t: float, threshold: float, *, settled: bool = False, game_end: bool = False
    ) -> list[Event]:
        """Confirm every move whose histories hold ``threshold`` of the belief (on a still
        board, also the likelier of a doubt :data:`STALE_DEPTH` moves old, or, ``game_end``,
        of a doubt about a game's end that will not be settled: :meth:`_end_doubt_closed`)."""
        events: list[Event] = []
        late: tuple[LateDoubt, Event] | None = None
        while not self.position.is_over:
            masses = self._tracker.transposed_masses(1.0 - self.alert_mass)
            done = [(m, r) for r, m in masses.items() if r is not None]
            if not done:
                break
            mass, record = max(done)
            # No move will come after a game's end to settle a doubt that stays: it is as
            # old as it will ever be.
            ended = game_end and mass < threshold and self._end_doubt_closed(t)
            old = ended or self._tracker.depth() >= STALE_DEPTH
            floor = END_MASS if ended else STALE_MASS
            stale = settled and floor <= mass < threshold and old
            if mass < threshold and not stale:
                self._ready = None
                break
            if (
                self.independent_frames
                and not self._told
                and t - self._last_change < self.settle_time
            ):
                # A source whose noise changes frame to frame: sure at one observation,
                # confirmed if still sure at the next that sees again the pits the move
                # changed and the first one saw (one glitching frame is not a move, and
                # a hand over those pits at the next says nothing new). A reading that
                # has stood unchanged for the settle time is no glitching frame: a move
                # sure on it (the game's last ones, once their doubt is closed by time)
                # needs no reading more, which may never come.
                in_view = self._in_view()
                if self._ready != record:
                    self._ready = record
                    self._ready_seen = self._changed_pits(record) & in_view
                    break
                if not self._ready_seen <= in_view:
                    break
            if ended and stale and self._question is not None:
                late = self._keep_open(self._question)
            events += self._confirm_record(record, t, stale=stale, ended=ended)
        if late is not None:
            doubt, question = late
            if self.position.is_over:
                # After the moves and the game's end (a page clears its cards at a move).
                self._late = doubt
                events.append(self._late_question(t, question, doubt))
            else:  # the line taken stopped short of the end: the question is closed
                first = self._history[doubt.history][1]
                assert first is not None
                how = wording.stale_doubt_text(first, ended=True)
                events.append(self._restored(t, doubt.alert_id, how))
        return events

    def _keep_open(self, alert_id: int) -> tuple[LateDoubt, Event]:
        """The game's end is taken with a question open: keep what judging it again on a
        late answer needs, and take the question off the moves about to be confirmed (it
        stays asked: :meth:`_late_question`)."""
        question = next(a for a in self.alerts if a.get("alert_id") == alert_id)
        late = LateDoubt(alert_id, len(self._history), copy.deepcopy(self._tracker))
        self._question = None
        return late, question

    def _late_question(self, t: float, question: Event, late: LateDoubt) -> Event:
        """The question again, saying what was taken: a person may still answer it."""
        taken = self._taken(late)
        data = {k: v for k, v in question.data.items() if k != "names"}
        data["text"] = wording.late_doubt_text(taken, str(question["text"]))
        return self._alert(t, {"type": question.type, **data}, update=True)

    def _taken(self, late: LateDoubt) -> list[str]:
        """The names of the moves the game's end took."""
        return [out.name for _, out in self._history[late.history :] if out is not None]

    def _in_view(self) -> set[int]:
        obs = self._last_obs
        if obs is None:
            return set()
        return {i for i, r in enumerate(self._readings(obs)) if r is not None}

    def _played(self, record: Record) -> tuple[MoveOutcome, Position]:
        """The move ``record`` from the position, and the board it leaves (its capture
        left there if it was missed)."""
        out = self._tracker.graph(()).outcome(record[0])
        after = missed_capture_position(out) if record[1] else out.position
        assert after is not None
        return out, after

    def _changed_pits(self, record: Record) -> set[int]:
        """The pits whose count ``record`` changes."""
        _, after = self._played(record)
        return {
            i for i, (a, b) in enumerate(zip(self.position.pits, after.pits, strict=True)) if a != b
        }

    def _end_doubt_closed(self, t: float) -> bool:
        """Whether a doubt about a game's last moves will stay as it is: a question about it
        left unanswered for the ambiguity time (asked once the board is still: see
        :meth:`_questions`), or a doubt spread over explanations each too small to ask
        about. Then the likelier line is taken, as a doubt the game went on past is (a
        person can still undo it), rather than the game never ending on the page."""
        if self._question is not None:
            # (the epsilon: frames a whole ambiguity time apart)
            return t - self._question_at >= self.ambiguity_time - 1e-6
        classes = self._classes()
        return not self._worth_asking(classes) or self._which_moves(classes) == []

    def _which_moves(self, classes: list[tuple[float, Any, int]]) -> list[int] | None:
        """Where the likeliest two explanations leave the very same board, the two moves to
        ask a person to choose between, or ``[]`` where they are not two moves (a move and
        a mistake that sows the same seeds: no count and no question can tell them apart).
        None where the boards differ (a count tells)."""
        tracker = self._tracker
        (_, top, a), (_, runner, b) = classes[0], classes[1]
        if tracker.stage(tracker.keys[a]).board != tracker.stage(tracker.keys[b]).board:
            return None
        moves = sorted({c[1][0] for c in (top, runner) if c[0] == "done"})
        return moves if len(moves) == 2 else []

    def _confirm_record(
        self, record: Record, t: float, *, stale: bool = False, ended: bool = False
    ) -> list[Event]:
        pit, missed = record
        graph = self._tracker.graph(())
        out = graph.outcome(pit)
        rules = self.position.ruleset
        events: list[Event] = []
        if self._question is not None:
            how = wording.stale_doubt_text(out, ended) if stale else "the doubt is settled"
            events.append(self._restored(t, self._question, how))
        if self._provisional is not None and self._provisional[0] != record:
            events.append(self._withdrawn(t))
        provisional = self._provisional[1] if self._provisional is not None else None
        if rules.touch_move and self._touched is not None and self._touched != pit:
            key = ("touch_move", self._touched, pit)
            if key not in self._emitted:
                self._emitted.add(key)
                events.append(self._alert(t, wording.touch_move_alert(rules, self._touched, pit)))
        if missed:
            after = missed_capture_position(out)
            assert after is not None
            events.append(
                self._alert(t, wording.missed_capture_alert(out, self._next_move(record)))
            )
        else:
            after = out.position
        self._history.append((self.position, out))
        self.moves.append(out)
        self._missed.append(missed)
        move = self._move_event(t, out, after, capture_missed=missed, provisional=provisional)
        self._tracker.commit(record)
        # A mistake waiting to be said, or said, on a board that stands is the same
        # mistake whichever earlier move is confirmed meanwhile (the players move fast,
        # and the moves before a mistake can be confirmed while it stands).
        clocks = self._clocks_now()
        said = {k for k in self._emitted if isinstance(k[0], int) or k[0] == "mistake"}
        self._new_position()  # also forgets the last reading: look at it again from here
        self._set_clocks(clocks)
        self._emitted |= said
        if self._fed is not None:
            self._fed.committed(record, self._tracker, clocks)
        if self._told:
            # Named on a person's count: the players are still stopped, nobody holds seeds
            # of the next move yet.
            self._tracker.pay_stillness(COUNTING_STILL)
        return [*events, move, *self._game_over_events(t)]

    def _next_move(self, record: Record) -> int:
        """The move most likely under way after ``record`` (the one that missed a capture)."""
        tracker = self._tracker
        weights: dict[int, float] = {}
        for (hist, skey), p in zip(tracker.keys, tracker.posterior(), strict=True):
            if hist[:1] != (record,):
                continue
            nxt = hist[1][0] if len(hist) > 1 else skey[1] if len(skey) > 1 else None
            if isinstance(nxt, int):
                weights[nxt] = weights.get(nxt, 0.0) + float(p)
        return max(weights, key=lambda m: weights[m]) if weights else record[0]

    def _move_event(
        self,
        t: float,
        out: MoveOutcome,
        after: Position,
        *,
        capture_missed: bool = False,
        provisional: int | None = None,
    ) -> Event:
        captures = [] if capture_missed else [[p, c] for p, c in out.captures]
        notation, captured = _as_played(out, capture_missed)
        extra: dict[str, Any] = {} if provisional is None else {"provisional": provisional}
        return self._event(
            "move",
            t,
            player=out.player,
            pit=out.pit,
            name=out.name,
            notation=notation,
            seeds=out.seeds,
            sown=list(out.sown),
            captures=captures,
            captured=captured,
            grand_slam=out.grand_slam,
            extra_turn=out.extra_turn,
            capture_missed=capture_missed,
            scores=list(after.stores),
            position=after.to_json(),
            to_move=after.to_move,
            ply=len(self.moves),
            text=wording.move_text(out, capture_missed=capture_missed),
            **extra,
        )

    def _game_over_events(self, t: float) -> list[Event]:
        end = self.position.ending
        if end is None:
            return []
        return [
            self._event(
                "game_over",
                t,
                winner=end.winner,
                scores=list(end.scores),
                reason=end.reason,
                text=end.text,
            )
        ]

    # -- provisional moves -------------------------------------------------------------------
    def _provisional_events(self, t: float) -> list[Event]:
        masses = self._tracker.masses()
        done = [(m, r) for r, m in masses.items() if r is not None]
        events: list[Event] = []
        current = self._provisional
        if current is not None and masses.get(current[0], 0.0) < 0.5:
            events.append(self._withdrawn(t))
            current = None
        if done:
            mass, record = max(done)
            if record == self._ready:
                return events  # sure already: confirmed at the next observation
            if mass >= self.provisional_mass and (current is None or current[0] != record):
                if current is not None:
                    events.append(self._withdrawn(t))
                out = self._tracker.graph(()).outcome(record[0])
                ev = self._event(
                    "move_provisional",
                    t,
                    player=out.player,
                    pit=out.pit,
                    name=out.name,
                    ply=len(self.moves) + 1,
                    text=f"{wording.move_text(out, capture_missed=record[1])} (reading…)",
                )
                self._provisional = (record, ev.seq)
                events.append(ev)
        return events

    def _withdrawn(self, t: float, text: str | None = None) -> Event:
        assert self._provisional is not None
        record, seq = self._provisional
        self._provisional = None
        name = self.position.ruleset.pit_name(record[0])
        return self._event(
            "move_withdrawn",
            t,
            provisional=seq,
            pit=record[0],
            text=text or f"move {name} was not played",
        )

    # -- alerts -------------------------------------------------------------------------------
    def _mistake_alerts(self, obs: Observation) -> list[Event]:
        t = obs.t
        # The same still board must show the mistake for settle_time: a board that keeps
        # changing (a player putting a mistake right, seed by seed) is not yet one.
        readings = self._readings(obs)
        board = best_counts(readings)
        # ... and that board itself, where the reading is sure of a pile: a mistake whose
        # board the reading contradicts is what is left once the right history was
        # dropped, not what the players did.
        sure_pits = [i for i, r in enumerate(readings) if _sure(r)]
        tracker = self._tracker
        masses: dict[tuple[Any, ...], float] = {}
        makers: dict[tuple[Any, ...], Any] = {}
        for key, p in zip(tracker.keys, tracker.posterior(), strict=True):
            stage = tracker.stage(key)
            if stage.mistake is None or any(stage.board[i] != board[i] for i in sure_pits):
                continue
            k = (len(self.moves) + len(key[0]), stage.mistake.key, board)
            masses[k] = masses.get(k, 0.0) + float(p)
            makers[k] = stage.mistake
        # That a mistake was made may be sure while two explanations share the belief (a
        # second seed dropped in a pit, or the move done and the next one sown the wrong
        # way): the likeliest is said.
        what = ("mistake", board)
        held = [w for w in self._since if w[0] == "mistake" and w != what]
        sure = bool(masses) and sum(masses.values()) >= self.alert_mass
        if not sure and self.independent_frames and not self._forgiven and len(held) == 1:
            shown = held[0][1]
            off = [i for i, (a, b) in enumerate(zip(shown, board, strict=True)) if a != b]
            if len(off) == 1 and shown[off[0]] == self.position.pits[off[0]]:
                # One cell's glitch for one reading, in a pit the mistake and the moves
                # since left alone (a sensor's noise changes frame to frame; a pit in
                # twelve is off in one reading of nine at 1 %): the mistake's board still
                # stands, and its clock goes on.
                self._forgiven = True
                return []
        self._forgiven = False
        for other in held:
            del self._since[other]  # another board since: its clock starts again
        self._sure_frames = {w: n for w, n in self._sure_frames.items() if w == what}
        self._due = None
        if not sure:
            self._since.pop(what, None)  # no longer sure: its clock starts again
            self._sure_frames.pop(what, None)
            return []
        k = max(masses, key=lambda m: masses[m])
        said = k[:2]  # once per mistake, whatever board it is seen on
        self._sure_frames[what] = self._sure_frames.get(what, 0) + 1
        if said in self._emitted:
            return []
        if not self._lasts(what, t) or not self._read_twice(what):
            # Judged again when the board changes (:meth:`_overdue_mistake`)
            self._due = (what, said, makers[k])
            return []
        return [self._say_mistake(what, said, makers[k], t)]

    def _say_mistake(self, what: Any, said: Any, maker: Any, t: float) -> Event:
        self._emitted.update({said, what})
        return self._alert(t, maker.alert())

    def _read_twice(self, what: Any) -> bool:
        """A sensor cell's glitch can stand for a second (a board that does not change is
        sent again only now and then): from such a source a mistake needs a second reading
        of its board."""
        return not self.independent_frames or self._sure_frames.get(what, 0) >= 2 or self._told

    def _overdue_mistake(self, obs: Observation, settled: bool) -> list[Event]:
        """The mistake a still board showed, said when that board ends if it stood for
        ``settle_time``: a source that sends a board only when it changes (and now and then
        again) may have read it last well before that, while it still stood."""
        due, self._due = self._due, None
        if due is None:
            return []
        what, said, maker = due
        if settled and best_counts(self._readings(obs)) == what[1]:
            self._due = due  # still shown: judged by _mistake_alerts
            return []
        since = self._since.get(what)
        if since is None or obs.t - since < self.settle_time or said in self._emitted:
            return []
        if not self._read_twice(what):
            return []
        return [self._say_mistake(what, said, maker, obs.t)]

    def _touch_move(self, t: float) -> list[Event]:
        """Touch-move: the first pit seen lifted is the move; another one lifted is an alert."""
        rules = self.position.ruleset
        if not rules.touch_move:
            return []
        top_mass, top, _ = self._classes()[0]
        if top[0] != "move" or top_mass < self.alert_mass:
            return []
        pit = int(top[1])
        if self._touched is None:
            self._touched = pit
            return []
        key = ("touch_move", self._touched, pit)
        if self._touched == pit or key in self._emitted:
            return []
        self._emitted.add(key)
        return [self._alert(t, wording.touch_move_alert(rules, self._touched, pit))]

    def _capture_pending(self, t: float) -> list[Event]:
        tracker = self._tracker
        masses: dict[int, float] = {}
        for (hist, skey), p in zip(tracker.keys, tracker.posterior(), strict=True):
            if not hist and skey[0] == "cap":
                masses[skey[1]] = masses.get(skey[1], 0.0) + float(p)
        events: list[Event] = []
        for m, mass in masses.items():
            key = ("capture_pending", m)
            if mass >= self.alert_mass and key not in self._emitted:
                self._emitted.add(key)
                out = tracker.graph(()).outcome(m)
                rules = self.position.ruleset
                pits = [p for p, _ in out.captures]
                events.append(
                    self._event(
                        "capture_pending",
                        t,
                        move=out.pit,
                        pits=pits,
                        names=[rules.pit_name(p) for p in pits],
                        captures=[[p, c] for p, c in out.captures],
                        seeds=out.captured,
                        text=wording.capture_pending_text(out),
                    )
                )
        return events

    # -- questions ----------------------------------------------------------------------------
    def _classes(self) -> list[tuple[float, Any, int]]:
        """(mass, class, best node) of each thing the board may show, most likely first."""
        tracker = self._tracker
        post = tracker.posterior()
        mass: dict[Any, float] = {}
        best: dict[Any, int] = {}
        for i, key in enumerate(tracker.keys):
            cls = self._class_of(key)
            mass[cls] = mass.get(cls, 0.0) + float(post[i])
            if cls not in best or post[i] > post[best[cls]]:
                best[cls] = i
        return sorted(((m, c, best[c]) for c, m in mass.items()), key=lambda x: -x[0])

    def _class_of(self, key: NodeKey) -> tuple[Any, ...]:
        hist, skey = key
        if hist:
            return ("done", hist[0])
        kind = skey[0]
        if kind == "idle":
            return ("idle",)
        if kind in ("sow", "cap"):
            return ("move", skey[1])
        mistake = self._tracker.stage(key).mistake
        return ("mistake", mistake.key if mistake is not None else skey)

    def _worth_asking(self, classes: list[tuple[float, Any, int]]) -> bool:
        """Whether the explanations of the board leave a doubt to ask a person about: the
        runner-up holds a real share (``1 − alert``) of the belief and the likeliest is not
        a mistake. (A mistake as the runner-up is asked about too: one misread pile can
        weigh as much as a mistake, and a count settles which; a mistake on top is said
        once sure.)"""
        if classes[0][0] >= self.commit_mass or len(classes) < 2:
            return False
        return classes[1][0] >= 1.0 - self.alert_mass and classes[0][1][0] != "mistake"

    def _questions(self, obs: Observation) -> list[Event]:
        if self._still_since is None:
            return []
        still_for = obs.t - self._still_since
        classes = self._classes()
        top_mass, top, a = classes[0]
        tracker = self._tracker
        board_of = [tracker.stage(tracker.keys[i]).board for _, _, i in classes]
        if (
            top[0] == "move"
            and tracker.keys[a][1][0] == "sow"
            and tracker.stage(tracker.keys[a]).in_hand
            and top_mass >= self.alert_mass
            and still_for >= self.stall_time
        ):
            return self._stalled(obs.t, a)
        if not self._worth_asking(classes):
            return []
        moves = self._which_moves(classes)
        if moves is not None:
            # Different moves that leave the very same board: no reading can ever tell.
            return self._ask_which_move(obs.t, moves) if moves else []
        ended = tracker.best_position().is_over
        if still_for < (self.settle_time if ended else self.ambiguity_time):
            # (Mid-game the next move's sowing may settle the doubt. After a game's last
            # move none will come: the question is asked once the board is still, as a
            # mistake is said, rather than left until the players clear the board.)
            return []
        # The explanations that hold nearly all the belief, and the pits that tell them apart.
        # (Wrong sowings of one move are explanations of their own, each with a share of
        # the belief: asking about the likeliest only left the next to ask about as soon
        # as it was counted; one count settles them all.)
        shown: list[int] = []
        held = 0.0
        for k, (mass, _, _) in enumerate(classes[:4]):
            shown.append(k)
            held += mass
            if held >= self.alert_mass:
                break
        boards = list(dict.fromkeys(board_of[k] for k in shown))
        key = ("ambiguous", len(self.moves), tuple(boards))
        what = (self._describe(tracker.keys[a]), self._describe(tracker.keys[classes[shown[1]][2]]))
        return self._ask_to_count(
            obs.t, key, boards, what, lambda ask, pits: wording.doubt_text(ask, pits, len(boards))
        )

    def _describe(self, key: NodeKey) -> str:
        hist, skey = key
        rules = self.position.ruleset
        if hist:
            return wording.describe_stage(rules, "done", hist[0][0])
        move = skey[1] if len(skey) > 1 and isinstance(skey[1], int) else None
        return wording.describe_stage(rules, skey[0], move)

    def _stalled(self, t: float, node: int) -> list[Event]:
        """A still board has shown the same move half sown for ``stall_time``: ask once to
        count the pits the rest of the sowing goes into."""
        tracker = self._tracker
        hist, skey = tracker.keys[node]
        m = int(skey[1])
        key = ("ambiguous", "stalled", len(self.moves), m)
        if key in self._emitted:
            return []
        graph = tracker.graph(())
        out = graph.outcome(m)
        done = graph.sown_board(m)
        sowing = tracker.stage(tracker.keys[node]).board
        left = len(out.sown) - int(skey[2]) if skey[0] == "sow" else 1
        what = (
            wording.describe_stage(self.position.ruleset, "done", m),
            self._describe((hist, skey)),
        )
        return self._ask_to_count(
            t,
            key,
            [done, sowing],
            what,
            lambda ask, pits: wording.stalled_text(out, left, self.stall_time, ask, pits),
        )

    def _ask_to_count(
        self,
        t: float,
        key: tuple[Any, ...],
        boards: Sequence[Sequence[int]],
        what: tuple[str, str],
        words: Any,
    ) -> list[Event]:
        """Ask once (``key``) to count the pits where ``boards`` differ."""
        if key in self._emitted:
            return []
        if (
            self._question is not None
            and self._answered
            and not self._question_pits <= self._answered
        ):
            # (a person is counting the pits asked, one by one: each count narrows the
            # doubt, and asking anew after each would put a question per pit on the page)
            return []
        self._emitted.add(key)
        pits, options, ask, listed = wording.differences(self.position.ruleset, boards)
        self._question_pits, self._answered = frozenset(pits), set()
        ev = self._alert(
            t,
            {
                "type": "ambiguous",
                "pits": pits,
                "options": options,
                "text": words(ask, listed),
                "expected": what[0],
                "seen": what[1],
            },
        )
        self._question = ev["alert_id"]
        self._question_at = t
        return [ev]

    def _ask_which_move(self, t: float, moves: list[int]) -> list[Event]:
        key = ("ambiguous", "moves", len(self.moves), tuple(moves))
        if key in self._emitted:
            return []
        self._emitted.add(key)
        rules = self.position.ruleset
        listed = " and ".join(rules.pit_name(m) for m in moves)
        ev = self._alert(
            t,
            {
                "type": "ambiguous",
                "pits": moves,
                "moves": moves,
                "text": wording.twin_moves_text(rules, moves),
                "expected": "one move",
                "seen": f"{listed} both fit",
            },
        )
        self._question = ev["alert_id"]
        self._question_at = t
        self._question_pits, self._answered = frozenset(), set()
        return [ev]

    def _restored(self, t: float, alert_id: int, how: str) -> Event:
        self.alerts = [a for a in self.alerts if a.get("alert_id") != alert_id]
        if self._question == alert_id:
            self._question = None
        return self._event("board_restored", t, closes=alert_id, text=wording.resync_text(how))

    # -- out of sync ----------------------------------------------------------------------------
    def _explains(self, obs: Observation, deficit: float, board: tuple[int, ...]) -> bool:
        seen = best_counts(self._readings(obs))
        return explains(deficit, board, seen, self.min_log_likelihood)

    def _explains_root(self, obs: Observation, ev: Evidence) -> bool:
        """Whether the reading shows the last certain position."""
        return self._explains_board(obs, ev, self.position.pits)

    def _explains_board(self, obs: Observation, ev: Evidence, board: tuple[int, ...]) -> bool:
        return self._explains(obs, self._deficit(ev, board), board)

    @staticmethod
    def _deficit(ev: Evidence, board: tuple[int, ...]) -> float:
        """Log likelihood of ``board`` below the reading's own best board."""
        rows = ev.table[np.arange(len(board)), np.minimum(board, ev.table.shape[1] - 1)]
        return ev.ceiling - float(rows.sum())

    def _diff(self, seen: Sequence[int | None]) -> list[dict[str, Any]]:
        rules = self.position.ruleset
        return [
            {"pit": i, "name": rules.pit_name(i), "expected": e, "seen": s}
            for i, (e, s) in enumerate(zip(self.position.pits, seen, strict=True))
            if s is not None and s != e
        ]

    def _played_before_disturbance(self, obs: Observation) -> list[Event]:
        """The moves of the one history whose board at rest the unexplained reading ``obs``
        (or another still board nothing explained since the last one that was) shows but
        for a pit or two (:data:`DISTURBED_PITS`), confirmed before the board is
        called out of sync: the players made them, then a hand disturbed those pits. The
        alert then names the pits disturbed and counts from the right move, rather than
        listing the pits the moves changed as well. None if no history stands out so."""
        # Each still board nothing explained since the last one that was (a sensor cell's
        # glitch in the last of them is not in the others)
        boards = [best_counts(self._readings(obs)), *self._unexplained_boards]
        tracker = self._tracker

        def differing(board: Sequence[int]) -> int:
            return min(differing_pits(board, seen) for seen in boards)

        fewest = differing(self.position.pits)
        found: set[tuple[Record, ...]] = set()
        for i, (hist, skey) in enumerate(tracker.keys):
            if not hist or skey != ("idle",):
                continue
            d = differing(tracker.boards[i].tolist())
            if d < fewest:
                fewest, found = d, {hist}
            elif d == fewest and found:
                found.add(hist)
        if fewest > DISTURBED_PITS or len(found) != 1:
            return []
        events: list[Event] = []
        for record in next(iter(found)):
            if self.position.is_over:
                break
            events += self._confirm_record(record, obs.t)
        return events

    def _out_of_sync(self, t: float, cause: str, before: Position | None) -> list[Event]:
        """Say once that the board shows nothing the game explains (see :class:`OutOfSync`)."""
        # (the unexplained board that lasted is said: once the game is found again, the
        # next one must last settle_time of its own)
        self._unexplained_boards.clear()
        self._held = None
        seen = best_counts(self._readings(self._last_obs)) if self._last_obs else ()
        diff = self._diff(seen)
        events: list[Event] = []
        if self._provisional is not None:
            events.append(self._withdrawn(t))
        if self._question is not None:
            events.append(self._restored(t, self._question, ""))
        alert = self._disturbed_alert(t, cause, seen, diff)
        shadow = None if before is None else Shadow.following(before, self._looked)
        if before is None and self._after_command is not None:
            # (lost before any move since a command the board was taken to show: the
            # game before it, followed since, is where the players may have gone on)
            before, shadow = self._after_command.before, self._after_command.shadow
        self._sync = OutOfSync(
            alert["alert_id"],
            cause,
            tuple(seen),
            tuple((d["pit"], d["seen"]) for d in diff),
            before,
            shadow,
        )
        return [*events, alert]

    def _disturbed_alert(
        self,
        t: float,
        cause: str,
        seen: Sequence[int | None],
        diff: list[dict[str, Any]],
        **extra: Any,
    ) -> Event:
        return self._alert(
            t,
            {
                "type": "board_disturbed",
                "pits": [d["pit"] for d in diff],
                "diff": diff,
                "cause": cause,
                "text": wording.out_of_sync_text(cause, diff),
                "advice": wording.OUT_OF_SYNC_ADVICE[cause],
                "expected": self.position.to_text(),
                "seen": "-".join("?" if s is None else str(s) for s in seen),
            },
            **extra,
        )

    def _while_out_of_sync(
        self, obs: Observation, ev: Evidence, key: tuple[Any, ...] | None = None
    ) -> list[Event]:
        sync = self._sync
        assert sync is not None
        if sync.shadow is not None and key is not None:
            self._follow(sync.shadow, ev, key)
        if not ev.still:
            return []
        seen = best_counts(self._readings(obs))
        if seen == sync.seen:
            return []  # the board as it was when the game was lost: nothing new
        tracker = self._tracker
        saved = Snapshot.of(tracker)
        fit = tracker.update(ev, self._proposals(obs))
        # (after a command, a board the game before it explains better is that game, not
        # the command's with a few piles misread, or with a mistake made at once, which
        # pays its prior here too: the search below finds it)
        cost = self._cost(fit)
        before_better = sync.before is not None and self._deficit(ev, sync.before.pits) < cost
        if sync.shadow is not None and sync.shadow.fit is not None:
            # (or the game before played on, as its histories explain it)
            before_better = before_better or self._cost(sync.shadow.fit) < cost
        explained = self._explains(obs, fit.deficit, fit.board) and not before_better
        if explained and not slips(fit.key):
            return self._back_in_sync(obs, sync)
        updated = Snapshot.of(tracker) if explained else None
        saved.restore(tracker)
        found = self._search(ev, sync.before)
        if found is None and self._shadow_shown(sync):
            assert sync.shadow is not None and sync.before is not None
            return self._take_up(obs, sync.shadow, sync.before, sync)
        found = found or self._search(ev, sync.before, self._rewrites(sync))
        if found is not None:
            return self._resync(obs, found, sync)
        if updated is not None:
            # A mistake made at once explains the board, and no line of play does: the
            # game is found, and the mistake said as any other.
            updated.restore(tracker)
            return self._back_in_sync(obs, sync)
        diff = self._diff(seen)
        key = tuple((d["pit"], d["seen"]) for d in diff)
        if key == sync.diff:
            return []
        sync.diff = key
        sync.seen = tuple(seen)
        return [
            self._disturbed_alert(
                obs.t, sync.cause, seen, diff, alert_id=sync.alert_id, update=True
            )
        ]

    def _back_in_sync(self, obs: Observation, sync: OutOfSync) -> list[Event]:
        """The histories, just updated with ``obs``, explain the board again."""
        self._looked_at(obs)
        self._sync = None
        restored = self._restored(obs.t, sync.alert_id, "")
        return [restored, *self._decide(obs, True)]

    def _follow(self, shadow: Shadow, ev: Evidence, key: tuple[Any, ...]) -> None:
        shadow.observe(
            ev,
            key,
            floor=self.min_log_likelihood,
            commit=self.commit_mass,
        )

    @staticmethod
    def _shadow_shown(sync: OutOfSync) -> bool:
        """Whether the board shows the game before the command played on, further than the
        search looks (see :mod:`core.referee.shadow`)."""
        shadow = sync.shadow
        # (none played: the search found it, or nothing did)
        return shadow is not None and sync.before is not None and shadow.fits and shadow.played > 0

    def _search(
        self, ev: Evidence, before: Position | None, rewrites: Rewrites | None = None
    ) -> Found | None:
        anchors = [Anchor("root", self.position, RESYNC_DEPTH)]
        if before is not None and before != self.position:
            anchors.append(Anchor("before", before, RESYNC_DEPTH))
        start = Position.initial(self.position.ruleset)
        if start != self.position:
            anchors.append(Anchor("start", start, NEW_GAME_DEPTH))
        return search(
            anchors,
            ev.table,
            floor=self.min_log_likelihood,
            margin=self.margin,
            rewrites=rewrites,
        )

    def _rewrites(self, sync: OutOfSync) -> Rewrites:
        """The game's last moves with two quick ones it missed put in (see
        :func:`core.referee.resync.missed_pairs`), listed once while the game is lost.
        Only moves the referee confirmed since the last correction, back to the last that
        left a capture on the board, are played again (the rules' play would not)."""
        if sync.rewrites is None:
            record: list[tuple[Position, int]] = []
            j = len(self.moves)
            for before, out in reversed(self._history):
                if out is None or len(record) >= MISSED_BACK:
                    break
                j -= 1
                if self._missed[j]:
                    break
                record.append((before, out.pit))
            record.reverse()
            listed = missed_pairs(record, MISSED_DEPTH) if record else []
            first = len(self.moves) - len(record)
            sync.rewrites = Rewrites.of(
                [(replace(a, ply=first + (a.ply or 0)), line, q, n) for a, line, q, n in listed],
                self.position.ruleset.num_pits,
            )
        return sync.rewrites

    def _weigh_command(self, obs: Observation, fit: Fit) -> list[Event] | None:
        """A new still reading the game named since the last command explains (``fit``):
        weigh it against the game before the command (see :class:`AfterCommand`)."""
        after = self._after_command
        assert after is not None
        named = len(self._history) - after.history
        theirs = after.shadow.fit
        if theirs is None:
            # (the game before does not explain it: the game named since does, once a move
            # says so; a reading that game had seen already tells nothing)
            if named and not after.shadow.fits:
                self._after_command = None
            return None
        after.lead += self._cost(fit) - self._cost(theirs)
        if named and (after.lead < -self.margin or named > COMMAND_WATCH):
            self._after_command = None
            return None
        if after.lead <= self.margin:
            return None
        return self._overruled(obs, after)

    @staticmethod
    def _cost(fit: Fit) -> float:
        """What a fit costs: its log likelihood below the reading's best, and the prior of
        each mistake its history makes."""
        return fit.deficit - MISTAKE * slips(fit.key)

    def _overruled(self, obs: Observation, after: AfterCommand) -> list[Event]:
        """The board went on with the game before the command: say the board does not show
        the command (the one out-of-sync alert), take back the moves named since, and take
        that game up."""
        events = self._out_of_sync(obs.t, after.cause, after.before)
        sync = self._sync
        assert sync is not None
        taken = self._cut_record(after.history)
        self._tracker.reset(MoveGraph(after.set, None))
        if taken:
            events.append(
                self._event(
                    "corrected",
                    obs.t,
                    action="resync",
                    position=after.set.to_json(),
                    ply=len(self.moves),
                    text=wording.overruled_text(taken, after.before.to_text()),
                )
            )
        return [*events, *self._take_up(obs, after.shadow, after.before, sync)]

    def _take_up(
        self, obs: Observation, shadow: Shadow, before: Position, sync: OutOfSync
    ) -> list[Event]:
        """The board shows the game before the command (``shadow``), played on from
        ``before``: take it up and close the alert. The moves it is sure of are named; the
        others stay among its histories, read on as any move (shown as provisional, named
        once the belief is sure): a line taken whole at a still board it explains only
        about as well as another names moves wrongly (flat readings, quick moves)."""
        t = obs.t
        self._after_command = None
        self._sync = None
        events, stands = self._back_before(t, before, sync.cause)
        for record in shadow.line:
            events += self._confirm_record(record, t)
        self._tracker = shadow.tracker
        self._last_key = shadow.last_key
        self._looked_at(obs)
        how = wording.found_again_how(shadow.played, stands)
        return [*events, self._restored(t, sync.alert_id, how)]

    def _resync(self, obs: Observation, found: Found, sync: OutOfSync) -> list[Event]:
        """The board shows ``found``: take up the game there and close the alert."""
        t = obs.t
        events: list[Event] = []
        stands = ""
        self._sync = None
        self._after_command = None
        if found.anchor.name == "start":
            events += self._begin_game(t, found.anchor.position, auto=True)
        elif found.anchor.name == "earlier" and (found.anchor.ply or 0) < len(self.moves):
            events.append(self._rewind(t, found.anchor))
        elif found.anchor.name == "before":
            back, stands = self._back_before(t, found.anchor.position, sync.cause)
            events += back
        else:  # (the root, or the record with the two missed moves put in at its end)
            self._tracker.reset(MoveGraph(self.position, self._last_move()))
        for m in found.line:
            events += self._confirm_record((m, False), t)
        how = wording.found_again_how(len(found.line), stands)
        if found.anchor.name == "earlier":
            ply = found.anchor.ply or 0
            how = wording.missed_pair_text([out.name for out in self.moves[ply : ply + 2]])
        events.append(self._restored(t, sync.alert_id, how))
        ev, self._last_key = self._evidence(obs, True, self._still_since)
        self._tracker.update(ev)
        self._looked_at(obs)
        return events

    def _back_before(self, t: float, before: Position, cause: str) -> tuple[list[Event], str]:
        """Back to ``before``, the position when a command came that the board does not
        show. After an undo it is the position with the move undone (or the move being
        read when Undo came) played: that move goes back into the record, as played, with
        the words that say so. Otherwise ``before`` is put in place, a correction (a
        position set by hand, or New game, left no move to play again), and no words."""
        if cause == "undo" and not self.position.is_over:
            graph = self._tracker.graph(())
            for pit in self.position.legal_moves():
                out = graph.outcome(pit)
                for missed in (False, True):
                    after = missed_capture_position(out) if missed else out.position
                    if after == before:
                        events = self._confirm_record((pit, missed), t)
                        return events, wording.undo_overruled_text(out.name)
        return [self._correct(t, before, "resync")], ""

    def _rewind(self, t: float, anchor: Anchor) -> Event:
        """Back to the position ``anchor`` (an ``earlier`` one: the record went through it,
        :meth:`_rewrites`), to play the game on from there: the moves since taken back."""
        first = self.moves[anchor.ply or 0]
        h = next(i for i, (_, out) in enumerate(self._history) if out is first)
        taken = self._cut_record(h)
        self._tracker.reset(MoveGraph(anchor.position, self._last_move()))
        self._new_position()
        return self._event(
            "corrected",
            t,
            action="resync",
            position=self.position.to_json(),
            ply=len(self.moves),
            text=wording.rewound_text(taken, self.position.to_text()),
        )

    def _catch_up(self, obs: Observation, ev: Evidence, beat: float) -> list[Event] | None:
        """The histories explain a still board badly: were moves played that they lost? A
        line from the last certain position that explains it clearly, and scores at least
        ``beat``, is taken."""
        found = search(
            [Anchor("root", self.position, RESYNC_DEPTH)],
            ev.table,
            floor=self.min_log_likelihood,
            margin=self.margin,
        )
        if found is None or not found.line or found.score < beat:
            return None
        self._tracker.reset(MoveGraph(self.position, self._last_move()))
        events: list[Event] = []
        for m in found.line:
            events += self._confirm_record((m, False), obs.t)
        self._tracker.update(ev)
        self._looked_at(obs)
        return events + self._decide(obs, True)

    # -- a game ended ---------------------------------------------------------------------------
    def _after_game(self, obs: Observation, settled: bool) -> list[Event]:
        """After the game: watch for the players setting up the next one."""
        if not settled:
            return []
        table = log_likelihood_table(self._readings(obs), self.position.ruleset.total_seeds)
        start = Position.initial(self.position.ruleset)
        found = search(
            [Anchor("start", start, 1), Anchor("root", self.position, 0)],
            table,
            floor=NEW_GAME_FLOOR,
            margin=self.margin,
        )
        if found is None or found.anchor.name != "start":
            return []
        events = self._begin_game(obs.t, start, auto=True)
        for m in found.line:
            events += self._confirm_record((m, False), obs.t)
        return events

    def _begin_game(self, t: float, start: Position, *, auto: bool) -> list[Event]:
        self._reset_game(start)
        extra = {"auto": True} if auto else {}
        return [
            self._event(
                "new_game",
                t,
                position=start.to_json(),
                rules=start.rules,
                text=f"new game: {start.ruleset.describe()}",
                **extra,
            )
        ]

    # -- commands ------------------------------------------------------------------------------
    def command(self, cmd: Mapping[str, Any], t: float = 0.0) -> list[Event]:
        """Carry out a command given as JSON (:func:`core.referee.commands.run`); raises
        :class:`CommandError`."""
        if isinstance(cmd, Mapping) and "t" in cmd:
            try:
                t = float(cmd["t"])
            except (TypeError, ValueError):
                raise CommandError("'t' must be a number of seconds") from None
        return commands.run(self, cmd, t)

    def new_game(
        self,
        t: float,
        rules: str | None = None,
        options: Mapping[str, Any] | None = None,
        position: Any = None,
    ) -> list[Event]:
        start = commands.start_position(rules, options, position, self.position.ruleset)
        before, held = self.position, self._tracker
        events = self._begin_game(t, start, auto=False)
        return events + self.check_board(t, "new_game", before, held)

    def set_position(self, t: float, position: Any) -> list[Event]:
        if position is None:
            raise CommandError("set_position needs a position (text form or JSON)")
        new = commands.parse_position(position, self.position.ruleset)
        before, held = self.position, copy.copy(self._tracker)  # (a reset replaces its parts)
        events = [self._correct(t, new, "set_position")]
        return (
            events + self._game_over_events(t) + self.check_board(t, "set_position", before, held)
        )

    def _correct(self, t: float, new: Position, action: str) -> Event:
        """Put ``new`` in place of the position by hand (a correction in the record)."""
        self._history.append((self.position, None))
        self._tracker.reset(MoveGraph(new, None))
        self._new_position(keep_counts=False)
        self._sync = None
        text = (
            f"position set by hand: {new.to_text()}"
            if action == "set_position"
            else f"the board shows the game before the last correction: {new.to_text()}"
        )
        return self._event("corrected", t, action=action, position=new.to_json(), text=text)

    def undo(self, t: float) -> list[Event]:
        if self._provisional is not None and self._sync is None:
            return self._undo_provisional(t)
        if not self._history:
            raise CommandError("nothing to undo")
        before, held = self.position, copy.copy(self._tracker)
        previous, out = self._history.pop()
        if out is not None and self.moves and self.moves[-1] is out:
            self.moves.pop()
            self._missed.pop()
        self._tracker.reset(MoveGraph(previous, self._last_move()))
        self._new_position(keep_counts=False)
        self._sync = None
        what = f"move {out.name} taken back" if out is not None else "correction taken back"
        # (a move taken back names the moves left, as the referee's own take-backs do)
        extra = {"ply": len(self.moves)} if out is not None else {}
        ev = self._event(
            "corrected",
            t,
            action="undo",
            position=previous.to_json(),
            text=f"{what}; position {previous.to_text()}",
            **extra,
        )
        return [ev, *self.check_board(t, "undo", before, held)]

    def _undo_provisional(self, t: float) -> list[Event]:
        """Undo while the page shows a move still being read: that move, the last one the
        person saw played, is the one taken back. It is withdrawn, the position stays, and
        a board that still shows the move disagrees with the game until the players put
        it back (said as for the undo of a confirmed move)."""
        assert self._provisional is not None
        out, shown = self._played(self._provisional[0])
        withdrawn = self._withdrawn(t, f"move {out.name} taken back")
        self._tracker.reset(MoveGraph(self.position, self._last_move()))
        self._new_position(keep_counts=False)
        return [withdrawn, *self.check_board(t, "undo", shown)]

    def confirm(
        self, t: float, *, pit: Any = None, count: Any = None, move: Any = None
    ) -> list[Event]:
        if self._late is not None:
            return self._late_answer(t, pit, count, move, self._late)
        if move is not None:
            m = commands.move_pit(move, self.position)
            events = [self._said_move(t, m), *self._confirm_record((m, False), t)]
            if self._sync is not None:
                events.append(self._restored(t, self._sync.alert_id, ""))
                self._sync = None
            return events
        p, c = commands.counted_pit(pit, count, self.position)
        self._counted(p, c)
        return [self._said_count(t, p, c), *self._redecide()]

    def _counted(self, p: int, c: int) -> None:
        """A person's count of pit ``p`` in place of its reading."""
        read = None if self._last_sig is None else self._last_sig[p]
        self._overrides[p] = Counted(c, read, len(self.moves))
        if self._question is not None:
            self._answered.add(p)
        # A person counting at the board: the players have stopped, nobody holds seeds.
        self._tracker.pay_stillness(COUNTING_STILL)

    def _said_move(self, t: float, m: int) -> Event:
        name = self.position.ruleset.pit_name(m)
        return self._event("confirmed", t, move=m, text=f"move {name} confirmed")

    def _said_count(self, t: float, p: int, c: int) -> Event:
        name = self.position.ruleset.pit_name(p)
        return self._event(
            "confirmed", t, pit=p, name=name, count=c, text=f"pit {name} counted: {c} seeds"
        )

    def _late_answer(
        self, t: float, pit: Any, count: Any, move: Any, late: LateDoubt
    ) -> list[Event]:
        """A person answers the question left open when the game's end was taken: where
        the answer agrees with the line taken, the question is closed; where it does not,
        the moves taken are taken back and the game's last moves judged again with it."""
        root, first = self._history[late.history]
        assert first is not None  # only moves are taken at a game's end
        if move is not None:
            m = commands.move_pit(move, root)
            said = self._said_move(t, m)
            if m == first.pit:
                return [said, self._settled_late(t, late)]
            events = [said, *self._take_back(t, late), *self._confirm_record((m, False), t)]
            return events + self._redecide()
        p, c = commands.counted_pit(pit, count, root)
        said = self._said_count(t, p, c)
        if late.board[p] == c:
            return [said, self._settled_late(t, late)]
        events = [said, *self._take_back(t, late)]
        self._counted(p, c)
        return events + self._redecide()

    def _settled_late(self, t: float, late: LateDoubt) -> Event:
        self._late = None
        return self._restored(t, late.alert_id, "the doubt is settled")

    def _cut_record(self, h: int) -> list[str]:
        """The record back to just before entry ``h`` of its history: the names of the
        moves taken back."""
        taken = [out.name for _, out in self._history[h:] if out is not None]
        self._after_command = None  # (what it counted in the record is gone)
        del self._history[h:]
        del self.moves[len(self.moves) - len(taken) :]
        del self._missed[len(self._missed) - len(taken) :]
        return taken

    def _take_back(self, t: float, late: LateDoubt) -> list[Event]:
        """Back to just before the moves a game's end took: the position, the record and
        the belief over the histories since."""
        taken = self._cut_record(late.history)
        self._tracker = late.tracker
        closed = self._restored(t, late.alert_id, "")
        self._new_position()
        self._sync = None
        return [
            closed,
            self._event(
                "corrected",
                t,
                action="undo",
                position=self.position.to_json(),
                ply=len(self.moves),
                text=wording.taken_back_text(taken, self.position.to_text()),
            ),
        ]

    def declare_cycle_end(self, t: float) -> list[Event]:
        ended = self.position.declare_cycle_end()
        self._history.append((self.position, None))
        self._tracker.reset(MoveGraph(ended, None))
        self._new_position(keep_counts=False)
        self._sync = None
        ev = self._event(
            "corrected",
            t,
            action="declare_cycle_end",
            position=ended.to_json(),
            text="endless cycle declared: each player takes the seeds on their own side",
        )
        return [ev, *self._game_over_events(t)]

    def check_board(
        self, t: float, cause: str, before: Position | None, held: Tracker | None = None
    ) -> list[Event]:
        """After a command: does the board show the position it set? If the last reading is
        still, say so now if not; otherwise look at the next still board. ``held``: the
        histories the referee held from ``before`` when the command came."""
        self._last_key = None
        obs = self._last_obs
        if (
            before is not None
            and before != self.position
            and before.ruleset.num_pits == self.position.ruleset.num_pits
        ):
            shadow = Shadow.following(before, self._looked, held)
            self._after_command = AfterCommand(
                before, shadow, cause, self.position, len(self._history)
            )
        if self.position.is_over or obs is None:
            return []
        if len(obs.pits) != self.position.ruleset.num_pits:
            self._last_obs = None  # a board of another game: the next reading will tell
            self._pending_check = (cause, before)
            return []
        sig = best_counts(self._readings(obs))
        settled = self._still_since is not None and None not in sig
        if not settled:
            self._pending_check = (cause, before)
            return []
        ev, _ = self._evidence(obs, True, self._still_since)
        if self._command_fits(obs, ev, cause, before):
            return []
        return self._out_of_sync(t, cause, before)

    def _command_fits(
        self, obs: Observation, ev: Evidence, cause: str, before: Position | None
    ) -> bool:
        """Whether the board agrees with a command: it shows the position set, or a move
        from it (the referee then names that move). After an undo, a board that still
        shows the move undone disagrees: the players are to put it back."""
        if before is not None and self._explains_board(obs, ev, before.pits):
            # (several misread piles may leave both within reach of the reading: the board
            # shows whichever it explains better)
            theirs = self._deficit(ev, before.pits)
            own = self._deficit(ev, self.position.pits)
            if cause == "undo":
                return own <= theirs and self._explains_root(obs, ev)
            if theirs < own:
                # A position set by hand (or a new game) one seed or two from the game the
                # board shows: the board still shows that game if play from the new
                # position explains it no better either.
                fit = self._play_fit(ev)
                if theirs < fit.deficit:
                    return False
                return self._explains(obs, fit.deficit, fit.board)
        return self._explains_root(obs, ev) or self._explains_by_play(obs, ev)

    def _play_fit(self, ev: Evidence) -> Fit:
        """How well play from the position (a move the board already shows) explains the
        reading, the tracker left as it was."""
        saved = Snapshot.of(self._tracker)
        try:
            return self._tracker.update(ev, [])
        finally:
            saved.restore(self._tracker)

    def prepare(self, budget: int = WIDTH) -> int:
        """Between readings (the live service calls it when a board waits for its next
        frame): build, for up to ``budget`` histories of the belief, where the next
        reading can take them, the next move begun included (:meth:`Tracker.prepare`),
        so that the reading does not build it all at once. Only a cache: what the referee
        says is the same with or without it. Returns how many histories it built for."""
        if self._sync is not None or self.position.is_over:
            return 0
        return self._tracker.prepare(budget)

    def _explains_by_play(self, obs: Observation, ev: Evidence) -> bool:
        """Whether play from the position (a move the board already shows) explains the
        reading: then the next readings name that move, with no alarm in between."""
        fit = self._play_fit(ev)
        return self._explains(obs, fit.deficit, fit.board)

    def _redecide(self) -> list[Event]:
        """Look at the last observation again in the light of a person's count."""
        obs = self._last_obs
        if obs is None or self.position.is_over or None in best_counts(self._readings(obs)):
            return []
        self._last_key = None
        settled = self._still_since is not None
        self._told = True
        try:
            if self._sync is not None:
                ev = self._evidence(obs, settled, self._still_since)[0]
                return self._while_out_of_sync(obs, ev)
            return self._judge(obs, settled, self._still_since)
        finally:
            self._told = False

    def _last_move(self) -> MoveOutcome | None:
        """The move that made the current position, if the last thing that happened was a
        move (not a correction)."""
        if self.moves and self._history and self._history[-1][1] is self.moves[-1]:
            return self.moves[-1]
        return None

    # -- views ---------------------------------------------------------------------------------
    def record(self, tags: Mapping[str, str] | None = None) -> GameRecord:
        """The game as a record, from the last position the rules cannot reach by moves
        alone (the start, a position set by hand, a missed capture's board) to now."""
        start, moves, declared = self.start, [], False
        afters = [before for before, _ in self._history[1:]] + [self.position][: len(self._history)]
        for (_, out), after in zip(self._history, afters, strict=True):
            if out is not None and after == out.position:
                moves.append(out.pit)
            elif out is None and after.ending is not None and after.ending.reason == "declared":
                declared = True
            else:
                start, moves, declared = after, [], False
        return GameRecord(start, moves, dict(tags or {}), declared_end=declared)

    def state(self) -> dict[str, Any]:
        """The whole game as JSON, for a dashboard connecting mid-game."""
        rules = self.position.ruleset
        end = self.position.ending
        provisional = None
        if self._provisional is not None:
            record, seq = self._provisional
            provisional = {"pit": record[0], "name": rules.pit_name(record[0]), "seq": seq}
        return {
            "position": self.position.to_json(),
            "text": self.position.to_text(),
            "rules": self.position.rules,
            "description": rules.describe(),
            "players": rules.players,
            "to_move": self.position.to_move,
            "scores": list(self.position.scores),
            "legal_moves": self.position.legal_moves(),
            "phase": self.phase,
            "start": self.start.to_json(),
            "moves": [
                {
                    "player": o.player,
                    "pit": o.pit,
                    "name": o.name,
                    "notation": notation,
                    "captured": captured,
                }
                for o, missed in zip(self.moves, self._missed, strict=True)
                for notation, captured in [_as_played(o, missed)]
            ],
            "provisional": provisional,
            "alerts": [a.to_json() for a in self.alerts],
            "game_over": None
            if end is None
            else {
                "winner": end.winner,
                "scores": list(end.scores),
                "reason": end.reason,
                "text": end.text,
            },
            "seq": self._seq,
        }


def _accrued(per_s: float, most: float, before: float, now: float) -> float:
    """What ``per_s`` a second of still board comes to from ``before`` to ``now`` seconds
    into it, where the whole still board pays at most ``most``.

    >>> _accrued(-1.0, -3.5, 1.0, 2.5), _accrued(-1.0, -3.5, 3.0, 9.0)
    (-1.5, -0.5)
    """
    cap = most / per_s
    return per_s * (min(now, cap) - min(before, cap))


def _as_played(out: MoveOutcome, capture_missed: bool) -> tuple[str, int]:
    """A move's notation and the seeds it captured, as played: a capture left on the board
    counts none (the move's event and the state's move list both say it so)."""
    return (out.name, 0) if capture_missed else (out.notation, out.captured)


def _counts_still_standing(
    counted: dict[int, Counted], seen: tuple[int | None, ...], board: tuple[int, ...], ply: int
) -> dict[int, Counted]:
    """The counts a person gave that still describe their piles.

    A count holds for the pile as it was counted. Once a hand is over the pit or its
    reading changes, seeds may have gone in or out (they answered "one seed short", then
    sowed it) and the reading speaks for the pit again; a pit counted under a hand is tied
    to the reading seen next. A count outlives the move it settled (a camera misreading
    that pile would otherwise mislead the next move), but once a later move is confirmed
    it must agree with the board: a move that sowed into the pile unseen by the reading
    (a misread that happens to equal the new count) ends it."""
    kept: dict[int, Counted] = {}
    for pit, c in counted.items():
        now = seen[pit]
        if c.read is not None and now != c.read:
            continue
        if c.ply < ply and board[pit] != c.count:
            continue
        kept[pit] = Counted(c.count, now, c.ply)
    return kept


def _sure(reading: PitReading) -> bool:
    """The reading is sure of its pile's count (a count, or a belief of 0.9 on one)."""
    if reading is None:
        return False
    if isinstance(reading, int):
        return True
    return max(reading) >= SURE_READING


SURE_READING = 0.9
