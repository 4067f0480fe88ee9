"""The camera half of ``oware-companion calibrate``: locate the board, teach the counter.

:func:`calibrate_camera` is what ``oware-companion calibrate --source camera://0`` runs: it
finds the board in the camera's view (markers, else the pit grid, else the corners given
with ``--corners``), then, unless told not to, asks for the empty board, the start
position (4 seeds per pit) and ``--layouts`` spread layouts (0 to 9 seeds in ten pits,
:mod:`vision.learning.layouts`: each shown as a picture of where to put how many seeds,
and read by the counter before it is kept), and fine-tunes the counter on every pit of
those photos. Frames can also come from image files (``--empty IMAGE --start IMAGE
--layout IMAGE …``), which is how the tests drive it.

Which counter: with layouts, the deep network fine-tuned on them (PyTorch, the ``learn``
extra; the head counter where PyTorch is missing); with the two views alone, the area
counter (a network shown only 0 and 4 seeds learns only those). Figures:
``docs/VISION.md``, "The new-board protocol".

The calibration goes to :func:`vision.geometry.calibration.default_path` (the user's config
directory) unless ``--out`` says otherwise; ``count``, ``train-counter`` and ``serve`` read
it from there when not given ``--calibration``, so a person calibrates once and every
command knows the board.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args

from companion.commands.camera_shared import (
    add_fine_tuning_options,
    progress_bar,
    read_photo,
    save_keeping_previous,
)
from companion.commands.grab import grab_frame
from companion.commands.writable import check_can_write

# the vision package is imported inside the handler: it is the optional "vision" extra

if TYPE_CHECKING:
    from vision.geometry.calibration import Calibration
    from vision.image_types import Image

CalibrationCounter = Literal["area", "head", "deep", "cnn"]
"""The counters ``calibrate --counter`` can teach."""
LAYOUTS = 4
"""Spread layouts asked for after the empty board and the start position (``--layouts``;
``len(vision.learning.layouts.LAYOUTS)``, kept here as a number so that the command's help
needs no vision extra): with four, a network fine-tuned on the 72 pits reads 85-89 % of a
new board's pits exactly, against 77-87 % with two (``docs/VISION.md``)."""


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
        "--layouts",
        type=int,
        choices=range(0, 5),
        default=LAYOUTS,
        help=f"spread layouts (0-9 seeds in ten pits) to photograph after the start position"
        f" (default {LAYOUTS}; 0: the empty board and the start position only)",
    )
    parser.add_argument(
        "--layout",
        type=Path,
        action="append",
        default=None,
        help="photo of the next spread layout, in order (instead of the camera)",
    )
    parser.add_argument(
        "--counter",
        choices=get_args(CalibrationCounter),
        default=None,
        help="deep (default with layouts): fine-tune the deeper network on every pit "
        "photographed, a few minutes (needs PyTorch, the 'learn' extra; head without it: "
        "a new head on the same network, seconds); area (default without layouts, "
        "instant): compare each pit with itself empty; cnn: the small numpy networks",
    )
    add_fine_tuning_options(parser, " for --counter deep or cnn", members=1)
    parser.add_argument("--yes", action="store_true", help="do not wait for Enter between steps")


UNTAUGHT_WARNING = (
    "no counter was taught (--no-teach, and no earlier calibration held one): the camera will"
    " count with the built-in counter, which has never seen this board and misreads it often"
    " enough to lose moves without a word; calibrate again without --no-teach (the empty"
    " board, then the start position)"
)
"""Measured on four rendered games (``vision.render.synth_game``, seeds 0-3): the built-in counter
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
    from vision.geometry.calibration import CalibrationError, default_path, parse_corners
    from vision.learning.calibrate import locate, teach

    out = Path(args.out) if getattr(args, "out", None) else default_path()
    check_can_write(out, "the calibration")  # before the photos, not after
    corners_text = getattr(args, "corners", None)
    empty_path = getattr(args, "empty", None)
    start_path = getattr(args, "start", None)
    no_teach = bool(getattr(args, "no_teach", False))
    interactive = not getattr(args, "yes", False) and sys.stdin.isatty()
    layouts: int = getattr(args, "layouts", LAYOUTS)
    layout_paths: list[Path] = list(getattr(args, "layout", None) or [])
    asked: str | None = getattr(args, "counter", None)
    kind = "area" if no_teach else _counter_kind(asked, layouts)
    if asked == "deep" and not no_teach:
        from vision.learning.deep_train import INSTALL_HINT, torch_available

        if not torch_available():  # say so before the user clears the board
            print(f"error: {INSTALL_HINT}", file=sys.stderr)
            return 2
    if len(layout_paths) > layouts:
        print(f"error: {len(layout_paths)} --layout photos for {layouts} layouts", file=sys.stderr)
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
        frames: list[tuple[Image, list[int]]] = []  # the photos taught from, with their counts
        if not no_teach and empty is not None:
            start = frame_for("Set up the start position (4 seeds in every pit)", start_path)
            pits = calibration.layout.pits
            frames += [(empty, [0] * pits), (start, [4] * pits)]
            frames += _layout_frames(
                calibration, layouts, layout_paths, out, frame_for, interactive
            )
            calibration = teach(
                calibration,
                frames,
                counter=kind,
                steps=getattr(args, "steps", None),
                members=getattr(args, "members", None),
                views=getattr(args, "views", None),
                progress=None if kind == "area" else progress_bar("fine-tuning the counter"),
            )
            what = "empty board and start position" + (
                f" and {layouts} layout{'s' * (layouts > 1)}" if layouts else ""
            )
            print(f"{kind} counter adapted to this board ({what})")
            if kind not in ("area", "head") and not layouts:
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
    if frames:
        _keep_photos(calibration, frames, out)
    return 0


def _keep_photos(
    calibration: Calibration, frames: list[tuple[Image, list[int]]], out: Path
) -> None:
    """Keep the taught photos' pit crops beside the calibration for ``train-counter`` (a
    disk that refuses them is a warning: the calibration itself is saved)."""
    from vision.learning.calibrate import labelled_crops
    from vision.learning.pit_album import keep_calibration_photos

    names = ["empty", "start", *(f"layout{k}" for k in range(1, len(frames) - 1))]
    positions = [
        (name, *labelled_crops(calibration, [photo]))
        for name, photo in zip(names, frames, strict=True)
    ]
    try:
        folder, saved = keep_calibration_photos(out, positions)
    except OSError as exc:
        print(f"warning: the calibration's pit photos were not kept: {exc}", file=sys.stderr)
        return
    print(f"kept its {saved} labelled pit photos in {folder} (train-counter learns from them too)")


def _counter_kind(asked: str | None, layouts: int) -> str:
    """The counter to teach: the one asked for, else the best the photos and extras allow."""
    if asked is not None:
        return asked
    if not layouts:
        return "area"  # two views teach a network only 0 and 4 seeds
    from vision.learning.deep_train import INSTALL_HINT, torch_available

    if torch_available():
        return "deep"
    print(f"note: {INSTALL_HINT} for a counter twice as good; using the head counter")
    return "head"


def _layout_frames(
    calibration: Calibration,
    layouts: int,
    paths: list[Path],
    out: Path,
    frame_for: Callable[[str, Path | None], Image],
    interactive: bool,
) -> list[tuple[Image, list[int]]]:
    """The spread layouts' photos: each shown as a picture, taken, and read by the counter.

    The built-in counter has never seen this board, so its reading cannot refuse a photo
    (on the development photographs it prefers a turned layout to the right one most of
    the time): a photo it doubts is said as a warning, and a person at the keyboard may
    take it again or keep it.
    """
    import cv2

    from vision.counting.deep import DeepCounter
    from vision.learning.layouts import calibration_layouts, check_layout, layout_picture

    reader = DeepCounter.builtin()  # loaded once: it reads every layout photo
    frames: list[tuple[Image, list[int]]] = []
    for k, layout in enumerate(calibration_layouts(layouts)[2:]):  # after empty, start
        picture = out.with_name(f"{out.stem}.layout-{k + 1}.png")
        picture.parent.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(picture), layout_picture(layout, calibration.layout))
        print(f"layout {k + 1} of {layouts} ({picture}): {layout.words()}")
        while True:
            frame = frame_for(
                f"Lay out the seeds as {picture.name} shows", paths[k] if k < len(paths) else None
            )
            crops = calibration.pit_crops(calibration.rectify(frame))
            check = check_layout(reader.beliefs(crops), layout)
            if check.accepted:
                break
            print(f"warning: layout {k + 1}: {check.words(layout)}", file=sys.stderr)
            if not interactive or input("Enter keeps this photo; r, Enter takes it again: ") != "r":
                break
        frames.append((frame, list(layout.pits)))
    return frames


def _previous_counter(path: Path) -> dict[str, Any] | None:
    """The adapted counter stored in the calibration at ``path``, if there is a usable one."""
    from vision.geometry.calibration import Calibration, CalibrationError

    if not path.is_file():
        return None
    try:
        return Calibration.load(path).counter
    except (CalibrationError, OSError, ValueError):
        return None  # unreadable: it is moved aside, not trusted
