"""Grabbing one frame from a camera URL (``camera://N``, a stream, ``video://FILE``)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from vision.image_types import Image


def grab_frame(url: str, frames: int = 5, timeout: float = 10.0) -> Image:
    """A frame from a camera URL (the last of a few, once auto-exposure settled)."""
    import cv2

    from vision.capture.source import parse_url

    target = parse_url(url).target
    cap = cv2.VideoCapture(target) if isinstance(target, str) else cv2.VideoCapture(int(target))
    try:
        if not cap.isOpened():
            raise OSError(f"cannot open {url}")
        frame = None
        end = time.monotonic() + timeout
        got = 0
        while got < frames and time.monotonic() < end:
            ok, img = cap.read()
            if ok and img is not None:
                frame = img
                got += 1
        if frame is None:
            raise OSError(f"no frame from {url}")
        return np.asarray(frame, np.uint8)
    finally:
        cap.release()
