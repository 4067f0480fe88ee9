"""Scoring the referee on rendered sessions (:mod:`core.referee.playthrough`).

:func:`score` runs a session through a referee and says what a user would
judge it by: were all the moves named, and only those, in order; which
alerts came, and were they the mistake that was made; how long after a move
was done it was confirmed; how long each observation took; and, in a desync
session, when the game was found again. :func:`oracle` is the physical limit
to compare with: a decoder that knows the true position before each still
board and picks the legal line to it whose pits the beliefs favour most.

>>> import random
>>> from core import Position
>>> from core.referee.playthrough import EXACT, CAMERA, render_game
>>> play = render_game(Position.initial(), [5, 6, 0], EXACT, CAMERA, random.Random(1))
>>> s = score(play)
>>> s.followed, s.wrong_moves, s.false_alerts
(True, 0, 0)
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.observation import Observation
from core.position import Position
from core.referee.events import Event
from core.referee.likelihood import log_likelihood_table, score_boards
from core.referee.playthrough import Command, Playthrough, TimelineItem, board_at, feed
from core.referee.referee import Referee

#: Alerts that ask a person something rather than say a rule was broken.
QUESTIONS = frozenset({"ambiguous"})


@dataclass
class Score:
    """What one session came to."""

    moves: int
    named: list[int] = field(default_factory=list)
    followed: bool = False
    """Every move named, in order, and no other."""
    wrong_moves: int = 0
    """Moves confirmed that were not the move played at that point."""
    false_alerts: int = 0
    """Alerts that were not the mistake made (questions apart)."""
    questions: int = 0
    mistakes: int = 0
    found: int = 0
    """Mistakes announced with the right kind, about the right move."""
    delays: list[float] = field(default_factory=list)
    """Seconds from a move's board being complete to its confirmation."""
    seconds: list[float] = field(default_factory=list)
    """Processing time of each observation."""
    between: list[float] = field(default_factory=list)
    """Time spent in ``between`` (see :func:`score`) after each observation."""
    latency: list[float] = field(default_factory=list)
    """Each observation's wait for the work before it (processing and ``between`` of the
    observations before, where they outlast the time between the frames) plus its own
    processing: from the frame to its events, as a live board would see it."""
    resync: float | None = None
    """Seconds from the first still board that shows the game again to finding it."""
    resync_boards: int | None = None
    """Still boards seen from then until it was found (1: at the first)."""
    resync_confirmed_boards: int | None = None
    """The same, counted until a move was confirmed where the game was never lost (a move
    shown as provisional, then confirmed, finds it in :attr:`resync_boards`)."""
    out_of_sync_alerts: int = 0
    events: list[Event] = field(default_factory=list)


def score(
    play: Playthrough,
    settings: Mapping[str, Any] | None = None,
    *,
    keep_events: bool = False,
    answer: float | None = None,
    between: Callable[[Referee], object] | None = None,
) -> Score:
    """Run ``play`` through a fresh referee (with ``settings``) and score it.

    ``answer``: a person at the board answers every question ``answer`` seconds after it
    is asked, counting the pits it names on the board as it then stands (or naming the
    move played, when two moves leave the same board). None: nobody answers.

    ``between``: run with the referee after each observation, outside its processing
    time, as the live service uses the time it waits for the next frame (the garbage
    collector, ``companion.service.collector``; :meth:`Referee.prepare`); its time is
    :attr:`Score.between`, and :attr:`Score.latency` counts it where it delays a frame."""
    ref = Referee(play.start, **(settings or {}))
    out = Score(len(play.moves))
    expected = list(play.expected)
    confirmed = 0
    found_t: float | None = None
    desync_t = play.desync[1] if play.desync else None
    first_move_after: float | None = None
    first_confirmed_after: float | None = None
    shown: tuple[float, int, int] | None = None
    """The provisional move shown since the desync and not withdrawn: (time, ply, pit)."""
    lost: set[int] = set()
    """The out-of-sync alerts raised since the desync (a question closed is no resync)."""
    asked: list[tuple[float, Event, int]] = []
    frames: list[float] = []
    timeline: deque[TimelineItem] = deque(play.timeline)
    while timeline or asked:
        # (questions still open when the session's frames end are answered too: the
        # board stays as it was, and the person counts it)
        if asked and (not timeline or asked[0][0] <= timeline[0].t):
            due, question, index = asked.pop(0)
            if any(a.get("alert_id") == question["alert_id"] for a in ref.alerts):
                # (a question the referee has closed meanwhile needs no answer)
                timeline.extendleft(reversed(_answers_to(play, question, index, due)))
            continue
        item = timeline.popleft()
        t0 = time.perf_counter()
        events = feed(ref, item)
        if isinstance(item, Observation):
            out.seconds.append(time.perf_counter() - t0)
            frames.append(item.t)
            if between is not None:
                t0 = time.perf_counter()
                between(ref)
                out.between.append(time.perf_counter() - t0)
        for e in events:
            if answer is not None and e.type in QUESTIONS and not e.get("update"):
                asked.append((e.t + answer, e, confirmed))
            if keep_events:
                out.events.append(e)
            if e.type == "move_provisional" and desync_t is not None and e.t >= desync_t:
                if shown is None or shown[1:] != (e["ply"], e["pit"]):
                    shown = (e.t, int(e["ply"]), int(e["pit"]))
            elif e.type == "move_withdrawn":
                shown = None
            if e.type == "move":
                if desync_t is not None and e.t >= desync_t and first_move_after is None:
                    # (a move shown as provisional and now confirmed was named when shown)
                    stood = shown is not None and shown[1:] == (e["ply"], e["pit"])
                    first_move_after = shown[0] if shown is not None and stood else e.t
                    first_confirmed_after = e.t
                i = confirmed
                out.named.append(int(e["pit"]))
                if i < len(play.moves) and e["pit"] == play.moves[i]:
                    out.delays.append(e.t - play.done_at[i])
                else:
                    out.wrong_moves += 1
                confirmed += 1
            elif e.type == "corrected" and e.get("ply") is not None:
                # Moves taken back on a person's late answer (a game's end judged again):
                # the record is what counts; the moves shown meanwhile stay counted wrong.
                confirmed = int(e["ply"])
                del out.named[confirmed:]
            elif e.type == "new_game" and e.get("auto"):
                found_t = e.t if found_t is None else found_t
            elif (
                e.type == "board_restored"
                and e.get("closes") in lost
                and desync_t is not None
                and e.t >= desync_t
                and found_t is None
            ):
                found_t = e.t
            if not e.is_alert:
                continue
            if e.type in QUESTIONS:
                # (a question said again, the late one at a game's end, is still one)
                out.questions += 0 if e.get("update") else 1
                continue
            if e.type == "board_disturbed" and play.desync is not None:
                out.out_of_sync_alerts += 0 if e.get("update") else 1
                lost.add(e["alert_id"])
                continue
            if e.get("update"):
                continue
            match = next(
                (
                    x
                    for x in expected
                    if x.type == e.type
                    and confirmed - x.move_index in (0, 1)
                    and set(e.get("pits", [])) & x.pits
                ),
                None,
            )
            if match is not None:
                expected.remove(match)
                out.found += 1
            else:
                out.false_alerts += 1
    out.latency = _latencies(frames, out.seconds, out.between)
    out.mistakes = len(play.expected)
    out.followed = out.named == play.moves
    if found_t is None and out.wrong_moves == 0 and out.out_of_sync_alerts == 0:
        # Never lost: the game was followed through the desync without a word (an undo
        # of a move the referee was still reading, the board put back to a position it
        # reaches by play), every move it named right (the last may be still in doubt
        # when the session ends). It was found again with the first move it named after,
        # from the moment it showed that move, as provisional or confirmed: a reading
        # that showed the move played is the game found, as a still board that matches
        # closes an out-of-sync alert; the wait for certainty is the move's delay.
        found_t = first_move_after
        confirmed_t = first_confirmed_after
    else:
        confirmed_t = found_t
    if play.desync is not None and found_t is not None and desync_t is not None:
        out.resync = max(0.0, found_t - desync_t)
        out.resync_boards = _boards(play, desync_t, found_t)
        assert confirmed_t is not None  # (set whenever found_t is)
        out.resync_confirmed_boards = _boards(play, desync_t, confirmed_t)
    return out


def _boards(play: Playthrough, since: float, until: float) -> int:
    """Still boards of ``play`` shown from ``since`` to ``until`` (at least one)."""
    return sum(1 for s in play.still_boards if since <= s <= until) or 1


def _latencies(times: list[float], work: list[float], after: list[float]) -> list[float]:
    """Each frame's wait plus its own work, frames arriving at ``times`` (seconds) and
    each taking ``work`` and then ``after`` (a queue of one server).

    >>> _latencies([0.0, 0.1, 0.2], [0.02, 0.03, 0.01], [0.15, 0.0, 0.0])
    [0.02, 0.1, 0.01]
    """
    out: list[float] = []
    free = -math.inf  # when the work of the frames before is done
    for i, (t, w) in enumerate(zip(times, work, strict=True)):
        begin = max(t, free)
        out.append(round(begin - t + w, 9))
        free = begin + w + (after[i] if i < len(after) else 0.0)
    return out


def _answers_to(play: Playthrough, question: Event, index: int, t: float) -> list[Command]:
    """What a person answers to ``question`` at time ``t``: the move played, or the count
    of each pit it names."""
    if question.get("moves"):
        if index >= len(play.moves):
            return []
        return [Command(t, {"command": "confirm", "move": play.moves[index]})]
    board = board_at(play, t) or play.start.pits
    return [
        Command(t, {"command": "confirm", "pit": int(p), "count": board[int(p)]})
        for p in question.get("pits", [])
    ]


@dataclass
class OracleScore:
    moves: int = 0
    right: int = 0


def oracle(play: Playthrough) -> OracleScore:
    """At each still board, the best-scoring line of legal moves from the true position at
    the last still board, as long as the moves played since: how many moves it gets right."""
    out = OracleScore()
    pos = play.start
    done = 0
    starts = sorted(play.still_boards)
    observations = [i for i in play.timeline if isinstance(i, Observation) and i.stable]
    k = 0
    for t_still in starts:
        # The moves done by this still board.
        n = sum(1 for t in play.done_at if t <= t_still + 1e-9)
        if n <= done:
            continue
        while k < len(observations) and observations[k].t < t_still:
            k += 1
        if k >= len(observations) or None in observations[k].pits:
            continue
        obs = observations[k]
        truth = play.moves[done:n]
        lines: list[tuple[int, ...]] = [()]
        for _ in range(len(truth)):
            lines = [(*ln, m) for ln in lines for m in _play_line(pos, ln).legal_moves()]
            if not lines:
                break
        if not lines:
            break
        boards = np.array([_play_line(pos, ln).pits for ln in lines], dtype=np.int64)
        table = log_likelihood_table(obs.pits, pos.ruleset.total_seeds)
        best = lines[int(np.argmax(score_boards(table, boards)))]
        out.moves += len(truth)
        out.right += (
            sum(1 for a, b in zip(best, truth, strict=True) if a == b)
            if best == tuple(truth)
            else 0
        )
        for m in truth:
            pos = pos.play(m)
        done = n
    return out


def _play_line(pos: Position, line: tuple[int, ...]) -> Position:
    for m in line:
        pos = pos.play(m)
    return pos
