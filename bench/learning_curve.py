"""How seed counting improves with more labelled photographs: a learning curve.

    python bench/learning_curve.py --dataset /work/shared/datasets/awale-pits-dev \\
        [--shares 0.25,0.5,1] [--counter deep|cnn] [--steps N] [--members K] [--views V]
        [--seed S] [--misread]

The question it answers: the learned counters miss the accuracy goals on the
development photographs (``bench/vision.py``); would more photographs of the
board fix that, and how many? It answers from the data alone:

* Only the folder's **train split** is read (:mod:`vision.dataset`); the
  held-out split, on which ``bench/vision.py`` reports, stays untouched.
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
import hashlib
import math
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from companion.commands.vision import add_fine_tuning_options, progress_bar, views_phrase
from vision.belief_scores import BeliefScores, score_beliefs
from vision.dataset import Example, load_folder
from vision.deep_counter import DeepCounter
from vision.deep_train import INSTALL_HINT
from vision.ensemble import FOLDS, EnsembleCounter, training_threads
from vision.net_counter import NetCounter

GOALS = {"exact 0-9": 0.95, "exact 0-5": 0.99}
"""The issue's accuracy goals, as the share of photographs counted exactly."""


@dataclass(frozen=True)
class Misread:
    """One photograph a fold's counter got wrong: to look at (is the label right?)."""

    path: Path
    count: int
    read: int
    """The most likely count."""
    belief_read: float
    belief_true: float

    def line(self) -> str:
        return (
            f"{self.count} read as {self.read} "
            f"({self.belief_read:.0%}; {self.belief_true:.0%} on {self.count})  {self.path}"
        )


@dataclass(frozen=True)
class Share:
    """What one share's cross-validation measured."""

    given: int
    """Labelled photographs each fine-tuning was given (the mean over the folds)."""
    scores: BeliefScores
    """The folds' beliefs against their true counts."""
    misread: list[Misread]
    """The photographs whose most likely count was not the true one."""


def fold_of(name: str) -> int:
    """The cross-validation fold of a photograph, from its file name only."""
    return int(hashlib.sha256(name.encode("utf-8")).hexdigest(), 16) % FOLDS


def take_share(examples: Sequence[Example], share: float) -> list[Example]:
    """That fraction of each count's examples (at least one), the same ones on every run.

    The order is a hash of the file name with a prefix, so it does not follow
    the folds; a smaller share is always a subset of a larger one.
    """
    chosen: list[Example] = []
    for count in sorted({e.count for e in examples}):
        same = [e for e in examples if e.count == count]
        same.sort(key=lambda e: hashlib.sha256(b"share:" + e.path.name.encode()).hexdigest())
        chosen += same[: max(1, round(share * len(same)))]
    return chosen


def power_law(ns: Sequence[float], errors: Sequence[float]) -> tuple[float, float] | None:
    """(a, b) of ``error = a * n ** -b`` fitted in log-log, or None if it cannot be.

    None when fewer than two shares differ in size, when an error is zero (no
    logarithm), or when the error does not fall as photographs are added
    (b <= 0: nothing to extrapolate).
    """
    pairs = [(n, e) for n, e in zip(ns, errors, strict=True) if n > 0]
    if len({n for n, _ in pairs}) < 2 or any(e <= 0 for _, e in pairs):
        return None
    x = np.log([n for n, _ in pairs])
    y = np.log([e for _, e in pairs])
    slope, intercept = np.polyfit(x, y, 1)
    if slope >= 0:
        return None
    return float(math.exp(intercept)), float(-slope)


def photographs_for(a: float, b: float, error: float) -> float:
    """Labelled photographs at which the fitted curve reaches ``error``."""
    return float((a / error) ** (1.0 / b))


def cross_validate(
    examples: Sequence[Example],
    start: EnsembleCounter[Any],
    share: float,
    steps: int,
    members: int,
    seed: int,
) -> Share:
    """Five folds: each read by a counter fine-tuned on ``share`` of the other four."""
    beliefs: list[npt.NDArray[np.float64]] = []
    truth: list[int] = []
    sizes: list[int] = []
    tested: list[Example] = []
    folds = [fold_of(e.path.name) for e in examples]
    for k in range(FOLDS):
        test = [e for e, f in zip(examples, folds, strict=True) if f == k]
        train = take_share([e for e, f in zip(examples, folds, strict=True) if f != k], share)
        if not test or not train:
            continue
        counter = start.adapt(
            [e.image for e in train],
            [e.count for e in train],
            steps=steps,
            seed=seed + 10 * k,
            members=members,
            progress=progress_bar(f"share {share:g}, fold {k + 1}/{FOLDS}"),
        )
        beliefs.append(counter.beliefs([e.image for e in test]))
        truth += [e.count for e in test]
        tested += test
        sizes.append(len(train))
    every = np.concatenate(beliefs)
    read = every.argmax(axis=1)
    misread = [
        Misread(e.path, e.count, int(r), float(b[r]), float(b[min(e.count, len(b) - 1)]))
        for e, r, b in zip(tested, read, every, strict=True)
        if r != e.count
    ]
    return Share(
        round(float(np.mean(sizes))),
        score_beliefs(every, np.asarray(truth, np.int64)),
        sorted(misread, key=lambda m: (m.count, m.read, str(m.path))),
    )


def _shares(text: str) -> list[float]:
    try:
        shares = sorted({float(s) for s in text.split(",")})
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of shares: {text!r}") from None
    if not shares or shares[0] <= 0 or shares[-1] > 1:
        raise argparse.ArgumentTypeError("shares lie in (0, 1], for example 0.25,0.5,1")
    return shares


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="learning curve (see the module docstring)")
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
            rows.append(cross_validate(examples, start, share, steps, args.members, args.seed))
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
