"""A camera board's controls for the pages: :class:`dashboard.contracts.CameraControl`
implemented over a camera source (:class:`vision.capture.source.CameraSource`).

:func:`camera_controls` says whether a source is a camera (it has a calibration, a
last frame and manual corners: :class:`CornerCamera`), and wraps it; the wrapper
describes the calibration, encodes the last frame as JPEG and turns the camera's
refusals into the errors the API answers with.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from dashboard.contracts import CornersRefused, NoFrameYet

if TYPE_CHECKING:  # the vision extra is imported only where a camera is
    import numpy as np

    from vision.capture.source import CameraSource
    from vision.geometry.calibration import Calibration


@runtime_checkable
class CornerCamera(Protocol):
    """A source whose board the referee may place by hand (the camera sources)."""

    url: str
    calibration: Calibration | None
    calibration_path: Path | None

    @property
    def learnt(self) -> int: ...
    def snapshot(self) -> np.ndarray | None: ...
    def set_corners(
        self, corners: Sequence[Sequence[float]]
    ) -> tuple[Calibration, Path | None]: ...


class CameraControls:
    """The :class:`dashboard.contracts.CameraControl` of one camera source."""

    def __init__(self, source: CornerCamera) -> None:
        self.source = source

    def describe(self) -> dict[str, Any]:
        source = self.source
        cal = source.calibration
        frame = source.snapshot()
        return {
            "url": source.url,
            "frame_size": None if frame is None else [int(frame.shape[1]), int(frame.shape[0])],
            "corners": None if cal is None else [list(c) for c in cal.corners],
            "image_size": None if cal is None else list(cal.image_size),
            "method": None if cal is None else cal.method,
            "file": None if source.calibration_path is None else str(source.calibration_path),
            "learnt": source.learnt,
        }

    def frame_jpeg(self) -> bytes | None:
        import cv2  # the vision extra: only camera sources get here

        image = self.source.snapshot()
        if image is None:
            return None
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])
        if not ok:
            raise ValueError("the frame could not be encoded")
        return bytes(data.tobytes())

    def set_corners(self, corners: Sequence[tuple[float, float]]) -> dict[str, Any]:
        from vision.geometry.calibration import CalibrationError

        try:
            _, previous = self.source.set_corners(corners)
        except CalibrationError as exc:
            raise CornersRefused(str(exc)) from None
        except ValueError as exc:  # before the first frame
            raise NoFrameYet(str(exc)) from None
        out = self.describe()
        out["previous"] = None if previous is None else str(previous)
        return out


def camera_controls(source: object) -> CameraControls | None:
    """The controls of ``source`` when it is a camera, else None."""
    return CameraControls(source) if isinstance(source, CornerCamera) else None


if TYPE_CHECKING:

    def _a_camera_source_is_a_corner_camera(source: CameraSource) -> CornerCamera:
        return source  # mypy checks the real source against the Protocol
