"""The camera half of ``oware-companion calibrate``: locate the board, teach the counter.

:func:`calibrate_camera` is what ``oware-companion calibrate --source camera://0`` runs: it
finds the board in the camera's view (markers, else the pit grid, else the corners given
with ``--corners``), then, unless told not to, asks for the empty board and the start
position (4 seeds per pit) and adapts the counter to them. Frames can also come from image
files (``--empty IMAGE --start IMAGE``), which is how the tests drive it.

The calibration goes to :func:`vision.calibration.default_path` (the user's config
directory) unless ``--out`` says otherwise; ``count``, ``train-counter`` and ``serve`` read
it from there when not given ``--calibration``, so a person calibrates once and every
command knows the board.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args

from companion.commands.camera_shared import (
    add_fine_tuning_options,
    progress_bar,
    read_photo,
    save_keeping_previous,
)
from companion.commands.grab import grab_frame

# the vision package is imported inside the handler: it is the optional "vision" extra

if TYPE_CHECKING:
    from vision.image_types import Image

CalibrationCounter = Literal["area", "deep", "cnn"]
"""The counters ``calibrate --counter`` can teach on the two views."""


def add_calibrate_arguments(parser: argparse.ArgumentParser) -> None:
    """Optional camera-calibration arguments the `calibrate` command may add."""
    parser.add_argument(
        "--corners", default=None, help='manual corners "x,y x,y x,y x,y" (NW NE SE SW)'
    )
    parser.add_argument("--empty", type=Path, default=None, help="photo of the empty board")
    parser.add_argument(
        "--start", type=Path, default=None, help="photo of the start position (4 per pit)"
    )
    parser.add_argument(
        "--no-teach",
        action="store_true",
        help="only locate the board again (after the camera or board moved): the counter "
        "already in the calibration file is kept",
    )
    parser.add_argument(
        "--counter",
        choices=get_args(CalibrationCounter),
        default="area",
        help="area (default, instant): compare each pit with itself empty; deep or cnn: "
        "fine-tune the deeper networks (needs PyTorch, the 'learn' extra) or the small "
        "numpy ones on the two views, a few minutes per network (on real photographs they "
        "then know only 0 and 4 seeds: give them more with train-counter)",
    )
    add_fine_tuning_options(parser, " for --counter deep or cnn")
    parser.add_argument("--yes", action="store_true", help="do not wait for Enter between steps")


UNTAUGHT_WARNING = (
    "no counter was taught (--no-teach, and no earlier calibration held one): the camera will"
    " count with the built-in counter, which has never seen this board and misreads it often"
    " enough to lose moves without a word; calibrate again without --no-teach (the empty"
    " board, then the start position)"
)
"""Measured on four rendered games (``vision.synth_game``, seeds 0-3): the built-in counter
on corners alone lost moves in every game; the counter taught on the two views followed
every move."""
TWO_VIEWS_WARNING = (
    "networks fine-tuned on the empty board and the start position alone learn only 0 and 4 "
    "seeds (on real photographs they count 24 % of pits right, and are so unsure of the rest "
    "that the referee cannot follow a game with them); count with 'area' until "
    "`oware-companion train-counter` has labelled photos of more counts"
)
"""Measured: ``python -m bench.vision --adapt DIR --adapt-counts 0,4 --games 200`` on the
development photographs: 24.5 % exact, and the referee named none of the 2,758 moves of 200
games."""


def calibrate_camera(args: argparse.Namespace) -> int:
    """`calibrate --source camera://N`: locate the board, teach the counter, save JSON."""
    from core.source import SourceURLError
    from vision.calibrate import locate, teach
    from vision.calibration import CalibrationError, default_path, parse_corners

    out = Path(args.out) if getattr(args, "out", None) else default_path()
    corners_text = getattr(args, "corners", None)
    empty_path = getattr(args, "empty", None)
    start_path = getattr(args, "start", None)
    no_teach = bool(getattr(args, "no_teach", False))
    interactive = not getattr(args, "yes", False) and sys.stdin.isatty()
    kind: CalibrationCounter = getattr(args, "counter", "area")
    if kind == "deep" and not no_teach:
        from vision.deep_train import INSTALL_HINT, torch_available

        if not torch_available():  # say so before the user clears the board
            print(f"error: {INSTALL_HINT}", file=sys.stderr)
            return 2
    try:

        def frame_for(step: str, path: Path | None) -> Image:
            if path is not None:
                return read_photo(path)
            if interactive:
                input(f"{step}, then press Enter ...")
            return grab_frame(args.source)

        corners = parse_corners(corners_text) if corners_text else None
        empty = frame_for("Clear the board (all pits empty)", empty_path) if not no_teach else None
        first = empty if empty is not None else frame_for("Show the board to the camera", None)
        calibration = locate(first, corners)
        print(f"board found ({calibration.method}); corners NW NE SE SW: {calibration.corners}")
        if not no_teach and empty is not None:
            start = frame_for("Set up the start position (4 seeds in every pit)", start_path)
            pits = calibration.layout.pits
            calibration = teach(
                calibration,
                [(empty, [0] * pits), (start, [4] * pits)],
                counter=kind,
                steps=getattr(args, "steps", None),
                members=getattr(args, "members", None),
                views=getattr(args, "views", None),
                progress=None if kind == "area" else progress_bar("fine-tuning the counter"),
            )
            print(f"{kind} counter adapted to this board (empty board and start position)")
            if kind != "area":
                print(f"warning: {TWO_VIEWS_WARNING}", file=sys.stderr)
        previous = _previous_counter(out)
        if no_teach and previous is not None:
            calibration = calibration.with_counter(previous)
            print(f"kept the {previous.get('kind', 'adapted')} counter already in {out}")
        elif no_teach:
            print(f"warning: {UNTAUGHT_WARNING}", file=sys.stderr)
        save_keeping_previous(calibration, out)
    except (CalibrationError, SourceURLError, OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {out}")
    return 0


def _previous_counter(path: Path) -> dict[str, Any] | None:
    """The adapted counter stored in the calibration at ``path``, if there is a usable one."""
    from vision.calibration import Calibration, CalibrationError

    if not path.is_file():
        return None
    try:
        return Calibration.load(path).counter
    except (CalibrationError, OSError, ValueError):
        return None  # unreadable: it is moved aside, not trusted
