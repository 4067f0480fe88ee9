"""Games played with real photographs: does the referee follow them from the counter's beliefs?

Scoring the counter pit by pit (:mod:`vision.evaluation.belief_scores`) is one measure. A user cares
about something else: whether the referee, which reads those
beliefs through the rules (at most six moves can follow a position), names
every move of a real game and raises no false alarm. This module measures
that without a recorded game on a real board:

1. **A random legal game** (Abapa) whose every board, the sown board before a
   capture included, holds at most as many seeds per pit as there are
   photographs of (0 … 9 on the development photographs). Among the legal
   moves, one that would make a taller pile is not chosen; a game stops when
   none is left or after ``length`` moves. So the games stay where the
   photographs are and say nothing about piles of ten or more.
2. **A camera session of it** (:func:`core.referee.scenarios.render_game`, the
   camera's settled style, with hands passing over the board: over the pits
   around a move's origin, and while it sows over every pit it sows into), in which every
   pit reading is the counter's belief about a *real* photograph of that many
   seeds. A pit keeps its photograph while its count does not change, as a
   pile nobody touched keeps its look, so a pile the counter misreads stays
   misread until it is sown from or into. Every settled board stays in view
   for three seconds (:data:`STILL`), as people look at the board between
   moves: long enough for the referee to ask about a doubt that lasts.
   The game's last board stays ten seconds longer (:data:`FINAL_STILL`): the
   players look at it, and a sowing the referee takes for unfinished has
   time to be asked about (``Referee.stall_time``).
3. **The referee** with the camera's settings
   (:data:`vision.capture.pipeline.CAMERA_REFEREE`) reads the session. With
   ``answer=True`` a person at the board answers its questions: when it asks
   to count pits, the true counts of those pits are confirmed at the next
   observation (``Referee.confirm``), as the dashboard's buttons do.

:func:`report_lines` says how many boards held at least one pit the counter alone read
wrong (the rules' share of the work), the moves the referee named in order
(longest common subsequence with the game), the games it followed move for
move, how the others ended (stuck waiting for a sowing to end; or on a wrong
board it takes for right, the worst; or asking about it), how often it asked
a person to count a pit, its other alerts (in a game played without a mistake, each is a
false alarm), and in how many games the camera said its counts are too unsure to follow
the game (:mod:`vision.capture.count_health`). Deterministic for a given seed.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from core import Position
from core.observation import Observation, PitReading
from core.referee import Referee
from core.referee.events import Event
from core.referee.scenarios import render_game
from vision.capture.count_health import CountHealth
from vision.capture.pipeline import CAMERA_REFEREE, belief_to_reading

Beliefs = npt.NDArray[np.float64]
Confirmed = Callable[[tuple[int, ...], dict[int, tuple[int, int]]], None]
"""Told of every position the referee confirms: its pits, and pit → (count, photograph
index) of the photographs shown (to learn from the games as they are played)."""


def covered_game(start: Position, top: int, length: int, rng: random.Random) -> list[int]:
    """A random legal game of at most ``length`` moves whose boards never hold more than ``top``."""
    moves: list[int] = []
    pos = start
    while len(moves) < length and not pos.is_over:
        fitting = []
        for pit in pos.legal_moves():
            out = pos.outcome(pit)
            sown = list(out.position.pits)
            for p, c in out.captures:
                sown[p] += c  # the board the camera sees before the capture is taken
            if max(sown) <= top:
                fitting.append(pit)
        if not fitting:
            break
        pit = rng.choice(fitting)
        moves.append(pit)
        pos = pos.play(pit)
    return moves


class PhotoReader:
    """Turns a true pit count into the counter's belief about a photograph of that many seeds.

    Each pit keeps its photograph until its count changes, then draws another
    photograph of the new count.
    """

    def __init__(self, by_count: Mapping[int, Sequence[Beliefs]], rng: random.Random) -> None:
        self.by_count = by_count
        self.rng = rng
        self.shown: dict[int, tuple[int, int]] = {}
        """Pit → (its count, the photograph shown for it)."""
        self._readings: dict[tuple[int, int], PitReading] = {}

    def _photo(self, pit: int, count: int) -> tuple[int, int]:
        """(count, index) of the photograph the pit shows, drawn anew when its count changed."""
        held = self.shown.get(pit)
        if held is None or held[0] != count:
            held = (count, self.rng.randrange(len(self.by_count[count])))
            self.shown[pit] = held
        return held

    def reading(self, pit: int, count: int) -> PitReading:
        photo = self._photo(pit, count)
        if photo not in self._readings:  # one photograph is shown many times
            self._readings[photo] = belief_to_reading(self.by_count[count][photo[1]])
        return self._readings[photo]

    def misread(self, pit: int, count: int) -> bool:
        """Whether the counter's most likely count for this pit's photograph is wrong."""
        _, index = self._photo(pit, count)
        return int(np.argmax(self.by_count[count][index])) != count


def under_sowing_hand(
    board: Sequence[int | None], settled: Sequence[int | None]
) -> list[int | None]:
    """``board`` while a move is made, with the pits it has changed since the last ``settled``
    board hidden: the sowing hand has passed over each of them.

    >>> under_sowing_hand([0, 5, 5, None, 4], [4, 4, 4, 4, 4])
    [None, None, None, None, 4]
    """
    return [None if c != was else c for c, was in zip(board, settled, strict=True)]


STEP = 0.5
"""Seconds between two observations of the session (a camera reports far more often, but
the referee only judges stable ones, and identical readings change nothing)."""
STILL = 6
"""Further observations of every settled board (3 s): people look at the board between moves,
and a doubt that lasts (``Referee.ambiguity_time``) makes the referee ask."""
FINAL_STILL = 20
"""Further observations of the game's last board (10 s more): it stays on the table, and a
sowing that stands still for ``Referee.stall_time`` (5 s) is asked about."""


@dataclass(frozen=True)
class GameResult:
    """One game: what was played, what the referee made of it."""

    moves: list[int]
    named: list[int]
    """The moves the referee named, in order."""
    alerts: list[str]
    """The types of the alerts it raised."""
    boards: int
    """Settled boards the camera showed."""
    misread_boards: int
    """Of those, boards with at least one pit the counter alone read wrong."""
    ended_right: bool
    """The referee's board at the end is the game's."""
    phase: str
    """What the referee was doing at the end (:attr:`core.referee.Referee.phase`)."""
    answers: int = 0
    """Pits a person counted for the referee (only when asked to answer)."""
    warned_at: int | None = None
    """The settled board (counting from 1) at which the camera first said its counts are
    too unsure to follow the game (:mod:`vision.capture.count_health`); None if it never did."""

    @property
    def lost_silently(self) -> bool:
        """On a wrong board, sure of it: not asking, not waiting for a sowing to end."""
        return not self.ended_right and self.phase in ("waiting", "over")


def play_with_photos(
    start: Position,
    moves: Sequence[int],
    by_count: Mapping[int, Sequence[Beliefs]],
    seed: int,
    hands: float = 0.5,
    answer: bool = False,
    confirmed: Confirmed | None = None,
) -> GameResult:
    """The referee's reading of ``moves`` shown as photographs (see the module docstring)."""
    session = render_game(start, moves, style="settled", hands=hands, seed=seed, source="camera")
    reader = PhotoReader(by_count, random.Random(seed + 1))
    referee = Referee(start, **CAMERA_REFEREE)
    named: list[int] = []
    alerts: list[str] = []
    boards = misread = answers = 0
    health = CountHealth()
    warned_at: int | None = None
    last: tuple[int | None, ...] | None = None
    asked: list[list[int]] = []
    """The pits of each question the referee asked, answered at the next observation."""

    def note(events: Sequence[Event]) -> None:
        for event in events:
            if event.type == "move":
                named.append(int(event["pit"]))
                if confirmed is not None:
                    confirmed(tuple(referee.position.pits), dict(reader.shown))
            elif event.is_alert:
                alerts.append(event.type)
                if answer and event.type == "ambiguous" and event.get("options"):
                    asked.append([int(o["pit"]) for o in event["options"]])

    t = 0.0

    def show(obs: Observation, exact: Sequence[int | None], pits: tuple[PitReading, ...]) -> None:
        nonlocal t, answers, warned_at
        t += STEP
        while asked:  # a person counts the pits asked about, on the board as it is now,
            for pit in asked.pop(0):  # one by one, until the question is closed
                count = exact[pit]
                if count is None:
                    continue
                answers += 1
                events = referee.confirm(t, pit=pit, count=count)
                note(events)
                if any(e.type in ("move", "board_restored") for e in events):
                    break  # the dashboard takes the question away: no more to answer
        seen = replace(obs, t=t, pits=pits)
        if health.judge(seen) and warned_at is None:
            warned_at = boards
        note(referee.observe(seen))

    for obs in session.observations:
        exact = [p if isinstance(p, int) else None for p in obs.pits]
        pits: tuple[PitReading, ...] = tuple(
            None if c is None else reader.reading(i, c) for i, c in enumerate(exact)
        )
        if not obs.stable and last is not None:
            # A sowing hand passes over every pit it sows into (the session's hands cover
            # only the pits around the origin): the pits the move has changed are hidden.
            # (Read first all the same, so each pile keeps the photograph it would have.)
            exact = under_sowing_hand(exact, last)
            pits = tuple(None if c is None else p for c, p in zip(exact, pits, strict=True))
        repeats = 1
        if obs.stable and tuple(exact) != last:
            boards += 1
            misread += any(c is not None and reader.misread(i, c) for i, c in enumerate(exact))
            last = tuple(exact)
            repeats += STILL
        for _ in range(repeats):
            show(obs, exact, pits)
    for _ in range(FINAL_STILL):  # the game's last board stays on the table
        show(obs, exact, pits)
    assert session.final is not None
    ended_right = referee.position.pits == session.final.pits
    return GameResult(
        list(moves), named, alerts, boards, misread, ended_right, referee.phase, answers, warned_at
    )


def photos_by_count(beliefs: Beliefs, truth: npt.NDArray[np.int64]) -> dict[int, list[Beliefs]]:
    """The beliefs about the photographs, grouped by their true count."""
    out: dict[int, list[Beliefs]] = {}
    for belief, count in zip(beliefs, truth.tolist(), strict=True):
        out.setdefault(int(count), []).append(belief)
    return out


def longest_common(a: Sequence[int], b: Sequence[int]) -> int:
    """Length of the longest common subsequence (moves named in the right order)."""
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            table[i + 1][j + 1] = (
                table[i][j] + 1 if x == y else max(table[i][j + 1], table[i + 1][j])
            )
    return table[-1][-1]


def photo_games(
    beliefs: Beliefs,
    truth: npt.NDArray[np.int64],
    games: int,
    length: int = 60,
    seed: int = 0,
    answer: bool = False,
    confirmed: Confirmed | None = None,
) -> list[GameResult]:
    """``games`` covered random games, each read by the referee from the photographs' beliefs
    (``answer``: with a person counting the pits it asks about)."""
    by_count = photos_by_count(beliefs, truth)
    # Only counts 0 … top with photographs of every count below them can be shown.
    top = -1
    while top + 1 in by_count:
        top += 1
    start = Position.initial("abapa")
    if top < max(start.pits):
        raise ValueError(
            f"a game needs photographs of every count from 0 to {max(start.pits)} (the start"
            f" position and the empty pits of the first moves); "
            + (f"there are none of {top + 1}" if top >= 0 else "there are none of an empty pit")
        )
    results = []
    for g in range(games):
        rng = random.Random(seed * 100_003 + g)
        moves = covered_game(start, top, length, rng)
        game_seed = seed * 100_003 + g
        results.append(
            play_with_photos(
                start, moves, by_count, seed=game_seed, answer=answer, confirmed=confirmed
            )
        )
    return results


def report_lines(results: Sequence[GameResult]) -> list[str]:
    """What :func:`photo_games` measured, in words, one figure a line."""
    total = sum(len(r.moves) for r in results)
    named = sum(longest_common(r.named, r.moves) for r in results)
    followed = sum(r.named == r.moves for r in results)
    ended = sum(r.ended_right for r in results)
    lost = sum(r.lost_silently for r in results)
    sowing = sum(not r.ended_right and r.phase == "moving" for r in results)
    asking = sum(not r.ended_right and r.phase == "ambiguous" for r in results)
    alerts = [a for r in results for a in r.alerts]
    asked = alerts.count("ambiguous")
    false = [a for a in alerts if a != "ambiguous"]
    boards = sum(r.boards for r in results)
    misread = sum(r.misread_boards for r in results)
    lengths = sorted(len(r.moves) for r in results)
    answers = sum(r.answers for r in results)
    answered = f" (a person counted {answers} pits)" if answers else ""
    kinds = ", ".join(f"{k} {false.count(k)}" for k in sorted(set(false)))
    warned = sorted(r.warned_at for r in results if r.warned_at is not None)
    when = f" (median at settled board {warned[len(warned) // 2]})" if warned else ""
    return [
        f"games played with the photographs: {len(results)} "
        f"(median {lengths[len(lengths) // 2]} moves, piles up to the largest count photographed)",
        f"boards with at least one pit the counter alone misreads: {misread}/{boards}"
        f" = {misread / max(1, boards):.0%}",
        f"moves the referee named in order: {named}/{total} = {named / max(1, total):.1%}",
        f"games followed move for move: {followed}/{len(results)}",
        f"games the referee ended on the true board: {ended}/{len(results)}",
        f"  stuck, waiting without a word for a sowing to end (a seed reads missing): {sowing}",
        f"  on a wrong board it takes for right (lost silently): {lost}",
        f"  asking a person to count a pit: {asking}",
        f"times it asked a person to look (ambiguous): {asked} in {total} moves{answered}",
        f"false alarms (other alerts: the games were played without a mistake): {len(false)}"
        + (f" ({kinds})" if kinds else ""),
        f"games in which the camera said its counts are too unsure: {len(warned)}{when}",
    ]
