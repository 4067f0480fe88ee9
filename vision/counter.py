"""Seed counting: one pit image in, a probability vector over 0 … 48 seeds out.

The counter is :mod:`vision.features` followed by the small classifier of
:mod:`vision.model`. It never claims more than it can see:

* the model tells apart counts 0 … ``classes - 1``; its top class means
  "this many *or more*" (piles hide seeds), so the belief given to the top
  class is spread over the higher counts with a decaying tail instead of
  being put on one number;
* a little belief always goes to the neighbouring counts, and the softmax
  temperature is fitted on examples the model was not trained on, so that
  the reported confidence matches how often the counter is right.

Where the model comes from:

* ``vision/models/counter_synth.json``, written by ``python -m vision.train``
  from rendered pits only (:mod:`vision.synth`) – data the repository makes;
* :meth:`Counter.adapt`, at calibration time, from labelled images of the
  user's own board (the empty board, the start position, and every position
  the referee confirms during play). The adapted model is saved inside the
  calibration file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from vision.features import features_of
from vision.image_types import Image
from vision.model import MLP, fit_temperature, load_model_json

MAX_COUNT = 48
"""Beliefs cover 0 … MAX_COUNT seeds (all the seeds of a two-player game)."""

MODEL_PATH = Path(__file__).with_name("models") / "counter_synth.json"
"""The built-in model trained on rendered pits by ``python -m vision.train``."""

TOP_KEEP = 0.6
"""Share of the top class's belief kept on that count (the rest goes higher)."""
TAIL_DECAY = 0.75
"""Each higher count gets this fraction of the one before in the tail."""
NEIGHBOUR = 0.02
"""Belief moved from each count to its neighbours (±1), a floor against over-confidence."""


class PitCounter(Protocol):
    """What the pipeline needs of a counter (the learned one here, or :mod:`vision.area`)."""

    source: str

    def beliefs(
        self, crops: Sequence[Image], pits: Sequence[int] | None = None
    ) -> npt.NDArray[np.float64]:
        """(len(crops), MAX_COUNT + 1) beliefs; ``pits`` are the crops' pit indices."""
        ...

    def to_json(self) -> dict[str, Any]:
        """JSON form, stored in a calibration file."""
        ...


def counter_from_json(data: dict[str, Any]) -> PitCounter:
    """Rebuild whichever counter a calibration file holds (the registry,
    :mod:`vision.counting`, knows every kind)."""
    from vision.counting import counter_from_json as from_registry

    return from_registry(data)


def augment(crop: Image) -> list[Image]:
    """The eight rotations and mirror images of a crop: the count does not change."""
    out = []
    for k in range(4):
        r = np.rot90(crop, k)
        out.append(np.ascontiguousarray(r))
        out.append(np.ascontiguousarray(r[:, ::-1]))
    return out


@dataclass
class Counter:
    """Turns pit crops into beliefs over seed counts."""

    model: MLP
    source: str = "synthetic"
    """Where the model was trained: "synthetic" or "adapted"."""

    @property
    def classes(self) -> int:
        """Counts the model tells apart; the last one means "that many or more"."""
        return self.model.classes

    def beliefs(
        self, crops: Sequence[Image], pits: Sequence[int] | None = None
    ) -> npt.NDArray[np.float64]:
        """(len(crops), MAX_COUNT + 1) probabilities, one row per crop (``pits`` unused)."""
        if not crops:
            return np.zeros((0, MAX_COUNT + 1))
        p = self.model.predict_proba(features_of(list(crops)))
        return np.asarray(shape_beliefs(p), np.float64)

    def belief(self, crop: Image) -> npt.NDArray[np.float64]:
        """The belief for one crop."""
        return np.asarray(self.beliefs([crop])[0], np.float64)

    def adapt(
        self,
        crops: Sequence[Image],
        counts: Sequence[int],
        steps: int = 400,
        l2: float = 1e-2,
    ) -> Counter:
        """A counter fitted to labelled crops of the user's board.

        Two candidates are trained: this model adapted (weights pulled toward
        the rendered-board model: best when the user gave few images) and a
        fresh model on the user's images alone (best when they gave many).
        One fifth of the crops (deterministically chosen) is held back; the
        candidate that explains it better wins, its temperature is fitted on
        it, and the winner is refitted on all crops. Every crop is used in
        its eight orientations.
        """
        if len(crops) != len(counts) or not crops:
            raise ValueError("need as many counts as crops, and at least one")
        ys = np.asarray(counts, np.int64)
        feats = np.stack([features_of(augment(c)) for c in crops])  # (n, 8, F)
        n, k, f = feats.shape
        x_all, y_all = feats.reshape(-1, f), np.repeat(ys, k)

        def train(x: npt.NDArray[np.float32], y: npt.NDArray[np.int64], fresh: bool) -> MLP:
            if fresh:
                return MLP.fit(x, y, int(ys.max()) + 1, hidden=64, steps=steps, l2=l2)
            classes = max(self.classes, int(ys.max()) + 1)
            return MLP.fit(x, y, classes, steps=steps, l2=3 * l2, prior=self.model)

        back = np.arange(n) % 5 == 4
        fresh, temperature = False, self.model.temperature
        # A fresh model needs a few images of each count to stand on its own.
        enough = len(np.unique(ys[~back])) >= 3 and (~back).sum() >= 30
        if back.any() and (~back).sum() >= 2:
            xb, yb = feats[back].reshape(-1, f), np.repeat(ys[back], k)
            best_ll = -np.inf
            for candidate in (False, True) if enough else (False,):
                model = train(feats[~back].reshape(-1, f), np.repeat(ys[~back], k), candidate)
                t = fit_temperature(model, xb, yb)
                model.temperature = t
                p = shape_beliefs(model.predict_proba(xb))
                ll = float(np.mean(np.log(p[np.arange(len(yb)), yb] + 1e-12)))
                if ll > best_ll:
                    best_ll, fresh, temperature = ll, candidate, t
        final = train(x_all, y_all, fresh)
        final.temperature = temperature
        return Counter(final, "adapted")

    def to_json(self) -> dict[str, Any]:
        """JSON form (stored in a calibration file)."""
        return {"kind": "mlp", "source": self.source, "model": self.model.to_json()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Counter:
        """Inverse of :meth:`to_json`."""
        return cls(MLP.from_json(data["model"]), str(data.get("source", "adapted")))

    @classmethod
    def builtin(cls) -> Counter:
        """The counter trained on rendered boards (``python -m vision.train`` writes it)."""
        return cls.from_json(load_model_json(MODEL_PATH, "python -m vision.train"))


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
