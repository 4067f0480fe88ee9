"""``video://match.mp4``: a recorded video, read as a camera (:mod:`.camera`).

``video:///home/me/match.mp4`` takes an absolute path, ``video://match.mp4`` one
from the current folder; ``?realtime=0`` plays it as fast as it decodes.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from core.source import SourceURLError

from .camera import check_camera, open_camera
from .options import OpenOptions

if TYPE_CHECKING:
    from vision.capture.source import CameraSource


def open_video(url: str, options: OpenOptions) -> CameraSource:
    """The video at ``url``, read as a camera with its calibration."""
    return open_camera(url, options)


def check_video(url: str, options: OpenOptions) -> None:
    """Refuse a missing file, then what :func:`.camera.check_camera` refuses."""
    from vision.capture.source import parse_url

    target = parse_url(url)
    if target.kind == "file" and not Path(str(target.target)).is_file():
        raise SourceURLError(
            f"video file not found: {target.target} (video:// takes a path: "
            "video:///home/me/match.mp4 or video://match.mp4 from the current folder)"
        )
    check_camera(url, options)
