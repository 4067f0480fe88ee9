"""A board's camera as the pages see it (``BoardRuntime.camera()``,
:mod:`companion.service.camera`): a camera source gets controls, other sources none, and
the camera's refusals become the errors the API answers with.

The API around them (calibration, frame, corners placed by hand, 422 for corners that
cannot be a board) runs end to end in ``tests/dashboard/test_camera_corners.py``; here the
cases that need no frame.
"""

from __future__ import annotations

import pytest

from companion.service.camera import CameraControls, CornerCamera, camera_controls
from dashboard.contracts import CameraControl, NoFrameYet
from firmware_bridge.source import SimSource
from vision.capture.source import CameraSource


def test_a_camera_source_has_controls_and_a_sensor_board_none() -> None:
    camera = CameraSource("video:///match.avi")
    assert isinstance(camera, CornerCamera)
    controls = camera_controls(camera)
    assert isinstance(controls, CameraControls)
    sim = SimSource()
    try:
        assert not isinstance(sim, CornerCamera)
        assert camera_controls(sim) is None
    finally:
        sim.board.stop()


def test_before_the_first_frame_there_is_nothing_to_place_corners_on() -> None:
    controls: CameraControl | None = camera_controls(CameraSource("video:///match.avi"))
    assert controls is not None
    assert controls.describe() == {
        "url": "video:///match.avi",
        "frame_size": None,
        "corners": None,
        "image_size": None,
        "method": None,
        "file": None,
        "learnt": 0,
    }
    assert controls.frame_jpeg() is None  # the API answers 404
    with pytest.raises(NoFrameYet, match="no frame from the camera yet"):  # 409
        controls.set_corners([(10.0, 10.0), (900.0, 10.0), (900.0, 500.0), (10.0, 500.0)])
