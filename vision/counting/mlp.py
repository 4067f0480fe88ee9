"""The ``mlp`` counter: hand-made features and a small MLP, pit image → belief over seeds.

The counter is :mod:`vision.counting.features` followed by the small classifier of
:mod:`vision.counting.model`. Its class probabilities become beliefs through
:func:`vision.counting.beliefs.shape_beliefs` (the top class means "this many *or
more*"), and the softmax temperature is fitted on examples the model was not trained
on, so that the reported confidence matches how often the counter is right.

Where the model comes from:

* ``vision/models/counter_synth.json``, written by ``python -m vision.learning.train``
  from rendered pits only (:mod:`vision.render.synth`) – data the repository makes;
* :meth:`Counter.adapt`, at calibration time, from labelled images of the
  user's own board (the empty board, the start position, and every position
  the referee confirms during play). The adapted model is saved inside the
  calibration file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from vision.counting.beliefs import MAX_COUNT, MODELS, augment, shape_beliefs
from vision.counting.features import features_of
from vision.counting.model import MLP, fit_temperature, load_model_json
from vision.image_types import Image

MODEL_PATH = MODELS / "counter_synth.json"
"""The built-in model trained on rendered pits by ``python -m vision.learning.train``."""


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
        """The counter trained on rendered boards (``python -m vision.learning.train``
        writes it)."""
        return cls.from_json(load_model_json(MODEL_PATH, "python -m vision.learning.train"))
