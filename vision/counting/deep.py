"""The ``deep`` counter: networks of :mod:`vision.counting.deep_net` behind the counter interface.

Where its weights come from:

* ``vision/models/counter_deep.json`` (:meth:`DeepCounter.model_path`), written by
  ``python -m vision.learning.train --model deep`` from rendered pits only (path traced by
  :mod:`vision.render.path_traced`, painted by :mod:`vision.render.synth`; the commands are
  in ``docs/VISION.md``): data the repository makes, so the weights may be committed;
* :meth:`DeepCounter.adapt`: fine-tuned with PyTorch (:mod:`vision.learning.deep_train`,
  the ``learn`` extra) on labelled crops of the user's own board. The result
  is stored inside the calibration file and runs without PyTorch.

The ensemble, the held-back fifths, the rehearsal of missing counts and
the shaping of the top class are shared with the small network's counter
(:mod:`vision.counting.ensemble`).

>>> import numpy as np
>>> counter = DeepCounter.builtin()
>>> counter.beliefs([np.full((64, 64, 3), 90, np.uint8)]).shape
(1, 49)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from vision.counting.deep_net import DeepNetwork, prepare_deep
from vision.counting.ensemble import EnsembleCounter, Inputs, Progress, TrainingSet
from vision.image_types import Image

ADAPT_STEPS = 1500
"""Fine-tuning batches (of 64) per member: about two minutes on two cores."""
ADAPT_LR = 1.5e-3
"""Peak learning rate of a fine-tuning (half of training from scratch: keep what it knows)."""
PASTED = 1500
"""Piles pasted from the user's own seeds for each member (:mod:`vision.learning.seed_paste`)."""
PASTED_SHARE = 0.42
"""The share of every fine-tuning batch drawn from them, of what the rehearsal of missing
counts leaves: on the development photographs (counts 0 … 9, so 4 of 14 rehearsed) 0.3 of
the whole batch, the share measured (see :mod:`vision.learning.seed_paste`). A user with
fewer counts gets more rehearsal and proportionally fewer pasted piles, and always some
of their own."""


class DeepCounter(EnsembleCounter[DeepNetwork]):
    """Turns pit crops into beliefs over seed counts with the deeper network."""

    KIND = "deep"
    ADAPT_STEPS = ADAPT_STEPS
    PASTED = PASTED

    @staticmethod
    def prepare(crops: Sequence[Image]) -> Inputs:
        return prepare_deep(list(crops))

    @classmethod
    def network_from_json(cls, data: dict[str, Any]) -> DeepNetwork:
        return DeepNetwork.from_json(data)

    def can_adapt(self) -> bool:
        from vision.learning.deep_train import torch_available

        return torch_available()

    def _fine_tune_one(
        self,
        start: DeepNetwork,
        data: TrainingSet,
        steps: int,
        seed: int,
        progress: Progress | None,
    ) -> DeepNetwork:
        from vision.learning.deep_train import export, fit  # PyTorch: only when fine-tuning

        module = fit(
            data.crops,
            data.counts,
            start.classes,
            steps=steps,
            seed=seed,
            start=start,
            peak_lr=ADAPT_LR,
            extras=(
                # rendered pits fill a share of each batch: as many as the counts they stand for
                (data.rehearsal_crops, data.rehearsal_counts, data.rehearsal_share),
                (data.pasted_crops, data.pasted_counts, PASTED_SHARE * (1 - data.rehearsal_share)),
            ),
            progress=progress,
        )
        return export(module, start.width)
