"""Hands and motion over the board, per pit.

Works on the rectified view (see :mod:`vision.geometry.calibration`), so "a pit" is a
fixed square cell whatever the camera angle. Two cues:

* **Motion**: the difference between consecutive frames. A pit whose cell
  changed is marked as covered for a few more frames, because the hand that
  moved there is probably still over it (hands pause while sowing).
* **Skin**: a hand that rests still over a pit makes no motion, so pixels of
  skin colour (the classic YCrCb box) that were not there in the last still
  view also cover a pit.
* **Large foreground from the edge**: wood is often skin-coloured too, so
  anything that differs from the last still view *and reaches the edge of
  the playing area* (an arm comes from outside; seeds stay inside pits)
  covers the pits it overlaps.

The board is *stable* once no pit has moved for ``still_frames`` frames in a
row and no pit is covered.

>>> import numpy as np
>>> from vision.geometry.layout import BoardLayout
>>> det = MotionDetector(BoardLayout(), still_frames=2)
>>> view = np.full((128, 384, 3), 100, np.uint8)
>>> [det.update(view).stable for _ in range(3)]
[False, False, True]
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np
import numpy.typing as npt

from vision.geometry.layout import BoardLayout
from vision.image_types import Image


@dataclass(frozen=True)
class MotionState:
    """What the detector concluded about one frame."""

    stable: bool
    covered: frozenset[int]
    """Pits under a hand or moving now (their readings should be null)."""
    moving: float
    """Largest share of changed pixels in any pit cell (0 – 1)."""


@dataclass
class MotionDetector:
    """Frame differencing and skin detection over the pit cells."""

    layout: BoardLayout
    still_frames: int = 4
    """Frames without motion before the board counts as stable."""
    hold_frames: int = 3
    """Frames a pit stays covered after it last moved."""
    pixel_threshold: int = 18
    """Grey-level change that counts as a changed pixel (above sensor noise)."""
    cell_fraction: float = 0.04
    """Share of changed pixels that makes a cell "moving"."""
    skin_fraction: float = 0.15
    """Share of new skin-coloured pixels that makes a cell "covered"."""
    _previous: Image | None = field(default=None, init=False, repr=False)
    _reference_skin: npt.NDArray[np.bool_] | None = field(default=None, init=False, repr=False)
    _reference_gray: Image | None = field(default=None, init=False, repr=False)
    _last_moved: dict[int, int] = field(default_factory=dict, init=False, repr=False)
    _frame: int = field(default=0, init=False, repr=False)
    _still: int = field(default=0, init=False, repr=False)

    def reset(self) -> None:
        """Forget the past (after the camera reconnects or the board is re-found)."""
        self._previous = None
        self._reference_skin = None
        self._reference_gray = None
        self._last_moved.clear()
        self._still = 0

    def update(self, rectified: Image) -> MotionState:
        """Feed the next rectified frame (BGR); return the motion state."""
        self._frame += 1
        small = cv2.resize(
            rectified,
            (rectified.shape[1] // 2, rectified.shape[0] // 2),
            interpolation=cv2.INTER_AREA,
        )
        gray = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (5, 5), 0)
        skin = _skin(small)
        if self._reference_skin is None or self._reference_gray is None:
            # Wood is often skin-coloured: only skin that appears later is a hand.
            self._reference_skin = skin
            self._reference_gray = gray
        from_edge = self._foreground_from_edge(gray, self._reference_gray)
        moving_max = 0.0
        covered: set[int] = set()
        changed = None
        if self._previous is not None and self._previous.shape == gray.shape:
            changed = cv2.absdiff(gray, self._previous) > self.pixel_threshold
        # A board without any motion for twice the settling time has no hand on it
        # (real hands tremble): skin-coloured pixels seen then are seeds or wood.
        long_still = self._still >= 2 * self.still_frames
        for pit in range(self.layout.pits):
            x0, y0, x1, y1 = (v // 2 for v in self.layout.box(pit))
            if changed is not None:
                frac = float(changed[y0:y1, x0:x1].mean())
                moving_max = max(moving_max, frac)
                if frac > self.cell_fraction:
                    self._last_moved[pit] = self._frame
            if self._frame - self._last_moved.get(pit, -(10**9)) <= self.hold_frames:
                covered.add(pit)
            new_skin = skin[y0:y1, x0:x1] & ~self._reference_skin[y0:y1, x0:x1]
            if float(new_skin.mean()) > self.skin_fraction and not long_still:
                covered.add(pit)
            if float(from_edge[y0:y1, x0:x1].mean()) > self.cell_fraction and not long_still:
                covered.add(pit)
        self._previous = gray
        moved_now = changed is None or moving_max > self.cell_fraction
        self._still = 0 if moved_now else self._still + 1
        stable = self._still >= self.still_frames and not covered and changed is not None
        if stable or long_still:
            # The still board is the reference: skin-coloured wood or seeds seen now
            # are part of the board, not a hand.
            self._reference_skin = skin
            self._reference_gray = gray
        return MotionState(stable, frozenset(covered), moving_max)

    def _foreground_from_edge(self, gray: Image, reference: Image) -> npt.NDArray[np.bool_]:
        """Changed pixels (against the last still view) in blobs that reach the border."""
        changed = (cv2.absdiff(gray, reference) > 2 * self.pixel_threshold).astype(np.uint8)
        changed = np.asarray(cv2.morphologyEx(changed, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)))
        n, labels, stats, _c = cv2.connectedComponentsWithStats(changed, connectivity=8)
        h, w = gray.shape
        cell = self.layout.cell // 2
        out = np.zeros((h, w), bool)
        for k in range(1, n):
            x, y, bw, bh, area = (int(v) for v in stats[k])
            touches = x <= 1 or y <= 1 or x + bw >= w - 1 or y + bh >= h - 1
            if touches and area >= 0.25 * cell * cell:
                out |= labels == k
        return out


def _skin(bgr: Image) -> npt.NDArray[np.bool_]:
    """Pixels inside the usual YCrCb skin box (broad: any skin tone under warm light)."""
    ycrcb = cv2.cvtColor(bgr, cv2.COLOR_BGR2YCrCb)
    mask = cv2.inRange(ycrcb, (40, 138, 77), (250, 178, 127))
    return np.asarray(mask > 0)
