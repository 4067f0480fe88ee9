"""The new-board protocol (``python -m bench.vision --new-board DIR``): its figures, printed.

What is drawn and scored is :mod:`vision.evaluation.new_board`; this module prints the
figures, plays the goal's full games (:mod:`vision.evaluation.full_games`; with
``--short-games`` the short ones of :mod:`vision.evaluation.photo_games` too) and, with
``--learn-games K``, lets the counter learn from the positions the referee confirmed in K
games, then scores again on the photographs it did not learn from. ``--members K``
fine-tunes K networks of the deep or small counter and averages them, in place of the one
the calibration makes; ``--learn-members K`` refits on the games' photos as K networks
(``train-counter`` makes five).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from vision.capture.pipeline import settle_counter
from vision.counting import counter_kind
from vision.counting.beliefs import PitCounter
from vision.evaluation.belief_scores import score_beliefs
from vision.evaluation.dataset import Example, load_folder
from vision.evaluation.full_games import ANSWER_SECONDS, full_games, within_pace
from vision.evaluation.full_games import report_lines as full_report_lines
from vision.evaluation.new_board import (
    QUESTIONS_PER,
    followed_at_pace,
    learn_from_games,
    run_new_board,
)
from vision.evaluation.photo_games import photo_games, report_lines
from vision.image_types import Image

Floats = npt.NDArray[np.float64]

FULL_GAMES_SEED = 1000
"""The full games are the referee benchmark's clean games from this seed on, whatever the
draw of the calibration photographs: every draw is scored on the same games."""


def _goal(value: float, goal: float) -> str:
    return "met" if value >= goal else f"NOT met by {goal - value:.1%}"


def print_scores(beliefs: Floats, truth: npt.NDArray[np.int64], goals: tuple[float, float]) -> None:
    """Per count and overall; ``goals`` are the exact-accuracy goals for 0-5 and 0-9."""
    print("count   n   exact   within-1   in-95%-set")
    for c in sorted(set(truth.tolist())):
        m = truth == c
        one = score_beliefs(beliefs[m], truth[m])
        row = f"{one.exact:5.1%}    {one.within_one:5.1%}     {one.coverage:5.1%}"
        print(f"{c:5d} {m.sum():3d}   {row}")
    s = score_beliefs(beliefs, truth)
    low, every = goals
    print(f"exact 0-9: {s.exact:.1%} (goal {every:.0%})   0-5: {s.exact_low:.1%} (goal {low:.0%})")
    print(f"within one seed: {s.within_one:.1%}")
    print(f"mean log-likelihood of the true count: {s.log_likelihood:.3f}")
    print(f"true count inside the 95% set: {s.coverage:.1%} (mean set size {s.set_size:.2f})")
    print(
        f"goals: 0-5 >= {low:.0%}: {_goal(s.exact_low, low)}; 0-9 >= {every:.0%}: "
        f"{_goal(s.exact, every)}; coverage >= 95%: {_goal(s.coverage, 0.95)}"
    )


def play_short(beliefs: Floats, truth: npt.NDArray[np.int64], games: int, seed: int) -> bool:
    """The short photo games (:mod:`vision.evaluation.photo_games`: piles of at most the
    counts photographed, every board still 3 s), nobody answering, then a person answering.
    False if the photographs lack a count the games need (said in one line)."""
    for answer in (False, True):
        print(
            "-- short games, a person counts the pits the referee asks about"
            if answer
            else "-- short games, nobody answers"
        )
        try:
            results = photo_games(beliefs, truth, games, seed=seed, answer=answer)
        except ValueError as exc:  # the photographs lack a count a game needs
            print(f"no games played: {exc}")
            return False
        print("\n".join(report_lines(results)))
        ok = followed_at_pace(results)
        print(
            f"games followed with at most one question per {QUESTIONS_PER} moves: "
            f"{ok}/{len(results)} = {ok / max(1, len(results)):.0%}"
        )
    return True


def play_full(
    beliefs: Floats, truth: npt.NDArray[np.int64], games: int, jobs: int = 1, tall: str = "widened"
) -> bool:
    """The goal's games (:mod:`vision.evaluation.full_games`): full games at the referee
    benchmark's pace, piles of any size, nobody answering, then a person answering. False
    if the photographs lack a count the games need (said in one line)."""
    for answer in (None, ANSWER_SECONDS):
        print(
            f"-- full games, a person counts the pits the referee asks about ({answer:.0f} s"
            " after it asks)"
            if answer is not None
            else "-- full games, nobody answers"
        )
        print(
            f"   (the referee benchmark's games of seeds {FULL_GAMES_SEED} to"
            f" {FULL_GAMES_SEED + games - 1}; piles above {int(truth.max())} seeds {tall})"
        )
        try:
            results = full_games(
                beliefs, truth, games, seed=FULL_GAMES_SEED, answer=answer, tall=tall, jobs=jobs
            )
        except ValueError as exc:  # the photographs lack a count a game needs
            print(f"no games played: {exc}")
            return False
        print("\n".join(full_report_lines(results)))
        if answer is not None:
            ok = sum(within_pace(r) for r in results)
            print(f"goal: 95% of full games within that pace: {_goal(ok / max(1, games), 0.95)}")
    return True


def ensemble_fitter(
    kind: str, members: int, option: str = "--members"
) -> Callable[[Sequence[Image], Sequence[int]], PitCounter]:
    """The calibration's fine-tuning of a network counter, with ``members`` networks."""
    if kind == "deep":
        from vision.counting.deep import DeepCounter

        return lambda crops, counts: DeepCounter.builtin().adapt(crops, counts, members=members)
    if kind == "cnn":
        from vision.counting.cnn import NetCounter

        return lambda crops, counts: NetCounter.builtin().adapt(crops, counts, members=members)
    raise ValueError(f"{option} needs --counter deep or cnn, not {kind}")


def bench_new_board(
    folder: Path,
    kind: str,
    layouts: int,
    photos: int,
    games: int,
    learn_games: int,
    seed: int,
    repeat: int,
    save_beliefs: Path | None = None,
    members: int | None = None,
    short_games: int = 0,
    jobs: int = 1,
    tall: str = "widened",
    learn_members: int | None = None,
) -> int:
    """All the protocol's figures for one folder. ``save_beliefs``: keep the beliefs of the
    scored photographs (arrays ``beliefs`` and ``labels``) for ``bench.referee_games
    --photos``. ``learn_members``: the refit after the games fine-tunes that many networks
    (``train-counter``'s default is five), else it fits as the calibration did."""
    examples = load_folder(folder)
    if not examples:
        print(f"no images in {folder}: it should hold <count>/<image>.png")
        return 1
    fitter = counter_kind(kind).calibrate
    try:
        if members is not None:
            fitter = ensemble_fitter(kind, members)
        refitter = fitter
        if learn_members is not None:
            refitter = ensemble_fitter(kind, learn_members, "--learn-members")
    except ValueError as exc:
        print(exc)
        return 2

    def fit(calibration: list[Example]) -> PitCounter:
        return fitter([e.image for e in calibration], [e.count for e in calibration])

    run = run_new_board(examples, fit, layouts=layouts, photos=photos, seed=seed)
    cal = run.split.calibration
    per = {c: sum(e.count == c for e in cal) for c in sorted({e.count for e in cal})}
    print(
        f"new board: {folder} ({len(examples)} photographs); counter '{kind}'"
        f"{'' if members is None else f', {members} networks averaged'}\n"
        f"calibration: empty board, start position and {layouts} layout(s), {photos} photo(s)"
        f" each: {len(cal)} pit photographs ({', '.join(f'{c}: {n}' for c, n in per.items())})"
        f", fitted in {run.fit_seconds:.1f} s\nscored on the other {len(run.split.scored)}"
    )
    print_scores(run.beliefs, run.truth, (0.97, 0.92))
    if save_beliefs is not None:
        np.savez(save_beliefs, beliefs=run.beliefs, labels=run.truth)
        print(f"beliefs of the {len(run.truth)} scored photographs saved to {save_beliefs}")
    crops = [e.image for e in run.split.scored]
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run.counter.beliefs(crops)
        times.append(time.perf_counter() - start)
    rate = len(crops) / statistics.median(times)
    print(
        f"pit images per second on one core (median of {repeat}): {rate:.0f}"
        f" = {rate / 12:.1f} boards per second (goal 30 frames of 12 pits: {30 * 12} pits/s)"
    )
    settled = settle_counter(run.counter)
    if settled is not run.counter:  # the scores above: each board as it settles, in more views
        start = time.perf_counter()
        settled.beliefs(crops)
        took = time.perf_counter() - start
        print(
            f"  as a board settles (once a move), {len(crops) / took:.0f} pit images per second"
            f" in {getattr(settled, 'view_count', 1)} views: a board of 12 pits in"
            f" {12 * took / len(crops) * 1000:.0f} ms"
        )
    if games:
        play_full(run.beliefs, run.truth, games, jobs, tall)
    if short_games:
        play_short(run.beliefs, run.truth, short_games, seed)
    if learn_games:
        learnt = learn_from_games(run, learn_games, seed)
        print(
            f"learnt from {learn_games} games: {len(learnt.labels)} different pit photographs"
            f" labelled by confirmed positions ({learnt.wrong} wrongly),"
            f" {learnt.skipped} positions left out as contradicted"
        )
        images, labels = learnt.examples, learnt.labels
        start = time.perf_counter()
        learner = refitter(
            [e.image for e in cal] + [e.image for e in images],
            [e.count for e in cal] + labels,
        )
        took = time.perf_counter() - start
        rest = [i for i in range(len(run.split.scored)) if i not in learnt.indices]
        beliefs = settle_counter(learner).beliefs([run.split.scored[i].image for i in rest])
        truth = run.truth[rest]
        nets = "" if learn_members is None else f" as {learn_members} networks"
        print(
            f"-- after learning from {learn_games} games (refitted{nets} in {took:.1f} s), scored"
            f" on the {len(rest)} photographs it did not learn from"
        )
        if not rest:
            print("nothing left to score: it learnt from every scored photograph")
            return 0
        print_scores(beliefs, truth, (0.99, 0.95))
        if games:
            play_full(beliefs, truth, games, jobs, tall)
        if short_games:
            play_short(beliefs, truth, short_games, seed)
    return 0
