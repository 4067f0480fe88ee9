"""The deep counter: networks of :mod:`vision.deep_net` behind the counter interface.

Where its weights come from:

* ``vision/models/counter_deep.json``, written by ``python -m vision.train
  --model deep`` from rendered pits only (:mod:`vision.synth`): data the
  repository makes, so the weights may be committed;
* :meth:`DeepCounter.adapt`: fine-tuned with PyTorch (:mod:`vision.deep_train`,
  the ``learn`` extra) on labelled crops of the user's own board. The result
  is stored inside the calibration file and runs without PyTorch.

It follows :class:`vision.net_counter.NetCounter` in everything but the
network: an ensemble of members that each hold back a different fifth of
the user's crops to fit their temperature, rendered pits rehearsing the
counts the user's crops lack, and :func:`vision.counter.shape_beliefs`
spreading the top class ("that many or more") over the higher counts.

>>> import numpy as np
>>> counter = DeepCounter.builtin()
>>> counter.beliefs([np.full((64, 64, 3), 90, np.uint8)]).shape
(1, 49)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vision.counter import MAX_COUNT, shape_beliefs
from vision.deep_net import DeepNetwork, prepare_deep
from vision.model import best_temperature, load_model_json
from vision.net_counter import FOLDS, REHEARSAL, _part_of, rehearsal_pits

Image = npt.NDArray[Any]
"""A BGR uint8 picture (typed loosely: OpenCV's stubs return generic arrays)."""
Progress = Callable[[int, int], None]

MODEL_PATH = Path(__file__).with_name("models") / "counter_deep.json"
"""The built-in network, trained on rendered pits by ``python -m vision.train --model deep``."""

ADAPT_STEPS = 1500
"""Fine-tuning batches (of 64) per member: about two minutes on two cores."""
ADAPT_LR = 1.5e-3
"""Peak learning rate of a fine-tuning (half of training from scratch: keep what it knows)."""


@dataclass
class DeepCounter:
    """Turns pit crops into beliefs over seed counts with the deeper network."""

    networks: list[DeepNetwork]
    """One network, or several trained alike whose beliefs are averaged (an ensemble)."""
    source: str = "synthetic"
    """Where the networks were last trained: "synthetic" or "adapted"."""

    def __post_init__(self) -> None:
        if not self.networks:
            raise ValueError("a counter needs at least one network")
        if len({n.classes for n in self.networks}) != 1:
            raise ValueError("the networks of one counter must tell apart the same counts")

    @property
    def classes(self) -> int:
        """Counts the networks tell apart; the last one means "that many or more"."""
        return self.networks[0].classes

    def beliefs(
        self, crops: Sequence[Image], pits: Sequence[int] | None = None
    ) -> npt.NDArray[np.float64]:
        """(len(crops), MAX_COUNT + 1) probabilities, one row per crop (``pits`` unused)."""
        if not crops:
            return np.zeros((0, MAX_COUNT + 1))
        x = prepare_deep(list(crops))
        p = np.mean([network.predict_proba(x) for network in self.networks], axis=0)
        return np.asarray(shape_beliefs(p), np.float64)

    def adapt(
        self,
        crops: Sequence[Image],
        counts: Sequence[int],
        steps: int = ADAPT_STEPS,
        rehearsal: int = REHEARSAL,
        progress: Progress | None = None,
        seed: int = 0,
        members: int = 1,
    ) -> DeepCounter:
        """A copy fine-tuned on labelled crops of the user's board (needs PyTorch).

        Each member starts from one of this counter's networks, holds back a
        different fifth of the crops (when there are at least ten) to fit its
        temperature, and sees rendered pits of the counts the crops lack in
        proportion to how many counts those are.
        """
        if len(crops) != len(counts) or not crops:
            raise ValueError("need as many counts as crops, and at least one")
        if members < 1:
            raise ValueError("an ensemble needs at least one member")
        ys = [min(int(c), self.classes - 1) for c in counts]
        if min(ys) < 0:
            raise ValueError("seed counts cannot be negative")
        networks = []
        for k in range(members):
            start = self.networks[k % len(self.networks)]
            fold = (FOLDS - 1 - k) % FOLDS
            report = _part_of(progress, k, members)
            networks.append(_fine_tune(start, crops, ys, fold, steps, rehearsal, seed + k, report))
        return DeepCounter(networks, "adapted")

    def to_json(self) -> dict[str, Any]:
        """JSON form (stored in a calibration file)."""
        nets = [network.to_json() for network in self.networks]
        return {"kind": "deep", "source": self.source, "networks": nets}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DeepCounter:
        """Inverse of :meth:`to_json`."""
        if data.get("kind") != "deep" or "networks" not in data:
            raise ValueError("not a deep counter")
        nets = [DeepNetwork.from_json(n) for n in data["networks"]]
        return cls(nets, str(data.get("source", "adapted")))

    @classmethod
    def builtin(cls) -> DeepCounter:
        """The network trained on rendered boards (``python -m vision.train --model deep``)."""
        return cls.from_json(load_model_json(MODEL_PATH, "python -m vision.train --model deep"))


def _fine_tune(
    start: DeepNetwork,
    crops: Sequence[Image],
    ys: list[int],
    fold: int,
    steps: int,
    rehearsal: int,
    seed: int,
    progress: Progress | None,
) -> DeepNetwork:
    """``start`` fine-tuned on the crops outside ``fold`` (1 in FOLDS), calibrated on that fold."""
    from vision.deep_train import export, fit

    n = len(crops)
    back = list(range(fold, n, FOLDS)) if n >= 10 else []
    keep = sorted(set(range(n)) - set(back))
    missing = sorted(set(range(start.classes)) - {ys[i] for i in keep})
    extra_crops, extra_counts = rehearsal_pits(missing, rehearsal, seed)
    module = fit(
        [crops[i] for i in keep],
        [ys[i] for i in keep],
        start.classes,
        steps=steps,
        seed=seed,
        start=start,
        peak_lr=ADAPT_LR,
        extra=(extra_crops, extra_counts, len(missing) / start.classes),
        progress=progress,
    )
    network = export(module, start.width)
    if back:
        network.temperature = fit_temperature(
            network, [crops[i] for i in back], [ys[i] for i in back]
        )
    else:
        network.temperature = max(1.0, start.temperature)
    return network


def fit_temperature(network: DeepNetwork, crops: Sequence[Image], counts: Sequence[int]) -> float:
    """The softmax temperature that best explains held-back crops, as shaped beliefs."""
    return best_temperature(network.logits(prepare_deep(list(crops))), list(counts), shape_beliefs)
