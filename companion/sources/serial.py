"""``serial:///dev/ttyUSB0``, ``serial://auto``: a sensor board on a serial port.

``serial://auto`` finds the board (:func:`firmware_bridge.discovery.look_for_board`);
``?calibration=FILE`` names the board's scale calibration, else the one
``oware-companion calibrate`` saved by default is read if there is one.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit

from .options import OpenOptions

if TYPE_CHECKING:
    from firmware_bridge.source import SensorSource


def open_serial(url: str, options: OpenOptions) -> SensorSource:
    """The board on the port ``url`` names (not yet opened: the link connects, and
    reconnects, once it is)."""
    from firmware_bridge.discovery import look_for_board
    from firmware_bridge.link import SerialLink
    from firmware_bridge.source import SensorSource, default_calibration_path
    from firmware_bridge.weights import Calibration

    parts = urlsplit(url)
    cal_path = parse_qs(parts.query).get("calibration", [""])[-1]
    path = Path(cal_path) if cal_path else default_calibration_path()
    cal = Calibration.load(path) if cal_path or path.exists() else None
    target = parts.netloc + parts.path
    if target in ("auto", ""):
        return SensorSource(SerialLink(look_for_board, max_backoff_s=1.0), cal)
    return SensorSource(SerialLink(target), cal)


def check_serial(url: str, options: OpenOptions) -> None:
    """Nothing to refuse before starting: a port that is not there yet is waited for."""
