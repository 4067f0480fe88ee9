"""``oware-companion train-counter [FOLDER]``: fine-tune the seed counter on your board.

It fine-tunes the seed counter on a folder of labelled pit photos (``<count>/<image>.png``)
or, without one, on the pit photos ``oware-companion serve`` kept of a camera's games, and
stores it in the camera calibration (the one ``oware-companion calibrate`` saved unless
``--calibration`` names another). The photos the calibration was taught from, which
``calibrate`` keeps beside its file, are learnt from as well: they hold the counts the
games seldom show.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Literal, get_args

from companion.commands.camera_shared import (
    add_fine_tuning_options,
    progress_bar,
    save_keeping_previous,
    views_phrase,
)
from companion.commands.writable import check_can_write

# the vision package is imported inside the handler: it is the optional "vision" extra

TrainedCounter = Literal["auto", "deep", "cnn"]
"""The counters ``train-counter --counter`` can fine-tune (auto: deep when PyTorch is there)."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``train-counter`` subcommand."""
    t = subparsers.add_parser(
        "train-counter",
        help="fine-tune the seed-counting network on labelled photos of your board",
        description="Fine-tune the seed counter on a folder of labelled pit "
        "photos laid out as <count>/<image>.png (crops of single pits of your board), and "
        "store it in a camera calibration file. Without a folder, it learns from the photos "
        "`oware-companion serve` kept of your games (DATA_DIR/pit-photos/<camera>/). "
        "The calibration's own photos, kept beside its file, are learnt from too.",
    )
    t.add_argument(
        "folder",
        type=Path,
        nargs="?",
        default=None,
        help="folder of <count>/<image>.png pit photos (default: the ones kept from your games)",
    )
    t.add_argument(
        "--source",
        default=None,
        help="without a folder: learn from the games of this camera (e.g. camera://0); "
        "needed when photos of several cameras were kept",
    )
    t.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="without a folder: the data directory serve kept the photos in (default: serve's own)",
    )
    t.add_argument(
        "--calibration",
        type=Path,
        default=None,
        help="calibration JSON to put the counter in (default: the one "
        "`oware-companion calibrate` saved)",
    )
    t.add_argument("--out", type=Path, default=None, help="write here (default: in place)")
    t.add_argument(
        "--counter",
        choices=get_args(TrainedCounter),
        default="auto",
        help="deep: the seven-layer network (more accurate; training needs PyTorch, the "
        "'learn' extra); cnn: the small numpy network; auto (default): deep when PyTorch "
        "is installed",
    )
    add_fine_tuning_options(t)
    t.set_defaults(func=train_counter_command)


def train_counter_command(args: argparse.Namespace) -> int:
    """Handler of `train-counter`: exit 0, 1 (no usable images), 2 (bad calibration)."""
    from vision.counting.cnn import NetCounter
    from vision.counting.deep import DeepCounter
    from vision.counting.ensemble import MEMBERS
    from vision.evaluation.dataset import load_folder
    from vision.geometry.calibration import Calibration, CalibrationError, default_path
    from vision.learning.deep_train import INSTALL_HINT, torch_available
    from vision.learning.pit_album import calibration_photo_folder

    kind: TrainedCounter = args.counter
    if kind == "auto":
        kind = "deep" if torch_available() else "cnn"
    elif kind == "deep" and not torch_available():
        print(f"error: {INSTALL_HINT}", file=sys.stderr)
        return 2
    target: Path = args.calibration or default_path()
    if not target.is_file():
        print(
            f"error: no camera calibration at {target}: run `oware-companion calibrate "
            "--source camera://0` first, or give one with --calibration FILE",
            file=sys.stderr,
        )
        return 2
    out = args.out or target
    try:  # before minutes of fine-tuning, not after
        check_can_write(out, "the counter", "--out" if args.out else "--calibration or --out")
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    folder = args.folder or _kept_photos(args.source, args.data_dir)
    if folder is None:
        return 1
    try:
        calibration = Calibration.load(target)
        examples = load_folder(folder)
    except (CalibrationError, OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, CalibrationError) else 1
    if not examples:
        print(f"error: no <count>/<image> photos under {folder}", file=sys.stderr)
        return 1
    # The calibration's own photos (calibrate keeps them beside its file): the games seldom
    # show a pit of 5 to 9 seeds, the spread layouts show every count.
    taught = calibration_photo_folder(target)
    apart = taught.is_dir() and taught.resolve() != folder.resolve()  # (given: not twice)
    from_calibration = load_folder(taught) if apart else []
    examples += from_calibration
    counts = sorted({e.count for e in examples})
    whose = f" ({len(from_calibration)} of them the calibration's, {taught})"
    print(
        f"{len(examples)} labelled pit photos{whose if from_calibration else ''}, counts"
        f" {counts}; fine-tuning the {kind} counter"
    )
    base: NetCounter | DeepCounter
    base = DeepCounter.builtin() if kind == "deep" else NetCounter.builtin()
    counter = base.adapt(
        [e.image for e in examples],
        [e.count for e in examples],
        steps=args.steps,  # None: the counter's own default
        progress=progress_bar("fine-tuning"),
        members=args.members or MEMBERS,
    ).with_views(args.views)
    save_keeping_previous(calibration.with_counter(counter.to_json()), out)
    temps = ", ".join(f"{n.temperature:.2f}" for n in counter.networks)
    print(
        f"wrote {out} ({len(counter.networks)} networks, temperatures {temps};"
        f" {views_phrase(counter.view_count)})"
    )
    return 0


def _kept_photos(source: str | None, data_dir: Path | None) -> Path | None:
    """The folder of pit photos serve kept of one camera's games; None (said why) if unclear."""
    from companion.service.config import default_data_dir
    from companion.sources import kept_pit_photo_folders, pit_photo_folder

    root = data_dir or default_data_dir()
    kept = kept_pit_photo_folders(root)
    if source is not None:
        folder = pit_photo_folder(root, source)
        if folder not in kept:
            print(f"error: no pit photos kept of {source} under {folder}", file=sys.stderr)
            return None
        print(f"learning from the pit photos kept of {source}'s games: {folder}")
        return folder
    if len(kept) == 1:
        print(f"learning from the pit photos kept of your games: {kept[0]}")
        return kept[0]
    if kept:
        names = ", ".join(folder.name for folder in kept)
        print(
            f"error: pit photos of {len(kept)} cameras are kept under {root / 'pit-photos'}"
            f" ({names}): say which with --source URL, or give the folder",
            file=sys.stderr,
        )
    else:
        print(
            f"error: no folder given and no pit photos kept under {root / 'pit-photos'}:"
            " referee a game with `oware-companion serve --source camera://0` (it keeps the"
            " photos of every confirmed position), or give a folder of <count>/<image>.png"
            " photos",
            file=sys.stderr,
        )
    return None
