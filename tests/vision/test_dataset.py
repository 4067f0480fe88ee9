"""Labelled folders, the deterministic held-out split, and figures on the real photos."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.counting.beliefs import credible_set
from vision.counting.cnn import NetCounter
from vision.counting.ensemble import FEW_COUNTS_TEMPERATURE
from vision.counting.mlp import Counter
from vision.evaluation.dataset import is_held_out, load_folder, per_count_subset
from vision.learning.calibrate import PositionLearner
from vision.render.synth import random_style, render_pit

REAL = Path("/work/shared/datasets/awale-pits-dev")


def test_split_is_deterministic_and_about_forty_percent() -> None:
    names = [f"img{k:04d}.png" for k in range(2000)]
    held = [is_held_out(n) for n in names]
    assert held == [is_held_out(n) for n in names]
    assert 0.35 < sum(held) / len(held) < 0.45
    assert is_held_out("a/b/x.png") == is_held_out("x.png")  # the file name alone decides


def test_load_folder_and_subsets(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    for count in range(4):
        (tmp_path / str(count)).mkdir()
        for k in range(10):
            img = render_pit(count, random_style(rng), rng)
            cv2.imwrite(str(tmp_path / str(count) / f"{count}_{k}.png"), img)
    (tmp_path / "notes").mkdir()  # ignored: not a count
    everything = load_folder(tmp_path)
    assert len(everything) == 40
    held, train = load_folder(tmp_path, "held_out"), load_folder(tmp_path, "train")
    assert len(held) + len(train) == 40
    assert not {e.path.name for e in held} & {e.path.name for e in train}
    few = per_count_subset(everything, 3)
    assert sorted(e.count for e in few) == [0] * 3 + [1] * 3 + [2] * 3 + [3] * 3
    with pytest.raises(FileNotFoundError):
        load_folder(tmp_path / "missing")


@pytest.mark.slow
@pytest.mark.skipif(not REAL.is_dir(), reason=f"real pit photographs not present at {REAL}")
def test_adapted_counter_on_held_out_real_photos() -> None:
    """Adapted on the training split only; judged on the held-out split.

    The thresholds are the measured level (see python -m bench.vision), not the issue's
    goals, which this counter does not reach on real photos yet.
    """
    train = load_folder(REAL, "train")
    held = load_folder(REAL, "held_out")
    counter = Counter.builtin().adapt([e.image for e in train], [e.count for e in train])
    beliefs = counter.beliefs([e.image for e in held])
    truth = np.array([e.count for e in held])
    pred = beliefs.argmax(axis=1)
    assert float(np.mean(np.abs(pred - truth) <= 1)) >= 0.9
    assert float(np.mean(pred == truth)) >= 0.6
    coverage = np.mean([t in credible_set(b, 0.95) for b, t in zip(beliefs, truth, strict=True)])
    assert coverage >= 0.95


@pytest.mark.slow
@pytest.mark.skipif(not REAL.is_dir(), reason=f"real pit photographs not present at {REAL}")
def test_a_counter_calibrated_on_two_counts_still_learns_from_the_game() -> None:
    """The calibration step shows only 0 and 4 seeds. Fine-tuned on those real photographs,
    a network reads a 5-seed pit as 4, sure of it; learning from the game refuses a position
    the counter gives less than 1 %, so it would never learn 5. Its temperature is floored
    (vision.counting.ensemble.FEW_COUNTS_TEMPERATURE): the position after a first move is taken."""
    train = load_folder(REAL, "train")
    held = load_folder(REAL, "held_out")
    calibration = [e for e in train if e.count in (0, 4)]
    counter = NetCounter.builtin().adapt(
        [e.image for e in calibration], [e.count for e in calibration], steps=200
    )
    assert counter.networks[0].temperature >= FEW_COUNTS_TEMPERATURE
    by_count: dict[int, list[np.ndarray]] = {}
    for e in held:
        by_count.setdefault(e.count, []).append(e.image)
    after_a_move = [4, 4, 5, 5, 5, 5, 4, 4, 4, 4, 4, 0]
    crops = [by_count[c][i % len(by_count[c])] for i, c in enumerate(after_a_move)]
    assert PositionLearner(counter, net_steps=5).add(crops, after_a_move) is not None
