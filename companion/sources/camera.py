"""``camera://0``, ``camera://rtsp://host/stream``: a camera
(:class:`vision.capture.source.CameraSource`).

A camera (or a video, :mod:`.video`) reads the calibration it is given
(``serve --calibration FILE``, or ``[camera] calibration`` in the venue
config), else the one ``oware-companion calibrate`` saved by default
(:func:`vision.geometry.calibration.default_path`); with neither, it is refused with a
line that says how to make one.

A camera keeps the pit photos every confirmed position labels under
``<data dir>/pit-photos/<camera>/<count>/`` (``[camera] keep_pit_photos``, on
by default): ``oware-companion train-counter`` on that folder teaches the
counter this board's seeds from the games played on it.

OpenCV is imported only when a camera is opened or checked.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from core.source import SourceURLError

from .options import OpenOptions

if TYPE_CHECKING:
    from vision.capture.source import CameraSource


def open_camera(url: str, options: OpenOptions) -> CameraSource:
    """The camera (or video) at ``url``, with its calibration and pit-photo album."""
    from vision.capture.source import CameraSource
    from vision.geometry.calibration import Calibration
    from vision.learning.pit_album import PitAlbum

    path = camera_calibration_path(url, options.calibration)
    album = PitAlbum(options.pit_photos) if options.pit_photos is not None else None
    return CameraSource(url, Calibration.load(path), album=album, calibration_path=path)


def check_camera(url: str, options: OpenOptions) -> None:
    """Refuse a URL that names no camera, and a camera without a usable calibration."""
    from vision.capture.source import parse_url
    from vision.geometry.calibration import Calibration

    parse_url(url)
    Calibration.load(camera_calibration_path(url, options.calibration))


def camera_calibration_path(url: str, given: Path | None = None) -> Path:
    """The calibration file a ``camera://`` or ``video://`` source reads.

    The one ``given`` (``--calibration`` or the config's), else the one
    ``oware-companion calibrate`` saved by default. Raises
    :class:`~core.source.SourceURLError` saying how to make one when there is none.
    """
    from vision.geometry.calibration import default_path

    if given is not None:
        if not Path(given).is_file():
            raise SourceURLError(f"camera calibration for {url} not found: {given}")
        return Path(given)
    saved = default_path()
    if saved.is_file():
        return saved
    raise SourceURLError(
        f"{url} needs a camera calibration and none is saved at {saved}: run "
        f"`oware-companion calibrate --source {url}` first, or give one with "
        "--calibration FILE (or [camera] calibration in the config file)"
    )


def pit_photo_folder(data_dir: Path, url: str) -> Path:
    """Where the service keeps the labelled pit photos of the camera at ``url``
    (one folder per camera: ``train-counter`` learns one board's seeds and light).

    >>> pit_photo_folder(Path("/data"), "camera://0").as_posix()
    '/data/pit-photos/camera-0'
    >>> pit_photo_folder(Path("/data"), "camera://http://phone:8080/video").name
    'camera-http-phone-8080-video'
    >>> pit_photo_folder(Path("/data"), "video:///m/final.avi?realtime=0").name
    'video-m-final.avi'
    """
    if url.startswith("video://"):
        url = url.split("?", 1)[0]  # ?realtime=0 is how to play it, not which camera
    name = re.sub(r"[^A-Za-z0-9._]+", "-", url).strip("-.") or "camera"
    return Path(data_dir) / "pit-photos" / name


def kept_pit_photo_folders(data_dir: Path) -> list[Path]:
    """The cameras' folders under ``data_dir/pit-photos`` that hold photos, by name."""
    root = Path(data_dir) / "pit-photos"
    if not root.is_dir():
        return []

    def holds_photos(folder: Path) -> bool:
        return any(count.is_dir() and any(count.iterdir()) for count in folder.iterdir())

    return sorted(folder for folder in root.iterdir() if folder.is_dir() and holds_photos(folder))
