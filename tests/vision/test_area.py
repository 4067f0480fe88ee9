"""The classic counter: area against the empty pit, beliefs that widen for piles."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision.conftest import Board
from vision.capture.pipeline import counter_for
from vision.counting.area import AreaCounter, AreaModel, count_blobs, reference_map
from vision.counting.beliefs import credible_set


def _entropy(p: np.ndarray) -> float:
    q = p[p > 0]
    return float(-(q * np.log(q)).sum())


def test_belief_widens_with_the_pile() -> None:
    model = AreaModel(unit=0.07, capacity=0.8, s0=0.015, s1=0.005)
    small = model.belief(float(model.mean(np.array([2.0]))[0]))
    pile = model.belief(float(model.mean(np.array([20.0]))[0]))
    assert int(np.argmax(small)) == 2 and small[2] > 0.9
    assert _entropy(pile) > _entropy(small) + 1.0
    assert len(credible_set(pile)) >= 5  # "somewhere around 20", not "exactly 20"
    assert abs(small.sum() - 1) < 1e-9 and abs(pile.sum() - 1) < 1e-9


def test_fit_recovers_the_curve() -> None:
    truth = AreaModel(unit=0.06, capacity=0.7, s0=0.01, s1=0.004)
    rng = np.random.default_rng(0)
    counts = np.repeat(np.arange(0, 21), 6)  # up to piles: the capacity is then measurable
    areas = truth.mean(counts.astype(float)) + rng.normal(0, 0.01, counts.size)
    fitted = AreaModel.fit(areas.tolist(), counts.tolist())
    assert abs(fitted.unit - 0.06) < 0.01
    assert abs(fitted.capacity - 0.7) < 0.1
    # Two views only (empty and start): unit from the 4-seed pits.
    two = AreaModel.fit([0.0] * 12 + [0.24] * 12, [0] * 12 + [4] * 12)
    assert abs(float(two.mean(np.array([4.0]))[0]) - 0.24) < 0.01


def test_counts_on_rendered_frames_are_within_the_reported_confidence(board: Board) -> None:
    counter = counter_for(board.calibration)
    assert isinstance(counter, AreaCounter)
    inside = exact_small = small = total = 0
    for seed in range(3):
        pits = np.random.default_rng(100 + seed).integers(0, 9, 12).tolist()
        frame = board.frame(pits, seed=200 + seed)
        crops = board.calibration.pit_crops(board.calibration.rectify(frame))
        beliefs = counter.beliefs(crops, list(range(12)))
        for pit, n in enumerate(pits):
            total += 1
            inside += n in credible_set(beliefs[pit], 0.95)
            if n <= 3:
                small += 1
                exact_small += int(np.argmax(beliefs[pit])) == n
    assert inside / total >= 0.9
    assert exact_small / small >= 0.9


def test_blobs_count_separate_seeds(board: Board) -> None:
    counter = counter_for(board.calibration)
    assert isinstance(counter, AreaCounter) and counter.empty is not None
    frame = board.frame([0, 1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0], seed=7)
    crops = board.calibration.pit_crops(board.calibration.rectify(frame))
    blobs = [
        count_blobs(reference_map(crops[p], counter.empty[p]), counter.model.unit) for p in range(4)
    ]
    assert blobs[0] == 0 and blobs[1] == 1
    assert blobs[2] in (1, 2) and blobs[3] in (2, 3, 4)


def test_needs_a_reference() -> None:
    with pytest.raises(ValueError, match="references or a colour model"):
        AreaCounter().beliefs([np.zeros((64, 64, 3), np.uint8)])


def test_json_round_trip(board: Board) -> None:
    counter = counter_for(board.calibration)
    assert isinstance(counter, AreaCounter)
    again = AreaCounter.from_json(counter.to_json())
    frame = board.frame([3] * 12, seed=9)
    crops = board.calibration.pit_crops(board.calibration.rectify(frame))
    a = counter.beliefs(crops, list(range(12)))
    b = again.beliefs(crops, list(range(12)))
    assert np.allclose(a, b, atol=1e-9)  # lossless: the same beliefs after a save and load
