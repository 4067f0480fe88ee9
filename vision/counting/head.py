"""The head counter: the rendered-trained network's eyes, a new head learnt from the user.

The deep network (:mod:`vision.counting.deep_net`) learnt from rendered pits what seeds, piles and
pits look like; what it cannot know is how *this* board's seeds, wood and light map onto
counts. This counter keeps the network's convolutions frozen and learns only a new dense
head (a regularised softmax regression over the network's pooled features) from the
calibration's labelled pit photos: about fifty photos of all counts 0 … 9 are enough, and
the fit takes seconds on one core with numpy alone (no PyTorch, nothing to wait for).

* **Every crop counts eight times.** A pit seen from above keeps its count when turned or
  mirrored, so each labelled crop gives eight training rows.
* **Its confidence is measured.** The temperature is fitted on out-of-fold beliefs (each
  fifth of the crops read by a head fitted on the rest): a reported 90 % is right about
  nine times in ten on this board.
* **Counts it was not shown.** Counts below the largest shown but missing from the
  photos are rehearsed with rendered pits (:func:`vision.counting.ensemble.rehearsal_pits`); the
  largest count means "that many or more" and :func:`vision.counting.mlp.shape_beliefs`
  spreads it over the taller piles, so a pile of 14 is believed to be 9, 10, 11, … rather
  than surely 9.
* **Learning during play** is the same fit on more photos (:meth:`HeadCounter.refit`):
  seconds, so a background thread can redo it between two moves.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> from vision.render.synth import random_pit
>>> crops = [random_pit(n % 4, rng) for n in range(24)]
>>> counter = HeadCounter.fit(crops, [n % 4 for n in range(24)])
>>> counter.beliefs(crops[:2]).shape
(2, 49)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from vision.counting.beliefs import MAX_COUNT, shape_beliefs
from vision.counting.cnn_net import _decode, _encode
from vision.counting.deep_net import DeepNetwork, prepare_deep
from vision.counting.model import best_temperature, softmax
from vision.image_types import Image

Floats = npt.NDArray[np.float64]

L2 = 1e-2
"""Weight decay of the head (on standardised features)."""
STEPS = 400
"""Full-batch Adam steps of one fit."""
FOLDS = 5
"""Fifths of the crops, each read by a head fitted on the rest, to fit the temperature."""
REHEARSED = 12
"""Rendered pits for each count below the largest shown that the photos lack."""
FEW_COUNTS = 3
"""Below this many different counts among the photos, the temperature is floored …"""
FEW_COUNTS_TEMPERATURE = 3.0
"""… at this (two counts cannot show how wrong the head is on the others)."""


def _views(x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """The eight turns and mirror images of prepared inputs (n, s, s, 3) → (8n, s, s, 3)."""
    turns = [np.rot90(x, k, axes=(1, 2)) for k in range(4)]
    return np.concatenate(turns + [t[:, :, ::-1] for t in turns]).astype(np.float32)


def _fit_head(
    feats: Floats, ys: npt.NDArray[np.int64], classes: int, l2: float, steps: int
) -> tuple[Floats, Floats]:
    """Softmax regression by full-batch Adam: weight (f, classes), bias (classes,)."""
    n, f = feats.shape
    w = np.zeros((f, classes))
    b = np.zeros(classes)
    onehot = np.eye(classes)[ys]
    mw, vw, mb, vb = np.zeros_like(w), np.zeros_like(w), np.zeros_like(b), np.zeros_like(b)
    lr, beta1, beta2 = 0.05, 0.9, 0.999
    for t in range(1, steps + 1):
        p = softmax(feats @ w + b)
        g = (p - onehot) / n
        gw = feats.T @ g + l2 * w
        gb = g.sum(axis=0)
        mw = beta1 * mw + (1 - beta1) * gw
        vw = beta2 * vw + (1 - beta2) * gw**2
        mb = beta1 * mb + (1 - beta1) * gb
        vb = beta2 * vb + (1 - beta2) * gb**2
        c1, c2 = 1 - beta1**t, 1 - beta2**t
        w -= lr * (mw / c1) / (np.sqrt(vw / c2) + 1e-8)
        b -= lr * (mb / c1) / (np.sqrt(vb / c2) + 1e-8)
    return w, b


@dataclass
class HeadCounter:
    """Beliefs over seed counts from a frozen network's features and a head fitted here."""

    network: DeepNetwork
    """The rendered-trained network whose pooled features the head reads (never changed)."""
    mean: Floats
    scale: Floats
    """Feature standardisation, from the photos the head was fitted on."""
    weight: Floats
    bias: Floats
    temperature: float = 1.0
    source: str = "calibrated"
    examples: int = 0
    """Labelled pit photos the head was fitted on."""

    KIND: ClassVar[str] = "head"

    @property
    def classes(self) -> int:
        """Counts the head tells apart; the last means "that many or more"."""
        return int(self.weight.shape[1])

    def _logits(self, feats: Floats) -> Floats:
        return np.asarray(((feats - self.mean) / self.scale) @ self.weight + self.bias)

    def beliefs(self, crops: Sequence[Image], pits: Sequence[int] | None = None) -> Floats:
        """(len(crops), MAX_COUNT + 1) beliefs, one row per crop (``pits`` unused)."""
        if not crops:
            return np.zeros((0, MAX_COUNT + 1))
        feats = self.network.features(prepare_deep(list(crops))).astype(np.float64)
        return np.asarray(shape_beliefs(softmax(self._logits(feats) / self.temperature)))

    @classmethod
    def fit(
        cls,
        crops: Sequence[Image],
        counts: Sequence[int],
        network: DeepNetwork | None = None,
        l2: float = L2,
        steps: int = STEPS,
        seed: int = 0,
        source: str = "calibrated",
    ) -> HeadCounter:
        """A head fitted to labelled pit photos (the calibration's, and later the game's)."""
        if len(crops) != len(counts) or not crops:
            raise ValueError("give one count per crop, and at least one crop")
        if network is None:
            from vision.counting.deep import DeepCounter

            network = DeepCounter.builtin().networks[0]
        ys = np.asarray(counts, np.int64)
        top = int(ys.max())
        missing = sorted(set(range(top)) - set(ys.tolist()))
        images = list(crops)
        labels = ys.tolist()
        if missing:
            from vision.render.synth import random_pit

            rng = np.random.default_rng(seed)
            for c in missing:
                images += [random_pit(c, rng) for _ in range(REHEARSED)]
                labels += [c] * REHEARSED
        own = len(crops)
        x = prepare_deep(images)
        feats = network.features(_views(x)).astype(np.float64)
        yv = np.tile(np.asarray(labels, np.int64), 8)
        mean = feats.mean(axis=0)
        scale = feats.std(axis=0) + 1e-3
        z = (feats - mean) / scale
        classes = top + 1
        # Out-of-fold logits of the user's own crops (rehearsed pits always train).
        fold = np.tile(np.r_[np.arange(own) % FOLDS, np.full(len(images) - own, -1)], 8)
        oof = np.zeros((len(labels), classes))
        for k in range(FOLDS):
            held = fold == k
            if not held.any() or held.all():
                continue
            w, b = _fit_head(z[~held], yv[~held], classes, l2, steps)
            rows = np.flatnonzero(held[: len(labels)])
            oof[rows] = np.mean([z[rows + v * len(labels)] @ w + b for v in range(8)], axis=0)
        temperature = best_temperature(oof[:own], ys, shape_beliefs)
        if len(set(ys.tolist())) < FEW_COUNTS:
            temperature = max(temperature, FEW_COUNTS_TEMPERATURE)
        w, b = _fit_head(z, yv, classes, l2, steps)
        return cls(network, mean, scale, w, b, temperature, source, own)

    def refit(self, crops: Sequence[Image], counts: Sequence[int], source: str) -> HeadCounter:
        """A head fitted afresh to ``crops`` (all the photos so far) on the same network."""
        return HeadCounter.fit(crops, counts, self.network, source=source)

    def to_json(self) -> dict[str, Any]:
        """JSON form, stored in a calibration file (the network's weights included)."""
        return {
            "kind": self.KIND,
            "network": self.network.to_json(),
            "mean": _encode(self.mean.astype(np.float32)),
            "scale": _encode(self.scale.astype(np.float32)),
            "weight": _encode(self.weight.astype(np.float32)),
            "bias": _encode(self.bias.astype(np.float32)),
            "temperature": self.temperature,
            "source": self.source,
            "examples": self.examples,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> HeadCounter:
        """Inverse of :meth:`to_json`."""
        if data.get("kind") != cls.KIND:
            raise ValueError("not a head counter")

        def arr(key: str) -> Floats:
            return np.asarray(_decode(data[key]), np.float64)

        return cls(
            DeepNetwork.from_json(data["network"]),
            arr("mean"),
            arr("scale"),
            arr("weight"),
            arr("bias"),
            float(data.get("temperature", 1.0)),
            str(data.get("source", "calibrated")),
            int(data.get("examples", 0)),
        )
