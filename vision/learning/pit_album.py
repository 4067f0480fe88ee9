"""The game's labelled pit photos, kept on disk for ``train-counter``.

Every position the referee confirms labels the twelve pit crops of the
stable frame it was read from, for free. The live counter learns from them
at once (:class:`vision.learning.calibrate.PositionLearner`), but only in memory and
only the newest few per count. This album keeps them all, in the layout
``train-counter`` and ``python -m bench.vision`` read (``<count>/<image>.png``)::

    <folder>/4/20261122-162730-m012-p03.png    # move 12's position, pit 3 (D)

The learning curve (``python -m bench.learning_curve``) says the counting
goals need several hundred labelled photographs of a board; a game of 50
moves gives 600 (figures: ``docs/VISION.md``, "Pit album"). After a few
games, ``oware-companion train-counter <folder>`` fine-tunes the counter on
all of them.

A position whose reading flatly contradicts the confirmed counts (some pit
gave the confirmed count less than 1 % belief) is left out, as the learner
leaves it out (one rule for both, :func:`vision.learning.calibrate.contradicted`): the
frame may be from another moment than the confirmation, and a wrong label
teaches harm. Files are written to a temporary name and
renamed, so a crash never leaves a half-written photo under a count.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from vision.image_types import Image
from vision.learning.calibrate import contradicted


@dataclass
class PitAlbum:
    """Labelled pit photos of one camera, saved as ``<folder>/<count>/<name>.png``."""

    folder: Path
    saved: int = field(default=0, init=False)
    """Photos written since this album was opened."""
    skipped: int = field(default=0, init=False)
    """Positions left out because the reading contradicted them."""

    def add(
        self,
        crops: Sequence[Image],
        counts: Sequence[int],
        beliefs: Sequence[npt.NDArray[np.float64] | None] | None = None,
        move: int | None = None,
    ) -> int:
        """Save one confirmed position's crops; returns how many photos were written.

        ``beliefs`` are the reading's beliefs for the same crops (None for a
        pit that had none); with them, a position they contradict is skipped.
        ``move`` is the move number that led to the position, for the names.
        """
        if len(crops) != len(counts):
            raise ValueError(f"{len(crops)} crops for {len(counts)} counts")
        if any(c < 0 for c in counts):
            raise ValueError("seed counts cannot be negative")
        if beliefs is not None and contradicted(beliefs, counts):
            self.skipped += 1
            return 0
        stamp = time.strftime("%Y%m%d-%H%M%S")
        tag = f"m{move:03d}" if move is not None else f"t{time.monotonic_ns() % 10**9:09d}"
        written = 0
        for pit, (crop, count) in enumerate(zip(crops, counts, strict=True)):
            target = self.folder / str(int(count)) / f"{stamp}-{tag}-p{pit:02d}.png"
            target.parent.mkdir(parents=True, exist_ok=True)
            partial = target.with_name(target.name + ".part")
            ok, data = cv2.imencode(".png", np.asarray(crop, np.uint8))
            if not ok:
                continue
            partial.write_bytes(data.tobytes())
            partial.replace(target)
            written += 1
        self.saved += written
        return written
