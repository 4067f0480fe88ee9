"""Shared rendered scenes for the vision tests (rendered once per test session).

Everything is rendered by :mod:`vision.render.synth` from fixed seeds, so every run
sees the same pictures.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vision.geometry.calibration import Calibration
from vision.learning.calibrate import teach
from vision.render.synth import Camera, Style, Truth, random_style, render_scene


@dataclass
class Board:
    """One board, camera and light, calibrated like a user would (empty + start)."""

    style: Style
    camera: Camera
    calibration: Calibration
    """Corners from the renderer's truth, counter taught on the empty and start views."""
    empty: Any
    start: Any
    truth: Truth

    def frame(self, pits: list[int], seed: int, **kw: Any) -> Any:
        """A new frame of this board holding ``pits`` (fresh seed placement)."""
        img, _ = render_scene(
            pits, self.style, np.random.default_rng(seed), self.camera, markers=True, **kw
        )
        return img


@pytest.fixture(scope="session")
def board() -> Board:
    style = random_style(np.random.default_rng(0))
    camera = Camera.random(np.random.default_rng(50))
    views = []
    truth = None
    for k, pits in enumerate(([0] * 12, [4] * 12)):
        img, truth = render_scene(pits, style, np.random.default_rng(k), camera, markers=True)
        views.append(img)
    assert truth is not None
    corners = tuple((float(x), float(y)) for x, y in truth.corners)
    cal = Calibration(corners, (1280, 720), method="aruco")
    cal = teach(cal, [(views[0], [0] * 12), (views[1], [4] * 12)])
    return Board(style, camera, cal, views[0], views[1], truth)


@pytest.fixture(scope="session", params=[(6, 3), (12, 1)], ids=["6-moves-seed3", "12-moves-seed1"])
def game_dir(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Path:
    """Rendered games (video, calibration views, truth). The 12-move game with seed 1
    caught a referee regression (a seed still in hand read like the next move begun)."""
    from vision.render.synth_game import render_session

    moves, seed = request.param
    out = tmp_path_factory.mktemp("game")
    render_session(out, n_moves=moves, seed=seed)
    return out
