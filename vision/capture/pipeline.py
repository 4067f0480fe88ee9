"""From camera frames to Observations: rectify, watch for hands, count.

:class:`BoardReader` is the whole per-frame pipeline, independent of where
frames come from (the camera source, a video file in the benchmark, a test):

1. warp the frame to the top-down view of the playing area;
2. update the motion/hand detector; pits under a hand read ``None``;
3. count seeds in the other pits (only when the view has changed since the
   last count – counting is the expensive part and a still board needs it
   once); the count made when the board settles, the one the referee judges
   the move by, reads each pit in :data:`SETTLE_VIEWS` turned and mirrored views
   where the counter can (a network counter whose calibration chose no views; an
   ensemble of networks in fewer), the counts while hands move in one;
4. every few seconds while the board is still, look for the board again
   (markers or pit grid) and follow it if it was nudged.

Beliefs are trimmed to the counts that carry belief (the tail beyond is
below 1e-6) to keep session logs small.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from core.observation import Observation, PitReading
from core.referee import presets
from vision.capture.motion import MotionDetector, MotionState
from vision.counting import counter_from_json
from vision.counting.beliefs import PitCounter
from vision.counting.mlp import Counter
from vision.geometry.calibration import Calibration
from vision.geometry.locate import corner_error, find_board
from vision.image_types import Image

#: Referee settings that suit a camera (pass as ``Referee(start, **CAMERA_REFEREE)``):
#: the referee's own preset for cameras, :data:`core.referee.presets.CAMERA`.
CAMERA_REFEREE: dict[str, Any] = dict(presets.CAMERA)

SETTLE_VIEWS = 8
"""Views of each pit averaged in the count made as the board settles (once a move: the
still board costs that many counts of its pits once, not every frame; docs/VISION.md,
"Views of each pit"). A counter of several networks reads fewer views, within the same
eight network passes per pit (:func:`settle_counter`)."""

TAIL_CUT = 1e-6
"""Belief below this at the high end of a vector is dropped (then renormalised)."""


def belief_to_reading(belief: npt.NDArray[np.float64]) -> PitReading:
    """A probability vector trimmed of its negligible high tail, as an Observation reading.

    >>> belief_to_reading(np.array([0.2, 0.8, 0.0, 0.0]))
    (0.2, 0.8)
    """
    cum_tail = np.cumsum(belief[::-1])[::-1]
    keep = int(np.max(np.nonzero(cum_tail > TAIL_CUT)[0])) + 1 if np.any(cum_tail > TAIL_CUT) else 1
    vec = belief[:keep] / belief[:keep].sum()
    return tuple(round(float(v), 6) for v in vec)


@dataclass
class BoardReader:
    """Turns frames of one calibrated camera into observations."""

    calibration: Calibration
    counter: PitCounter
    source: str = "camera"
    relocate_every: float = 5.0
    """Seconds between two searches for a nudged board (0 = never)."""
    change_fraction: float = 0.01
    """Share of a cell's pixels changed by more than 12 grey levels that triggers a recount."""
    settle_views: int = SETTLE_VIEWS
    """Views of each pit in the count made as the board settles (1: as every other count)."""
    motion: MotionDetector = field(init=False)
    _beliefs: list[npt.NDArray[np.float64] | None] = field(init=False)
    _counted_view: Image | None = field(default=None, init=False)
    _last_relocate: float = field(default=-1e9, init=False)
    last_state: MotionState | None = field(default=None, init=False)
    last_stable_ok: bool = field(default=False, init=False)
    """Whether the previous frame was stable (to notice the moment the board settles)."""
    last_stable_crops: list[Image] | None = field(default=None, init=False)
    """The pit crops of the last stable frame (labelled for free once confirmed)."""
    last_stable_beliefs: list[npt.NDArray[np.float64] | None] | None = field(
        default=None, init=False
    )
    """What the counter believed of those crops (to leave out positions it contradicts)."""

    def __post_init__(self) -> None:
        self.motion = MotionDetector(self.calibration.layout)
        self._beliefs = [None] * self.calibration.layout.pits

    def process(self, frame: Image, t: float) -> Observation:
        """One frame in, one observation out."""
        self._maybe_relocate(frame, t)
        view = self.calibration.rectify(frame)
        state = self.motion.update(view)
        self.last_state = state
        gray = cv2.cvtColor(view, cv2.COLOR_BGR2GRAY)
        crops = self.calibration.pit_crops(view)
        # Recount everything when the board has just settled (a single seed may
        # change a cell too little to notice), else only cells that changed.
        settled_now = state.stable and not (self.last_stable_ok)
        self.last_stable_ok = state.stable
        todo = []
        for pit in range(self.calibration.layout.pits):
            if pit in state.covered:
                continue
            if settled_now or self._beliefs[pit] is None or self._cell_changed(gray, pit):
                todo.append(pit)
        if todo:
            counter = self.settle_counter() if settled_now else self.counter
            beliefs = counter.beliefs([crops[p] for p in todo], todo)
            for pit, belief in zip(todo, beliefs, strict=True):
                self._beliefs[pit] = belief
        if todo or self._counted_view is None:
            # Only remember the view for cells just counted; keep the others' old pixels.
            if self._counted_view is None:
                self._counted_view = gray.copy()
            for pit in todo:
                x0, y0, x1, y1 = self.calibration.layout.box(pit)
                self._counted_view[y0:y1, x0:x1] = gray[y0:y1, x0:x1]
        if state.stable:
            self.last_stable_crops = [c.copy() for c in crops]
            self.last_stable_beliefs = list(self._beliefs)  # replaced, never changed in place
        readings: list[PitReading] = []
        for pit in range(self.calibration.layout.pits):
            b = self._beliefs[pit]
            readings.append(None if pit in state.covered or b is None else belief_to_reading(b))
        return Observation(
            t=float(t), source=self.source, stable=state.stable, pits=tuple(readings)
        )

    def settle_counter(self) -> PitCounter:
        """The counter of the count made as the board settles (:func:`settle_counter`).

        Asked anew each time: the learner replaces :attr:`counter` between games.
        """
        return settle_counter(self.counter, self.settle_views)

    def _cell_changed(self, gray: Image, pit: int) -> bool:
        if self._counted_view is None:
            return True
        x0, y0, x1, y1 = self.calibration.layout.box(pit)
        diff = cv2.absdiff(gray[y0:y1, x0:x1], self._counted_view[y0:y1, x0:x1])
        return float((diff > 12).mean()) > self.change_fraction

    def _maybe_relocate(self, frame: Image, t: float) -> None:
        """Follow a nudged board (only for automatic calibrations, only when still)."""
        if self.relocate_every <= 0 or self.calibration.method == "manual":
            return
        if self.last_state is None or not self.last_state.stable:
            return
        if t - self._last_relocate < self.relocate_every:
            return
        self._last_relocate = t
        found = find_board(frame, self.calibration.layout)
        if found is None or found.method != self.calibration.method:
            return
        quad = np.array(self.calibration.corners, np.float32)
        cell = float(np.linalg.norm(quad[1] - quad[0])) / self.calibration.layout.cols
        # Only a real nudge (a tenth of a pit) moves the calibration: re-detection
        # jitters by a pixel or two, and every move shifts the empty-pit references.
        if corner_error(found, quad) > 0.1 * cell:
            self.calibration = Calibration(
                corners=found.corners,
                image_size=found.image_size,
                layout=self.calibration.layout,
                method=found.method,
                counter=self.calibration.counter,
            )
            self.motion.reset()
            self._counted_view = None
            self._beliefs = [None] * self.calibration.layout.pits


def settle_counter(counter: PitCounter, views: int = SETTLE_VIEWS) -> PitCounter:
    """``counter`` reading each pit in ``views`` turned and mirrored views where it can (a
    network counter), else ``counter`` itself; a calibration that chose its views
    (``calibrate --views``) keeps them.

    ``views`` is a budget of network passes per pit: an ensemble of several networks
    (``train-counter`` fine-tunes five unless told otherwise) reads as many fewer views,
    so that a settled board costs about as much whichever counter the calibration holds
    (averaged networks and averaged views both steady the reading).

    >>> from vision.counting.deep import DeepCounter
    >>> settle_counter(DeepCounter.builtin()).view_count
    8
    >>> settle_counter(DeepCounter.builtin().with_views(2)).view_count
    2
    >>> one = DeepCounter.builtin().networks[0]
    >>> [settle_counter(DeepCounter([one] * n)).view_count for n in (2, 3, 5)]
    [4, 2, 1]
    """
    from vision.counting.ensemble import VIEWS

    with_views = getattr(counter, "with_views", None)
    if views <= 1 or with_views is None or getattr(counter, "views", None) is not None:
        return counter
    networks = max(1, len(getattr(counter, "networks", ())))
    affordable = max((v for v in VIEWS if v * networks <= views), default=1)
    if affordable <= 1:
        return counter
    viewed: PitCounter = with_views(affordable)
    return viewed


def counter_for(calibration: Calibration) -> PitCounter:
    """The adapted counter stored in a calibration, else the built-in one."""
    if calibration.counter is not None:
        return counter_from_json(calibration.counter)
    return Counter.builtin()
