"""The learned counter: the small network of :mod:`vision.cnn` behind the counter interface.

Where its weights come from:

* ``vision/models/counter_cnn.json``, written by ``python -m vision.train
  --model cnn`` from rendered pits only (:mod:`vision.synth`): data the
  repository makes, so the weights may be committed;
* :meth:`NetCounter.adapt`: fine-tuned on labelled crops of the user's own
  board (the calibration views, positions the referee confirmed, or a folder
  of labelled photographs through ``oware-companion train-counter``).
  The result is stored inside the calibration file.

Why several networks: fine-tuned on a few hundred crops, one network's
accuracy depends on its luck (which batches it saw, which fifth it held
back): on the development photographs, single networks differed by up to
ten points on the same images. Averaging the beliefs of networks that each
held back a different fifth removes much of that luck and uses every crop
for training; ``bench/vision.py`` measures what it gains.

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

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vision.cnn import Network, prepare_many
from vision.counter import MAX_COUNT, shape_beliefs
from vision.model import best_temperature, load_model_json

Image = npt.NDArray[Any]
"""A BGR uint8 picture (typed loosely: OpenCV's stubs return generic arrays)."""

MODEL_PATH = Path(__file__).with_name("models") / "counter_cnn.json"
"""The built-in network, trained on rendered pits by ``python -m vision.train --model cnn``."""

ADAPT_STEPS = 3000
"""Fine-tuning steps (batches of 32) for :meth:`NetCounter.adapt`: about 2–3 minutes on one core."""
ADAPT_LR = 5e-3
REHEARSAL = 600
"""Rendered pits mixed in, spread over the counts the user's crops do not cover."""
FOLDS = 5
"""The crops are dealt into this many parts by position; each network holds one back."""
MEMBERS = 5
"""Networks the commands fine-tune and average by default (``--members``)."""

Progress = Callable[[int, int], None]


@dataclass
class NetCounter:
    """Turns pit crops into beliefs over seed counts with the convolutional network."""

    networks: list[Network]
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
        x = prepare_many(list(crops))
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
    ) -> NetCounter:
        """A copy of this counter fine-tuned on labelled crops of the user's board.

        See the module docstring: rendered pits rehearse the missing counts,
        one fifth of the crops is held back to fit the temperature (when
        there are at least ten), and every crop is seen many times, turned,
        mirrored and relit (:func:`vision.cnn.jitter`).

        ``members`` > 1 fine-tunes that many networks, each from its own
        random start of the batches and each holding back a different fifth,
        so together they learn from every crop; their beliefs are averaged.
        Takes ``members`` times as long.
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
            fold = (FOLDS - 1 - k) % FOLDS  # the first member holds back what one network did
            report = _part_of(progress, k, members)
            networks.append(_fine_tune(start, crops, ys, fold, steps, rehearsal, seed + k, report))
        return NetCounter(networks, "adapted")

    def to_json(self) -> dict[str, Any]:
        """JSON form (stored in a calibration file)."""
        nets = [network.to_json() for network in self.networks]
        return {"kind": "cnn", "source": self.source, "networks": nets}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> NetCounter:
        """Inverse of :meth:`to_json` (also reads files of one network, ``"network"``)."""
        if data.get("kind") != "cnn":
            raise ValueError("not a CNN counter")
        stored = data["networks"] if "networks" in data else [data["network"]]
        return cls([Network.from_json(n) for n in stored], str(data.get("source", "adapted")))

    @classmethod
    def builtin(cls) -> NetCounter:
        """The network trained on rendered boards (``python -m vision.train --model cnn``)."""
        return cls.from_json(load_model_json(MODEL_PATH, "python -m vision.train --model cnn"))


def _fine_tune(
    start: Network,
    crops: Sequence[Image],
    ys: list[int],
    fold: int,
    steps: int,
    rehearsal: int,
    seed: int,
    progress: Progress | None,
) -> Network:
    """``start`` fine-tuned on the crops outside ``fold`` (1 in FOLDS), calibrated on that fold."""
    n = len(crops)
    # With fewer than ten crops there are too few to spare: keep the temperature instead.
    back = list(range(fold, n, FOLDS)) if n >= 10 else []
    keep = sorted(set(range(n)) - set(back))
    extra_crops, extra_counts = rehearsal_pits(
        sorted(set(range(start.classes)) - {ys[i] for i in keep}), rehearsal, seed
    )
    network = Network({k: v.copy() for k, v in start.params.items()})
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
        network.temperature = max(1.0, start.temperature)
    return network


def _part_of(progress: Progress | None, k: int, parts: int) -> Progress | None:
    """Progress of part ``k`` of ``parts`` equal parts, reported as progress of the whole."""
    if progress is None:
        return None
    whole = progress  # a local name: mypy does not narrow ``progress`` inside the closure

    def report(step: int, total: int) -> None:
        whole(k * total + step, parts * total)

    return report


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
