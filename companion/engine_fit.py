"""Positions and their targets for fitting the evaluation (:mod:`core.engine.fitting`).

Positions come from games our engine plays against itself at a small node
budget, from random openings, with now and then a random move so that the
positions are not all the ones the engine likes. Each position sampled is
then searched deeply (a node budget, the endgame databases from the cache
at the leaves); the deep search's score is its target. Targets are appended
to a file as they are found (one JSON line each), so a stopped run resumes
where it stopped and nothing is searched twice.

``python -m bench.engine --fit`` runs it and prints the fitted weights, the
error of the current and the fitted weights on positions held out of the fit,
and the command's settings.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import numpy as np
import numpy.typing as npt

from companion import endgame_store
from companion.progress import Progress
from core import Position
from core.engine.fitting import features, fit_weights, rms_error, target_from_score
from core.engine.kernel import to_relative
from core.engine.search import Searcher


def self_play_positions(
    games: int, nodes: int, seed: int, explore: float = 0.15, every: int = 3
) -> Iterator[Position]:
    """Every ``every``-th position (from the 4th ply on) of ``games`` self-play games."""
    rng = np.random.default_rng(seed)
    searcher = Searcher()
    for _ in range(games):
        p = Position.initial()
        for _ in range(int(rng.integers(2, 7))):
            p = p.play(int(rng.choice(p.legal_moves())))
        ply = 0
        while not p.is_over:
            if ply >= 4 and ply % every == 0:
                yield p
            if rng.random() < explore:
                pit = int(rng.choice(p.legal_moves()))
            else:
                mover = p.to_move
                board = to_relative(p.pits, mover)
                result = searcher.search(
                    board, p.stores[mover], p.stores[1 - mover], nodes=nodes, exact_all=False
                )
                pit = result.best + 6 * mover
            p = p.play(pit)
            ply += 1


@dataclass
class Sample:
    """A position, the terms of its evaluation when it was labelled, and the deep
    search's target."""

    position: str
    terms: list[int]
    target: int
    depth: int


def terms_of(position: Position) -> npt.NDArray[np.int64]:
    """The evaluation's terms of ``position``, from its mover's side."""
    mover = position.to_move
    board = to_relative(position.pits, mover)
    return features(board, position.stores[mover], position.stores[1 - mover])


def label(position: Position, searcher: Searcher, nodes: int) -> Sample:
    """Search ``position`` deeply and make it a sample (the table is cleared first: a
    sample depends on its position alone, so a resumed run finds what one run would)."""
    searcher.clear()
    mover = position.to_move
    board = to_relative(position.pits, mover)
    mine, theirs = position.stores[mover], position.stores[1 - mover]
    result = searcher.search(board, mine, theirs, nodes=nodes, exact_all=False)
    return Sample(
        position.to_text(),
        terms_of(position).tolist(),
        target_from_score(result.scores[result.best]),
        result.depth,
    )


def read_samples(path: Path) -> list[Sample]:
    """The samples a file holds (a line cut short by a crash is left out)."""
    found: list[Sample] = []
    if not path.exists():
        return found
    for line in path.read_text().splitlines():
        try:
            data: dict[str, Any] = json.loads(line)
            found.append(Sample(**data))
        except (ValueError, TypeError):
            continue
    return found


def make_samples(
    path: Path,
    count: int,
    *,
    games_nodes: int = 5_000,
    label_nodes: int = 300_000,
    seed: int = 1,
    stream: TextIO | None = None,
) -> list[Sample]:
    """Make (or finish making) ``count`` samples in ``path``; return them all."""
    have = read_samples(path)
    seen = {s.position for s in have}
    values = endgame_store.load()
    searcher = Searcher(values, endgame_store.database_seeds(values) if values is not None else -1)
    bar = Progress(
        count,
        stream if stream is not None else sys.stderr,
        label="fit",
        unit="positions",
        initial=min(len(have), count),
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    # the positions are drawn again from the same seed: a resumed run skips those it has
    positions = self_play_positions(10 * count, games_nodes, seed)
    with path.open("a") as out:
        while len(have) < count:
            p = next(positions)
            text = p.to_text()
            if text in seen:
                continue
            seen.add(text)
            sample = label(p, searcher, label_nodes)
            out.write(json.dumps(sample.__dict__) + "\n")
            out.flush()
            have.append(sample)
            bar.step(f"depth {sample.depth}")
    bar.close()
    return have


@dataclass
class FitReport:
    """The fitted weights and how close each weighting comes on held-out positions."""

    weights: npt.NDArray[np.int64]
    train: int
    held_out: int
    error_current: float
    error_fitted: float
    mean_depth: float
    every: npt.NDArray[np.int64]
    """The weights fitted on every sample: what a default is made from, once the held-out
    error has shown the terms generalise."""


def fit(
    samples: list[Sample], current: npt.NDArray[np.int64], held_out: float = 0.2, seed: int = 1
) -> FitReport:
    """Fit on a random ``1 - held_out`` of the samples; measure on the rest."""
    # (the terms are reckoned again from each position, so samples written while the
    # evaluation had fewer terms still serve: the deep search's target is what they keep)
    terms = np.array([terms_of(Position.from_text(s.position)) for s in samples], dtype=np.int64)
    targets = np.array([s.target for s in samples], dtype=np.int64)
    order = np.random.default_rng(seed).permutation(len(samples))
    cut = int(len(samples) * (1 - held_out))
    train, test = order[:cut], order[cut:]
    weights = fit_weights(terms[train], targets[train])
    return FitReport(
        weights,
        len(train),
        len(test),
        rms_error(terms[test], targets[test], current),
        rms_error(terms[test], targets[test], weights),
        float(np.mean([s.depth for s in samples])),
        fit_weights(terms, targets),
    )
