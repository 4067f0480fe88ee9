"""Camera commands: `oware-companion count` and the camera half of `calibrate`.

``oware-companion count IMAGE [--calibration FILE] [--json]`` reads one photo
of the board and prints, per pit, the most likely count, the confidence and
the smallest set of counts that holds 95 % of the belief.

``calibrate_camera(args)`` is what ``oware-companion calibrate --source
camera://0`` runs: it finds the board in the camera's view (markers, else
the pit grid, else the corners given with ``--corners``), then, unless told
not to, asks for the empty board and the start position (4 seeds per pit)
and adapts the counter to them. Frames can also come from image files
(``--empty IMAGE --start IMAGE``), which is how the tests drive it.

The calibration goes to :func:`vision.calibration.default_path` (the user's
config directory) unless ``--out`` says otherwise; ``count``,
``train-counter`` and ``serve`` read it from there when not given
``--calibration``, so a person calibrates once and every command knows the
board.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

# OpenCV and the vision package are imported inside the handlers: they are the
# optional "vision" extra, and `oware-companion --help` must work without them.

if TYPE_CHECKING:
    from vision.calibration import Calibration

Image = npt.NDArray[Any]
"""A BGR uint8 picture (typed loosely: OpenCV's stubs return generic arrays)."""


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
    DEFAULT_VIEWS and vision.ensemble.MEMBERS: the vision package is not
    imported here (see above), so the handlers fill them in and the help names
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
        "(default 1; counting takes that many times as long)",
    )


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `count` and `train-counter` subcommands."""
    t = subparsers.add_parser(
        "train-counter",
        help="fine-tune the seed-counting network on labelled photos of your board",
        description="Fine-tune the seed counter on a folder of labelled pit "
        "photos laid out as <count>/<image>.png (crops of single pits of your board), and "
        "store it in a camera calibration file. Without a folder, it learns from the photos "
        "`oware-companion serve` kept of your games (DATA_DIR/pit-photos/<camera>/).",
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
        choices=["auto", "deep", "cnn"],
        default="auto",
        help="deep: the seven-layer network (more accurate; training needs PyTorch, the "
        "'learn' extra); cnn: the small numpy network; auto (default): deep when PyTorch "
        "is installed",
    )
    add_fine_tuning_options(t)
    t.set_defaults(func=train_counter_command)
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
        choices=["area", "deep", "cnn"],
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


def views_phrase(views: int) -> str:
    """How a counter reads each pit, in words: "each pit read in 1 view" / "… in 8 views"."""
    return f"each pit read in {views} view{'s' if views > 1 else ''}"


NEVER_SEEN_WARNING = (
    "warning: {why}: the counts come from the built-in counter, which has never seen this "
    "board and misreads it often; calibrate once (`oware-companion calibrate --source "
    "camera://0`, or --empty and --start photos) and count again"
)


def count_command(args: argparse.Namespace) -> int:
    """Handler of `count`: exit code 0, 1 (cannot read), 2 (bad calibration/board not found)."""
    from vision.calibrate import locate
    from vision.calibration import Calibration, CalibrationError, default_path, parse_corners
    from vision.pipeline import counter_for

    try:
        frame = _read(Path(args.image))
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


def train_counter_command(args: argparse.Namespace) -> int:
    """Handler of `train-counter`: exit 0, 1 (no usable images), 2 (bad calibration)."""
    from vision.calibration import Calibration, CalibrationError, default_path
    from vision.dataset import load_folder
    from vision.deep_counter import DeepCounter
    from vision.deep_train import INSTALL_HINT, torch_available
    from vision.ensemble import MEMBERS
    from vision.net_counter import NetCounter

    kind = args.counter
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
    counts = sorted({e.count for e in examples})
    print(f"{len(examples)} labelled pit photos, counts {counts}; fine-tuning the {kind} counter")
    base: NetCounter | DeepCounter
    base = DeepCounter.builtin() if kind == "deep" else NetCounter.builtin()
    counter = base.adapt(
        [e.image for e in examples],
        [e.count for e in examples],
        steps=args.steps,  # None: the counter's own default
        progress=progress_bar("fine-tuning"),
        members=args.members or MEMBERS,
    ).with_views(args.views)
    out = args.out or target
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


def count_report(beliefs: npt.NDArray[np.float64]) -> list[dict[str, Any]]:
    """Per pit: most likely count, its probability, the 95 % set and the belief vector."""
    from vision.counter import credible_set

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


def _grab(url: str, frames: int = 5, timeout: float = 10.0) -> Image:
    """A frame from a camera URL (the last of a few, once auto-exposure settled)."""
    import cv2

    from vision.source import parse_url

    target = parse_url(url).target
    cap = cv2.VideoCapture(target) if isinstance(target, str) else cv2.VideoCapture(int(target))
    try:
        if not cap.isOpened():
            raise OSError(f"cannot open {url}")
        frame = None
        end = time.monotonic() + timeout
        got = 0
        while got < frames and time.monotonic() < end:
            ok, img = cap.read()
            if ok and img is not None:
                frame = img
                got += 1
        if frame is None:
            raise OSError(f"no frame from {url}")
        return np.asarray(frame, np.uint8)
    finally:
        cap.release()


def _read(path: Path) -> Image:
    """A photo as BGR uint8; OSError in plain words when it is missing or unreadable."""
    import cv2

    if not Path(path).is_file():  # say so before OpenCV warns in its own words
        raise OSError(f"no image file at {path}")
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        raise OSError(f"cannot read image {path}")
    return np.asarray(img, np.uint8)


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
    kind = getattr(args, "counter", "area")
    if kind == "deep" and not no_teach:
        from vision.deep_train import INSTALL_HINT, torch_available

        if not torch_available():  # say so before the user clears the board
            print(f"error: {INSTALL_HINT}", file=sys.stderr)
            return 2
    try:

        def frame_for(step: str, path: Path | None) -> Image:
            if path is not None:
                return _read(path)
            if interactive:
                input(f"{step}, then press Enter ...")
            return _grab(args.source)

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


def save_keeping_previous(calibration: Calibration, out: Path) -> None:
    """Write ``calibration`` to ``out`` (a file already there is kept aside) and say so."""
    backup = calibration.save_replacing(out)
    if backup is not None:
        print(f"the previous calibration is kept as {backup}")


def _previous_counter(path: Path) -> dict[str, Any] | None:
    """The adapted counter stored in the calibration at ``path``, if there is a usable one."""
    from vision.calibration import Calibration, CalibrationError

    if not path.is_file():
        return None
    try:
        return Calibration.load(path).counter
    except (CalibrationError, OSError, ValueError):
        return None  # unreadable: it is moved aside, not trusted
