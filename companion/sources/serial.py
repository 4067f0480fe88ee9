"""``serial:///dev/ttyUSB0``, ``serial://auto``: a sensor board on a serial port.

``serial://auto`` finds the board (:class:`firmware_bridge.discovery.BoardFinder`: other
devices that do not answer are left alone for a while, not opened at every look);
``?calibration=FILE`` names the board's scale calibration, else the one
``oware-companion calibrate`` saved by default is read if there is one.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit

from .options import OpenOptions

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from firmware_bridge.source import SensorSource


def open_serial(url: str, options: OpenOptions) -> SensorSource:
    """The board on the port ``url`` names (not yet opened: the link connects, and
    reconnects, once it is)."""
    from firmware_bridge.discovery import BoardFinder
    from firmware_bridge.link import SerialLink
    from firmware_bridge.source import SensorSource
    from firmware_bridge.weights import Calibration

    parts = urlsplit(url)
    path, named = _calibration_path(url)
    cal = Calibration.load(path) if named or path.exists() else None
    target = parts.netloc + parts.path
    if target in ("auto", ""):
        return SensorSource(SerialLink(BoardFinder(), max_backoff_s=1.0), cal)
    return SensorSource(SerialLink(target), cal)


def _calibration_path(url: str) -> tuple[Path, bool]:
    """The scale calibration ``url`` reads, and whether the URL names it."""
    from firmware_bridge.source import default_calibration_path

    named = parse_qs(urlsplit(url).query).get("calibration", [""])[-1]
    return (Path(named), True) if named else (default_calibration_path(), False)


def check_serial(url: str, options: OpenOptions) -> None:
    """Nothing to refuse before starting: a port that is not there yet is waited for.

    A board with no scale calibration saved is said once: its counts would rest on
    seeds of the default weight, and a person at the board would only see wrong counts.
    """
    from firmware_bridge.weights import Calibration

    path, named = _calibration_path(url)
    if not named and not path.exists():
        log.warning(
            "%s: no scale calibration (none at %s): each seed is taken to weigh %.1f g;"
            " run `oware-companion calibrate --source %s` once for your board and seeds",
            url,
            path,
            Calibration().seed_mean_g,
            url,
        )
