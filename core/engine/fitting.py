"""Fitting the evaluation's weights by least squares.

The search scores a position it cannot see to the end with a weighted sum of
terms (:func:`core.engine.evaluation.evaluate`). Here the weights are
fitted instead of chosen: given positions, each with a *target* (what a deep
search, or an endgame database, says it is worth), find the weights whose
sum comes closest to the targets, in the least-squares sense. The weight of
the stores' difference stays at 100, so that a score stays in centi-seeds
and the other weights read as "worth so many hundredths of a seed".

Pure: arrays in, arrays out. The positions and their targets are made by
``companion/engine_fit.py``.

>>> import numpy as np
>>> board = np.array([4, 4, 4, 4, 0, 2, 1, 0, 4, 4, 12, 3], dtype=np.int8)
>>> terms = features(board, 4, 2)
>>> dict(zip(FEATURES, terms.tolist()))  # C captures the 2 on a: a threat of 2
{'captured': 2, 'on_side': -6, 'vulnerable': 0, 'empty': 0, 'kroo': -1, 'threat': 2, \
'threatened': 0, 'reach': -7}
>>> from core.engine.evaluation import DEFAULT_WEIGHTS, evaluate
>>> int(terms @ DEFAULT_WEIGHTS) == evaluate(board, 4, 2, DEFAULT_WEIGHTS)
True
>>> target_from_score(100_000 + 300)  # a won game by three seeds
300
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from core.engine.evaluation import WIN, terms

#: The terms of the evaluation, in the order of its weights.
FEATURES = (
    "captured",
    "on_side",
    "vulnerable",
    "empty",
    "kroo",
    "threat",
    "threatened",
    "reach",
)

#: Targets are clipped to this many centi-seeds: a won game by 30 seeds and one by 15 are
#: both "won" to the evaluation, and a few such targets must not pull every weight.
CLIP = 2400


def features(board: npt.NDArray[np.int8], mine: int, theirs: int) -> npt.NDArray[np.int64]:
    """The terms of the evaluation for a mover-relative board (pits 0-5 the mover's) and
    the stores, so that ``features(...) @ weights == evaluate(..., weights)``."""
    return np.array(terms(board, mine, theirs), dtype=np.int64)


def target_from_score(score: int) -> int:
    """A search score as a target in centi-seeds: a known result (``WIN`` plus 100 per seed
    of margin) becomes its margin; a heuristic score stays as it is."""
    if score > WIN // 2:
        return score - WIN
    if score < -WIN // 2:
        return score + WIN
    return score


def fit_weights(
    terms: npt.NDArray[np.int64], targets: npt.NDArray[np.int64], captured: int = 100
) -> npt.NDArray[np.int64]:
    """The weights (``captured`` first, fixed) whose weighted terms come closest to the
    clipped targets; ``terms`` has one row of :func:`features` per position."""
    x = np.asarray(terms, dtype=np.float64)
    y = np.clip(np.asarray(targets, dtype=np.float64), -CLIP, CLIP) - captured * x[:, 0]
    rest, *_ = np.linalg.lstsq(x[:, 1:], y, rcond=None)
    return np.concatenate([[captured], np.rint(rest)]).astype(np.int64)


def rms_error(
    terms: npt.NDArray[np.int64], targets: npt.NDArray[np.int64], weights: npt.NDArray[np.int64]
) -> float:
    """Root mean square distance, in seeds, between the weighted terms and the clipped
    targets."""
    guess = np.asarray(terms, dtype=np.float64) @ np.asarray(weights, dtype=np.float64)
    wanted = np.clip(np.asarray(targets, dtype=np.float64), -CLIP, CLIP)
    return float(np.sqrt(np.mean((guess - wanted) ** 2)) / 100)
