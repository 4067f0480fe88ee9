"""The numpy convolutional network and the counter built on it."""

from __future__ import annotations

import json

import numpy as np
import pytest

from vision.counting import counter_from_json
from vision.counting.beliefs import MAX_COUNT
from vision.counting.cnn import NetCounter
from vision.counting.cnn_net import SIDE, Network, jitter, prepare, training_base
from vision.counting.ensemble import (
    FEW_COUNTS,
    FEW_COUNTS_TEMPERATURE,
    FOLDS,
    Holdout,
    rehearsal_pits,
)
from vision.counting.model import softmax
from vision.render.synth import random_style, render_pit


def _loss(net: Network, x: np.ndarray, y: np.ndarray) -> float:
    p = softmax(net.logits(x))
    return float(-np.log(p[np.arange(len(y)), y]).mean())


def test_gradients_match_finite_differences() -> None:
    """Every parameter's analytic gradient against a central difference (float64)."""
    net = Network.initial(classes=5, seed=1)
    for key in net.params:
        net.params[key] = net.params[key].astype(np.float64)  # type: ignore[assignment]
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3, SIDE, SIDE, 3))
    y = np.array([0, 2, 4])
    logits, cache = net._forward(x)  # the gradient is what is tested
    g = softmax(np.asarray(logits, np.float64))
    g[np.arange(3), y] -= 1
    grads = net._backward(g / 3, cache)
    for key, value in net.params.items():
        # the largest gradient entry of each parameter (a zero one would prove nothing)
        idx = np.unravel_index(int(np.argmax(np.abs(grads[key]))), value.shape)
        old = value[idx]
        value[idx] = old + 1e-6
        up = _loss(net, x, y)
        value[idx] = old - 1e-6
        down = _loss(net, x, y)
        value[idx] = old
        numeric = (up - down) / 2e-6
        assert grads[key][idx] == pytest.approx(numeric, rel=1e-3, abs=1e-7), key


def test_training_learns_rendered_counts() -> None:
    """A few hundred steps on rendered pits of one board tell 0, 2 and 5 seeds apart."""
    style = random_style(np.random.default_rng(4))
    rng = np.random.default_rng(5)
    counts = [n for n in (0, 2, 5) for _ in range(12)]
    crops = [render_pit(n, style, rng, size=72) for n in counts]
    net = Network.initial(classes=6, seed=0)
    seen: list[int] = []
    net.train(crops, counts, steps=250, lr=5e-3, progress=lambda s, t: seen.append(s))
    assert seen[-1] == 250
    tests = [n for n in (0, 2, 5) for _ in range(4)]
    x = np.stack([prepare(render_pit(n, style, rng, size=72)) for n in tests])
    pred = net.predict_proba(x).argmax(axis=1)
    assert np.mean(pred == np.array(tests)) >= 0.9


def test_jitter_keeps_wood_at_the_corners_and_the_size() -> None:
    rng = np.random.default_rng(2)
    crop = render_pit(4, random_style(rng), rng, size=90)
    out = jitter(training_base(crop), rng)
    assert out.shape == (SIDE, SIDE, 3) and out.dtype == np.float32
    # the corners are the reference colour: their median is 0 after normalising
    assert abs(float(np.median(out[0:3, 0:3]))) < 0.5


def test_network_refuses_bad_labels_and_foreign_weights() -> None:
    net = Network.initial(classes=3)
    crop = np.full((50, 50, 3), 100, np.uint8)
    with pytest.raises(ValueError, match="beyond"):
        net.train([crop], [7], steps=1)
    with pytest.raises(ValueError, match="as many"):
        net.train([crop], [], steps=1)
    data = net.to_json()
    data["side"] = SIDE + 8
    with pytest.raises(ValueError, match="input size"):
        Network.from_json(data)


def test_builtin_counter_round_trips_and_reads_rendered_pits() -> None:
    counter = NetCounter.builtin()
    rng = np.random.default_rng(21)
    counts = [0, 1, 3, 6, 0, 2]
    crops = [render_pit(n, random_style(rng), rng, size=80) for n in counts]
    beliefs = counter.beliefs(crops)
    assert beliefs.shape == (len(crops), MAX_COUNT + 1)
    assert np.allclose(beliefs.sum(axis=1), 1.0)
    again = counter_from_json(counter.to_json())
    assert np.allclose(again.beliefs(crops), beliefs)
    # rendered pits of unseen styles: mostly right, and never far off
    pred = beliefs.argmax(axis=1)
    assert np.mean(pred == np.array(counts)) >= 0.5
    assert np.all(np.abs(pred - np.array(counts)) <= 2)


def test_a_pile_gets_a_wide_belief_over_high_counts() -> None:
    counter = NetCounter.builtin()
    crops = []
    for seed in range(6):
        rng = np.random.default_rng(seed)
        crops.append(render_pit(20, random_style(rng), rng, size=96))
    beliefs = counter.beliefs(crops)
    assert float(np.median(beliefs[:, 9:].sum(axis=1))) > 0.8  # "many", not a small number
    assert float(beliefs.max()) < 0.6  # and never one exact count


def test_adapting_keeps_the_counts_the_user_did_not_show() -> None:
    """Calibration views give only 0 and 4 seeds; rehearsal keeps 1, 2, 3 … alive."""
    style = random_style(np.random.default_rng(31))
    rng = np.random.default_rng(32)
    counts = [0] * 12 + [4] * 12
    crops = [render_pit(n, style, rng, size=80) for n in counts]
    adapted = NetCounter.builtin().adapt(crops, counts, steps=150, rehearsal=140)
    assert adapted.source == "adapted"
    assert adapted.networks[0].temperature > 0
    tests = [1, 2, 3, 5, 6]
    beliefs = adapted.beliefs([render_pit(n, style, rng, size=80) for n in tests])
    # counts never shown by the user still get most of the belief somewhere near them
    near = [beliefs[i, max(0, n - 1) : n + 2].sum() for i, n in enumerate(tests)]
    assert float(np.mean(near)) > 0.5
    assert not np.all(np.isin(beliefs.argmax(axis=1), [0, 4]))


def test_crops_of_few_counts_cannot_make_the_networks_sure() -> None:
    """Fitted on held-back crops of 0 and 4 seeds alone, a temperature would claim what it
    never checked: it is floored there, and fitted as usual once the crops show more counts."""
    style = random_style(np.random.default_rng(51))
    rng = np.random.default_rng(52)
    few = [0, 4] * 10
    many = [0, 1, 2, 3, 4, 5] * 4
    start = NetCounter.builtin()
    narrow = start.adapt([render_pit(n, style, rng, size=80) for n in few], few, steps=40)
    assert narrow.networks[0].temperature >= FEW_COUNTS_TEMPERATURE
    crops = [render_pit(n, style, rng, size=80) for n in many]
    wide = start.adapt(crops, many, steps=40)
    back = Holdout.of(many, FOLDS - 1, wide.classes).back  # the first member's held-back fifth
    assert len({many[i] for i in back}) >= FEW_COUNTS
    fitted = NetCounter.fit_temperature(
        wide.networks[0], [crops[i] for i in back], [many[i] for i in back]
    )
    assert wide.networks[0].temperature == fitted


def test_an_ensemble_averages_networks_that_each_held_back_another_fifth() -> None:
    style = random_style(np.random.default_rng(41))
    rng = np.random.default_rng(42)
    counts = [0, 1, 2, 3] * 5
    crops = [render_pit(n, style, rng, size=80) for n in counts]
    seen: list[tuple[int, int]] = []
    ensemble = NetCounter.builtin().adapt(
        crops, counts, steps=12, rehearsal=20, members=3, progress=lambda s, t: seen.append((s, t))
    )
    assert len(ensemble.networks) == 3
    # one progress bar over the whole: 3 × 12 steps, never going back
    assert seen[-1] == (36, 36) and [s for s, _t in seen] == sorted(s for s, _t in seen)
    # the members differ (other batches, another held-back fifth) ...
    w = [n.params["w1"] for n in ensemble.networks]
    assert not np.allclose(w[0], w[1]) and not np.allclose(w[1], w[2])
    # ... and the counter's belief is their average, before the usual shaping
    probe = [render_pit(n, style, rng, size=80) for n in (0, 2, 5)]
    singles = [NetCounter([n]).beliefs(probe) for n in ensemble.networks]
    assert np.allclose(ensemble.beliefs(probe), np.mean(singles, axis=0), atol=1e-6)
    again = NetCounter.from_json(json.loads(json.dumps(ensemble.to_json())))
    assert len(again.networks) == 3 and np.allclose(again.beliefs(probe), ensemble.beliefs(probe))
    # the first member is what a one-network fine-tuning gives (same fifth, same batches)
    single = NetCounter.builtin().adapt(crops, counts, steps=12, rehearsal=20)
    assert np.allclose(single.networks[0].params["wd"], ensemble.networks[0].params["wd"])
    with pytest.raises(ValueError):
        NetCounter.builtin().adapt(crops, counts, members=0)
    with pytest.raises(ValueError):
        NetCounter([])


def test_a_counter_file_of_one_network_still_loads() -> None:
    """Calibration files written before ensembles hold ``"network"``, not ``"networks"``."""
    builtin = NetCounter.builtin()
    old = {"kind": "cnn", "source": "adapted", "network": builtin.networks[0].to_json()}
    loaded = NetCounter.from_json(old)
    crop = np.full((60, 60, 3), 120, np.uint8)
    assert len(loaded.networks) == 1
    assert np.allclose(loaded.beliefs([crop]), builtin.beliefs([crop]))


def test_rehearsal_pits_cover_the_missing_counts() -> None:
    crops, labels = rehearsal_pits([1, 2, 13], 30, seed=0)
    assert sorted(set(labels)) == [1, 2, 13] and len(crops) == len(labels) == 30
    assert rehearsal_pits([], 30, seed=0) == ([], [])


def test_adapt_rejects_mismatched_input() -> None:
    counter = NetCounter.builtin()
    with pytest.raises(ValueError):
        counter.adapt([np.zeros((40, 40, 3), np.uint8)], [1, 2])
    with pytest.raises(ValueError):
        counter.adapt([np.zeros((40, 40, 3), np.uint8)], [-1])
