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
>>> e = seen(2.0, [4, 4, 4, 4, 4, 0, 5, 5, 5, 5, 4, 5])   # a seed appeared on f
>>> e[0].type, e[0]["text"]
('board_disturbed', 'the board matches no legal move or known mistake: pit f: expected 4, seen 5')

How it decides (see ``docs/REFEREE.md``):

1. Wait until the board has settled: the source says ``stable``, or the most
   likely counts have not changed for ``settle_time`` seconds, and no pit is
   hidden.
2. Score every candidate board (:mod:`core.referee.hypotheses`) against the
   per-pit beliefs (:mod:`core.referee.likelihood`), plus a prior that
   prefers correct play.
3. Act only when the best explanation is plausible and beats the runner-up
   by ``margin`` (log-likelihood); otherwise say ``ambiguous`` and name the
   pits whose count would decide, or ``board_disturbed`` if nothing fits.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.errors import IllegalMoveError, InvalidPositionError, RulesError
from core.observation import Observation, ObservationError, PitReading
from core.position import MoveOutcome, Position
from core.records import GameRecord
from core.referee.events import Event
from core.referee.hypotheses import (
    AHEAD_PRIOR,
    MISTAKE_PRIOR,
    PROGRESS_PRIOR,
    Alert,
    Hyp,
    all_hypotheses,
    correct_hypotheses,
    lines_ahead,
    sowing_boards,
    stores_without_capture,
    successor_hypotheses,
    wrong_capture_hypothesis,
)
from core.referee.likelihood import best_counts, log_likelihood_table, score_boards
from core.rules import RuleSet, get_rules

#: How many unseen moves the referee will infer at once when it falls behind.
CATCH_UP_DEPTH = 3
#: A best explanation scoring below this (log-likelihood against the reading's own best
#: board, prior included) is checked against lines of unseen moves: below it, a line of
#: two moves that fits perfectly (2 * AHEAD_PRIOR) could be the better explanation.
LOOSE_FIT = 2 * AHEAD_PRIOR


class CommandError(ValueError):
    """A command that cannot be carried out; the message says why."""


class Referee:
    """Keeps the confirmed game and decides what each settled board means."""

    def __init__(
        self,
        start: Position | None = None,
        *,
        settle_time: float = 0.5,
        margin: float = 3.0,
        min_log_likelihood: float = -8.0,
        ambiguity_time: float = 1.0,
        stall_time: float = 5.0,
    ) -> None:
        self.settle_time = settle_time
        self.ambiguity_time = ambiguity_time
        self.stall_time = stall_time
        self.margin = margin
        self.min_log_likelihood = min_log_likelihood
        self._seq = 0
        self._told = False
        """Deciding again because a person told the referee something about the board."""
        self._reset_game(start or Position.initial())

    # -- state -------------------------------------------------------------
    def _reset_game(self, start: Position) -> None:
        self.start = start
        self.position = start
        self.moves: list[MoveOutcome] = []
        self.alerts: list[Event] = []
        self._history: list[tuple[Position, MoveOutcome | None]] = []
        self._last_sig: tuple[int | None, ...] | None = None
        self._last_change = float("-inf")
        self._last_obs: Observation | None = None
        self._new_position()

    def _new_position(self, *, after_move: bool = False) -> None:
        """Forget everything about the move in progress (after a move or a correction).

        A move keeps the pits people counted, for as long as they stand (see
        :func:`_counts_still_standing`); a correction forgets them."""
        counted = self._overrides if after_move else {}
        self._hyps: list[Hyp] | None = None
        self._boards: np.ndarray[Any, np.dtype[np.int64]] | None = None
        self._priors: np.ndarray[Any, np.dtype[np.float64]] | None = None
        self._emitted: set[Any] = set()
        self._phase = "waiting"
        self._pending: tuple[MoveOutcome, tuple[int, ...]] | None = None
        self._touched: int | None = None
        self._overrides: dict[int, Counted] = counted
        """The pits a person counted (``confirm``), in place of their readings."""
        self._undecided_since: tuple[Any, float] | None = None
        self._stall_since: tuple[Hyp, float] | None = None
        """The sowing the settled board has shown, and since when (see :meth:`_stalled`)."""
        self._lines: list[tuple[tuple[int, ...], Hyp]] | None = None
        self._succ: tuple[list[Hyp], Any, Any, Any] | None = None
        self._last_decided: tuple[PitReading, ...] | None = None
        self._action_index: dict[tuple[Any, ...], int] = {}
        self._actions: np.ndarray[Any, np.dtype[np.int64]] = np.zeros(0, dtype=np.int64)
        self._origin_seen: int | None = None
        self.alerts = []

    @property
    def phase(self) -> str:
        """waiting | moving | capturing | disturbed | ambiguous | mistake | over"""
        return "over" if self.position.is_over else self._phase

    def _event(self, type_: str, t: float, **data: Any) -> Event:
        ev = Event(type_, self._seq, t, data)
        self._seq += 1
        return ev

    # -- observations -------------------------------------------------------------
    def observe(self, obs: Observation | Mapping[str, Any]) -> list[Event]:
        """Take one observation; return the events it causes (often none)."""
        if not isinstance(obs, Observation):
            try:
                obs = Observation.from_json(obs, pits=self.position.ruleset.num_pits)
            except ObservationError as exc:
                return [self._bad_observation(obs, str(exc))]
        if len(obs.pits) != self.position.ruleset.num_pits:
            msg = f"expected {self.position.ruleset.num_pits} pits, got {len(obs.pits)}"
            return [self._bad_observation(obs, msg)]
        self._last_obs = obs
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
        if self.position.is_over:
            return []
        settled = None not in sig and (obs.stable or obs.t - self._last_change >= self.settle_time)
        if not settled:
            return []
        if obs.pits == self._last_decided:
            return []  # the very same reading, already judged with nothing left to wait for
        events = self._decide(obs)
        # A doubt or a stalled sowing is timed: the very same reading must be judged again.
        waiting = self._undecided_since is not None or self._stall_unasked()
        self._last_decided = None if waiting else obs.pits
        return events

    def _bad_observation(self, raw: Any, message: str) -> Event:
        t = raw.get("t", 0.0) if isinstance(raw, Mapping) else getattr(raw, "t", 0.0)
        try:
            t = float(t)
        except (TypeError, ValueError):
            t = 0.0
        return self._event(
            "bad_observation",
            t,
            pits=[],
            names=[],
            text=f"a malformed observation was ignored: {message}",
        )

    # -- hypotheses -------------------------------------------------------------
    def _candidates(self, seen: tuple[int | None, ...]) -> list[Hyp]:
        if self._hyps is None:
            self._hyps = all_hypotheses(self.position) + self._late_hypotheses()
            self._boards = np.array([h.board for h in self._hyps], dtype=np.int64)
            self._priors = np.array([h.prior for h in self._hyps], dtype=np.float64)
            self._actions = self._action_ids(self._hyps)
        extra: list[Hyp] = []
        if self._pending is not None:
            out, sown_board = self._pending
            extra.extend(self._missed_capture_hypotheses(out, sown_board))
            wrong = wrong_capture_hypothesis(self.position, out, sown_board, seen)
            if wrong is not None:
                extra.append(wrong)
        elif (last := self._last_move()) is not None:
            # Seeds taken after the move was already confirmed: less likely than a lift.
            wrong = wrong_capture_hypothesis(
                last.before,
                last,
                self.position.pits,
                seen,
                prior=MISTAKE_PRIOR - 1.0,
                own_side_penalty=-2.5,
            )
            if wrong is not None:
                extra.append(wrong)
        return extra

    def _action_ids(self, hyps: list[Hyp]) -> np.ndarray[Any, np.dtype[np.int64]]:
        """One integer per distinct action (see :func:`_action`), shared across calls."""
        ids = self._action_index
        return np.array([ids.setdefault(_action(h), len(ids)) for h in hyps], dtype=np.int64)

    def _successors(self) -> tuple[list[Hyp], Any, Any, Any]:
        """Boards one move ahead (built only when the current ones do not decide)."""
        if self._succ is None:
            hyps = successor_hypotheses(self.position)
            self._succ = (
                hyps,
                np.array([h.board for h in hyps], dtype=np.int64).reshape(len(hyps), -1),
                np.array([h.prior for h in hyps], dtype=np.float64),
                self._action_ids(hyps),
            )
        return self._succ

    def _last_move(self) -> MoveOutcome | None:
        """The move that made the current position, if the last thing that happened was a
        move (not a correction)."""
        if self.moves and self._history and self._history[-1][1] is self.moves[-1]:
            return self.moves[-1]
        return None

    def _late_hypotheses(self) -> list[Hyp]:
        """Boards of the last move still settling (its capturing seed landing after the board
        already looked finished): nothing to say, wait."""
        last = self._last_move()
        if last is None:
            return []
        boards = [
            b for _, b in sowing_boards(last.before.pits, last.pit, last.sown, last.relay_steps)
        ][-1:]
        return [Hyp("idle", b, PROGRESS_PRIOR - 1.0) for b in boards if b != self.position.pits]

    def _missed_capture_hypotheses(
        self, out: MoveOutcome, sown_board: tuple[int, ...]
    ) -> list[Hyp]:
        rules = self.position.ruleset
        try:
            skipped = Position(rules, sown_board, stores_without_capture(out), out.position.to_move)
        except InvalidPositionError:
            return []
        captured = ", ".join(f"{rules.pit_name(p)} ({c})" for p, c in out.captures)
        who = rules.player_name(skipped.to_move)
        hyps: list[Hyp] = []
        for m in skipped.legal_moves():
            o2 = skipped.outcome(m)
            alert = {
                "type": "missed_capture",
                "key": ("missed_capture", out.pit),
                "pits": [p for p, _ in out.captures],
                "move": out.pit,
                "text": f"{who} started playing {rules.pit_name(m)} while the capture of "
                f"move {rules.pit_name(out.pit)} was still on the board: {captured} should "
                "have been taken",
                "expected": f"capture {captured}",
                "seen": f"{rules.pit_name(m)} lifted with the seeds still there",
                "next_move": m,
            }
            boards = [b for _, b in sowing_boards(sown_board, m, o2.sown, o2.relay_steps)]
            boards.append(o2.position.pits)
            lazy = Alert.of(alert)
            hyps.extend(Hyp("missed_capture", b, MISTAKE_PRIOR, m, 0, lazy) for b in boards)
        return hyps

    # -- decisions -------------------------------------------------------------
    def _decide(self, obs: Observation) -> list[Event]:
        stall, self._stall_since = self._stall_since, None  # kept below only while it lasts
        readings: tuple[PitReading, ...] = obs.pits
        if self._overrides:
            readings = tuple(
                self._overrides[i].count if i in self._overrides else r
                for i, r in enumerate(readings)
            )
        seen = best_counts(readings)
        extra = self._candidates(seen)
        assert self._hyps is not None and self._boards is not None and self._priors is not None
        table = log_likelihood_table(readings, self.position.ruleset.total_seeds)
        # Judge plausibility against the reading's own best board, so that many honestly
        # uncertain pits (a 4-player board) do not add up to "nothing fits".
        ceiling = float(table.max(axis=1).sum())
        hyps = self._hyps + extra
        scores = score_boards(table, self._boards) + self._priors - ceiling
        actions = self._actions
        if extra:
            extra_boards = np.array([h.board for h in extra], dtype=np.int64)
            extra_priors = np.array([h.prior for h in extra], dtype=np.float64)
            scores = np.concatenate(
                [scores, score_boards(table, extra_boards) + extra_priors - ceiling]
            )
            actions = np.concatenate([actions, self._action_ids(extra)])
        (best_score, best), (second_score, second) = _top_two(hyps, scores, actions)
        clear = best_score >= self.min_log_likelihood and (
            second is None or second_score <= best_score - self.margin
        )
        # A board one move ahead scores at most its prior (AHEAD_PRIOR: a perfect fit), so
        # it can only matter when the best here is unclear, a mistake, or below that.
        settled_here = clear and not best.is_mistake and best_score >= AHEAD_PRIOR
        if not settled_here and self._phase != "mistake":
            # Was a move completed unseen, with the next one already under way? (A seed
            # still in hand reads much like the next move begun. After a flagged mistake the
            # board shows that mistake going on, not a move completed unseen.)
            s_hyps, s_boards, s_priors, s_actions = self._successors()
            if s_hyps:
                hyps = hyps + s_hyps
                scores = np.concatenate(
                    [scores, score_boards(table, s_boards) + s_priors - ceiling]
                )
                actions = np.concatenate([actions, s_actions])
                (best_score, best), (second_score, second) = _top_two(hyps, scores, actions)
        # Nothing fits, or only loosely (a camera's floor is low): moves played unseen may
        # explain the board far better. Without the loose case, a camera misreading two
        # piles took three moves for one and followed a wrong board without a word
        # (bench/vision.py --games). After a flagged mistake the board shows that mistake.
        nothing_fits = best_score < self.min_log_likelihood
        loose = best_score < LOOSE_FIT and not best.is_mistake
        if (nothing_fits or loose) and self._phase != "mistake":
            beat = -np.inf if nothing_fits else best_score + self.margin
            caught_up = self._catch_up(obs, table, beat)
            if caught_up is not None:
                return caught_up
        if nothing_fits:
            return self._unexplained(obs, seen)
        if best.kind in ("complete", "sown"):
            # Different legal moves can leave the very same board (possible in Oware).
            twins = sorted(
                {
                    h.origin
                    for h in hyps
                    if h.board == best.board
                    and h.kind in ("complete", "sown")
                    and h.origin is not None
                }
            )
            if len(twins) > 1 and self._origin_seen in twins:
                # A sensor saw which pit was lifted: that settles it.
                best = next(
                    h
                    for h in hyps
                    if h.board == best.board
                    and h.kind == best.kind
                    and h.origin == self._origin_seen
                )
                mask = np.array([h.board != best.board for h in hyps])
                masked = np.where(mask, scores, -np.inf)
                idx = int(np.argmax(masked))
                second_score, second = float(masked[idx]), hyps[idx] if mask.any() else None
            elif len(twins) > 1:
                return self._ambiguous_moves(obs, twins)
        committal = best.kind not in ("idle", "sowing")
        if committal and second is not None and second_score > best_score - self.margin:
            # Not sure yet. Waiting is safe: more frames, or the next move, will tell.
            return self._undecided(obs, best, second)
        if best.kind == "sowing":
            done = _completion(best, hyps, scores, best_score - self.margin)
            if done is not None:
                # One seed still to sow, or the last seed down and its pile misread: the
                # doubt of _undecided the other way round, settled the same way.
                if self._doubt_lasted(obs, (done.board, best.board)) or self._told:
                    self._undecided_since = None
                    return self._act(obs, done)
                return self._act(obs, best)  # the doubt's clock keeps running
            since = stall[1] if stall and stall[0].board == best.board else obs.t
            self._stall_since = (best, since)
            asked = self._stall_key(best) in self._emitted
            if asked or obs.t - since >= self.stall_time:
                self._undecided_since = None
                return [] if asked else self._stalled(obs, best)  # an asked question stands
        self._undecided_since = None
        return self._act(obs, best)

    def _catch_up(
        self, obs: Observation, table: np.ndarray[Any, Any], beat: float = -np.inf
    ) -> list[Event] | None:
        """Nothing fits (or only loosely, below ``beat``): were several moves played while
        we were unsure (moves into a store look alike, a noisy last seed)? If exactly one
        line of up to ``CATCH_UP_DEPTH`` moves explains the board clearly, and scores at
        least ``beat``, confirm its moves."""
        if self._lines is None:
            lines: list[tuple[tuple[int, ...], Hyp]] = []
            for line, reached in lines_ahead(self.position, CATCH_UP_DEPTH):
                # Deeper lines are less likely: each unseen move costs a little prior.
                cost = AHEAD_PRIOR * len(line)
                lines.append((line, Hyp("idle", reached.pits, cost)))
                if not reached.is_over:
                    for h in correct_hypotheses(reached):
                        if h.kind in ("sowing", "sown", "capturing"):
                            lines.append((line, Hyp(h.kind, h.board, h.prior + cost)))
            self._lines = lines
        if not self._lines:
            return None
        boards = np.array([h.board for _, h in self._lines], dtype=np.int64)
        scores = score_boards(table, boards) + np.array([h.prior for _, h in self._lines])
        scores -= float(table.max(axis=1).sum())
        order = np.argsort(-scores, kind="stable")
        best_line = self._lines[int(order[0])][0]
        top = float(scores[order[0]])
        runner = next(
            (float(scores[i]) for i in order[1:] if self._lines[int(i)][0] != best_line),
            float("-inf"),
        )
        if top < max(self.min_log_likelihood, beat) or top - runner < self.margin:
            return None
        events: list[Event] = []
        for m in best_line:
            events += self._confirm_move(obs.t, m)
        return events + self._decide(obs)

    def _undecided(self, obs: Observation, best: Hyp, second: Hyp) -> list[Event]:
        """Wait; once the same doubt has lasted ``ambiguity_time``, settle it if it is only
        whether the move's last seed is down (it is), else say ``ambiguous``."""
        lasted = self._doubt_lasted(obs, (best.board, second.board))
        if _only_the_last_seed(best, second) and (lasted or self._told):
            # The doubt is not which move, only whether its last seed is down yet. A board
            # that has stayed still this long (or that a person is counting) has no hand
            # over it holding a seed: the move is complete. (Asking a person to count that
            # pile was, by far, the referee's most frequent question on real photographs:
            # bench/vision.py --games.)
            self._undecided_since = None
            return self._act(obs, best)
        return self._ambiguous(obs, best, second) if lasted else []

    def _doubt_lasted(self, obs: Observation, key: Any) -> bool:
        """Time the doubt ``key`` (a new one starts the clock): has it lasted ``ambiguity_time``?"""
        if self._undecided_since is None or self._undecided_since[0] != key:
            self._undecided_since = (key, obs.t)
            return False
        return obs.t - self._undecided_since[1] >= self.ambiguity_time

    def _act(self, obs: Observation, best: Hyp) -> list[Event]:
        events: list[Event] = []
        rules = self.position.ruleset
        if self._phase in ("disturbed", "ambiguous") and not best.is_mistake:
            events.append(
                self._event("board_restored", obs.t, text="the board matches the game again")
            )
            self._emitted = {
                k
                for k in self._emitted
                if not (isinstance(k, tuple) and k and k[0] in ("disturbed", "ambiguous"))
            }
        if best.kind == "idle":
            self._phase = "waiting"
            return events
        if best.is_mistake:
            self._phase = "mistake"
            alert = best.alert.data() if best.alert is not None else {}
            if best.kind == "missed_capture":
                return events + self._missed_capture(obs, alert)
            key = alert.get("key")
            if key not in self._emitted:
                self._emitted.add(key)
                events.append(self._alert(obs.t, alert))
            return events
        assert best.origin is not None
        if rules.touch_move:
            if self._touched is None:
                self._touched = best.origin
            elif self._touched != best.origin:
                return events + self._touch_move_violation(obs, best.origin)
        if best.kind == "sowing":
            self._phase = "moving"
            self._origin_seen = best.origin
            return events
        if best.kind in ("sown", "capturing"):
            self._phase = "capturing"
            out = self.position.outcome(best.origin)
            sown_board = next(
                h.board for h in (self._hyps or []) if h.kind == "sown" and h.origin == best.origin
            )
            self._pending = (out, sown_board)
            key = ("capture_pending", best.origin)
            if key not in self._emitted:
                self._emitted.add(key)
                pits = [p for p, _ in out.captures]
                listed = ", ".join(f"{rules.pit_name(p)} ({c})" for p, c in out.captures)
                events.append(
                    self._event(
                        "capture_pending",
                        obs.t,
                        move=out.pit,
                        pits=pits,
                        names=[rules.pit_name(p) for p in pits],
                        captures=[[p, c] for p, c in out.captures],
                        seeds=out.captured,
                        text=f"{rules.player_name(out.player)} captures {out.captured}: take "
                        f"{listed}",
                    )
                )
            return events
        if best.kind == "after":
            # The move ended while we were unsure, and the next one has already begun.
            return events + self._confirm_move(obs.t, best.origin) + self._decide(obs)
        # complete
        return events + self._confirm_move(obs.t, best.origin)

    def _alert(self, t: float, alert: Mapping[str, Any]) -> Event:
        rules = self.position.ruleset
        data = {k: v for k, v in alert.items() if k not in ("type", "key")}
        data["names"] = [rules.pit_name(p) for p in data.get("pits", [])]
        ev = self._event(str(alert["type"]), t, **data)
        self.alerts.append(ev)
        return ev

    def _touch_move_violation(self, obs: Observation, origin: int) -> list[Event]:
        rules = self.position.ruleset
        touched = self._touched
        assert touched is not None
        key = ("touch_move", touched, origin)
        if key in self._emitted:
            return []
        self._emitted.add(key)
        self._phase = "mistake"
        return [
            self._alert(
                obs.t,
                {
                    "type": "illegal_move",
                    "key": key,
                    "pits": [touched, origin],
                    "text": f"touch-move: pit {rules.pit_name(touched)} was touched first, so "
                    f"{rules.pit_name(touched)} must be played, not {rules.pit_name(origin)}",
                    "expected": f"move {rules.pit_name(touched)}",
                    "seen": f"move {rules.pit_name(origin)}",
                },
            )
        ]

    def _missed_capture(self, obs: Observation, alert: Mapping[str, Any]) -> list[Event]:
        """The next player moved with the capture still on the board: say so, record the move
        as played without its capture (the seeds are physically there), and go on."""
        assert self._pending is not None
        out, sown_board = self._pending
        events = [self._alert(obs.t, alert)]
        rules = self.position.ruleset
        skipped = Position(rules, sown_board, stores_without_capture(out), out.position.to_move)
        events.append(self._move_event(obs.t, out, skipped, capture_missed=True))
        self._history.append((self.position, out))
        self.moves.append(out)
        self.position = skipped
        self._new_position(after_move=True)
        return events + self._decide(obs)

    def _confirm_move(self, t: float, origin: int) -> list[Event]:
        out = self.position.outcome(origin)
        self._history.append((self.position, out))
        self.moves.append(out)
        self.position = out.position
        self._new_position(after_move=True)
        events = [self._move_event(t, out, out.position)]
        events.extend(self._game_over_events(t))
        return events

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

    def _move_event(
        self, t: float, out: MoveOutcome, after: Position, *, capture_missed: bool = False
    ) -> Event:
        rules = after.ruleset
        who = rules.player_name(out.player)
        captures = [] if capture_missed else [[p, c] for p, c in out.captures]
        captured = 0 if capture_missed else out.captured
        text = f"{who} plays {out.name}"
        if captured:
            text += f", captures {captured} from " + ", ".join(
                rules.pit_name(p) for p, _ in out.captures
            )
        elif out.grand_slam and rules.family == "oware":
            text += ": a grand slam, which captures nothing"
        if out.extra_turn:
            text += ", and plays again"
        return self._event(
            "move",
            t,
            player=out.player,
            pit=out.pit,
            name=out.name,
            notation=f"{out.name}+{captured}" if captured else out.name,
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
            ply=len(self.moves) + 1,
            text=text,
        )

    def _unexplained(self, obs: Observation, seen: tuple[int | None, ...]) -> list[Event]:
        rules = self.position.ruleset
        expected = self.position.pits
        counts = [s or 0 for s in seen]
        # Seeds still in a hand mid-move: not a disturbance yet.
        if self._phase in ("moving", "mistake") and sum(counts) < sum(expected):
            return []
        key = ("disturbed", seen)
        if key in self._emitted:
            return []
        self._emitted = {
            k for k in self._emitted if not (isinstance(k, tuple) and k and k[0] == "disturbed")
        }
        self._emitted.add(key)
        self._phase = "disturbed"
        diff = [
            {"pit": i, "name": rules.pit_name(i), "expected": e, "seen": s}
            for i, (e, s) in enumerate(zip(expected, seen, strict=True))
            if s != e
        ]
        listed = ", ".join(
            f"pit {d['name']}: expected {d['expected']}, seen {d['seen']}" for d in diff
        )
        return [
            self._alert(
                obs.t,
                {
                    "type": "board_disturbed",
                    "key": key,
                    "pits": [d["pit"] for d in diff],
                    "diff": diff,
                    "text": f"the board matches no legal move or known mistake: {listed}",
                    "expected": self.position.to_text(),
                    "seen": "-".join(str(c) for c in counts),
                },
            )
        ]

    def _stall_key(self, sowing: Hyp) -> tuple[Any, ...]:
        # One question per move, closed like any "ambiguous" one (board_restored).
        return ("ambiguous", "stalled", sowing.origin)

    def _stall_unasked(self) -> bool:
        """A sowing stands still on a settled board and has not been asked about yet."""
        stall = self._stall_since
        return stall is not None and self._stall_key(stall[0]) not in self._emitted

    def _stalled(self, obs: Observation, sowing: Hyp) -> list[Event]:
        """A still board has shown the same sowing for ``stall_time``: seeds left in a hand,
        or (a camera) piles the move has already sown into read a seed short, sure enough
        that the move is not taken as done (see :meth:`_decide`). Without this the referee
        waited without a word until the next move, or for ever after the last one
        (bench/vision.py --games). Ask once to count the pits the rest of the sowing goes
        into: counts that complete the move name it. The question stands, silently, while
        the move is still being sown (part of it answered, or a seed more sown)."""
        # The move with every seed sown: "sown" when it captures (listed before "complete"),
        # which always differs from a sowing board (hypotheses.correct_hypotheses).
        done = next(
            h
            for h in self._hyps or []
            if h.origin == sowing.origin and h.kind in ("sown", "complete")
        )
        assert sowing.origin is not None
        out = self.position.outcome(sowing.origin)
        left = len(out.sown) - sowing.step
        seeds, them = ("one seed", "it") if left == 1 else (f"{left} seeds", "them")
        return self._ask_to_count(
            obs,
            self._stall_key(sowing),
            done,
            sowing,
            lambda ask, what: (
                f"move {out.name} has been {seeds} short of done for "
                f"{self.stall_time:g} s: sow {them}, or count {ask} ({what})"
            ),
        )

    def _ambiguous(self, obs: Observation, best: Hyp, second: Hyp) -> list[Event]:
        return self._ask_to_count(
            obs,
            ("ambiguous", best.board, second.board),
            best,
            second,
            lambda ask, what: (
                f"count {ask}: the reading does not decide between two explanations ({what})"
            ),
        )

    def _ask_to_count(
        self,
        obs: Observation,
        key: tuple[Any, ...],
        expected: Hyp,
        seen: Hyp,
        words: Callable[[str, str], str],
    ) -> list[Event]:
        """Say ``ambiguous`` once for ``key``: count the pits where the boards of ``expected``
        and ``seen`` differ (``words(pits to count, what each would be)`` says it)."""
        if key in self._emitted:
            return []
        self._emitted.add(key)
        self._phase = "ambiguous"
        pits, options, ask, what = _differences(self.position.ruleset, expected.board, seen.board)
        return [
            self._alert(
                obs.t,
                {
                    "type": "ambiguous",
                    "key": key,
                    "pits": pits,
                    "options": options,
                    "text": words(ask, what),
                    "expected": self._describe(expected),
                    "seen": self._describe(seen),
                },
            )
        ]

    def _ambiguous_moves(self, obs: Observation, moves: list[int]) -> list[Event]:
        rules = self.position.ruleset
        key = ("ambiguous", "moves", tuple(moves))
        if key in self._emitted:
            return []
        self._emitted.add(key)
        self._phase = "ambiguous"
        listed = " and ".join(rules.pit_name(m) for m in moves)
        return [
            self._alert(
                obs.t,
                {
                    "type": "ambiguous",
                    "key": key,
                    "pits": moves,
                    "moves": moves,
                    "text": f"moves {listed} leave the same board: confirm which was played",
                    "expected": "one move",
                    "seen": f"{listed} both fit",
                },
            )
        ]

    def _describe(self, h: Hyp) -> str:
        rules = self.position.ruleset
        if h.origin is None:
            return "the board unchanged"
        name = rules.pit_name(h.origin)
        return {
            "sowing": f"move {name} being sown",
            "sown": f"move {name} sown, capture pending",
            "capturing": f"move {name}, capture being taken",
            "complete": f"move {name} played",
        }.get(h.kind, f"a mistake ({h.kind.replace('_', ' ')}) with pit {name}")

    # -- commands -------------------------------------------------------------
    def command(self, cmd: Mapping[str, Any], t: float = 0.0) -> list[Event]:
        """Carry out a command given as JSON (see :meth:`handle`); raises :class:`CommandError`."""
        if not isinstance(cmd, Mapping) or not isinstance(cmd.get("command"), str):
            raise CommandError('a command is an object with a "command" name')
        name = cmd["command"]
        t = float(cmd.get("t", t))
        self._last_decided = None
        try:
            if name == "new_game":
                return self.new_game(
                    t,
                    rules=cmd.get("rules"),
                    options=cmd.get("options"),
                    position=cmd.get("position"),
                )
            if name == "set_position":
                return self.set_position(t, cmd.get("position"))
            if name == "undo":
                return self.undo(t)
            if name == "confirm":
                return self.confirm(
                    t, pit=cmd.get("pit"), count=cmd.get("count"), move=cmd.get("move")
                )
            if name == "declare_cycle_end":
                return self.declare_cycle_end(t)
        except RulesError as exc:
            raise CommandError(str(exc)) from None
        raise CommandError(
            f"unknown command {name!r}; commands: new_game, set_position, "
            "undo, confirm, declare_cycle_end"
        )

    def new_game(
        self,
        t: float,
        rules: str | None = None,
        options: Mapping[str, Any] | None = None,
        position: Any = None,
    ) -> list[Event]:
        if position is not None:
            start = _parse_position(position, rules or self.position.rules)
        else:
            ruleset = get_rules(rules or "abapa", **(options or {}))
            start = Position.initial(ruleset)
        self._reset_game(start)
        return [
            self._event(
                "new_game",
                t,
                position=start.to_json(),
                rules=start.rules,
                text=f"new game: {start.ruleset.describe()}",
            )
        ]

    def set_position(self, t: float, position: Any) -> list[Event]:
        if position is None:
            raise CommandError("set_position needs a position (text form or JSON)")
        new = _parse_position(position, self.position.ruleset)
        self._history.append((self.position, None))
        self.position = new
        self._new_position()
        events = [
            self._event(
                "corrected",
                t,
                action="set_position",
                position=new.to_json(),
                text=f"position set by hand: {new.to_text()}",
            )
        ]
        return events + self._game_over_events(t) + self._redecide()

    def undo(self, t: float) -> list[Event]:
        if not self._history:
            raise CommandError("nothing to undo")
        previous, out = self._history.pop()
        if out is not None and self.moves and self.moves[-1] is out:
            self.moves.pop()
        self.position = previous
        self._new_position()
        what = f"move {out.name} taken back" if out is not None else "correction taken back"
        return [
            self._event(
                "corrected",
                t,
                action="undo",
                position=previous.to_json(),
                text=f"{what}; position {previous.to_text()}",
            )
        ]  # not re-judged on the last reading: the players now put the board back

    def confirm(
        self, t: float, *, pit: Any = None, count: Any = None, move: Any = None
    ) -> list[Event]:
        rules = self.position.ruleset
        if move is not None:
            if isinstance(move, str):
                from core.notation import parse_move

                move = parse_move(move, rules.players)
            if (
                isinstance(move, bool)
                or not isinstance(move, int)
                or not self.position.is_legal(move)
            ):
                raise CommandError(f"move {move!r} is not legal here")
            ev = self._event(
                "confirmed", t, move=move, text=f"move {rules.pit_name(move)} confirmed"
            )
            return [ev, *self._confirm_move(t, move)]
        if isinstance(pit, str):
            from core.notation import parse_move

            pit = parse_move(pit, rules.players)
        if isinstance(pit, bool) or not isinstance(pit, int) or not 0 <= pit < rules.num_pits:
            raise CommandError("confirm needs a pit index (or name) and its count, or a move")
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise CommandError("confirm needs the number of seeds counted in the pit")
        read = None if self._last_sig is None else self._last_sig[pit]
        self._overrides[pit] = Counted(count, read, len(self.moves))
        self._last_decided = None  # the same reading now means something else
        ev = self._event(
            "confirmed",
            t,
            pit=pit,
            name=rules.pit_name(pit),
            count=count,
            text=f"pit {rules.pit_name(pit)} counted: {count} seeds",
        )
        return [ev, *self._redecide()]

    def declare_cycle_end(self, t: float) -> list[Event]:
        try:
            ended = self.position.declare_cycle_end()
        except IllegalMoveError as exc:
            raise CommandError(str(exc)) from None
        self._history.append((self.position, None))
        self.position = ended
        self._new_position()
        ev = self._event(
            "corrected",
            t,
            action="declare_cycle_end",
            position=ended.to_json(),
            text="endless cycle declared: each player takes the seeds on their side",
        )
        return [ev, *self._game_over_events(t)]

    def _redecide(self) -> list[Event]:
        """Look at the last observation again in the light of a command."""
        obs = self._last_obs
        if obs is None or self.position.is_over or None in best_counts(obs.pits):
            return []
        self._told = True
        try:
            return self._decide(obs)
        finally:
            self._told = False

    # -- views -------------------------------------------------------------
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
                    "notation": o.notation,
                    "captured": o.captured,
                }
                for o in self.moves
            ],
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


def _parse_position(position: Any, rules: Any) -> Position:
    try:
        if isinstance(position, str):
            return Position.from_text(position, rules)
        if isinstance(position, Mapping):
            data = dict(position)
            if "rules" not in data and not isinstance(rules, str):
                return Position(
                    rules, list(data["pits"]), list(data["stores"]), int(data.get("to_move", 0))
                )
            data.setdefault("rules", rules if isinstance(rules, str) else "abapa")
            return Position.from_json(data)
    except (KeyError, TypeError, ValueError) as exc:
        raise CommandError(f"bad position: {exc}") from None
    raise CommandError("a position is given as its text form or as JSON")


@dataclass(frozen=True, slots=True)
class Counted:
    """A pit a person counted (``Referee.confirm``)."""

    count: int
    read: int | None
    """The reading's most likely count then; None: a hand hid the pit (counting it)."""
    ply: int
    """Moves confirmed when it was given: it was about the board of the next one."""


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


def _differences(
    rules: RuleSet, a: tuple[int, ...], b: tuple[int, ...]
) -> tuple[list[int], list[dict[str, Any]], str, str]:
    """Where boards ``a`` and ``b`` differ: the pits; for each, the counts a person's count
    would choose between (an ``ambiguous`` alert's ``options``); and, in words, the pits to
    count ("pit D and pit E") and what each would be ("D: 4 or 5, E: 4 or 5"), the first
    three."""
    pits = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
    options = [{"pit": p, "name": rules.pit_name(p), "counts": sorted({a[p], b[p]})} for p in pits]
    ask = " and ".join(f"pit {rules.pit_name(p)}" for p in pits[:3])
    what = ", ".join(f"{rules.pit_name(p)}: {a[p]} or {b[p]}" for p in pits[:3])
    return pits, options, ask, what


def _action(h: Hyp) -> tuple[Any, ...]:
    """What the referee would do if ``h`` were true: hypotheses with the same action are
    one explanation (seed 3 or seed 4 of the same sowing: either way, wait)."""
    if h.kind == "idle":
        return ("idle",)
    if h.kind in ("sown", "capturing"):
        return ("sown", h.origin)
    if h.alert is not None:
        return ("alert", h.alert.key)
    return (h.kind, h.origin)


def _top_two(
    hyps: list[Hyp], scores: np.ndarray[Any, Any], actions: np.ndarray[Any, Any]
) -> tuple[tuple[float, Hyp], tuple[float, Hyp | None]]:
    """The best hypothesis, and the best one that would lead to a different action."""
    best = int(np.argmax(scores))
    others = np.where(actions != actions[best], scores, -np.inf)
    second = int(np.argmax(others))
    runner: tuple[float, Hyp | None] = (
        (float(others[second]), hyps[second])
        if np.isfinite(others[second])
        else (float("-inf"), None)
    )
    return (float(scores[best]), hyps[best]), runner


def _completion(
    sowing: Hyp, hyps: list[Hyp], scores: np.ndarray[Any, Any], floor: float
) -> Hyp | None:
    """The hypothesis that ``sowing`` (one seed short) completes, if it scores above ``floor``."""
    for i in np.flatnonzero(scores > floor):  # a handful: the loop below is plain Python
        if _only_the_last_seed(hyps[int(i)], sowing):
            return hyps[int(i)]
    return None


def _only_the_last_seed(best: Hyp, second: Hyp) -> bool:
    """Whether ``best`` completes the very move that ``second`` shows one seed short of done."""
    if best.origin is None or best.origin != second.origin or second.kind != "sowing":
        return False
    if best.kind not in ("complete", "sown"):
        return False
    differ = [i for i, (a, b) in enumerate(zip(best.board, second.board, strict=True)) if a != b]
    return len(differ) == 1 and best.board[differ[0]] == second.board[differ[0]] + 1
