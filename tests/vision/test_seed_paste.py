"""Seeds cut from the user's one-seed crops and pasted into new, labelled piles."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from vision.learning.seed_paste import (
    MAX_OVERLAP,
    cut_seed,
    paste_seeds,
    pasted_piles,
    seed_bank,
    seed_mask,
)

REAL = Path("/work/shared/datasets/awale-pits-dev")
WOOD = (40, 100, 170)  # BGR: orange-brown
SEED = (70, 115, 105)  # BGR: olive, less red than the wood
SIDE = 96
SEED_AXES = (9, 7)


def _pit(seeds: list[tuple[int, int]], seed: int = 0) -> Any:
    """A drawn pit crop: wood, a darker bowl, olive seeds at ``seeds``, a little noise."""
    rng = np.random.default_rng(seed)
    img = np.full((SIDE, SIDE, 3), WOOD, np.float32)
    cv2.circle(img, (SIDE // 2, SIDE // 2), 43, tuple(0.85 * c for c in WOOD), -1)
    for x, y in seeds:
        cv2.ellipse(img, (x, y), SEED_AXES, float(rng.uniform(0, 180)), 0, 360, SEED, -1)
    img += rng.normal(0, 2, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


SEED_AREA = np.pi * SEED_AXES[0] * SEED_AXES[1]


def test_the_mask_finds_drawn_seeds_and_not_the_wood() -> None:
    assert seed_mask(_pit([])).sum() < 0.1 * SEED_AREA
    one = seed_mask(_pit([(48, 48)])).sum()
    three = seed_mask(_pit([(40, 40), (60, 45), (48, 62)])).sum()
    assert 0.8 * SEED_AREA < one < 1.2 * SEED_AREA
    assert 2.6 * SEED_AREA < three < 3.4 * SEED_AREA


def test_a_cut_seed_is_the_seed_with_a_soft_edge() -> None:
    cut = cut_seed(_pit([(50, 44)]))
    assert cut is not None
    assert 0.6 * SEED_AREA < cut.alpha.sum() < 1.2 * SEED_AREA
    assert cut.alpha.max() > 0.99 and 0 < cut.alpha[cut.alpha > 0].min() < 0.5
    assert cut.pixels.shape[:2] == cut.alpha.shape
    centre = cut.pixels[cut.alpha > 0.99].mean(axis=0)
    assert np.allclose(centre, SEED, atol=6)  # the seed's colour, not the wood's
    # the light it was cut in: the wood's colour, somewhere between the bowl and the board
    assert np.all(cut.wood > 0.85 * np.array(WOOD) - 4) and np.all(cut.wood < np.array(WOOD) + 4)


def test_what_is_not_one_clean_seed_is_not_cut() -> None:
    assert cut_seed(_pit([])) is None  # nothing there
    two = _pit([])
    for x in (40, 56):  # two seeds touching end to end: too long for one
        cv2.ellipse(two, (x, 48), SEED_AXES, 0, 0, 360, SEED, -1)
    assert cut_seed(two) is None
    big = _pit([])
    cv2.circle(big, (48, 48), 30, SEED, -1)  # a blob far larger than a seed
    assert cut_seed(big) is None


def test_pasting_adds_that_many_seeds_inside_the_bowl() -> None:
    bank = seed_bank([_pit([(48, 48)], seed=k) for k in range(3)], [1, 1, 1])
    assert len(bank) == 3
    base = _pit([(48, 48)], seed=9)
    rng = np.random.default_rng(0)
    for extra in (1, 2, 3):
        pile = paste_seeds(base, bank, extra, rng)
        assert pile is not None and pile.shape == base.shape and pile.dtype == np.uint8
        added = seed_mask(pile).sum() - seed_mask(base).sum()
        # each seed covers at most MAX_OVERLAP of itself with seeds already there
        assert (1 - MAX_OVERLAP - 0.15) * extra * SEED_AREA < added < 1.2 * extra * SEED_AREA
        yy, xx = np.nonzero(seed_mask(pile))
        assert np.hypot(xx - SIDE / 2, yy - SIDE / 2).max() < 0.42 * SIDE
    # outside the pit the picture is untouched
    outside = np.hypot(*np.mgrid[0:SIDE, 0:SIDE] - SIDE / 2) > 0.45 * SIDE
    assert np.array_equal(pile[outside], base[outside])


def test_a_full_pit_refuses_more_seeds() -> None:
    """Where every spot would cover seeds already there, a seed is not placed."""
    from vision.learning.seed_paste import _place

    bank = seed_bank([_pit([(48, 48)])], [1])
    cut = bank[0].alpha
    alpha = np.zeros((max(cut.shape) + 8,) * 2, np.float32)  # square, as a turned seed is
    alpha[: cut.shape[0], : cut.shape[1]] = cut
    rng = np.random.default_rng(0)
    assert _place(np.ones((SIDE, SIDE), np.float32), alpha, rng) is None
    spot = _place(np.zeros((SIDE, SIDE), np.float32), alpha, rng)
    assert spot is not None and all(0 <= v <= SIDE - alpha.shape[0] for v in spot)
    with pytest.raises(ValueError, match="no cut seeds"):
        paste_seeds(_pit([]), [], 1, rng)


def test_pasted_piles_are_labelled_with_the_seeds_they_hold() -> None:
    crops = [_pit([(48, 48)], seed=k) for k in range(4)] + [_pit([], seed=5), _pit([], seed=6)]
    counts = [1, 1, 1, 1, 0, 0]
    piles, labels = pasted_piles(crops, counts, total=30, seed=3, top=4)
    assert len(piles) == len(labels) == 30
    assert set(labels) <= {1, 2, 3, 4} and len(set(labels)) >= 3
    # a label is the base's count and what was pasted: at least one seed more than a base
    areas = [seed_mask(p).sum() / SEED_AREA for p in piles]
    for area, n in zip(areas, labels, strict=True):
        assert (1 - MAX_OVERLAP - 0.2) * n < area < 1.25 * n
    again, _ = pasted_piles(crops, counts, total=30, seed=3, top=4)
    assert all(np.array_equal(a, b) for a, b in zip(piles, again, strict=True))
    # by default no pile is taller than the user's tallest
    three = _pit([(40, 40), (60, 45), (48, 62)])
    assert max(pasted_piles([*crops, three], [*counts, 3], total=20, seed=0)[1]) == 3


def test_nothing_to_cut_means_nothing_pasted() -> None:
    crops = [_pit([]), _pit([(40, 40), (60, 45), (48, 62)])]
    assert pasted_piles(crops, [0, 3], total=10, seed=0) == ([], [])  # no crop of one seed
    assert pasted_piles([_pit([(48, 48)])], [1], total=0, seed=0) == ([], [])
    with pytest.raises(ValueError, match="as many counts"):
        pasted_piles(crops, [0], total=10, seed=0)


@pytest.mark.skipif(not REAL.is_dir(), reason=f"real pit photographs not present at {REAL}")
def test_real_one_seed_photographs_give_clean_seeds() -> None:
    from vision.evaluation.dataset import load_folder

    train = load_folder(REAL, "train")
    ones = [e.image for e in train if e.count == 1]
    bank = seed_bank(ones, [1] * len(ones))
    assert len(bank) >= 0.9 * len(ones)
    # the mask grows with the count while the seeds lie side by side
    area = {
        n: float(np.median([seed_mask(e.image).mean() for e in train if e.count == n]))
        for n in range(1, 7)
    }
    assert all(area[n] < area[n + 1] for n in range(1, 6)), area
    assert 1.6 < area[2] / area[1] < 2.4, area
