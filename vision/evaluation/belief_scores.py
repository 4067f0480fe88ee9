"""How well beliefs over seed counts match the true counts: the benchmarks' figures.

One place for what ``python -m bench.vision`` prints per count and overall and what
``python -m bench.learning_curve`` prints per share, so both mean the same thing by
"exact", "0-5" and "in the 95 % set".

>>> import numpy as np
>>> beliefs = np.array([[0.9, 0.1, 0.0], [0.2, 0.3, 0.5]])
>>> s = score_beliefs(beliefs, np.array([0, 1]))
>>> s.exact, s.within_one, s.coverage
(0.5, 1.0, 1.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from vision.counting.beliefs import credible_set

LOW = 5
"""The goal for exact counts is stricter up to this many seeds (99 % against 95 %)."""


@dataclass(frozen=True)
class BeliefScores:
    """Figures of a set of beliefs against the true counts."""

    exact: float
    """Share of pits whose most likely count is the true one."""
    exact_low: float
    """The same on pits of 0 to :data:`LOW` seeds (NaN if there are none)."""
    within_one: float
    log_likelihood: float
    """Mean natural logarithm of the belief in the true count."""
    coverage: float
    """Share of pits whose true count lies in the smallest set holding 95 % of the belief."""
    set_size: float
    """Mean size of that set."""


def score_beliefs(beliefs: npt.NDArray[np.float64], truth: npt.NDArray[np.int64]) -> BeliefScores:
    """The figures of ``beliefs`` (one row per pit) against the true counts."""
    pred = beliefs.argmax(axis=1)
    low = truth <= LOW
    sets = [credible_set(b, 0.95) for b in beliefs]
    return BeliefScores(
        exact=float(np.mean(pred == truth)),
        exact_low=float(np.mean(pred[low] == truth[low])) if low.any() else math.nan,
        within_one=float(np.mean(np.abs(pred - truth) <= 1)),
        log_likelihood=float(np.mean(np.log(beliefs[np.arange(len(truth)), truth] + 1e-12))),
        coverage=float(np.mean([int(t) in s for s, t in zip(sets, truth, strict=True)])),
        set_size=float(np.mean([len(s) for s in sets])),
    )
