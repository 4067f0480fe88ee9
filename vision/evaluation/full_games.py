"""Full games read from a counter's beliefs about real photographs, at playing pace.

The camera's goal in play is stated on *full* games at the referee benchmark's pace,
piles of any size: what a table of players gives the referee. This module plays such
games from the beliefs a counter gave a folder of real pit photographs (the new-board
protocol's scored photographs, :mod:`vision.evaluation.new_board`):

* **The games** are the referee benchmark's (:mod:`core.referee.playthrough`): random
  legal Abapa games played to their end under the rules, rendered at
  :data:`~core.referee.playthrough.CAMERA` pace (the board still for 0.3 to 3 s between
  moves, in one move of five the next hand arriving before the last seeds are still,
  hands hiding the pits under them). Game ``g`` of seed ``s`` is the benchmark's clean
  game of seed ``s + g``.
* **Every pile** shows a photograph of its count, drawn when its count changes and kept
  while it stands (a misread pile stays misread until it is sown from or into); the
  reading is the counter's belief about that photograph, trimmed as the live pipeline
  trims it (:func:`vision.capture.pipeline.belief_to_reading`).
* **Piles taller than any photograph** (the development photographs stop at nine seeds,
  Oware's piles do not) get the belief of a photograph of the tallest count, moved up to
  the pile's count. How sure a counter is of a pile it cannot count is not known from
  such photographs, so two readings of that are offered: ``shifted`` keeps the belief as
  sharp as at the tallest count, and ``widened`` (the default, the cautious one) spreads
  each count's belief evenly over as many seeds either way as the pile is taller than
  the tallest photograph (a pile of 12, where nine is the tallest, is read three seeds
  either way): a belief that widens and covers the truth, as the counter's must.

:func:`within_pace` is the goal's test of one game: followed move for move with at most one
question per :data:`~vision.evaluation.new_board.QUESTIONS_PER` moves (rounded up).

>>> import numpy as np
>>> source = counter_beliefs(np.eye(10), np.arange(10))  # sure of every photograph, and right
>>> source.draw(7, random.Random(0))[7], len(source.draw(12, random.Random(0)))
(1.0, 16)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from core import Position
from core.observation import PitReading
from core.referee.evaluation import Score, score
from core.referee.playthrough import CAMERA, PhotoBeliefs, random_full_game, render_game
from vision.capture.pipeline import CAMERA_REFEREE, belief_to_reading
from vision.evaluation.new_board import QUESTIONS_PER, questions_allowed

TALL = ("widened", "shifted")
"""How a pile taller than any photograph is read (see the module docstring)."""

START_PILE = 4
"""Seeds in every pit of the start position: a game needs photographs of at least 0 to 4."""

ANSWER_SECONDS = 3.0
"""A person at the board answers a question this long after it is asked (the referee
benchmark's ``--answer 3``: an arbiter walking over and counting)."""


def widen(belief: Sequence[float], by: int) -> tuple[float, ...]:
    """``belief`` with each count's share spread evenly over ``by`` counts either way.

    >>> [round(p, 3) for p in widen((0.0, 0.0, 1.0), 1)]
    [0.0, 0.333, 0.333, 0.333]
    >>> [round(p, 3) for p in widen((1.0,), 1)]  # no count below zero
    [0.5, 0.5]
    """
    out = [0.0] * (len(belief) + by)
    for k, p in enumerate(belief):
        if p <= 0.0:
            continue
        lo, hi = max(0, k - by), k + by
        share = p / (hi - lo + 1)
        for j in range(lo, hi + 1):
            out[j] += share
    total = sum(out)
    return tuple(v / total for v in out)


@dataclass(frozen=True)
class CounterBeliefs(PhotoBeliefs):
    """The referee benchmark's photographs' source (``by_count[c]``: the readings of the
    photographs of ``c``, a taller pile shifted up from the tallest), its tall piles
    widened unless ``tall`` is ``shifted``."""

    tall: str = "widened"

    def draw(self, count: int, rng: random.Random) -> PitReading:
        moved = super().draw(count, rng)
        above = count - min(count, max(self.by_count))
        if above == 0 or self.tall == "shifted":
            return moved
        assert isinstance(moved, tuple)
        return widen(moved, above)


def counter_beliefs(
    beliefs: npt.NDArray[np.float64], truth: npt.NDArray[np.int64], tall: str = "widened"
) -> CounterBeliefs:
    """The source of the games: every count from 0 to the tallest photographed, and at least
    to the start position's 4, must have a photograph (ValueError says which is missing)."""
    if tall not in TALL:
        raise ValueError(f"tall piles are read {' or '.join(TALL)}, not {tall!r}")
    by_count: dict[int, list[Sequence[float]]] = {}
    for b, c in zip(beliefs, truth, strict=True):
        reading = belief_to_reading(np.asarray(b, np.float64))
        assert isinstance(reading, tuple)  # a belief vector is read as one
        by_count.setdefault(int(c), []).append(reading)
    top = max([START_PILE, *by_count])
    missing = [c for c in range(top + 1) if c not in by_count]
    if missing:
        raise ValueError(
            f"a game needs photographs of every count from 0 to {top}; none of"
            f" {', '.join(map(str, missing))} seeds"
        )
    return CounterBeliefs(by_count, f"photographs, tall piles {tall}", tall)


def _game(args: tuple[CounterBeliefs, int, float | None]) -> Score:
    source, seed, answer = args
    rng = random.Random(seed)
    start = Position.initial()
    play = render_game(start, random_full_game(start, rng), source, CAMERA, rng)
    return score(play, CAMERA_REFEREE, answer=answer)


def full_games(
    beliefs: npt.NDArray[np.float64],
    truth: npt.NDArray[np.int64],
    games: int,
    *,
    seed: int = 1000,
    answer: float | None = None,
    tall: str = "widened",
    jobs: int = 1,
) -> list[Score]:
    """The referee's reading of ``games`` full games shown as these photographs.

    ``answer``: a person answers each question that many seconds after it is asked (None:
    nobody answers). ``jobs``: games played side by side in that many processes."""
    source = counter_beliefs(beliefs, truth, tall)
    todo = [(source, seed + g, answer) for g in range(games)]
    if jobs <= 1:
        return [_game(a) for a in todo]
    with ProcessPoolExecutor(jobs) as pool:
        return list(pool.map(_game, todo))


def within_pace(s: Score) -> bool:
    """Followed move for move, asking at most one question per :data:`QUESTIONS_PER` moves."""
    return s.followed and s.questions <= questions_allowed(s.moves)


def report_lines(results: Sequence[Score]) -> list[str]:
    """The figures of a set of full games, in words."""
    n = len(results)
    moves = sum(s.moves for s in results)
    questions = sum(s.questions for s in results)
    per_game = sorted(s.questions for s in results)
    median = per_game[n // 2] if n else 0
    ok = sum(within_pace(s) for s in results)
    followed = sum(s.followed for s in results)
    return [
        f"games followed move for move: {followed}/{n}; moves {moves}, named wrongly"
        f" {sum(s.wrong_moves for s in results)}; false alerts"
        f" {sum(s.false_alerts for s in results)}",
        f"questions: {questions} ({1000 * questions / max(1, moves):.1f} per 1,000 moves;"
        f" per game median {median}, most {per_game[-1] if n else 0})",
        f"games followed with at most one question per {QUESTIONS_PER} moves: {ok}/{n}"
        f" = {ok / max(1, n):.0%}",
    ]
