"""Finding the board: ArUco markers (robust) and the pit grid (no markers)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.geometry.locate import corner_error, find_board, find_grid, find_markers
from vision.render.synth import Camera, random_style, render_scene


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_markers_give_the_corners_to_a_few_pixels(seed: int) -> None:
    rng = np.random.default_rng(seed)
    frame, truth = render_scene(rng.integers(0, 10, 12), random_style(rng), rng, markers=True)
    quad = find_markers(frame)
    assert quad is not None
    assert corner_error(quad, truth.corners) < 4.0
    cal = find_board(frame)
    assert cal is not None and cal.method == "aruco"


def test_markers_give_the_orientation_even_upside_down() -> None:
    """Seen from North's side the image is rotated 180°: the ids still name the corners."""
    rng = np.random.default_rng(5)
    frame, truth = render_scene([1] * 12, random_style(rng), rng, markers=True)
    turned = np.ascontiguousarray(frame[::-1, ::-1])
    quad = find_markers(turned)
    assert quad is not None
    h, w = frame.shape[:2]
    expected = np.array([[w - 1 - x, h - 1 - y] for x, y in truth.corners], np.float32)
    assert corner_error(quad, expected) < 4.0


@pytest.mark.parametrize("seed", [3, 7])
def test_grid_of_pits_without_markers(seed: int) -> None:
    """A plain board seen from South, slightly oblique: corners within 15% of a cell.

    (Measured: 8-18 px for a 127 px cell. The marker-free finder is the less precise one.)
    """
    rng = np.random.default_rng(seed)
    style = random_style(np.random.default_rng(seed + 1000))
    frame, truth = render_scene(rng.integers(0, 6, 12), style, rng, Camera.centred(), blur=0.6)
    quad = find_grid(frame)
    assert quad is not None
    cell = float(np.linalg.norm(truth.corners[1] - truth.corners[0])) / 6
    assert corner_error(quad, truth.corners) < 0.15 * cell


def test_nothing_found_on_a_blank_frame() -> None:
    blank = np.full((720, 1280, 3), 90, np.uint8)
    assert find_markers(blank) is None
    assert find_board(blank) is None
