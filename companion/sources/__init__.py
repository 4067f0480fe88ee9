"""Source URLs → sources: one table of schemes, one small module per scheme.

As pyserial's ``serial_for_url`` does for ports, the URL's scheme picks the
row of :data:`SCHEMES`, and that row's module opens the source:

==========================  ==============================================
``sim://?...``              virtual sensor board (:mod:`.sim`)
``serial:///dev/ttyUSB0``   sensor board on a port; ``serial://auto`` finds it (:mod:`.serial`)
``camera://0``              a camera (:mod:`.camera`; needs a calibration)
``video://match.mp4``       a recorded video (:mod:`.video`; needs a calibration)
``replay://session.jsonl``  a recorded session log (:mod:`.replay`), ``?speed=0`` as
                            fast as it reads, ``?speed=N`` N times its original pace
==========================  ==============================================

Every source the table opens is a :class:`core.source.Source`; a URL it
cannot use raises :class:`core.source.SourceURLError`, whose message says
why (an unknown scheme: which ones there are). A scheme module imports the
package that reads its board (``firmware_bridge``, ``vision``) only when it
opens or checks one, so that a replay never loads OpenCV.

>>> list(SCHEMES)
['sim', 'serial', 'camera', 'video', 'replay']
>>> validate_url("ftp://x")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
core.source.SourceURLError: unknown source 'ftp://x'; use one of sim://, serial://, ..., replay://
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from core.rules import RuleSet
from core.source import Source, SourceURLError

from .camera import (
    camera_calibration_path,
    check_camera,
    kept_pit_photo_folders,
    open_camera,
    pit_photo_folder,
)
from .options import OpenOptions, Scheme
from .replay import ReplaySource, check_replay, open_replay
from .serial import check_serial, open_serial
from .sim import check_sim, open_sim, sim_rules
from .video import check_video, open_video

SCHEMES: dict[str, Scheme] = {
    "sim": Scheme(open_sim, check_sim, "sensor", "sim://?seed=3", rules=sim_rules),
    "serial": Scheme(open_serial, check_serial, "sensor", "serial://auto"),
    "camera": Scheme(open_camera, check_camera, "camera", "camera://0"),
    "video": Scheme(open_video, check_video, "camera", "video://match.mp4"),
    "replay": Scheme(open_replay, check_replay, "replay", "replay://session.jsonl"),
}
"""Every scheme a source URL may have, by name."""

__all__ = [
    "SCHEMES",
    "OpenOptions",
    "ReplaySource",
    "Scheme",
    "Source",
    "SourceURLError",
    "camera_calibration_path",
    "check_source",
    "is_camera_url",
    "kept_pit_photo_folders",
    "open_source",
    "pit_photo_folder",
    "referee_settings_for",
    "rules_for",
    "scheme_for",
    "validate_url",
]


def validate_url(url: str) -> str:
    """The URL's scheme, or :class:`~core.source.SourceURLError` saying what is accepted."""
    scheme = urlsplit(url).scheme
    if scheme not in SCHEMES:
        raise SourceURLError(
            f"unknown source {url!r}; use one of " + ", ".join(f"{s}://" for s in SCHEMES)
        )
    return scheme


def scheme_for(url: str) -> Scheme:
    """The row of :data:`SCHEMES` that opens ``url`` (an unknown scheme is refused)."""
    return SCHEMES[validate_url(url)]


def is_camera_url(url: str) -> bool:
    """Whether ``url`` is a camera or a video (read by ``vision``, with a calibration).

    >>> [is_camera_url(u) for u in ("camera://0", "video:///m.avi", "sim://", "serial://auto")]
    [True, True, False, False]
    """
    row = SCHEMES.get(urlsplit(url).scheme)
    return row is not None and row.kind == "camera"


def open_source(
    url: str,
    camera_calibration: Path | None = None,
    pit_photos: Path | None = None,
    rules: str | RuleSet = "abapa",
) -> Source:
    """The (not yet opened) source for ``url``.

    ``camera_calibration``: the file a camera or video reads (else the saved one).
    ``pit_photos``: where a camera keeps the pit photos the game labels
    (:func:`pit_photo_folder`); None keeps none. ``rules``: what a ``sim://``
    board plays when its URL names no rule set (the service's).
    """
    return scheme_for(url).open(url, OpenOptions(camera_calibration, pit_photos, rules))


def check_source(url: str, camera_calibration: Path | None = None) -> None:
    """Refuse, before anything starts, a URL :func:`open_source` could not open:
    an unknown scheme, bad ``sim://`` options, a missing replay file, a camera without a
    usable calibration."""
    scheme_for(url).check(url, OpenOptions(calibration=camera_calibration))


def rules_for(url: str, default: RuleSet) -> RuleSet:
    """The rule set of the board at ``url``: a ``sim://`` board's own (``rules=``,
    ``players=``), else ``default`` (the service's ``--rules``)."""
    rules = scheme_for(url).rules
    return default if rules is None else rules(url, default)


def referee_settings_for(url: str) -> dict[str, Any]:
    """Referee settings that suit the kind of source (:mod:`core.referee.presets`)."""
    from core.referee import presets

    kind = scheme_for(url).kind
    if kind == "camera":
        return dict(presets.CAMERA)
    if kind == "replay":
        return {}
    return dict(presets.SENSOR)
