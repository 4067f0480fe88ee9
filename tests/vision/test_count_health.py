"""vision.capture.count_health: when the camera's counts are too unsure for the referee
to follow."""

from __future__ import annotations

import pytest

from core.observation import Observation, PitReading
from vision.capture.count_health import (
    BOARDS,
    NEAR_SHARE,
    CountHealth,
    board_is_unsure,
    median_near,
    near_share,
)


def spread(counts: int, first: int = 0) -> tuple[float, ...]:
    """A belief spread evenly over ``counts`` counts, starting at ``first``."""
    return (0.0,) * first + (1 / counts,) * counts


def peaked(count: int) -> tuple[float, ...]:
    """A sure belief: 96 % on ``count``, the rest on the next one."""
    return (0.0,) * count + (0.96, 0.04)


def obs(pits: list[PitReading], t: float = 0.0, stable: bool = True) -> Observation:
    return Observation(t=t, source="camera", stable=stable, pits=tuple(pits))


@pytest.mark.parametrize(
    ("reading", "share"),
    [
        (3, 1.0),
        (None, None),
        (peaked(2), 1.0),
        ((0.5, 0.3, 0.2), 1.0),
        ((0.1, 0.1, 0.5, 0.1, 0.2), 0.8),  # 0.1 + 0.5 + 0.1 round the likeliest is less
        ((0.45, 0.0, 0.0, 0.0, 0.55), 0.55),  # two far-apart guesses: one seed tells neither
        ((0.6,), 1.0),
        ((2.0, 2.0, 4.0), 1.0),  # not normalised: shares count
        (spread(13), 3 / 13),
    ],
)
def test_the_share_within_one_seed(reading: PitReading, share: float | None) -> None:
    assert near_share(reading) == (None if share is None else pytest.approx(share))


def test_a_board_is_judged_by_its_median_pit() -> None:
    assert board_is_unsure([peaked(k % 5) for k in range(12)]) is False
    assert board_is_unsure([spread(13, k % 5) for k in range(12)]) is True
    # Two tall piles honestly widen; the board is still sure.
    assert board_is_unsure([spread(9, 14), spread(9, 16)] + [peaked(1)] * 10) is False
    # Seven vague pits of twelve: most of the board is unsure; five are not most.
    assert board_is_unsure([spread(5)] * 7 + [peaked(0)] * 5) is True
    assert board_is_unsure([spread(5)] * 5 + [peaked(0)] * 7) is False
    # A pit known within one seed at exactly the threshold is not vague.
    side = (1 - NEAR_SHARE) / 2
    exactly = (side, 0.0, 0.0, NEAR_SHARE, 0.0, 0.0, side)
    assert near_share(exactly) == pytest.approx(NEAR_SHARE)
    assert board_is_unsure([exactly] * 12) is False
    # Exact counts (a sensor, or a person's count) hold all of it.
    assert median_near([4] * 12) == 1.0


def test_too_few_pits_seen_give_no_verdict() -> None:
    assert board_is_unsure([spread(13)] * 5 + [None] * 7) is None
    assert board_is_unsure([spread(13)] * 6 + [None] * 6) is True


def wide_board(k: int) -> Observation:
    return obs([spread(13 + k % 2, k % 3)] * 12, t=k)


def sure_board(k: int) -> Observation:
    return obs([peaked((k + p) % 5) for p in range(12)], t=k)


def test_the_state_turns_after_boards_in_a_row_and_says_so_once() -> None:
    health = CountHealth()
    turns = [health.judge(wide_board(k)) for k in range(BOARDS + 3)]
    assert turns == [None] * (BOARDS - 1) + [True] + [None] * 3
    assert health.unsure and health.last_median == pytest.approx(3 / (13 + (BOARDS + 2) % 2))
    words = health.words()
    assert "cannot count the seeds surely" in words and "within one seed" in words
    assert "'oware-companion calibrate'" in words and "train-counter" in words
    back = [health.judge(sure_board(k)) for k in range(BOARDS)]
    assert back == [None] * (BOARDS - 1) + [False]
    assert not health.unsure and "sure enough again" in health.words()


def test_one_odd_board_neither_raises_nor_clears_the_state() -> None:
    health = CountHealth()
    boards = [wide_board(0), wide_board(1), sure_board(2)] + [wide_board(k) for k in (3, 4)]
    assert [health.judge(b) for b in boards] == [None] * 5
    assert not health.unsure  # the sure board broke the run of unsure ones
    assert health.judge(wide_board(5)) is True


def test_only_settled_new_readings_count() -> None:
    health = CountHealth()
    moving = [obs(list(wide_board(k).pits), t=k, stable=False) for k in range(5)]
    assert [health.judge(b) for b in moving] == [None] * 5
    same = wide_board(0)
    assert [health.judge(same) for _ in range(5)] == [None] * 5  # one board, repeated
    hidden = obs([spread(13)] * 3 + [None] * 9)
    assert health.judge(hidden) is None  # hands over most pits: no verdict
    assert health.judge(wide_board(1)) is None and health.judge(wide_board(2)) is True
