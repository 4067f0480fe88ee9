"""The learned counter: honest belief shaping, the built-in model, adaptation."""

from __future__ import annotations

import numpy as np

from vision.counting import counter_from_json
from vision.counting.beliefs import MAX_COUNT, credible_set, shape_beliefs
from vision.counting.mlp import Counter
from vision.counting.model import MLP, fit_temperature
from vision.render.synth import random_style, render_pit


def test_top_class_is_spread_over_higher_counts() -> None:
    b = shape_beliefs(np.array([[0.0] * 9 + [1.0]]))[0]
    assert b.shape == (MAX_COUNT + 1,)
    assert abs(b.sum() - 1) < 1e-9
    assert b[9] > b[10] > b[12] > b[20] > 0  # "9 or more", decreasing
    assert b[9] < 0.7
    exact = shape_beliefs(np.array([[0.0, 1.0, 0.0, 0.0]]))[0]
    assert exact[1] > 0.9 and exact[0] > 0 and exact[2] > 0  # neighbours never ruled out


def test_credible_set_is_the_smallest_holding_the_mass() -> None:
    b = np.array([0.05, 0.6, 0.3, 0.05])
    assert credible_set(b, 0.5) == [1]
    assert credible_set(b, 0.85) == [1, 2]
    assert credible_set(b, 0.95) == [0, 1, 2] or credible_set(b, 0.95) == [1, 2, 3]


def test_temperature_widens_an_overconfident_model() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 2))
    y = (x[:, 0] + rng.normal(0, 1.0, 400) > 0).astype(int)  # noisy labels
    model = MLP.fit(x[:200], y[:200], classes=2, hidden=16, steps=400, l2=0.0)
    assert fit_temperature(model, x[200:], y[200:]) > 1.0


def test_builtin_model_gives_valid_beliefs() -> None:
    counter = Counter.builtin()
    rng = np.random.default_rng(3)
    crops = [render_pit(n, random_style(rng), rng) for n in (0, 2, 5)]
    beliefs = counter.beliefs(crops)
    assert beliefs.shape == (3, MAX_COUNT + 1)
    assert np.allclose(beliefs.sum(axis=1), 1.0)
    again = counter_from_json(counter.to_json())
    assert np.allclose(again.beliefs(crops), beliefs)


def test_adapting_to_one_board_beats_the_generic_model() -> None:
    """A user's labelled pits (one style) teach the counter that board."""
    style = random_style(np.random.default_rng(11))
    rng = np.random.default_rng(12)
    train_counts = [n for n in range(7) for _ in range(5)]
    train = [render_pit(n, style, rng) for n in train_counts]
    test_counts = [n for n in range(7) for _ in range(3)]
    test = [render_pit(n, style, rng) for n in test_counts]
    base = Counter.builtin()
    adapted = base.adapt(train, train_counts)
    truth = np.array(test_counts)
    acc_base = float(np.mean(base.beliefs(test).argmax(1) == truth))
    acc_adapted = float(np.mean(adapted.beliefs(test).argmax(1) == truth))
    within = float(np.mean(np.abs(adapted.beliefs(test).argmax(1) - truth) <= 1))
    assert acc_adapted > acc_base
    assert within >= 0.8
    assert adapted.source == "adapted"
