"""The calibration's layouts: what the user is asked to lay out, and the check of a photo."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from vision.counting.deep import DeepCounter
from vision.learning.layouts import (
    EMPTY,
    LAYOUTS,
    SEEDS,
    START,
    calibration_layouts,
    check_layout,
    crops_per_count,
    layout_picture,
    spread_layout,
)
from vision.render.synth import random_style, render_pit


def test_layouts_use_every_seed_and_show_every_count_0_to_9() -> None:
    for layout in LAYOUTS:
        assert sum(layout.pits) == SEEDS
        assert set(range(10)) <= set(layout.pits)


def test_each_layout_puts_another_count_in_every_pit_than_the_one_before() -> None:
    for first, second in itertools.pairwise(LAYOUTS):
        assert all(a != b for a, b in zip(first.pits, second.pits, strict=True))
    # and over the four, every count 0-9 in at least four pits
    pits_of = {
        c: {i for lay in LAYOUTS for i, n in enumerate(lay.pits) if n == c} for c in range(10)
    }
    assert len(LAYOUTS) == 4 and min(len(p) for p in pits_of.values()) == 4


def test_the_calibration_asks_empty_start_then_layouts() -> None:
    asked = calibration_layouts(2)
    assert asked[:2] == [EMPTY, START]
    per = crops_per_count(asked)
    assert per[0] == 12 + 2 and per[4] == 12 + 2 and per[9] == 2


def test_only_twelve_pit_boards_have_layouts() -> None:
    with pytest.raises(ValueError, match="12-pit"):
        spread_layout(0, pits=14)


def _read_board(pits: tuple[int, ...], seed: int) -> np.ndarray:
    """The built-in counter's beliefs on a rendered board holding ``pits``."""
    rng = np.random.default_rng(seed)
    style = random_style(rng)
    crops = [render_pit(n, style, rng, size=80) for n in pits]
    return DeepCounter.builtin().beliefs(crops)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_counter_accepts_the_asked_layout(seed: int) -> None:
    for layout in LAYOUTS:
        check = check_layout(_read_board(layout.pits, seed), layout)
        assert check.accepted, check
        assert "accepted" in check.words(layout)


@pytest.mark.parametrize("seed", [0, 1])
def test_the_counter_refuses_a_layout_turned_the_wrong_way(seed: int) -> None:
    # The user laid the first layout again instead of turning it by one pit.
    check = check_layout(_read_board(LAYOUTS[0].pits, seed), LAYOUTS[1])
    assert not check.accepted
    assert check.likeliest == "turned by 11 pits"
    assert "take the photo again" in check.words(LAYOUTS[1])


def test_a_flat_belief_is_not_accepted() -> None:
    flat = np.full((12, 49), 1 / 49)
    check = check_layout(flat, LAYOUTS[0])
    assert not check.accepted and check.margin == pytest.approx(0.0)


def test_the_picture_names_every_pit() -> None:
    img = layout_picture(LAYOUTS[1])
    assert img.dtype == np.uint8 and img.shape[1] == 6 * 120
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 10  # pits, seeds and words drawn
