"""Benchmark of the vision package: seed counting on labelled pit images, and the full
pipeline on a rendered game video.

Counting (a folder laid out as ``<count>/<image>.png``)::

    python -m bench.vision --dataset /work/shared/datasets/awale-pits-dev \\
        [--adapt DIR2] [--adapt-per-count N] [--adapt-counts 0,4] [--split held_out|all]
        [--counter deep|cnn|mlp] [--steps N] [--members K] [--pasted N] [--from-scratch]
        [--games N [--jobs J] [--tall widened|shifted]] [--short-games N [--seed S]]
        [--save-beliefs FILE.npz]

Evaluates on the held-out split of DIR (file-name hash, see
:mod:`vision.evaluation.dataset`) unless ``--split all``. ``--adapt DIR2`` simulates
the user's calibration step: the learned counter is adapted to the
*training* split of DIR2 (at most N images per count, only the counts given
by ``--adapt-counts``: ``0,4`` is what the calibration step's empty board
and start position give), never to held-out images: the deeper network
(:mod:`vision.counting.deep`, default; fine-tuning it needs PyTorch, the
``learn`` extra, and uses every core) or the small numpy network
(``--counter cnn``, :mod:`vision.counting.cnn`) is fine-tuned (``--members``
networks, averaged), or with ``--counter mlp`` the older feature model is
adapted. The deep network's fine-tuning also draws piles pasted from DIR2's
own one-seed photographs (:mod:`vision.learning.seed_paste`); ``--pasted 0`` measures
it without them. Counting speed is measured on one core. Prints exact accuracy per
count and overall, accuracy within one seed, mean log-likelihood of the true
count, how often the true count lies in the smallest 95 % set of the belief,
and images per second (median of runs). ``--games N`` then plays N full games
at playing pace whose pits show those photographs (:mod:`vision.evaluation.full_games`)
and reports how the referee followed them, once with nobody answering its questions
and once with a person counting the pits it asks about; ``--short-games N`` the same
on short games whose piles stay within the counts photographed
(:mod:`vision.evaluation.photo_games`). ``--save-beliefs`` keeps every photograph's
belief, to compare with counts made by eye (``python -m bench.eye_count``).

Full pipeline (a rendered game, see :mod:`vision.render.synth_game`)::

    python -m bench.vision --video DIR/game.avi      # DIR holds game.json, empty.png, start.png
    python -m bench.vision --render DIR [--moves 12] [--seed 0]   # render one first

Prints frames per second of the whole per-frame pipeline on one core (median
over frames) at the video's size, and the fraction of the game's moves the
referee recognised from the observations.
"""

from __future__ import annotations

import os

# One core: the goal is stated per core, and the machine is shared.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.commands.camera_shared import (
    add_fine_tuning_options,
    progress_bar,
    views_phrase,
    whole_number,
)
from vision.counting.beliefs import PitCounter
from vision.counting.cnn import NetCounter
from vision.counting.deep import DeepCounter
from vision.counting.ensemble import MEMBERS, EnsembleCounter, training_threads
from vision.counting.mlp import Counter
from vision.evaluation.belief_scores import score_beliefs
from vision.evaluation.dataset import Example, load_folder, per_count_subset
from vision.evaluation.eye_count import save_beliefs
from vision.evaluation.full_games import TALL
from vision.evaluation.photo_games import longest_common
from vision.learning.layouts import LAYOUTS
from vision.learning.seed_paste import seed_bank


def bench_dataset(args: argparse.Namespace) -> int:
    """Counting figures on a labelled folder."""
    examples = load_folder(args.dataset, args.split)
    if not examples:
        print(f"no images in {args.dataset} (split {args.split})")
        return 1
    counter: PitCounter
    if args.counter == "deep":
        counter = DeepCounter.builtin()
    elif args.counter == "cnn":
        counter = NetCounter.builtin()
    else:
        counter = Counter.builtin()
    label = f"built-in {args.counter} (rendered pits only)"
    if args.adapt is not None:
        pool = load_folder(args.adapt, "train")
        if args.adapt_counts is not None:  # e.g. 0,4: what the calibration step gives
            pool = [e for e in pool if e.count in args.adapt_counts]
        chosen = per_count_subset(pool, args.adapt_per_count)
        held = {e.path.name for e in examples}
        chosen = [e for e in chosen if e.path.name not in held]  # never train on what we score
        images, counts = [e.image for e in chosen], [e.count for e in chosen]
        start = time.perf_counter()
        if isinstance(counter, EnsembleCounter):
            steps = args.steps or counter.ADAPT_STEPS
            members = args.members or MEMBERS
            progress = progress_bar("fine-tuning")
            # Train on every core (this script pins numpy's counting to one).
            with training_threads(os.cpu_count() or 1):
                counter = counter.adapt(
                    images,
                    counts,
                    steps=steps,
                    progress=progress,
                    members=members,
                    pasted=args.pasted,
                )
            pasted = counter.piles_to_paste(args.pasted)
            seeds = len(seed_bank(images, counts)) if pasted else 0
            label = (
                f"built-in {args.counter}, {members} networks fine-tuned"
                f" ({steps} steps each, {pasted} piles pasted from {seeds} cut seeds) on"
            )
        elif args.from_scratch:
            counter = _scratch(chosen)
            label = "mlp trained from scratch on"
        else:
            assert isinstance(counter, Counter)
            counter = counter.adapt(images, counts)
            label = "built-in mlp, adapted to"
        took = time.perf_counter() - start
        label += f" {len(chosen)} images of {args.adapt} (train split) in {took:.1f} s"
    if isinstance(counter, EnsembleCounter):
        if args.views is not None:
            counter = counter.with_views(args.views)
        label += f"; {views_phrase(counter.view_count)}"
    print(f"counter: {label}")
    print(f"evaluated on: {args.dataset} split={args.split}, {len(examples)} images")
    beliefs = counter.beliefs([e.image for e in examples])
    truth = np.array([e.count for e in examples])
    if args.save_beliefs is not None:
        # Saved before any figure, so minutes of fine-tuning are kept if a later step fails.
        save_beliefs(args.save_beliefs, [e.path.name for e in examples], truth, beliefs)
        print(f"beliefs saved to {args.save_beliefs}")
    report(beliefs, truth)
    from bench.new_board import play_full, play_short

    if args.games and not play_full(beliefs, truth, args.games, args.jobs, args.tall):
        return 1
    if args.short_games and not play_short(beliefs, truth, args.short_games, args.seed):
        return 1
    if isinstance(counter, EnsembleCounter) and counter.view_count > 1:
        # What the views add, on the same networks and images.
        one = score_beliefs(counter.with_views(1).beliefs([e.image for e in examples]), truth)
        print(
            f"the same networks reading 1 view: exact {one.exact:.1%}, "
            f"0-5 {one.exact_low:.1%}, mean log-likelihood {one.log_likelihood:.3f}"
        )
    # Speed: median of repeated runs over the whole set (features + model + belief shaping).
    times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        counter.beliefs([e.image for e in examples])
        times.append(time.perf_counter() - start)
    print(
        f"images per second (median of {args.repeat}): "
        f"{len(examples) / statistics.median(times):.0f}"
    )
    return 0


def _scratch(chosen: list[Example]) -> Counter:
    """A counter trained only on the given images (no rendered prior)."""
    from vision.counting.beliefs import augment
    from vision.counting.features import features_of
    from vision.counting.model import MLP, fit_temperature

    ys = np.array([e.count for e in chosen])
    feats = np.stack([features_of(augment(e.image)) for e in chosen])
    n, k, f = feats.shape
    back = np.arange(n) % 5 == 4
    classes = int(ys.max()) + 1
    trial = MLP.fit(
        feats[~back].reshape(-1, f), np.repeat(ys[~back], k), classes, hidden=64, l2=1e-2, steps=500
    )
    temp = fit_temperature(trial, feats[back].reshape(-1, f), np.repeat(ys[back], k))
    model = MLP.fit(feats.reshape(-1, f), np.repeat(ys, k), classes, hidden=64, l2=1e-2, steps=500)
    model.temperature = temp
    return Counter(model, "adapted")


def report(beliefs: np.ndarray, truth: np.ndarray) -> None:
    """Print the counting figures and which goals are met."""
    print("count   n   exact   within-1   in-95%-set")
    for c in sorted(set(truth.tolist())):
        m = truth == c
        one = score_beliefs(beliefs[m], truth[m])
        print(
            f"{c:5d} {m.sum():3d}   {one.exact:5.1%}    "
            f"{one.within_one:5.1%}"
            f"     {one.coverage:5.1%}"
        )
    s = score_beliefs(beliefs, truth)
    print(f"overall exact: {s.exact:.1%}   exact 0-5: {s.exact_low:.1%}")
    print(f"within one seed: {s.within_one:.1%}")
    print(f"mean log-likelihood of the true count: {s.log_likelihood:.3f}")
    print(f"true count inside the 95% set: {s.coverage:.1%} (mean set size {s.set_size:.2f})")
    print("goals: exact 0-5 >= 99%: " + ("met" if s.exact_low >= 0.99 else "NOT met"))
    print("       exact 0-9 >= 95%: " + ("met" if s.exact >= 0.95 else "NOT met"))
    print("       95% set coverage >= 95%: " + ("met" if s.coverage >= 0.95 else "NOT met"))


def bench_video(video: Path, referee_defaults: bool) -> int:
    """Full pipeline on a rendered game: fps on one core and moves recognised."""
    from core import Position
    from core.referee import Referee
    from vision.capture.pipeline import CAMERA_REFEREE, BoardReader, counter_for
    from vision.learning.calibrate import PositionLearner, locate, teach

    cv2.setNumThreads(1)
    folder = video.parent
    truth = json.loads((folder / "game.json").read_text(encoding="utf-8"))
    empty = np.asarray(cv2.imread(str(folder / "empty.png")), np.uint8)
    start = np.asarray(cv2.imread(str(folder / "start.png")), np.uint8)
    calibration = locate(empty)
    calibration = teach(calibration, [(empty, [0] * 12), (start, [4] * 12)])
    reader = BoardReader(calibration, counter_for(calibration))
    learner = PositionLearner(reader.counter)
    start_position = Position.initial(truth["rules"])
    settings: dict[str, Any] = {} if referee_defaults else dict(CAMERA_REFEREE)
    referee = Referee(start_position, **settings)
    cap = cv2.VideoCapture(str(video))
    times: list[float] = []
    with_decode: list[float] = []
    found: list[int] = []
    frame_no = 0
    size = None
    while True:
        decode_t = time.perf_counter()
        ok, frame = cap.read()
        if not ok:
            break
        frame_no += 1
        size = frame.shape[1], frame.shape[0]
        start_t = time.perf_counter()
        obs = reader.process(np.asarray(frame, np.uint8), frame_no / float(truth["fps"]))
        times.append(time.perf_counter() - start_t)
        with_decode.append(time.perf_counter() - decode_t)
        for event in referee.observe(obs):
            if event.type == "move":
                found.append(int(event.to_json()["pit"]))
                if reader.last_stable_crops is not None:
                    refit = learner.add(reader.last_stable_crops, referee.position.pits)
                    if refit is not None:
                        reader.counter = refit
    cap.release()
    moves = [int(m) for m in truth["moves"]]
    matched = longest_common(found, moves)
    print(f"video: {video} ({frame_no} frames, {size[0]}x{size[1]})" if size else f"video: {video}")
    print(f"board found by: {calibration.method}; referee settings: {settings or 'its defaults'}")
    print(f"pipeline frames per second on one core (median): {1.0 / statistics.median(times):.0f}")
    print(f"pipeline frames per second on one core (mean): {len(times) / sum(times):.0f}")
    print(
        "with video decoding (MJPEG 1280x720), median: "
        f"{1.0 / statistics.median(with_decode):.0f}, mean: {len(times) / sum(with_decode):.0f}"
    )
    print(
        "pipeline frames per second, slowest 5% of frames: "
        f"{1.0 / float(np.percentile(times, 95)):.0f}"
    )
    print(f"moves recognised: {matched}/{len(moves)} = {matched / max(1, len(moves)):.0%}")
    print(f"  truth:    {moves}\n  referee:  {found}")
    print(
        "goals: >= 30 fps: "
        + ("met" if 1.0 / statistics.median(times) >= 30 else "NOT met")
        + "; every move: "
        + ("met" if found == moves else "NOT met")
    )
    return 0


def _counts(text: str) -> set[int]:
    try:
        counts = {int(c) for c in text.split(",")}
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of counts: {text!r}") from None
    if min(counts) < 0:
        raise argparse.ArgumentTypeError("seed counts cannot be negative")
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.vision", description="vision benchmark (see the module docstring)"
    )
    parser.add_argument("--dataset", type=Path)
    parser.add_argument("--adapt", type=Path)
    parser.add_argument("--adapt-per-count", type=int, default=0, help="0 = all")
    parser.add_argument(
        "--adapt-counts",
        type=_counts,
        help="adapt only on these counts, e.g. 0,4 (the empty board and the start position)",
    )
    parser.add_argument("--split", choices=["held_out", "all"], default="held_out")
    parser.add_argument("--from-scratch", action="store_true", help="mlp: no rendered prior")
    parser.add_argument(
        "--counter",
        choices=["deep", "cnn", "mlp", "head", "area"],
        default=None,
        help="the deeper network (default; --adapt and --new-board fine-tune it with PyTorch),"
        " the small numpy one, the older features + MLP counter, or with --new-board any"
        " kind of vision.counting",
    )
    add_fine_tuning_options(parser, " for --counter deep or cnn")
    # Steps stay None here: their default depends on the counter (see bench_dataset).
    parser.add_argument(
        "--pasted",
        type=whole_number(0),
        help="piles pasted from the adapt photos' own seeds per network (deep only;"
        " default the counter's own, 0 to measure without them)",
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--save-beliefs",
        type=Path,
        metavar="FILE.npz",
        help="keep each photograph's name, label and belief (for python -m bench.eye_count score)",
    )
    parser.add_argument(
        "--games",
        type=whole_number(0),
        default=0,
        help="also play N full games at playing pace, piles of any size, shown as the evaluated"
        " photographs, and report how the referee followed them (vision.evaluation.full_games:"
        " the referee benchmark's games from seed 1000)",
    )
    parser.add_argument(
        "--short-games",
        type=whole_number(0),
        default=0,
        help="also play N short games whose piles stay within the counts photographed, every"
        " board still 3 s (vision.evaluation.photo_games; --seed picks the games)",
    )
    parser.add_argument(
        "--tall",
        choices=TALL,
        default=TALL[0],
        help="--games: a pile taller than any photograph is read as the tallest one moved up,"
        " widened by as many seeds as it is taller (default) or as sharp (shifted)",
    )
    parser.add_argument(
        "--jobs",
        type=whole_number(1),
        default=1,
        help="--games: processes playing full games side by side (default 1)",
    )
    parser.add_argument("--video", type=Path)
    parser.add_argument("--render", type=Path, help="render a game into this folder, then bench it")
    parser.add_argument("--moves", type=int, default=12)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--referee-defaults",
        action="store_true",
        help="use the referee's own defaults instead of vision.capture.pipeline.CAMERA_REFEREE",
    )
    parser.add_argument(
        "--new-board",
        type=Path,
        metavar="DIR",
        help="the new-board protocol: calibrate on DIR's photos as the calibration takes them,"
        " score on all the others (vision.evaluation.new_board)",
    )
    parser.add_argument(
        "--layouts",
        type=whole_number(0),
        default=len(LAYOUTS),
        help="--new-board: spread layouts the calibration asks for after the empty board and"
        f" the start position (default {len(LAYOUTS)}, as the calibration)",
    )
    parser.add_argument(
        "--photos",
        type=whole_number(1),
        default=1,
        help="--new-board: photographs the calibration takes of each layout (default 1)",
    )
    parser.add_argument(
        "--learn-games",
        type=whole_number(0),
        default=0,
        help="--new-board: then learn from the positions confirmed in K games and score again",
    )
    parser.add_argument(
        "--learn-members",
        type=whole_number(1),
        default=None,
        help="--learn-games: refit as K networks averaged, as train-counter does (its"
        f" default: {MEMBERS}); by default the refit fits as the calibration did",
    )
    args = parser.parse_args(argv)
    if args.new_board is not None:
        if not args.new_board.is_dir():
            print(f"folder not found: {args.new_board}")
            return 1
        from bench.new_board import bench_new_board
        from vision.counting import DEFAULT

        kind = args.counter or DEFAULT
        return bench_new_board(
            args.new_board,
            kind,
            args.layouts,
            args.photos,
            args.games,
            args.learn_games,
            args.seed,
            args.repeat,
            args.save_beliefs,
            args.members,
            short_games=args.short_games,
            jobs=args.jobs,
            tall=args.tall,
            learn_members=args.learn_members,
        )
    if args.dataset is not None:
        args.counter = args.counter or "deep"
        if args.counter not in ("deep", "cnn", "mlp"):
            print(
                f"--dataset measures deep, cnn or mlp; --counter {args.counter} needs --new-board"
            )
            return 2
        if not args.dataset.is_dir():
            print(f"dataset folder not found: {args.dataset}")
            return 1
        return bench_dataset(args)
    if args.render is not None:
        from vision.render.synth_game import render_session

        session = render_session(args.render, n_moves=args.moves, seed=args.seed)
        args.video = session.video
    if args.video is not None:
        return bench_video(args.video, args.referee_defaults)
    parser.print_help()
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
