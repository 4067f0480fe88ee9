"""Calibration files: JSON round trip, readable errors, rectification and pit crops."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.vision.conftest import Board
from vision.geometry.calibration import Calibration, CalibrationError, parse_corners
from vision.render.synth import render_scene


def test_round_trip_through_a_file(tmp_path: Path, board: Board) -> None:
    path = tmp_path / "cal.json"
    board.calibration.save(path)
    again = Calibration.load(path)
    assert np.allclose(again.corners, board.calibration.corners, atol=0.01)
    assert again.layout == board.calibration.layout
    assert again.method == "aruco"
    assert again.counter is not None and again.counter["kind"] == "area"
    assert not path.with_suffix(".json.tmp").exists()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "not valid JSON"),
        ('{"format": "something-else"}', "not a calibration file"),
        ('{"format": "oware-vision-calibration", "version": 99}', "unsupported"),
        ('{"format": "oware-vision-calibration", "version": 1, "corners": [[0, 0]]}', "malformed"),
    ],
)
def test_bad_files_say_why(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(CalibrationError, match=message):
        Calibration.load(path)


def test_degenerate_corners_are_refused() -> None:
    with pytest.raises(CalibrationError, match="no area"):
        Calibration(((0, 0), (1, 0), (1, 1), (0, 1)), (100, 100))
    with pytest.raises(CalibrationError, match="4 corners"):
        parse_corners("1,2 3,4")
    assert parse_corners("1,2; 3,4; 5,6; 7,8")[3] == (7.0, 8.0)


def test_pit_crops_follow_the_pit_numbering(board: Board) -> None:
    """Seeds put in one pit only show up in that pit's crop, for every pit tried."""
    cal = board.calibration
    empty = cal.pit_crops(cal.rectify(board.empty))
    for pit in (0, 5, 6, 11):
        pits = [0] * 12
        pits[pit] = 6
        frame, _ = render_scene(
            pits, board.style, np.random.default_rng(pit), board.camera, markers=True
        )
        crops = cal.pit_crops(cal.rectify(frame))
        change = [
            float(np.abs(c.astype(int) - e.astype(int)).mean())
            for c, e in zip(crops, empty, strict=True)
        ]
        assert int(np.argmax(change)) == pit


def test_frames_of_another_size_are_scaled(board: Board) -> None:
    """A camera switching resolution keeps the calibration valid (corners scale)."""
    import cv2

    small = cv2.resize(board.start, (640, 360), interpolation=cv2.INTER_AREA)
    a = board.calibration.rectify(board.start).astype(float)
    b = board.calibration.rectify(small).astype(float)
    assert a.shape == b.shape
    assert float(np.abs(a - b).mean()) < 12


def test_calibration_json_is_plain_json(board: Board) -> None:
    text = json.dumps(board.calibration.to_json())
    assert json.loads(text)["format"] == "oware-vision-calibration"
