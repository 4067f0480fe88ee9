"""Fitting the evaluation's weights: the terms, the targets, the least squares, the samples
file that survives a stopped run, and the bench's figures."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from companion import endgame_store
from companion.engine_fit import fit, make_samples, read_samples
from core import Position
from core.engine.evaluation import DEFAULT_WEIGHTS, WIN, evaluate
from core.engine.fitting import CLIP, FEATURES, features, fit_weights, rms_error, target_from_score
from core.engine.kernel import flip_into, play_into, to_relative

ROOT = Path(__file__).resolve().parents[2]


def random_boards(count: int, seed: int = 3) -> list[tuple[np.ndarray, int, int]]:
    """Mover-relative boards of random games, with their stores."""
    rng = np.random.default_rng(seed)
    found: list[tuple[np.ndarray, int, int]] = []
    while len(found) < count:
        p = Position.initial()
        for _ in range(int(rng.integers(0, 60))):
            if p.is_over:
                break
            p = p.play(int(rng.choice(p.legal_moves())))
        mover = p.to_move
        board = to_relative(p.pits, mover)
        found.append((board, p.stores[mover], p.stores[1 - mover]))
    return found


def test_the_terms_weighted_are_the_evaluation() -> None:
    rng = np.random.default_rng(5)
    for board, mine, theirs in random_boards(300):
        weights = rng.integers(-50, 150, size=len(FEATURES)).astype(np.int64)
        assert int(features(board, mine, theirs) @ weights) == evaluate(
            board, mine, theirs, weights
        )


def test_the_threat_terms_are_the_best_capture_each_side_has_now() -> None:
    # (the evaluation reckons a sowing without playing it: checked against the kernel)
    scratch = np.empty(12, dtype=np.int8)
    flipped = np.empty(12, dtype=np.int8)
    seen = set()
    for board, mine, theirs in random_boards(400, seed=8):
        flip_into(board, flipped)
        best = [
            max((play_into(b, i, scratch) for i in range(6) if b[i] > 0), default=0)
            for b in (board, flipped)
        ]
        terms = features(board, mine, theirs)
        assert terms[FEATURES.index("threat")] == best[0]
        assert terms[FEATURES.index("threatened")] == -best[1]
        seen.add(best[0] > 0)
    assert seen == {True, False}  # (boards with and without a capture to make)


def test_a_lap_and_a_grand_slam_are_reckoned_as_the_rules_play_them() -> None:
    # South's 17 seeds in F lap the board (F itself skipped), the last one on f: every
    # North pit gets two, a three. All of North's seeds would go: a grand slam, no capture.
    board = np.array([0, 0, 0, 0, 0, 17, 1, 0, 0, 0, 0, 0], dtype=np.int8)
    scratch = np.empty(12, dtype=np.int8)
    threat = FEATURES.index("threat")
    assert features(board, 10, 10)[threat] == 0 == play_into(board, 5, scratch)
    board[6] = 2  # a holds four after the lap: the chain stops there, f to b are taken
    assert features(board, 10, 10)[threat] == 10 == play_into(board, 5, scratch)
    assert features(board, 10, 10)[FEATURES.index("reach")] == 12  # two on each North pit


def test_targets_are_margins_for_known_results_and_scores_otherwise() -> None:
    assert target_from_score(WIN + 500) == 500
    assert target_from_score(-WIN - 300) == -300
    assert target_from_score(-137) == -137


def test_least_squares_finds_the_weights_that_made_the_targets() -> None:
    boards = random_boards(400)
    terms = np.array([features(b, m, t) for b, m, t in boards])
    made_by = np.array([100, 30, -20, 7, 60, 40, 25, -15])
    targets = terms @ made_by
    keep = np.abs(targets) < CLIP  # no clipping in this test
    terms, targets = terms[keep], targets[keep]
    assert fit_weights(terms, targets).tolist() == made_by.tolist()
    assert rms_error(terms, targets, made_by) == 0.0
    assert rms_error(terms, targets, DEFAULT_WEIGHTS) > 0.1


def test_clipped_targets_do_not_pull_the_weights() -> None:
    boards = random_boards(400)
    terms = np.array([features(b, m, t) for b, m, t in boards])
    made_by = np.array([100, 30, -20, 7, 60, 40, 25, -15])
    targets = terms @ made_by
    keep = np.abs(targets) < CLIP
    terms, targets = terms[keep], targets[keep]
    targets[:5] = 50 * CLIP  # a few huge wins, as deep searches find them
    fitted = fit_weights(terms, targets)
    rest = terms[:, 1:].astype(float)
    unclipped, *_ = np.linalg.lstsq(rest, targets - 100.0 * terms[:, 0], rcond=None)
    assert np.abs(fitted - made_by).sum() < np.abs(unclipped - made_by[1:]).sum() / 3


def test_samples_are_appended_and_a_stopped_run_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(endgame_store.CACHE_ENV, str(tmp_path / "cache"))  # no databases
    where = tmp_path / "samples.jsonl"
    small = {"games_nodes": 300, "label_nodes": 3_000, "seed": 4, "stream": io.StringIO()}
    first = make_samples(where, 4, **small)  # type: ignore[arg-type]
    assert len(first) == 4 and len(read_samples(where)) == 4
    with where.open("a") as f:
        f.write('{"position": "4-4-4')  # a line cut short by a crash
    more = make_samples(where, 7, **small)  # type: ignore[arg-type]
    assert [s.position for s in more[:4]] == [s.position for s in first]
    assert len({s.position for s in more}) == 7
    # a run made in one go gives the same samples
    again = make_samples(tmp_path / "again.jsonl", 7, **small)  # type: ignore[arg-type]
    assert [(s.position, s.target) for s in again] == [(s.position, s.target) for s in more]
    for s in more:
        p = Position.from_text(s.position)
        mover = p.to_move
        board = to_relative(p.pits, mover)
        assert s.terms == features(board, p.stores[mover], p.stores[1 - mover]).tolist()
    report = fit(more, DEFAULT_WEIGHTS, held_out=0.3)
    assert report.train + report.held_out == 7 and report.weights[0] == 100


def test_the_bench_prints_the_fitted_weights(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), endgame_store.CACHE_ENV: str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-m", "bench.engine", "--fit", "--samples", "12"]
        + ["--label-nodes", "2000", "--seed", "2"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    lines = out.stdout.splitlines()
    current = f"fit: current {DEFAULT_WEIGHTS.tolist()}: error "
    assert any(line.startswith(current) for line in lines)
    assert any(line.startswith("fit: fitted  [100, ") for line in lines)
    assert "no endgame databases" in out.stdout
    assert "12/12 positions" in out.stderr
    assert len(read_samples(tmp_path / "fit" / "samples-seed2-nodes2000.jsonl")) == 12
