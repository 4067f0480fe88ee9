"""Grabbing one frame from a camera URL (``camera://N``, a stream, ``video://FILE``)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from vision.image_types import Image


def grab_frame(url: str, frames: int = 5, timeout: float = 10.0) -> Image:
    """A frame from a camera URL (the last of a few, once auto-exposure settled)."""
    from vision.capture.source import open_capture, parse_url

    parsed = parse_url(url)
    cap = open_capture(parsed.target)
    if cap is None:
        if parsed.kind == "file":
            raise OSError(f"cannot open {url}: is it a video file OpenCV can read?")
        if parsed.kind == "stream":
            raise OSError(f"cannot open {url}: no video stream answers at that address")
        raise OSError(
            f"cannot open {url}: no camera answers there (is it plugged in, and not in use by"
            " another program? another camera is camera://1, camera://2 ...)"
        )
    try:
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
