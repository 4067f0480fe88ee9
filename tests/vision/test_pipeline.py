"""Frames to observations: nulls under hands, stable only when still, honest vectors."""

from __future__ import annotations

import numpy as np

from core.observation import Observation
from tests.vision.conftest import Board
from vision.capture.pipeline import BoardReader, belief_to_reading, counter_for


def test_reading_is_trimmed_and_normalised() -> None:
    b = np.zeros(49)
    b[:3] = [0.1, 0.6, 0.3]
    b[40] = 1e-9
    r = belief_to_reading(b)
    assert isinstance(r, tuple) and len(r) == 3
    assert abs(sum(r) - 1) < 1e-5


def test_still_board_then_a_hand(board: Board) -> None:
    reader = BoardReader(board.calibration, counter_for(board.calibration))
    pits = [4, 4, 4, 1, 4, 4, 4, 4, 4, 4, 2, 4]
    still = board.frame(pits, seed=31, noise=0.0)
    observations = [reader.process(still, t=k / 30) for k in range(8)]
    last = observations[-1]
    assert not observations[0].stable and last.stable
    assert all(isinstance(r, tuple) for r in last.pits)
    # The JSON form is a valid Observation (what the session log stores).
    parsed = Observation.from_json(last.to_json(), pits=12)
    assert parsed.stable
    counts = [int(np.argmax(r)) for r in last.pits]  # type: ignore[arg-type]
    assert counts[3] == 1 and counts[10] == 2
    # A hand reaches for pit 3: its reading becomes null and the board is not stable.
    hand = board.frame(pits, seed=31, noise=0.0, hand=(3 * 64 + 32, 64 + 32))
    obs = reader.process(hand, t=1.0)
    assert obs.pits[3] is None
    assert not obs.stable
    assert any(r is not None for r in obs.pits)  # the far side is still read


def test_a_nudged_board_is_found_again(board: Board) -> None:
    """Markers make the board easy to re-find: after a nudge the reader follows it."""
    from vision.geometry.locate import corner_error
    from vision.render.synth import Camera, render_scene

    reader = BoardReader(board.calibration, counter_for(board.calibration), relocate_every=1.0)
    pits = [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3]
    before = board.frame(pits, seed=41, noise=0.0)
    for k in range(6):
        reader.process(before, t=k * 0.1)
    moved = Camera(tuple((x + 30.0, y + 12.0) for x, y in board.camera.corners))
    after, truth = render_scene(
        pits, board.style, np.random.default_rng(41), moved, markers=True, noise=0.0
    )
    last = None
    for k in range(30):
        last = reader.process(after, t=1.0 + k * 0.1)
    assert reader.calibration.method == "aruco"
    assert corner_error(reader.calibration, truth.corners) < 4.0
    assert last is not None and last.stable
    counts = [int(np.argmax(r)) for r in last.pits]  # type: ignore[arg-type]
    assert counts[:4] == [0, 1, 2, 3]
