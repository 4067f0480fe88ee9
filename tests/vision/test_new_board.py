"""The new-board protocol's games: the pace of questions, and learning from confirmed positions
(:mod:`vision.evaluation.new_board`)."""

from __future__ import annotations

import importlib
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.counting.head import HeadCounter
from vision.evaluation.dataset import Example
from vision.evaluation.new_board import followed_at_pace, learn_from_games, run_new_board
from vision.evaluation.photo_games import GameResult
from vision.render.synth import random_style, render_pit


def _game(moves: int, asked: int, named_all: bool = True) -> GameResult:
    played = list(range(moves))
    named = played if named_all else played[:-1]
    return GameResult(played, named, ["ambiguous"] * asked, moves + 1, 0, named_all, "waiting")


def test_a_game_is_followed_at_pace_with_one_question_per_25_moves_rounded_up() -> None:
    assert followed_at_pace([_game(24, 1)]) == 1
    assert followed_at_pace([_game(24, 2)]) == 0
    assert followed_at_pace([_game(26, 2)]) == 1
    assert followed_at_pace([_game(26, 0, named_all=False)]) == 0
    assert followed_at_pace([_game(10, 0), _game(10, 1), _game(10, 2)]) == 2


def test_a_counter_sure_and_right_learns_every_photograph_it_shows_with_its_own_count() -> None:
    rng = np.random.default_rng(4)
    style = random_style(rng)
    examples = [
        Example(Path(f"{c}/{k}.png"), c, render_pit(c, style, rng, size=48))
        for c in range(10)
        for k in range(4)
    ]

    def fit(calibration: list[Example]) -> HeadCounter:
        return HeadCounter.fit([e.image for e in calibration], [e.count for e in calibration])

    run = run_new_board(examples, fit, layouts=2, seed=0)
    sure = np.full(run.beliefs.shape, 1e-9)
    sure[np.arange(len(run.truth)), run.truth] = 1.0
    run = replace(run, beliefs=sure / sure.sum(1, keepdims=True))
    learnt = learn_from_games(run, games=2, seed=0)
    assert len(learnt.examples) == len(learnt.labels) == len(learnt.indices) > 12
    assert learnt.wrong == 0 and learnt.skipped == 0
    assert learnt.labels == [e.count for e in learnt.examples]
    assert learnt.examples == [run.split.scored[i] for i in sorted(learnt.indices)]


def test_the_bench_says_so_when_learning_left_too_few_photographs_to_play_or_score(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Four photographs of each count: the games learn from every scored photograph (or all
    of one count), and the bench says what it cannot do instead of raising."""
    rng = np.random.default_rng(1)
    style = random_style(rng)
    for c in range(10):
        (tmp_path / str(c)).mkdir()
        for k in range(4):
            photo = render_pit(c, style, rng, size=48)
            cv2.imwrite(str(tmp_path / str(c) / f"p{c}_{k}.png"), photo)
    bench = importlib.import_module("bench.vision")
    code = bench.main(
        ["--new-board", str(tmp_path), "--counter", "head", "--repeat", "1"]
        + ["--short-games", "2", "--learn-games", "2"]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "learnt from 2 games: " in out
    assert "nothing left to score" in out or "no games played: " in out


@pytest.mark.parametrize("option", ["--members", "--learn-members"])
def test_networks_averaged_are_asked_of_a_network_counter_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str
) -> None:
    """``--members`` (at calibration) and ``--learn-members`` (the refit after the games)
    fine-tune several networks: a counter with none is told so in one line."""
    rng = np.random.default_rng(2)
    style = random_style(rng)
    for c in range(10):
        (tmp_path / str(c)).mkdir()
        cv2.imwrite(str(tmp_path / str(c) / "p.png"), render_pit(c, style, rng, size=48))
    bench = importlib.import_module("bench.vision")
    code = bench.main(["--new-board", str(tmp_path), "--counter", "head", option, "3"])
    assert code == 2
    assert capsys.readouterr().out == f"{option} needs --counter deep or cnn, not head\n"
