"""Source URLs → source objects, and ``replay://``, the recorded-session source.

Every source follows one interface (see ``firmware_bridge.source``):
``open()``, ``close()`` (thread-safe), blocking iteration yielding
:class:`~core.observation.Observation` objects or status dicts, ``health()``.

==========================  ==============================================
``sim://?...``              virtual sensor board (``firmware_bridge``)
``serial:///dev/ttyUSB0``   sensor board on a port; ``serial://auto`` finds it
``camera://0``              a camera (``vision``; needs a calibration, see below)
``video://match.mp4``       a recorded video (``vision``)
``replay://session.jsonl``  a recorded session log, ``?speed=0`` as fast as it reads,
                            ``?speed=N`` N times its original pace (default 1)
==========================  ==============================================

A camera or video source reads the calibration it is given (``serve
--calibration FILE``, or ``[camera] calibration`` in the venue config), else
the one ``oware-companion calibrate`` saved by default
(:func:`vision.calibration.default_path`); with neither, the service refuses
to start and says how to make one.

A camera keeps the pit photos every confirmed position labels under
``<data dir>/pit-photos/<camera>/<count>/`` (``[camera] keep_pit_photos``,
on by default): ``oware-companion train-counter`` on that folder teaches the
counter this board's seeds from the games played on it.

A replayed session also gives back the commands people gave during it
(``{"command": ...}`` dicts), and its header (:attr:`ReplaySource.header`)
says which start position and referee settings to use, so that the live
service gives exactly the events the recorded run gave.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import parse_qs, unquote, urlsplit

from core.observation import Observation, ObservationError
from core.referee.session import FORMAT, line_kind
from core.rules import RuleSet

from .recorder import read_log

SCHEMES = ("sim", "serial", "camera", "video", "replay")
CAMERA_SCHEMES = ("camera", "video")
"""The schemes the vision package reads (the rest are sensor boards and replays)."""

SourceItem = Observation | dict[str, Any]


class Source(Protocol):
    """What the service needs from a source."""

    def open(self) -> None: ...
    def close(self) -> None: ...
    def __iter__(self) -> Iterator[SourceItem]: ...
    def health(self) -> dict[str, Any]: ...


class SourceURLError(ValueError):
    """A source URL the service cannot use; the message says why."""


class ReplaySource:
    """Plays a recorded session log: observations with their timing, and commands."""

    def __init__(self, path: Path, speed: float = 1.0) -> None:
        if speed < 0:
            raise SourceURLError("replay speed must be 0 (as fast as possible) or more")
        lines, _ = read_log(path)
        if not lines or lines[0].get("format") != FORMAT:
            raise SourceURLError(f"{path} is not a session log (no {FORMAT!r} header)")
        self.path = path
        self.speed = speed
        self.header = lines[0]
        self._lines = [ln for ln in lines[1:] if line_kind(ln) != "event"]
        self._closed = threading.Event()
        self.played = 0

    def open(self) -> None:
        self._closed.clear()

    def close(self) -> None:
        self._closed.set()

    def __iter__(self) -> Iterator[SourceItem]:
        yield {"type": "link", "state": "connected", "detail": f"replaying {self.path.name}"}
        previous: float | None = None
        for line in self._lines:
            if self._closed.is_set():
                return
            t = float(line.get("t", previous or 0.0))
            # wait() instead of sleep(): close() ends a long pause at once
            pause = (t - previous) / self.speed if self.speed > 0 and previous is not None else 0
            if pause > 0 and self._closed.wait(pause):
                return
            previous = t
            self.played += 1
            if line_kind(line) == "command":
                yield dict(line)
                continue
            try:
                yield Observation.from_json(line)
            except ObservationError:
                yield dict(line)  # the referee reports it as bad_observation, as it did live
        yield {"type": "link", "state": "disconnected", "detail": "end of the recorded session"}

    def health(self) -> dict[str, Any]:
        return {
            "source": "replay",
            "file": self.path.name,
            "lines": len(self._lines),
            "played": self.played,
            "finished": self.played >= len(self._lines),
        }


def validate_url(url: str) -> str:
    """The URL's scheme, or :class:`SourceURLError` saying what is accepted."""
    scheme = urlsplit(url).scheme
    if scheme not in SCHEMES:
        raise SourceURLError(
            f"unknown source {url!r}; use one of " + ", ".join(f"{s}://" for s in SCHEMES)
        )
    return scheme


def is_camera_url(url: str) -> bool:
    """Whether ``url`` is a camera or a video (read by ``vision``, with a calibration).

    >>> [is_camera_url(u) for u in ("camera://0", "video:///m.avi", "sim://", "serial://auto")]
    [True, True, False, False]
    """
    return urlsplit(url).scheme in CAMERA_SCHEMES


def open_source(
    url: str,
    camera_calibration: Path | None = None,
    pit_photos: Path | None = None,
    rules: str | RuleSet = "abapa",
) -> Any:
    """The (not yet opened) source for ``url``.

    ``pit_photos``: where a camera keeps the pit photos the game labels
    (:func:`pit_photo_folder`); None keeps none. ``rules``: what a ``sim://``
    board plays when its URL names no rule set (the service's).
    """
    scheme = validate_url(url)
    if scheme in ("sim", "serial"):
        from firmware_bridge.source import open_source as open_sensor

        return open_sensor(url, rules)
    if scheme == "replay":
        parts = urlsplit(url)
        path = Path(unquote(parts.netloc + parts.path))
        if not path.is_file():
            raise SourceURLError(f"replay file not found: {path}")
        query = parse_qs(parts.query)
        try:
            speed = float(query.get("speed", ["1"])[-1])
        except ValueError:
            raise SourceURLError("replay speed must be a number") from None
        return ReplaySource(path, speed)
    # camera:// and video:// need OpenCV: import only when asked for
    from vision.calibration import Calibration
    from vision.pit_album import PitAlbum
    from vision.source import CameraSource

    path = camera_calibration_path(url, camera_calibration)
    album = PitAlbum(pit_photos) if pit_photos is not None else None
    return CameraSource(url, Calibration.load(path), album=album, calibration_path=path)


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


def camera_calibration_path(url: str, given: Path | None = None) -> Path:
    """The calibration file a ``camera://`` or ``video://`` source reads.

    The one ``given`` (``--calibration`` or the config's), else the one
    ``oware-companion calibrate`` saved by default. Raises
    :class:`SourceURLError` saying how to make one when there is none.
    """
    from vision.calibration import default_path

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


def rules_for(url: str, default: RuleSet) -> RuleSet:
    """The rule set of the board at ``url``: a ``sim://`` board's own (``rules=``,
    ``players=``), else ``default`` (the service's ``--rules``)."""
    if validate_url(url) == "sim":
        from firmware_bridge.source import sim_rules

        return sim_rules(urlsplit(url).query, default)
    return default


def check_source(url: str, camera_calibration: Path | None = None) -> None:
    """Refuse, before anything starts, a URL :func:`open_source` could not open:
    an unknown scheme, bad ``sim://`` options, a missing replay file, a camera without a
    usable calibration."""
    scheme = validate_url(url)
    if scheme == "sim":
        from firmware_bridge.source import device_options_from_query

        device_options_from_query(urlsplit(url).query)
    elif scheme in CAMERA_SCHEMES:
        from vision.calibration import Calibration
        from vision.source import parse_url

        target = parse_url(url)
        if target.kind == "file" and not Path(str(target.target)).is_file():
            raise SourceURLError(
                f"video file not found: {target.target} (video:// takes a path: "
                "video:///home/me/match.mp4 or video://match.mp4 from the current folder)"
            )
        Calibration.load(camera_calibration_path(url, camera_calibration))
    elif url.startswith("replay://"):
        open_source(url)


def referee_settings_for(url: str) -> dict[str, Any]:
    """Referee settings that suit the kind of source (:mod:`core.referee.presets`)."""
    from core.referee import presets

    if validate_url(url) in CAMERA_SCHEMES:
        return dict(presets.CAMERA)
    if url.startswith("replay://"):
        return {}
    return dict(presets.SENSOR)
