"""What every counter shares: beliefs over 0 … 48 seeds, and the counter interface.

A counter (one module per kind in :mod:`vision.counting`) turns pit crops into one
belief per pit over 0 … :data:`MAX_COUNT` seeds. The learned ones tell apart counts up
to a largest class meaning "that many *or more*" (piles hide seeds), and
:func:`shape_beliefs` turns their class probabilities into beliefs that never claim more
than the picture shows: the top class's share spread over the higher counts with a
decaying tail, and a little belief always on the neighbouring counts.
:func:`credible_set` is the smallest set of counts holding 95 % of a belief, what the
referee and the benches read.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from vision.image_types import Image

MODELS = Path(__file__).resolve().parent.parent / "models"
"""Where the built-in counters' weights live (``vision/models``, made by ``python -m
vision.learning.train``)."""

MAX_COUNT = 48
"""Beliefs cover 0 … MAX_COUNT seeds (all the seeds of a two-player game)."""

TOP_KEEP = 0.6
"""Share of the top class's belief kept on that count (the rest goes higher)."""
TAIL_DECAY = 0.75
"""Each higher count gets this fraction of the one before in the tail."""
NEIGHBOUR = 0.02
"""Belief moved from each count to its neighbours (±1), a floor against over-confidence."""


class PitCounter(Protocol):
    """What the pipeline needs of a counter (every kind of :mod:`vision.counting`)."""

    source: str

    def beliefs(
        self, crops: Sequence[Image], pits: Sequence[int] | None = None
    ) -> npt.NDArray[np.float64]:
        """(len(crops), MAX_COUNT + 1) beliefs; ``pits`` are the crops' pit indices."""
        ...

    def to_json(self) -> dict[str, Any]:
        """JSON form, stored in a calibration file."""
        ...


def augment(crop: Image) -> list[Image]:
    """The eight rotations and mirror images of a crop: the count does not change."""
    out = []
    for k in range(4):
        r = np.rot90(crop, k)
        out.append(np.ascontiguousarray(r))
        out.append(np.ascontiguousarray(r[:, ::-1]))
    return out


def shape_beliefs(p: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Model probabilities (n, classes) → honest beliefs (n, MAX_COUNT + 1).

    >>> b = shape_beliefs(np.array([[0.0, 0.0, 1.0]]))
    >>> round(float(b.sum()), 6), bool(b[0, 2] > b[0, 3] > b[0, 4] > 0)
    (1.0, True)
    """
    n, classes = p.shape
    out = np.zeros((n, MAX_COUNT + 1))
    top = min(classes, MAX_COUNT + 1) - 1
    out[:, :top] = p[:, :top]
    tail = TAIL_DECAY ** np.arange(1, MAX_COUNT - top + 1)
    top_mass = p[:, top:].sum(axis=1)
    out[:, top] = top_mass * (TOP_KEEP if tail.size else 1.0)
    if tail.size:
        out[:, top + 1 :] = top_mass[:, None] * (1 - TOP_KEEP) * (tail / tail.sum())[None, :]
    # Move a little belief to the neighbours: never rule out an off-by-one outright.
    spread = out * (1 - 2 * NEIGHBOUR)
    spread[:, 1:] += NEIGHBOUR * out[:, :-1]
    spread[:, :-1] += NEIGHBOUR * out[:, 1:]
    spread[:, 0] += NEIGHBOUR * out[:, 0]
    spread[:, -1] += NEIGHBOUR * out[:, -1]
    return np.asarray(spread / spread.sum(axis=1, keepdims=True), np.float64)


def credible_set(belief: npt.NDArray[np.float64], mass: float = 0.95) -> list[int]:
    """The smallest set of counts holding at least ``mass`` of the belief.

    >>> credible_set(np.array([0.1, 0.7, 0.2]), 0.85)
    [1, 2]
    """
    order = np.argsort(-belief, kind="stable")
    total = 0.0
    out = []
    for c in order:
        out.append(int(c))
        total += float(belief[c])
        if total >= mass - 1e-12:
            break
    return sorted(out)
