"""Weight → count model, stability detector and the observation builder, on synthetic readings."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.observation import Observation, most_likely, probability
from firmware_bridge.observer import ObservationBuilder
from firmware_bridge.protocol import CHANNELS, Reading
from firmware_bridge.weights import (
    Calibration,
    CountModel,
    StabilityDetector,
    learn_seed_weight,
    tare_from_samples,
)

CAL = Calibration(seed_mean_g=2.4, seed_sd_g=0.15, noise_g=0.03)


def test_calibration_round_trip_and_validation(tmp_path: Path) -> None:
    cal = Calibration(tare_g=[0.1] * CHANNELS, seed_mean_g=2.2, seed_sd_g=0.2, noise_g=0.04)
    path = tmp_path / "sub" / "cal.json"
    cal.save(path)
    assert Calibration.load(path) == cal
    bad = cal.to_json() | {"tare_g": [0.0] * 3}
    with pytest.raises(ValueError, match="14 tare"):
        Calibration.from_json(bad)
    with pytest.raises(ValueError, match="not an oware-scale-calibration"):
        Calibration.from_json({"format": "x"})
    with pytest.raises(ValueError, match="positive"):
        Calibration.from_json(cal.to_json() | {"seed_mean_g": 0})


def test_learn_seed_weight_from_the_start_position() -> None:
    rng = np.random.default_rng(1)
    seeds = rng.normal(2.4, 0.2, size=(12, 4))
    mean, sd = learn_seed_weight(seeds.sum(axis=1).tolist(), 4, 0.03)
    assert mean == pytest.approx(seeds.mean(), abs=1e-9)
    assert 0.05 < sd < 0.5
    # Identical pits: the spread is floored, never zero.
    assert learn_seed_weight([9.6] * 12)[1] == pytest.approx(0.03 * 2.4)
    with pytest.raises(ValueError, match="weigh nothing"):
        learn_seed_weight([0.0] * 12)


def test_tare_from_samples() -> None:
    rng = np.random.default_rng(2)
    samples = rng.normal(0.0, 0.05, size=(200, CHANNELS)) + np.arange(CHANNELS)
    tare, noise = tare_from_samples(samples)
    assert tare == pytest.approx(list(range(CHANNELS)), abs=0.02)
    assert noise == pytest.approx(0.05, rel=0.2)


@pytest.mark.parametrize("count", [0, 1, 4, 11, 24])
def test_exact_weights_give_their_count(count: int) -> None:
    vec = CountModel(CAL).probabilities([count * 2.4] * CHANNELS)[0]
    assert most_likely(vec) == count
    assert probability(vec, count) > 0.5
    assert math.isclose(sum(vec), 1.0, abs_tol=1e-9)


def test_a_weight_between_two_counts_is_split_between_them() -> None:
    vec = CountModel(CAL).probabilities([4.5 * 2.4] + [0.0] * 13)[0]
    assert probability(vec, 4) > 0.2 and probability(vec, 5) > 0.2
    assert probability(vec, 4) + probability(vec, 5) > 0.95


# (no deadline: it checks agreement, not speed, and a loaded CI machine once took 255 ms)
@settings(deadline=None)
@given(st.lists(st.floats(-3.0, 130.0), min_size=CHANNELS, max_size=CHANNELS))
def test_fast_most_likely_matches_the_full_argmax(grams: list[float]) -> None:
    model = CountModel(CAL)
    full = [most_likely(v) for v in model.probabilities(grams)]
    assert model.most_likely(grams) == full
    for v in model.probabilities(grams):
        assert math.isclose(sum(v), 1.0, abs_tol=1e-9)
        assert all(p >= 0 for p in v)
        Observation.from_json({"t": 0, "source": "t", "stable": True, "pits": [list(v)]})


def test_stability_needs_a_quiet_window() -> None:
    det = StabilityDetector(CAL, rate_hz=80)
    still = np.full(CHANNELS, 9.6)
    results = [det.push(still).all() for _ in range(det.window)]
    assert not any(results[:-1]) and results[-1]
    stepped = still.copy()
    stepped[3] += 2.4  # a seed lands on pit D
    flags = [det.push(stepped) for _ in range(det.window)]
    assert not any(f[3] for f in flags[:-1]) and flags[-1][3]
    assert all(f[0] for f in flags)  # the other pits stayed stable throughout


def reading(i: int, grams: list[float], stale: int = 0) -> Reading:
    return Reading(i, 0, tuple(round(g * 1000) for g in grams), stale)


def test_builder_emits_on_changes_and_hides_moving_pits() -> None:
    b = ObservationBuilder(CAL, 80, "test", heartbeat_s=1.0)
    start = [9.6] * 12 + [0.0, 0.0]
    out: list[Observation] = []
    i = 0

    def feed(grams: list[float], n: int) -> None:
        nonlocal i
        for _ in range(n):
            i += 1
            o = b.push(reading(i, grams), i / 80)
            if o is not None:
                out.append(o)

    feed(start, 40)
    assert out[-1].stable and [most_likely(p) for p in out[-1].pits] == [4] * 12
    n_stable = len(out)
    feed(start, 40)  # nothing changes: no new observation within the heartbeat
    assert len(out) == n_stable
    pressed = list(start)
    for k in range(10):  # a hand presses on pit C, wobbling
        pressed[2] = 9.6 + 100 + 10 * (k % 2)
        feed(pressed, 2)
    lifted = list(start)
    lifted[2] = 0.0
    feed(lifted, 5)
    moving = [o for o in out[n_stable:] if not o.stable]
    assert moving and all(o.pits[2] is None for o in moving)
    assert all(o.pits[0] is not None for o in moving)
    feed(lifted, 40)
    assert out[-1].stable and most_likely(out[-1].pits[2]) == 0
    assert any(o.lifted == 2 for o in out)
    feed(lifted, 100)  # the heartbeat: one more observation in 1.25 s of calm
    assert out[-1].t - out[-2].t >= 1.0


def test_a_stale_channel_is_unseen_but_does_not_block_stability() -> None:
    b = ObservationBuilder(CAL, 80)
    grams = [9.6] * 12 + [0.0, 0.0]
    obs = [b.push(reading(i, grams, stale=1 << 7), i / 80) for i in range(1, 40)]
    last = [o for o in obs if o is not None][-1]
    assert last.stable
    assert last.pits[7] is None
    assert all(last.pits[k] is not None for k in range(12) if k != 7)


def test_auto_zero_follows_slow_drift_on_empty_pits() -> None:
    b = ObservationBuilder(CAL, 80)
    grams = [0.0] * 14
    for i in range(1, 4000):  # 50 s of a slow 0.6 g creep on an empty pit
        grams[5] = 0.6 * i / 4000
        b.push(reading(i, grams), i / 80)
    assert b.latest_grams is not None
    assert abs(b.latest_grams[5]) < 0.2


def test_a_hand_held_still_on_a_pit_is_not_a_pile_of_seeds() -> None:
    """150 g resting on pit C for a second: more than all 48 seeds, so a hand, not a count."""
    b = ObservationBuilder(CAL, 80)
    grams = [9.6] * 12 + [0.0, 0.0]
    grams[2] = 9.6 + 150.0
    obs = [b.push(reading(i, grams), i / 80) for i in range(1, 81)]
    emitted = [o for o in obs if o is not None]
    assert emitted and all(not o.stable and o.pits[2] is None for o in emitted)
