"""The learned counter: the small network of :mod:`vision.cnn` behind the counter interface.

Where its weights come from:

* ``vision/models/counter_cnn.json``, written by ``python -m vision.train
  --model cnn`` from rendered pits only (:mod:`vision.synth`): data the
  repository makes, so the weights may be committed;
* :meth:`NetCounter.adapt`: fine-tuned on labelled crops of the user's own
  board (the calibration views, positions the referee confirmed, or a folder
  of labelled photographs through ``oware-companion vision train-counter``).
  The result is stored inside the calibration file.

How a fine-tuning stays honest:

* **It does not forget.** The calibration gives only two counts (0 and 4);
  fine-tuning on them alone would teach the network that every pit holds 0 or
  4 seeds. Rendered pits of every count are mixed into each batch
  ("rehearsal") for the counts the user's images lack.
* **Its confidence is measured.** One fifth of the user's crops (chosen by
  position, deterministic) is held back while fine-tuning; the softmax
  temperature is fitted on them, so a reported 90 % is right about 9 times
  in 10. Then, as for every counter, :func:`vision.counter.shape_beliefs`
  spreads the top class ("that many or more") over the higher counts.

>>> import numpy as np
>>> counter = NetCounter.builtin()
>>> counter.beliefs([np.full((64, 64, 3), 90, np.uint8)]).shape
(1, 49)
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vision.cnn import Network, prepare_many
from vision.counter import MAX_COUNT, shape_beliefs
from vision.model import best_temperature

Image = npt.NDArray[Any]
"""A BGR uint8 picture (typed loosely: OpenCV's stubs return generic arrays)."""

MODEL_PATH = Path(__file__).with_name("models") / "counter_cnn.json"
"""The built-in network, trained on rendered pits by ``python -m vision.train --model cnn``."""

ADAPT_STEPS = 3000
"""Fine-tuning steps (batches of 32) for :meth:`NetCounter.adapt`: about 2–3 minutes on one core."""
ADAPT_LR = 5e-3
REHEARSAL = 600
"""Rendered pits mixed in, spread over the counts the user's crops do not cover."""

Progress = Callable[[int, int], None]


@dataclass
class NetCounter:
    """Turns pit crops into beliefs over seed counts with the convolutional network."""

    network: Network
    source: str = "synthetic"
    """Where the network was last trained: "synthetic" or "adapted"."""

    @property
    def classes(self) -> int:
        """Counts the network tells apart; the last one means "that many or more"."""
        return self.network.classes

    def beliefs(
        self, crops: Sequence[Image], pits: Sequence[int] | None = None
    ) -> npt.NDArray[np.float64]:
        """(len(crops), MAX_COUNT + 1) probabilities, one row per crop (``pits`` unused)."""
        if not crops:
            return np.zeros((0, MAX_COUNT + 1))
        p = self.network.predict_proba(prepare_many(list(crops)))
        return np.asarray(shape_beliefs(p), np.float64)

    def adapt(
        self,
        crops: Sequence[Image],
        counts: Sequence[int],
        steps: int = ADAPT_STEPS,
        rehearsal: int = REHEARSAL,
        progress: Progress | None = None,
        seed: int = 0,
    ) -> NetCounter:
        """A copy of this counter fine-tuned on labelled crops of the user's board.

        See the module docstring: rendered pits rehearse the missing counts,
        one fifth of the crops is held back to fit the temperature (when
        there are at least ten), and every crop is seen many times, turned,
        mirrored and relit (:func:`vision.cnn.jitter`).
        """
        if len(crops) != len(counts) or not crops:
            raise ValueError("need as many counts as crops, and at least one")
        ys = [min(int(c), self.classes - 1) for c in counts]
        if min(ys) < 0:
            raise ValueError("seed counts cannot be negative")
        n = len(crops)
        held = n >= 10  # too few crops to spare any: keep the temperature instead
        back = [i for i in range(n) if held and i % 5 == 4]
        keep = [i for i in range(n) if not (held and i % 5 == 4)]
        extra_crops, extra_counts = rehearsal_pits(
            sorted(set(range(self.classes)) - {ys[i] for i in keep}), rehearsal, seed
        )
        network = Network({k: v.copy() for k, v in self.network.params.items()})
        network.train(
            [crops[i] for i in keep] + extra_crops,
            [ys[i] for i in keep] + extra_counts,
            steps=steps,
            lr=ADAPT_LR,
            seed=seed,
            progress=progress,
        )
        if back:
            network.temperature = fit_temperature(
                network, [crops[i] for i in back], [ys[i] for i in back]
            )
        else:
            network.temperature = max(1.0, self.network.temperature)
        return NetCounter(network, "adapted")

    def to_json(self) -> dict[str, Any]:
        """JSON form (stored in a calibration file)."""
        return {"kind": "cnn", "source": self.source, "network": self.network.to_json()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> NetCounter:
        """Inverse of :meth:`to_json`."""
        if data.get("kind") != "cnn":
            raise ValueError("not a CNN counter")
        return cls(Network.from_json(data["network"]), str(data.get("source", "adapted")))

    @classmethod
    def builtin(cls) -> NetCounter:
        """The network trained on rendered boards (``python -m vision.train --model cnn``)."""
        if not MODEL_PATH.exists():
            raise FileNotFoundError(
                f"{MODEL_PATH} is missing: run `python -m vision.train --model cnn` to make it"
            )
        return cls.from_json(json.loads(MODEL_PATH.read_text(encoding="utf-8")))


def rehearsal_pits(counts: Sequence[int], total: int, seed: int) -> tuple[list[Image], list[int]]:
    """About ``total`` rendered pits spread over ``counts`` (the top count also renders piles)."""
    if not counts or total <= 0:
        return [], []
    from vision.synth import random_pit

    rng = np.random.default_rng(seed + 1)
    top = max(counts)
    per = max(1, total // len(counts))
    crops: list[Image] = []
    labels: list[int] = []
    for c in counts:
        for _ in range(per):
            seeds = c if c < top else int(rng.integers(c, c + 6))  # "that many or more"
            crops.append(random_pit(seeds, rng))
            labels.append(c)
    return crops, labels


def fit_temperature(network: Network, crops: Sequence[Image], counts: Sequence[int]) -> float:
    """The softmax temperature that best explains held-back crops, as shaped beliefs."""
    return best_temperature(network.logits(prepare_many(list(crops))), list(counts), shape_beliefs)
