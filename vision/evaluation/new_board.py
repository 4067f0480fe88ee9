"""The new-board protocol: how well a counter reads a board it has never seen.

A folder of labelled pit photos (``<count>/<image>.png``) stands for a user's board. The
counter may learn only from what the calibration would give that user: the empty board,
the start position and the calibration's layouts (:mod:`vision.learning.layouts`), drawn
from the folder as the user's camera would take them, as many pit photos of each count
as those layouts hold. Every other photo of the folder is scored; none of them is ever
seen before it is scored.

The draw is random but seeded. A folder of single-pit crops cannot say which crops were
taken together, so the calibration's twelve pits of one photo are twelve independent
crops here (a real photo's pits share one light, so this is, if anything, kinder to the
counter than a real calibration).

The scored photographs then make games (:mod:`vision.evaluation.photo_games`):
:func:`followed_at_pace` counts the games the referee followed asking at most one question
per :data:`QUESTIONS_PER` moves, and :func:`learn_from_games` labels photographs with the
positions the referee confirmed in such games, for the counter to learn from.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from vision.counting.beliefs import PitCounter
from vision.evaluation.dataset import Example
from vision.evaluation.photo_games import GameResult, photo_games
from vision.learning.calibrate import contradicted
from vision.learning.layouts import LAYOUTS, Layout, calibration_layouts, crops_per_count

Floats = npt.NDArray[np.float64]
Fitter = Callable[[list[Example]], PitCounter]
"""Makes a counter from the calibration's labelled photos."""


@dataclass(frozen=True)
class Split:
    """The calibration's photos and the photos scored."""

    calibration: list[Example]
    scored: list[Example]


def draw_calibration(
    examples: Sequence[Example], layouts: Sequence[Layout], photos: int = 1, seed: int = 0
) -> Split:
    """The photos the calibration takes (``photos`` of each layout), and the rest.

    A count the folder has too few photos of gives what it has, but always leaves at
    least one to score.

    >>> from pathlib import Path
    >>> ex = [Example(Path(f"{c}/{k}.png"), c, np.zeros((2, 2, 3), np.uint8))
    ...       for c in range(10) for k in range(5)]
    >>> split = draw_calibration(ex, calibration_layouts(2))
    >>> len(split.calibration), len(split.scored)  # 0 and 4: 14 asked, 4 of 5 taken
    (28, 22)
    """
    need = {c: n * photos for c, n in crops_per_count(layouts).items()}
    rng = np.random.default_rng(seed)
    by_count: dict[int, list[Example]] = {}
    for e in examples:
        by_count.setdefault(e.count, []).append(e)
    calibration: list[Example] = []
    scored: list[Example] = []
    for count, group in sorted(by_count.items()):
        order = rng.permutation(len(group))
        take = min(need.get(count, 0), len(group) - 1)
        calibration += [group[i] for i in order[:take]]
        scored += [group[i] for i in order[take:]]
    return Split(calibration, scored)


@dataclass(frozen=True)
class NewBoardRun:
    """What one run of the protocol measured."""

    split: Split
    beliefs: Floats
    truth: npt.NDArray[np.int64]
    fit_seconds: float
    counter: PitCounter


def run_new_board(
    examples: Sequence[Example],
    fitter: Fitter,
    layouts: int = len(LAYOUTS),
    photos: int = 1,
    seed: int = 0,
) -> NewBoardRun:
    """Calibrate a counter on the drawn photos (``fitter``) and read every other photo as
    the live reading reads a board that has settled
    (:func:`vision.capture.pipeline.settle_counter`)."""
    from vision.capture.pipeline import settle_counter

    split = draw_calibration(examples, calibration_layouts(layouts), photos, seed)
    start = time.perf_counter()
    counter = fitter(split.calibration)
    took = time.perf_counter() - start
    beliefs = settle_counter(counter).beliefs([e.image for e in split.scored])
    truth = np.array([e.count for e in split.scored], np.int64)
    return NewBoardRun(split, beliefs, truth, took, counter)


QUESTIONS_PER = 25
"""The goal's pace: at most one question per this many moves (rounded up: one question in a
game of 24 moves is within it)."""


def questions_allowed(moves: int) -> int:
    """The questions the goal's pace allows in a game of ``moves`` moves.

    >>> questions_allowed(24), questions_allowed(25), questions_allowed(26)
    (1, 1, 2)
    """
    return math.ceil(moves / QUESTIONS_PER)


def followed_at_pace(results: Sequence[GameResult]) -> int:
    """Games followed move for move with at most one question per :data:`QUESTIONS_PER` moves."""
    return sum(
        r.named == r.moves and r.alerts.count("ambiguous") <= questions_allowed(len(r.moves))
        for r in results
    )


@dataclass(frozen=True)
class Learnt:
    """What the counter may learn from games: photographs and the labels the referee gave them."""

    examples: list[Example]
    """The photographs learnt from, each once."""
    labels: list[int]
    """The count the referee's confirmed position gave each (right or wrong, as in a real game)."""
    indices: set[int]
    """Their places among the run's scored photographs."""
    skipped: int
    """Confirmed positions left out: their reading flatly contradicts them."""

    @property
    def wrong(self) -> int:
        """Photographs labelled with another count than their own."""
        return sum(label != e.count for e, label in zip(self.examples, self.labels, strict=True))


def learn_from_games(run: NewBoardRun, games: int, seed: int) -> Learnt:
    """Photographs labelled by the positions the referee confirmed in ``games`` games (a
    person answering its questions), drawn from the run's scored photographs.

    A position whose reading flatly contradicts it is not learnt from
    (:func:`vision.learning.calibrate.contradicted`).
    """
    scored = run.split.scored
    index: dict[int, list[int]] = {}
    for i, e in enumerate(scored):
        index.setdefault(e.count, []).append(i)
    labels: dict[int, int] = {}
    skipped = 0

    def confirmed(pits: tuple[int, ...], shown: dict[int, tuple[int, int]]) -> None:
        nonlocal skipped
        photos = {pit: index[count][k] for pit, (count, k) in shown.items()}
        if len(photos) != len(pits):
            return
        if contradicted([run.beliefs[photos[p]] for p in range(len(pits))], list(pits)):
            skipped += 1
            return
        for pit, count in enumerate(pits):
            labels[photos[pit]] = count

    photo_games(run.beliefs, run.truth, games, seed=seed + 7919, answer=True, confirmed=confirmed)
    chosen = sorted(labels)
    return Learnt([scored[i] for i in chosen], [labels[i] for i in chosen], set(chosen), skipped)
