"""How well a candidate board explains an observation: per-pit log-likelihoods.

A reading is turned into a table ``logl[pit, count]`` once per observation, so
that scoring hundreds of candidate boards is one numpy gather. The model is
deliberately forgiving: a source that says "exactly 7" is right most of the
time, off by one now and then (crowded pits), and rarely further off; a
probability vector is trusted but mixed with a little of its neighbours and a
floor, so that one over-confident pit cannot veto the rules prior.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from core.observation import PitReading, most_likely

#: P(an exact reading equals the true count), P(off by one), P(further off). A source that
#: reports an exact count claims certainty; being off by one costs about as much as a
#: probability vector that gave the true count 1 in 10,000.
EXACT_RIGHT = 0.999
EXACT_OFF_BY_ONE = 1e-4
FLOOR = 1e-6
#: How much a probability vector's mass leaks to the neighbouring counts.
VECTOR_LEAK = 0.02
#: The least probability a vector reading gives any count.
VECTOR_FLOOR = 1e-4

LOG_OFF_BY_ONE = math.log(EXACT_OFF_BY_ONE)


@lru_cache(maxsize=8)
def _exact_rows(max_count: int) -> npt.NDArray[np.float64]:
    """``rows[r, c]`` = log P(exact reading r | true count c), for r, c in 0 … max_count."""
    counts = np.arange(max_count + 1)
    dist = np.abs(counts[:, None] - counts[None, :])
    probs = np.where(dist == 0, EXACT_RIGHT, np.where(dist == 1, EXACT_OFF_BY_ONE, FLOOR))
    rows: npt.NDArray[np.float64] = np.log(probs)
    rows.setflags(write=False)
    return rows


def log_likelihood_table(
    readings: tuple[PitReading, ...], max_count: int
) -> npt.NDArray[np.float64]:
    """``table[i, c]`` = log P(reading of pit i | pit i holds c), for c in 0 … max_count."""
    n = len(readings)
    exact = _exact_rows(max_count)
    table = np.zeros((n, max_count + 1), dtype=np.float64)
    for i, r in enumerate(readings):
        if r is None:
            continue  # unseen: every count equally likely (row of zeros)
        if isinstance(r, int):
            if r <= max_count:
                table[i] = exact[r]
            else:
                table[i] = math.log(FLOOR)
                table[i, max_count] = math.log(EXACT_OFF_BY_ONE if r == max_count + 1 else FLOOR)
            continue
        v = np.zeros(max_count + 3)
        m = min(len(r), max_count + 1)
        v[1 : m + 1] = r[:m]
        centre = v[1:-1]
        row = (1 - 2 * VECTOR_LEAK) * centre + VECTOR_LEAK * (v[:-2] + v[2:]) + VECTOR_FLOOR
        table[i] = np.log(row)
    return table


def claimed_table(readings: tuple[PitReading, ...], max_count: int) -> npt.NDArray[np.float64]:
    """``table[i, c]``: log P(pit i holds c) as the reading itself claims it, not mixed with
    its neighbours (a vector's values, floored at :data:`FLOOR`; an exact count claims
    certainty, so no other count has a floor): the most that looks at one untouched pile
    may count, frame after frame, from a source whose noise changes between frames (see
    :class:`core.referee.tracker.Evidence`).

    >>> table = claimed_table(((0.9, 0.1), None, 2), 3)
    >>> table[0].round(2).tolist(), table[1].tolist(), table[2].tolist()
    ([-0.11, -2.3, -13.82, -13.82], [0.0, 0.0, 0.0, 0.0], [-inf, -inf, 0.0, -inf])
    """
    table = np.zeros((len(readings), max_count + 1), dtype=np.float64)
    for i, r in enumerate(readings):
        if r is None:
            continue
        if isinstance(r, int):
            table[i] = -math.inf
            if r <= max_count:
                table[i, r] = 0.0
            continue
        v = np.full(max_count + 1, FLOOR)
        m = min(len(r), max_count + 1)
        v[:m] += np.asarray(r[:m], dtype=np.float64)
        table[i] = np.log(v)
    return table


def score_boards(
    table: npt.NDArray[np.float64], boards: npt.NDArray[np.int64]
) -> npt.NDArray[np.float64]:
    """Total log-likelihood of each candidate board (rows of ``boards``)."""
    clipped = np.minimum(boards, table.shape[1] - 1)
    total: npt.NDArray[np.float64] = table[np.arange(table.shape[0]), clipped].sum(axis=1)
    return total


def best_counts(readings: tuple[PitReading, ...]) -> tuple[int | None, ...]:
    """The most likely count of each pit (None where unseen)."""
    return tuple(most_likely(r) for r in readings)


#: Each pit the reading shows otherwise than a board, beyond the first, may cost this much
#: more before the board is called unexplained: a camera misreads a few piles at once, a
#: disturbed board differs from the game by a lot in a few pits.
PER_PIT_ALLOWANCE = 3.0


def differing_pits(board: Sequence[int], seen: Sequence[int | None]) -> int:
    """How many pits in view the reading's most likely counts ``seen`` show otherwise
    than ``board``.

    >>> differing_pits((2, 3, 5), (2, None, 4))
    1
    """
    return sum(1 for b, s in zip(board, seen, strict=True) if s is not None and s != b)


def explains(
    deficit: float, board: tuple[int, ...], seen: tuple[int | None, ...], floor: float
) -> bool:
    """Whether a board whose log likelihood is ``deficit`` below the reading's own best
    board explains a reading whose most likely counts are ``seen`` (``floor``: the least
    log likelihood allowed when they differ in one pit).

    >>> explains(8.2, (2, 3, 5), (3, 4, 4), -8.0)    # three piles each a little misread
    True
    >>> explains(13.8, (4, 4, 4), (4, 6, 4), -8.0)   # one pile surely two seeds off
    False
    """
    differing = differing_pits(board, seen)
    return deficit <= -floor + PER_PIT_ALLOWANCE * max(0, differing - 1)
