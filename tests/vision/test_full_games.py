"""vision.evaluation.full_games: full games at playing pace, shown as photographs' beliefs."""

from __future__ import annotations

import random

import numpy as np
import pytest

from core import Position
from core.referee.evaluation import Score
from core.referee.playthrough import random_full_game
from vision.evaluation.full_games import (
    counter_beliefs,
    full_games,
    report_lines,
    widen,
    within_pace,
)

CLASSES = 49


def sure_beliefs(
    read_as: dict[int, int] | None = None, top: int = 9
) -> tuple[np.ndarray, np.ndarray]:
    """Three 'photographs' of each count 0 … top, each read with near certainty (as ``read_as``)."""
    truth = np.repeat(np.arange(top + 1), 3)
    beliefs = np.full((len(truth), CLASSES), 1e-9)
    read = [(read_as or {}).get(int(c), int(c)) for c in truth]
    beliefs[np.arange(len(truth)), read] = 1.0
    return beliefs / beliefs.sum(1, keepdims=True), truth


def test_a_counter_right_about_every_photograph_follows_full_games_without_a_question() -> None:
    beliefs, truth = sure_beliefs()
    results = full_games(beliefs, truth, 2, seed=1000)
    for g, s in enumerate(results):
        # game g is the referee benchmark's clean game of seed 1000 + g, played to its end
        moves = random_full_game(Position.initial(), random.Random(1000 + g))
        assert s.moves == len(moves) > 20
        assert s.followed and s.wrong_moves == 0
        assert s.questions == 0 and s.false_alerts == 0
        assert within_pace(s)
    assert sum(within_pace(s) for s in results) == 2


def test_a_counter_that_reads_every_pile_as_empty_does_not_follow_the_games() -> None:
    beliefs, truth = sure_beliefs({c: 0 for c in range(10)})
    results = full_games(beliefs, truth, 1, seed=1000)
    assert not results[0].followed
    assert not within_pace(results[0])
    assert "games followed move for move: 0/1" in report_lines(results)[0]


def test_the_pace_allows_one_question_per_25_moves_rounded_up() -> None:
    assert within_pace(Score(24, followed=True, questions=1))
    assert not within_pace(Score(24, followed=True, questions=2))
    assert within_pace(Score(100, followed=True, questions=4))
    assert not within_pace(Score(100, followed=True, questions=5))
    assert not within_pace(Score(100, followed=False, questions=0))


def test_a_pile_taller_than_any_photograph_is_read_wider_the_taller_it_is() -> None:
    beliefs, truth = sure_beliefs()
    rng = random.Random(0)
    shifted = counter_beliefs(beliefs, truth, "shifted")
    widened = counter_beliefs(beliefs, truth, "widened")
    for count in (10, 14, 25):
        sharp = np.asarray(shifted.draw(count, rng))
        wide = np.asarray(widened.draw(count, rng))
        assert int(np.argmax(sharp)) == count and sharp[count] > 0.99
        assert wide.sum() == pytest.approx(1.0)
        # the truth is covered, and as many counts either way as the pile is above nine
        above = count - 9
        held = np.flatnonzero(wide > 1e-6)
        assert held.min() == count - above and held.max() == count + above
        assert wide[count] < 1 / (2 * above)
    # a pile within the photographs is read as its photograph is
    assert int(np.argmax(widened.draw(7, rng))) == 7


def test_widening_keeps_the_belief_whole_and_never_below_zero_seeds() -> None:
    out = widen((0.5, 0.5), 3)
    assert sum(out) == pytest.approx(1.0)
    assert len(out) == 5 and all(p > 0 for p in out[:5])


def test_games_need_photographs_of_every_count_up_to_the_start_position() -> None:
    beliefs, truth = sure_beliefs(top=3)
    with pytest.raises(ValueError, match="every count from 0 to 4; none of 4 seeds"):
        full_games(beliefs, truth, 1)
    beliefs, truth = sure_beliefs()
    keep = truth != 2
    with pytest.raises(ValueError, match="every count from 0 to 9; none of 2 seeds"):
        counter_beliefs(beliefs[keep], truth[keep])
    with pytest.raises(ValueError, match="every count from 0 to 4; none of 0, 1, 2, 3, 4 seeds"):
        counter_beliefs(beliefs[:0], truth[:0])
    with pytest.raises(ValueError, match="widened or shifted"):
        counter_beliefs(beliefs, truth, "sharp")
