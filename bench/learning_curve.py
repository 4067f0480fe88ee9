"""How seed counting improves with more labelled photographs: a learning curve.

    python -m bench.learning_curve --dataset /work/shared/datasets/awale-pits-dev \\
        [--shares 0.25,0.5,1] [--counter deep|cnn] [--steps N] [--members K] [--views V]
        [--seed S] [--misread]

The question it answers: the learned counters miss the accuracy goals on the
development photographs (``python -m bench.vision``); would more photographs of the
board fix that, and how many? It answers from the data alone:

* Only the folder's **train split** is read (:mod:`vision.evaluation.dataset`); the
  held-out split, on which ``python -m bench.vision`` reports, stays untouched.
* The train split is dealt into five folds by file-name hash. For each fold
  the product's own ``adapt`` (what ``train-counter`` runs) is given a share
  of the other four folds, and the counter it makes reads the fold it never
  saw. A share takes that fraction of each count's photographs, chosen by
  another hash, so a smaller share is a subset of a larger one.
* Per share it prints how many labelled photographs each fine-tuning was
  given (as a user gives them to ``train-counter``), the exact
  accuracy overall and for 0-5 seeds, the mean log-likelihood of the true
  count and how often the true count lies in the smallest 95 % set.
* It then fits ``error = a * n ** -b`` through the shares (a straight line in
  log-log, the usual shape of a learning curve) and prints how many
  labelled photographs each goal would need if the curve went on. That is an
  extrapolation from a few points: a guide to how much to photograph, not a
  promise.
* With ``--misread`` it lists the photographs the largest share's
  counters got wrong, with the belief in what they read and in the true
  count: the ones to look at, to see what the counter misses or whether a
  label is wrong.

Fine-tuning uses every core. ``--steps`` and ``--views`` default to the
product's; ``--members`` defaults to one network per fold, not the product's
five (five folds times five networks per share is hours), so the figures are
a little below what ``train-counter`` would reach with as many photographs.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from companion.commands.camera_shared import add_fine_tuning_options, progress_bar, views_phrase
from vision.counting.cnn import NetCounter
from vision.counting.deep import DeepCounter
from vision.counting.ensemble import FOLDS, EnsembleCounter, training_threads
from vision.evaluation.dataset import load_folder
from vision.evaluation.learning_curve import (
    GOALS,
    Share,
    cross_validate,
    photographs_for,
    power_law,
)
from vision.learning.deep_train import INSTALL_HINT


def _shares(text: str) -> list[float]:
    try:
        shares = sorted({float(s) for s in text.split(",")})
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of shares: {text!r}") from None
    if not shares or shares[0] <= 0 or shares[-1] > 1:
        raise argparse.ArgumentTypeError("shares lie in (0, 1], for example 0.25,0.5,1")
    return shares


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.learning_curve",
        description="learning curve (see the module docstring)",
    )
    parser.add_argument("--dataset", type=Path, required=True, help="<count>/<image>.png folder")
    parser.add_argument("--shares", type=_shares, default=[0.25, 0.5, 1.0])
    parser.add_argument("--counter", choices=["deep", "cnn"], default="deep")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--misread",
        action="store_true",
        help="list the photographs the largest share's counters got wrong (to check the labels)",
    )
    add_fine_tuning_options(parser, " in each fold", members=1)
    args = parser.parse_args(argv)
    try:
        examples = load_folder(args.dataset, "train")
    except FileNotFoundError as exc:
        print(exc, file=sys.stderr)
        return 1
    if len(examples) < FOLDS:
        print(f"need at least {FOLDS} photographs in the train split of {args.dataset}")
        return 1
    start: EnsembleCounter[Any]
    start = DeepCounter.builtin() if args.counter == "deep" else NetCounter.builtin()
    start = start.with_views(args.views)
    if not start.can_adapt():
        print(INSTALL_HINT, file=sys.stderr)
        return 2
    steps = args.steps or start.ADAPT_STEPS
    print(
        f"{len(examples)} photographs of the train split of {args.dataset} "
        f"(the held-out split is not read); {args.counter} counter, {args.members} network"
        f"{'s' if args.members > 1 else ''} of {steps} steps per fold, "
        f"{views_phrase(start.view_count)}, {FOLDS}-fold cross-validation"
    )
    rows: list[Share] = []
    with training_threads(os.cpu_count() or 1):
        for share in args.shares:
            rows.append(
                cross_validate(examples, start, share, steps, args.members, args.seed, progress_bar)
            )
    print("share  photographs given  exact  exact 0-5  log-likelihood  in 95% set")
    for share, row in zip(args.shares, rows, strict=True):
        f = row.scores
        print(
            f"{share:5.2f}  {row.given:17d}  {f.exact:5.1%}  {f.exact_low:9.1%}"
            f"  {f.log_likelihood:14.3f}  {f.coverage:10.1%}"
        )
    if args.misread:
        wrong = rows[-1].misread
        print(f"misread at share {args.shares[-1]:g}: {len(wrong)} photographs")
        for m in wrong:
            print(f"  {m.line()}")
    for goal, target in GOALS.items():
        got = [r.scores.exact if goal == "exact 0-9" else r.scores.exact_low for r in rows]
        fit = power_law([r.given for r in rows], [1.0 - g for g in got])
        if got[-1] >= target:
            print(f"{goal} >= {target:.0%}: already met with {rows[-1].given} photographs")
        elif fit is None:
            print(f"{goal} >= {target:.0%}: no falling curve to extrapolate from")
        else:
            a, b = fit
            need = photographs_for(a, b, 1.0 - target)
            print(
                f"{goal} >= {target:.0%}: error ~ {a:.2f} * n^-{b:.2f}, so about "
                f"{need:.0f} labelled photographs (extrapolated)"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
