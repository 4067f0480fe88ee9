"""`oware-companion calibrate --source URL`: calibrate a sensor board or a camera.

The source URL decides which: ``serial://…`` and ``sim://`` walk a person through
tare and seed-weight calibration of a sensor board (:mod:`companion.commands.bridge`);
``camera://…`` and ``video://…`` locate the board and learn its pits
(:mod:`companion.commands.camera_calibration`).
"""

from __future__ import annotations

import argparse

from companion.commands import bridge, camera_calibration
from companion.commands.numbers import seconds
from companion.sources import is_camera_url

SENSOR_SCHEMES = ("serial://", "sim://")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "calibrate",
        help="calibrate a sensor board (serial://, sim://) or a camera (camera://, video://)",
    )
    p.add_argument(
        "--source",
        required=True,
        help="serial://auto, serial:///dev/ttyUSB0, sim://, camera://0, video://FILE",
    )
    p.add_argument(
        "--out",
        default=None,
        help="where to write the calibration JSON (default: the user's config directory, "
        "where serve and serial:// sources look for it)",
    )
    p.add_argument(
        "--connect-timeout",
        type=seconds,
        default=15.0,
        help="seconds to wait for a sensor board (default 15)",
    )
    camera_calibration.add_calibrate_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    url: str = args.source
    if url.startswith(SENSOR_SCHEMES):
        return bridge.calibrate_serial(args)
    if is_camera_url(url):
        return camera_calibration.calibrate_camera(args)
    raise ValueError(f"cannot calibrate {url!r}: use serial://…, sim://, camera://… or video://…")
