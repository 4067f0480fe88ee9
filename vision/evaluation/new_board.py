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
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from vision.counter import PitCounter
from vision.dataset import Example
from vision.learning.layouts import Layout, calibration_layouts, crops_per_count

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
    layouts: int = 2,
    photos: int = 1,
    seed: int = 0,
) -> NewBoardRun:
    """Calibrate a counter on the drawn photos (``fitter``) and read every other photo."""
    split = draw_calibration(examples, calibration_layouts(layouts), photos, seed)
    start = time.perf_counter()
    counter = fitter(split.calibration)
    took = time.perf_counter() - start
    beliefs = counter.beliefs([e.image for e in split.scored])
    truth = np.array([e.count for e in split.scored], np.int64)
    return NewBoardRun(split, beliefs, truth, took, counter)
