"""The renderer: deterministic, labelled, with hands and whole-game videos."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.render.synth import (
    _seed_positions,
    random_style,
    render_game,
    render_pit,
    render_scene,
)


def test_same_seed_same_picture() -> None:
    a = render_pit(5, random_style(np.random.default_rng(1)), np.random.default_rng(2))
    b = render_pit(5, random_style(np.random.default_rng(1)), np.random.default_rng(2))
    c = render_pit(5, random_style(np.random.default_rng(1)), np.random.default_rng(3))
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)


def test_every_seed_is_placed_inside_the_pit_and_piles_form() -> None:
    rng = np.random.default_rng(0)
    for count in (0, 1, 4, 12, 30):
        spots = _seed_positions(count, radius=20.0, seed_r=4.0, rng=rng)
        assert len(spots) == count
        assert all(x * x + y * y <= 20.0**2 for x, y, _layer in spots)
    layers = {layer for _x, _y, layer in _seed_positions(30, 20.0, 4.0, rng)}
    assert max(layers) >= 1  # 30 seeds do not fit side by side: they pile


def test_more_seeds_cover_more_of_the_pit() -> None:
    style = random_style(np.random.default_rng(4))
    empty = render_pit(0, style, np.random.default_rng(0), jitter=0).astype(int)
    diffs = [
        float(np.abs(render_pit(n, style, np.random.default_rng(0), jitter=0) - empty).mean())
        for n in (1, 3, 6)
    ]
    assert diffs[0] < diffs[1] < diffs[2]


def test_hand_marks_the_pits_it_covers() -> None:
    rng = np.random.default_rng(8)
    style = random_style(rng)
    target = (3 * 64 + 32, 64 + 32)  # fingertip on pit 3 (South row, fourth pit)
    frame, truth = render_scene([2] * 12, style, rng, hand=target)
    assert 3 in truth.covered
    assert len(truth.covered) < 12
    _bare, bare_truth = render_scene([2] * 12, style, np.random.default_rng(8))
    assert bare_truth.covered == set()
    assert frame.shape == (720, 1280, 3)


def test_game_video_has_the_announced_frames(tmp_path: Path) -> None:
    positions = [[4] * 12, [4, 4, 0, 5, 5, 5, 5, 4, 4, 4, 4, 4]]
    path = tmp_path / "g.avi"
    n = render_game(positions, [2], path, seed=1, still_frames=3, size=(320, 180))
    cap = cv2.VideoCapture(str(path))
    read = 0
    while cap.read()[0]:
        read += 1
    cap.release()
    # start still + lift + 4 sowing frames + still + final rest
    assert n == 3 + 1 + 4 + 3 + 3
    assert read == n
