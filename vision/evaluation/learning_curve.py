"""A learning curve: how seed counting improves with more labelled photographs.

Would more photographs of the board bring the learned counters to the accuracy goals,
and how many? :func:`cross_validate` answers from a folder's train split alone:

* The examples are dealt into :data:`vision.counting.ensemble.FOLDS` folds by file-name hash
  (:func:`fold_of`). For each fold the product's own ``adapt`` (what ``train-counter``
  runs) is given a share of the other folds, and the counter it makes reads the fold it
  never saw. A share (:func:`take_share`) takes that fraction of each count's
  photographs, chosen by another hash, so a smaller share is a subset of a larger one.
* It gives the beliefs' scores (:mod:`vision.evaluation.belief_scores`), how many labelled
  photographs each fine-tuning was given, and the photographs read wrong (:class:`Misread`:
  the ones to look at, to see what the counter misses or whether a label is wrong).

:func:`power_law` fits ``error = a * n ** -b`` through the shares (a straight line in
log-log, the usual shape of a learning curve) and :func:`photographs_for` says where the
fitted curve reaches an error: an extrapolation from a few points, a guide to how much to
photograph, not a promise.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vision.counting.ensemble import FOLDS, EnsembleCounter, Progress
from vision.evaluation.belief_scores import BeliefScores, score_beliefs
from vision.evaluation.dataset import Example

GOALS = {"exact 0-9": 0.95, "exact 0-5": 0.99}
"""The issue's accuracy goals, as the share of photographs counted exactly."""


@dataclass(frozen=True)
class Misread:
    """One photograph a fold's counter got wrong: to look at (is the label right?)."""

    path: Path
    count: int
    read: int
    """The most likely count."""
    belief_read: float
    belief_true: float

    def line(self) -> str:
        return (
            f"{self.count} read as {self.read} "
            f"({self.belief_read:.0%}; {self.belief_true:.0%} on {self.count})  {self.path}"
        )


@dataclass(frozen=True)
class Share:
    """What one share's cross-validation measured."""

    given: int
    """Labelled photographs each fine-tuning was given (the mean over the folds)."""
    scores: BeliefScores
    """The folds' beliefs against their true counts."""
    misread: list[Misread]
    """The photographs whose most likely count was not the true one."""


def fold_of(name: str) -> int:
    """The cross-validation fold of a photograph, from its file name only."""
    return int(hashlib.sha256(name.encode("utf-8")).hexdigest(), 16) % FOLDS


def take_share(examples: Sequence[Example], share: float) -> list[Example]:
    """That fraction of each count's examples (at least one), the same ones on every run.

    The order is a hash of the file name with a prefix, so it does not follow
    the folds; a smaller share is always a subset of a larger one.
    """
    chosen: list[Example] = []
    for count in sorted({e.count for e in examples}):
        same = [e for e in examples if e.count == count]
        same.sort(key=lambda e: hashlib.sha256(b"share:" + e.path.name.encode()).hexdigest())
        chosen += same[: max(1, round(share * len(same)))]
    return chosen


def power_law(ns: Sequence[float], errors: Sequence[float]) -> tuple[float, float] | None:
    """(a, b) of ``error = a * n ** -b`` fitted in log-log, or None if it cannot be.

    None when fewer than two shares differ in size, when an error is zero (no
    logarithm), or when the error does not fall as photographs are added
    (b <= 0: nothing to extrapolate).
    """
    pairs = [(n, e) for n, e in zip(ns, errors, strict=True) if n > 0]
    if len({n for n, _ in pairs}) < 2 or any(e <= 0 for _, e in pairs):
        return None
    x = np.log([n for n, _ in pairs])
    y = np.log([e for _, e in pairs])
    slope, intercept = np.polyfit(x, y, 1)
    if slope >= 0:
        return None
    return float(math.exp(intercept)), float(-slope)


def photographs_for(a: float, b: float, error: float) -> float:
    """Labelled photographs at which the fitted curve reaches ``error``."""
    return float((a / error) ** (1.0 / b))


def cross_validate(
    examples: Sequence[Example],
    start: EnsembleCounter[Any],
    share: float,
    steps: int,
    members: int,
    seed: int,
    progress: Callable[[str], Progress] | None = None,
) -> Share:
    """Five folds: each read by a counter fine-tuned on ``share`` of the other four.

    ``progress``, given what is being fine-tuned ("share 0.5, fold 2/5"), returns what the
    fine-tuning reports its steps to.
    """
    beliefs: list[npt.NDArray[np.float64]] = []
    truth: list[int] = []
    sizes: list[int] = []
    tested: list[Example] = []
    folds = [fold_of(e.path.name) for e in examples]
    what = f"share {share:g}"
    for k in range(FOLDS):
        test = [e for e, f in zip(examples, folds, strict=True) if f == k]
        train = take_share([e for e, f in zip(examples, folds, strict=True) if f != k], share)
        if not test or not train:
            continue
        counter = start.adapt(
            [e.image for e in train],
            [e.count for e in train],
            steps=steps,
            seed=seed + 10 * k,
            members=members,
            progress=None if progress is None else progress(f"{what}, fold {k + 1}/{FOLDS}"),
        )
        beliefs.append(counter.beliefs([e.image for e in test]))
        truth += [e.count for e in test]
        tested += test
        sizes.append(len(train))
    every = np.concatenate(beliefs)
    read = every.argmax(axis=1)
    misread = [
        Misread(e.path, e.count, int(r), float(b[r]), float(b[min(e.count, len(b) - 1)]))
        for e, r, b in zip(tested, read, every, strict=True)
        if r != e.count
    ]
    return Share(
        round(float(np.mean(sizes))),
        score_beliefs(every, np.asarray(truth, np.int64)),
        sorted(misread, key=lambda m: (m.count, m.read, str(m.path))),
    )
