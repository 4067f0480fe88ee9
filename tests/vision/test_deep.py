"""The deeper counting network: numpy inference, PyTorch training, the counter on top."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from vision.counting import counter_from_json
from vision.counting.beliefs import MAX_COUNT
from vision.counting.deep import DeepCounter
from vision.counting.deep_net import SIDE, DeepNetwork, prepare_deep
from vision.learning.deep_train import export, fit, jitter_deep, load_into, twin_logits
from vision.render.synth import random_style, render_pit


def _rendered(counts: list[int], seed: int, size: int = 80) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    style = random_style(rng)
    return [render_pit(n, style, rng, size=size) for n in counts]


def test_the_numpy_network_computes_what_pytorch_trained() -> None:
    """Batch normalisation folded into the convolutions gives the twin's logits."""
    counts = [0, 1, 2, 3] * 4
    crops = _rendered(counts, 1)
    module = fit(crops, counts, classes=4, steps=8, seed=0)
    network = export(module, 16)
    ref = twin_logits(module, crops)
    assert np.abs(network.logits(prepare_deep(crops)) - ref).max() < 1e-3
    assert np.abs(ref).max() > 1e-2  # a network that outputs nothing would prove nothing


def test_a_stored_network_loads_back_into_pytorch_exactly() -> None:
    """Fine-tuning must start from the stored network, not from something like it."""
    network = DeepCounter.builtin().networks[0]
    from vision.learning.deep_train import _module

    module = _module(network.classes, network.width)
    load_into(module, network)
    module.eval()
    crops = _rendered([0, 2, 5], 2)
    assert np.abs(twin_logits(module, crops) - network.logits(prepare_deep(crops))).max() < 1e-3


def test_json_round_trip_and_foreign_weights_refused() -> None:
    network = DeepNetwork.initial(classes=5, width=4, seed=3)
    network.temperature = 1.7
    again = DeepNetwork.from_json(json.loads(json.dumps(network.to_json())))
    x = prepare_deep(_rendered([0, 3], 4))
    assert np.allclose(again.predict_proba(x), network.predict_proba(x))
    bad = network.to_json() | {"side": SIDE + 8}
    with pytest.raises(ValueError, match="input size"):
        DeepNetwork.from_json(bad)
    with pytest.raises(ValueError, match="not a deep"):
        DeepNetwork.from_json({"kind": "cnn"})


def test_jitter_keeps_the_size_and_wood_at_the_corners() -> None:
    crop = _rendered([3], 5)[0]
    x = jitter_deep(crop, np.random.default_rng(0))
    assert x.shape == (SIDE, SIDE, 3)
    corners = np.concatenate([x[:3, :3].reshape(-1, 3), x[-3:, -3:].reshape(-1, 3)])
    assert float(np.abs(np.median(corners, axis=0)).max()) < 0.5  # near the wood reference


def test_builtin_counter_round_trips_and_reads_rendered_pits() -> None:
    counter = DeepCounter.builtin()
    counts = [0, 1, 3, 6, 0, 2]
    crops = _rendered(counts, 21)
    beliefs = counter.beliefs(crops)
    assert beliefs.shape == (len(crops), MAX_COUNT + 1)
    assert np.allclose(beliefs.sum(axis=1), 1.0)
    again = counter_from_json(counter.to_json())
    assert isinstance(again, DeepCounter)
    assert np.allclose(again.beliefs(crops), beliefs)
    pred = beliefs.argmax(axis=1)
    assert np.mean(pred == np.array(counts)) >= 0.5
    assert np.all(np.abs(pred - np.array(counts)) <= 2)


def test_a_pile_gets_a_wide_belief_over_high_counts() -> None:
    crops = [_rendered([20], seed, size=96)[0] for seed in range(6)]
    beliefs = DeepCounter.builtin().beliefs(crops)
    assert float(np.median(beliefs[:, 9:].sum(axis=1))) > 0.8
    assert float(beliefs.max()) < 0.6


def test_adapting_learns_the_users_board_and_keeps_other_counts() -> None:
    """Calibration views give only 0 and 4 seeds; rendered rehearsal keeps 1, 2, 3 … alive."""
    counts = [0] * 12 + [4] * 12
    crops = _rendered(counts, 32)
    adapted = DeepCounter.builtin().adapt(crops, counts, steps=60, rehearsal=140, members=2)
    assert adapted.source == "adapted"
    assert len(adapted.networks) == 2
    assert all(n.temperature > 0 for n in adapted.networks)
    shown = adapted.beliefs(_rendered([0, 4, 0, 4], 32))
    assert np.mean(shown.argmax(axis=1) == np.array([0, 4, 0, 4])) >= 0.75
    tests = [1, 2, 3, 5, 6]
    beliefs = adapted.beliefs(_rendered(tests, 32))
    near = [beliefs[i, max(0, n - 1) : n + 2].sum() for i, n in enumerate(tests)]
    assert float(np.mean(near)) > 0.4
    assert not np.all(np.isin(beliefs.argmax(axis=1), [0, 4]))
    again = counter_from_json(json.loads(json.dumps(adapted.to_json())))
    assert np.allclose(again.beliefs(crops[:3]), adapted.beliefs(crops[:3]))


def test_bad_training_input_is_refused() -> None:
    crops = _rendered([0, 1], 6)
    with pytest.raises(ValueError, match="as many counts"):
        fit(crops, [0], classes=3, steps=1)
    with pytest.raises(ValueError, match="0 … 2"):
        fit(crops, [0, 5], classes=3, steps=1)
    with pytest.raises(ValueError, match="at least one"):
        DeepCounter.builtin().adapt([], [])


def test_the_game_teaches_a_deep_counter() -> None:
    """Confirmed positions refit a deep counter in place (it used to fall to the feature model)."""
    import torch

    from vision.learning.calibrate import PositionLearner

    threads = torch.get_num_threads()
    counter = DeepCounter.builtin()
    learner = PositionLearner(counter, net_steps=20)
    pits = [0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5]
    refit = learner.add(_rendered(pits, 41), pits)
    assert isinstance(refit, DeepCounter)
    assert refit.source == "adapted"
    assert len(refit.networks) == len(counter.networks)
    assert learner.examples == 12
    assert learner.learnt == 12  # what the camera panel says it learnt from
    assert torch.get_num_threads() == threads  # the refit trained on one, then gave them back
    # Each refit starts from the last one: the weights moved.
    before, after = counter.networks[0].convs[0].weight, refit.networks[0].convs[0].weight
    assert not np.allclose(before, after)


def test_without_pytorch_a_deep_counter_counts_but_does_not_learn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A calibration made where PyTorch is installed must still work where it is not."""
    import vision.learning.deep_train
    from vision.learning.calibrate import PositionLearner

    monkeypatch.setattr(vision.learning.deep_train, "torch_available", lambda: False)
    counter = DeepCounter.builtin()
    assert not counter.can_adapt()
    pits = [0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5]
    crops = _rendered(pits, 41)
    assert counter.beliefs(crops).shape == (12, MAX_COUNT + 1)
    learner = PositionLearner(counter, net_steps=20)
    assert learner.add(crops, pits) is None
    assert learner.counter is counter


def test_views_average_the_turned_and_mirrored_crop() -> None:
    """Eight views equal the mean of the one-view beliefs of the eight turned crops."""
    from vision.counting.beliefs import shape_beliefs

    one = DeepCounter.builtin()
    assert one.view_count == 1  # the default: eight views cost eight times the time
    counter = one.with_views(8)
    crops = _rendered([2, 5, 7], 12, size=SIDE)
    turned = [v for c in crops for q in (c, c[:, ::-1]) for v in (np.rot90(q, k) for k in range(4))]
    raw = np.mean([n.predict_proba(prepare_deep(turned)) for n in counter.networks], axis=0)
    by_crop = raw.reshape(len(crops), 8, -1).mean(axis=1)
    assert np.allclose(counter.beliefs(crops), shape_beliefs(by_crop), atol=1e-5)
    assert not np.allclose(counter.beliefs(crops), one.beliefs(crops), atol=1e-3)
    # A pit turned by a quarter reads the same with every view averaged.
    quarter = [np.ascontiguousarray(np.rot90(c)) for c in crops]
    assert np.allclose(counter.beliefs(quarter), counter.beliefs(crops), atol=1e-5)
    # Stored, and kept by adapting; bad values refused.
    again = counter_from_json(json.loads(json.dumps(counter.with_views(4).to_json())))
    assert isinstance(again, DeepCounter) and again.view_count == 4
    with pytest.raises(ValueError, match="views"):
        counter.with_views(3)


def test_training_threads_are_limited_inside_and_restored_after() -> None:
    import torch

    from vision.counting.ensemble import training_threads

    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        with training_threads(1):
            assert torch.get_num_threads() == 1
        assert torch.get_num_threads() == 2
        with pytest.raises(RuntimeError), training_threads(1):
            raise RuntimeError("a failed refit")
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)  # the tests after this one train with the usual threads


def test_extra_pools_fill_their_share_of_every_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rehearsal and pasted piles take the share they are given; the labelled crops the rest."""
    import vision.learning.deep_train as deep_train

    drawn: list[int] = []
    real_jitter = deep_train.jitter_deep

    def record(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        drawn.append(int(crop[0, 0, 0]))  # each pool's crops are marked by their first pixel
        return real_jitter(crop, rng)

    monkeypatch.setattr(deep_train, "jitter_deep", record)

    def marked(value: int, n: int) -> list[np.ndarray]:
        crops = _rendered([1] * n, value, size=32)
        for crop in crops:
            crop[0, 0, 0] = value
        return crops

    own, rehearsal, pasted = marked(10, 6), marked(20, 6), marked(30, 6)
    fit(own, [1] * 6, 3, steps=10, extras=((rehearsal, [2] * 6, 0.2), (pasted, [2] * 6, 0.5)))
    shares = {v: drawn.count(v) / len(drawn) for v in (10, 20, 30)}
    assert len(drawn) == 640
    assert abs(shares[20] - 0.2) < 0.06 and abs(shares[30] - 0.5) < 0.06, shares
    assert abs(shares[10] - 0.3) < 0.06, shares
    drawn.clear()
    fit(own, [1] * 6, 3, steps=2, extras=(([], [], 0.4), (pasted, [2] * 6, 0.0)))
    assert set(drawn) == {10}  # an empty pool, or one with no share, is never drawn


def test_extra_pools_are_checked() -> None:
    crops = _rendered([0, 1], 6)
    with pytest.raises(ValueError, match="no room"):
        fit(crops, [0, 1], 3, steps=1, extras=((crops, [0, 1], 0.6), (crops, [0, 1], 0.4)))
    with pytest.raises(ValueError, match="every pool"):
        fit(crops, [0, 1], 3, steps=1, extras=((crops, [0], 0.3),))
    with pytest.raises(ValueError, match="0 … 2"):
        fit(crops, [0, 1], 3, steps=1, extras=((crops, [0, 7], 0.3),))


def test_fine_tuning_pastes_piles_from_the_crops_each_member_keeps(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Pasted piles come only from a member's own crops: a held-back crop must not leak in."""
    import vision.counting.ensemble as ensemble
    from vision.counting.cnn import NetCounter
    from vision.counting.deep import PASTED
    from vision.counting.ensemble import Holdout, TrainingSet

    asked: list[tuple[list[int], int]] = []
    real = ensemble.pasted_piles

    def spy(crops, counts, total, seed):  # type: ignore[no-untyped-def]
        asked.append(([id(c) for c in crops], total))
        return real(crops, counts, total, seed)

    monkeypatch.setattr(ensemble, "pasted_piles", spy)
    seen: list[TrainingSet] = []

    def keep_data(self: DeepCounter, start: DeepNetwork, data: TrainingSet, *_: object) -> Any:
        seen.append(data)  # what the member would have been fine-tuned on
        return start

    monkeypatch.setattr(DeepCounter, "_fine_tune_one", keep_data)
    counts = [1, 2, 3, 0] * 5
    crops = _rendered(counts, 4)
    DeepCounter.builtin().adapt(crops, counts, members=2)
    for k, (data, (ids, total)) in enumerate(zip(seen, asked, strict=True)):
        part = Holdout.of(counts, (4 - k) % 5, DeepCounter.builtin().classes)
        assert ids == [id(crops[i]) for i in part.keep] and total == PASTED
        assert len(data.pasted_crops) == len(data.pasted_counts) > 0  # rendered seeds cut too
        assert set(data.pasted_counts) <= {1, 2, 3}  # never above the tallest pile shown
    # the small network does not draw pasted piles: none are made for it
    asked.clear()
    monkeypatch.setattr(NetCounter, "_fine_tune_one", lambda self, start, data, *a: start)
    NetCounter.builtin().adapt(crops, counts, members=1)
    assert [total for _, total in asked] == [0]
