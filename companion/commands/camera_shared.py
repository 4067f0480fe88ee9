"""What the camera commands share: argparse types, a network counter's options, a progress
bar, reading a photo and saving a calibration beside the one it replaces.

OpenCV and the vision package are imported inside the functions: they are the optional
"vision" extra, and ``oware-companion --help`` must work without them.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from vision.geometry.calibration import Calibration
    from vision.image_types import Image


def whole_number(minimum: int) -> Callable[[str], int]:
    """An argparse type: a whole number of at least ``minimum``, refused in words."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, not {value}")
        return value

    return parse


positive_int = whole_number(1)
"""At least 1 (``args.members or default`` would silently turn a 0 into the default)."""


def add_fine_tuning_options(
    parser: argparse.ArgumentParser, scope: str = "", members: int | None = None
) -> None:
    """``--steps``, ``--members`` and ``--views`` of a network counter (``scope``: " for …").

    All default to None, meaning the counter's own ADAPT_STEPS and
    DEFAULT_VIEWS and vision.counting.ensemble.MEMBERS: the vision package is not
    imported here (see the module docstring), so the handlers fill them in and the help names
    the values (a test keeps the two in step). A caller that wants another
    number of networks by default passes ``members``; the help then names it.
    """
    parser.add_argument(
        "--steps",
        type=positive_int,
        default=None,
        help=f"fine-tuning steps per network{scope} (default 1500 deep, 3000 cnn)",
    )
    parser.add_argument(
        "--members",
        type=positive_int,
        default=members,
        help=f"networks to fine-tune and average{scope} "
        f"(default {members or 5}; each takes the steps again)",
    )
    parser.add_argument(
        "--views",
        type=int,
        choices=[1, 2, 4, 8],
        default=None,
        help=f"turned and mirrored views of each pit averaged when counting{scope} "
        "(default 1; counting takes that many times as long; without it the count made as"
        " a board settles, once a move, reads 8)",
    )


def views_phrase(views: int) -> str:
    """How a counter reads each pit, in words: "each pit read in 1 view" / "… in 8 views"."""
    return f"each pit read in {views} view{'s' if views > 1 else ''}"


def progress_bar(what: str) -> Callable[[int, int], None]:
    """A one-line progress display on stderr for long training runs."""

    def show(step: int, total: int) -> None:
        if step % 25 == 0 or step == total:
            end = "\n" if step == total else ""
            print(
                f"\r{what}: {100 * step // total:3d}% ({step}/{total})",
                end=end,
                file=sys.stderr,
                flush=True,
            )

    return show


def read_photo(path: Path) -> Image:
    """A photo as BGR uint8; OSError in plain words when it is missing or unreadable."""
    import cv2

    if not Path(path).is_file():  # say so before OpenCV warns in its own words
        raise OSError(f"no image file at {path}")
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        raise OSError(f"cannot read image {path}")
    return np.asarray(img, np.uint8)


def save_keeping_previous(calibration: Calibration, out: Path) -> None:
    """Write ``calibration`` to ``out`` (a file already there is kept aside) and say so."""
    backup = calibration.save_replacing(out)
    if backup is not None:
        print(f"the previous calibration is kept as {backup}")
