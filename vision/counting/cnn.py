"""The ``cnn`` counter: the small network of :mod:`vision.counting.cnn_net` behind the
counter interface.

Where its weights come from:

* ``vision/models/counter_cnn.json`` (:meth:`NetCounter.model_path`), written by
  ``python -m vision.learning.train --model cnn`` from rendered pits only
  (:mod:`vision.render.synth`): data the repository makes, so the weights may be committed;
* :meth:`NetCounter.adapt`: fine-tuned on labelled crops of the user's own
  board (the calibration views, positions the referee confirmed, or a folder
  of labelled photographs through ``oware-companion train-counter``).
  The result is stored inside the calibration file.

The ensemble, the held-back fifth that fits each member's temperature and
the rehearsal of missing counts are shared with the deep counter
(:mod:`vision.counting.ensemble`); what is here is the network's part: every crop is
seen many times, turned, mirrored and relit (:func:`vision.counting.cnn_net.jitter`),
in numpy on one core.

>>> import numpy as np
>>> counter = NetCounter.builtin()
>>> counter.beliefs([np.full((64, 64, 3), 90, np.uint8)]).shape
(1, 49)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from vision.counting.cnn_net import Network, prepare_many
from vision.counting.ensemble import EnsembleCounter, Inputs, Progress, TrainingSet
from vision.image_types import Image

ADAPT_STEPS = 3000
"""Fine-tuning steps (batches of 32) per member: about 2–3 minutes on one core."""
ADAPT_LR = 5e-3


class NetCounter(EnsembleCounter[Network]):
    """Turns pit crops into beliefs over seed counts with the small convolutional network."""

    KIND = "cnn"
    ADAPT_STEPS = ADAPT_STEPS

    @staticmethod
    def prepare(crops: Sequence[Image]) -> Inputs:
        return prepare_many(list(crops))

    @classmethod
    def network_from_json(cls, data: dict[str, Any]) -> Network:
        return Network.from_json(data)

    def _fine_tune_one(
        self, start: Network, data: TrainingSet, steps: int, seed: int, progress: Progress | None
    ) -> Network:
        # Rehearsal pits join the pool: each batch draws them as often as any crop.
        network = Network({k: v.copy() for k, v in start.params.items()})
        network.train(
            data.crops + data.rehearsal_crops,
            data.counts + data.rehearsal_counts,
            steps=steps,
            lr=ADAPT_LR,
            seed=seed,
            progress=progress,
        )
        return network
