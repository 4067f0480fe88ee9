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

The calibration's own labelled photos (the empty board, the start position and the
spread layouts) are kept too, beside the calibration file
(:func:`calibration_photo_folder`, written by :func:`keep_calibration_photos`), so that
``train-counter`` learns from them together with the games' photos: the calibration is
where the rare counts (5 to 9 seeds in one pit) come from, and the new-board protocol
(``python -m bench.vision --new-board DIR --learn-games K``) measures exactly that mix.

A position whose reading flatly contradicts the confirmed counts (some pit
gave the confirmed count less than 1 % belief) is left out, as the learner
leaves it out (one rule for both, :func:`vision.learning.calibrate.contradicted`): the
frame may be from another moment than the confirmation, and a wrong label
teaches harm. Files are written to a temporary name and
renamed, so a crash never leaves a half-written photo under a count.
"""

from __future__ import annotations

import shutil
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
        tag: str | None = None,
    ) -> int:
        """Save one confirmed position's crops; returns how many photos were written.

        ``beliefs`` are the reading's beliefs for the same crops (None for a
        pit that had none); with them, a position they contradict is skipped.
        ``move`` is the move number that led to the position, for the names;
        ``tag`` names the position instead (``"start"``).
        """
        if len(crops) != len(counts):
            raise ValueError(f"{len(crops)} crops for {len(counts)} counts")
        if any(c < 0 for c in counts):
            raise ValueError("seed counts cannot be negative")
        if beliefs is not None and contradicted(beliefs, counts):
            self.skipped += 1
            return 0
        stamp = time.strftime("%Y%m%d-%H%M%S")
        if tag is None:
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


def calibration_photo_folder(calibration_path: Path) -> Path:
    """Where the labelled pit photos a calibration was taught from are kept: beside its
    file, named after it.

    >>> calibration_photo_folder(Path("/c/camera.json")).as_posix()
    '/c/camera.photos'
    """
    return Path(calibration_path).with_suffix(".photos")


def keep_calibration_photos(
    calibration_path: Path, positions: Sequence[tuple[str, Sequence[Image], Sequence[int]]]
) -> tuple[Path, int]:
    """Keep the photos of each (name, pit crops, counts) position the calibration was
    taught from, in place of those of an earlier calibration (a new calibration may be of
    another board or light); returns the folder and the photos written.

    The new set is written beside the old one and swapped in whole, so the folder never
    holds a mix of the two.
    """
    folder = calibration_photo_folder(calibration_path)
    fresh = folder.with_name(folder.name + ".new")
    shutil.rmtree(fresh, ignore_errors=True)
    fresh.mkdir(parents=True)
    album = PitAlbum(fresh)
    for name, crops, counts in positions:
        album.add(crops, counts, tag=name)
    old = folder.with_name(folder.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if folder.exists():
        folder.rename(old)
    fresh.rename(folder)
    shutil.rmtree(old, ignore_errors=True)
    return folder, album.saved
