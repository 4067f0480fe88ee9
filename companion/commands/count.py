"""``oware-companion count IMAGE [--calibration FILE] [--json]``: the seeds in a photo.

It reads one photo of the board and prints, per pit, the most likely count, the confidence
and the smallest set of counts that holds 95 % of the belief. The calibration is the one
``oware-companion calibrate`` saved (:func:`vision.geometry.calibration.default_path`) unless
``--calibration`` names another; without any, it finds the board in the photo.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from companion.commands.camera_shared import read_photo

# the vision package is imported inside the handler: it is the optional "vision" extra


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``count`` subcommand."""
    p = subparsers.add_parser(
        "count",
        help="count the seeds in each pit of a photo of the board",
        description="Count the seeds in each pit of one photo, with confidence.",
    )
    p.add_argument("image", type=Path, help="photo of the board (PNG, JPEG, ...)")
    p.add_argument(
        "--calibration",
        type=Path,
        default=None,
        help="calibration JSON from `oware-companion calibrate` (default: the one it saved; "
        "without one, find the board in the photo)",
    )
    p.add_argument(
        "--corners",
        default=None,
        help='the board\'s four corners in the photo, "x,y x,y x,y x,y" (NW NE SE SW), '
        "when it cannot find them itself",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=count_command)


NEVER_SEEN_WARNING = (
    "warning: {why}: the counts come from the built-in counter, which has never seen this "
    "board and misreads it often; calibrate once (`oware-companion calibrate --source "
    "camera://0`, or --empty and --start photos) and count again"
)


def count_command(args: argparse.Namespace) -> int:
    """Handler of `count`: exit code 0, 1 (cannot read), 2 (bad calibration/board not found)."""
    from vision.capture.pipeline import counter_for
    from vision.geometry.calibration import (
        Calibration,
        CalibrationError,
        default_path,
        parse_corners,
    )
    from vision.learning.calibrate import locate

    try:
        frame = read_photo(Path(args.image))
    except OSError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    given: Path | None = args.calibration
    corners = getattr(args, "corners", None)
    if given is None and corners is None and default_path().is_file():
        given = default_path()  # the board `calibrate` saved, and the counter taught on it
    try:
        if given is not None:
            calibration = Calibration.load(given)
        else:
            calibration = locate(frame, parse_corners(corners) if corners else None)
        counter = counter_for(calibration)
    except (CalibrationError, OSError, ValueError) as exc:
        message = str(exc)
        if "corners by hand" in message:  # say how, with this command's own option
            message += ': --corners "x,y x,y x,y x,y"'
        print(f"error: {message}", file=sys.stderr)
        return 2
    if calibration.counter is None:
        why = "no calibration" if given is None else f"{given} holds no counter taught on the board"
        print(NEVER_SEEN_WARNING.format(why=why), file=sys.stderr)
    view = calibration.rectify(frame)
    crops = calibration.pit_crops(view)
    beliefs = counter.beliefs(crops, list(range(len(crops))))
    result = count_report(beliefs)
    if args.json:
        report = {
            "image": str(args.image),
            "calibration": None if given is None else str(given),
            "method": calibration.method,
            "pits": result,
        }
        print(json.dumps(report))
        return 0
    from core.notation import move_name

    found = f"calibration {given}" if given is not None else "board found in the photo"
    print(f"{args.image}  ({found}, by: {calibration.method}; counter: {counter.source})")
    for row in result:
        likely = ", ".join(str(c) for c in row["credible_95"])
        print(
            f"  pit {move_name(row['pit']):>1} ({row['pit']:2d}): {row['count']:2d} seeds  "
            f"confidence {row['confidence']:.0%}  95% set {{{likely}}}"
        )
    return 0


def count_report(beliefs: npt.NDArray[np.float64]) -> list[dict[str, Any]]:
    """Per pit: most likely count, its probability, the 95 % set and the belief vector."""
    from vision.counting.beliefs import credible_set

    out = []
    for pit, belief in enumerate(beliefs):
        best = int(np.argmax(belief))
        last = int(np.max(np.nonzero(belief > 1e-4)[0])) + 1
        out.append(
            {
                "pit": pit,
                "count": best,
                "confidence": round(float(belief[best]), 4),
                "credible_95": credible_set(belief, 0.95),
                "belief": [round(float(v), 5) for v in belief[:last]],
            }
        )
    return out
