"""Hands and motion: covered pits, and "stable" only when the board is still."""

from __future__ import annotations

import cv2
import numpy as np

from vision.capture.motion import MotionDetector
from vision.geometry.layout import BoardLayout

LAY = BoardLayout()


def _view(seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    base = np.zeros((128, 384, 3), np.uint8)
    base[:] = (40, 90, 160)  # orange-brown wood (also inside the skin box: a hard case)
    noise = rng.integers(0, 6, base.shape, dtype=np.uint8)
    return np.asarray(cv2.add(base, noise))


def _with_hand(view: np.ndarray, pit: int) -> np.ndarray:
    out = view.copy()
    x, y = LAY.centre(pit)
    cv2.ellipse(out, (int(x), int(y)), (40, 26), 0, 0, 360, (120, 150, 210), -1)
    cv2.rectangle(out, (int(x) - 14, int(y)), (int(x) + 14, 128), (120, 150, 210), -1)
    return out


def test_still_board_becomes_stable() -> None:
    det = MotionDetector(LAY, still_frames=3)
    states = [det.update(_view(k % 2)) for k in range(6)]
    assert not states[0].stable
    assert states[-1].stable and states[-1].covered == frozenset()


def test_a_moving_hand_covers_its_pits_and_unsettles_the_board() -> None:
    det = MotionDetector(LAY, still_frames=3)
    for _ in range(5):
        det.update(_view())
    state = det.update(_with_hand(_view(), 3))
    assert not state.stable
    assert 3 in state.covered
    assert 9 not in state.covered  # far side of the board untouched
    # Hand gone: covered for a few frames, then the board settles again.
    after = [det.update(_view()) for _ in range(8)]
    assert 3 in after[0].covered
    assert after[-1].stable and not after[-1].covered


def test_a_hand_resting_still_is_still_a_hand() -> None:
    det = MotionDetector(LAY, still_frames=3, hold_frames=1)
    for _ in range(5):
        det.update(_view())
    resting = _with_hand(_view(), 8)
    states = [det.update(resting) for _ in range(4)]
    assert all(8 in s.covered for s in states)
    assert not any(s.stable for s in states)
