"""Camera calibration: where the board is in the image, saved as JSON.

A calibration is the four image corners of the playing area (the rectangle
that holds the pits, see :mod:`vision.geometry.layout`) in the order NW, NE, SE, SW –
North is the far side for a camera on South's side. From them a homography
maps the camera frame to the rectified, top-down view where every pit is a
square cell.

The file also keeps how the corners were found (``"aruco"``, ``"grid"`` or
``"manual"``) and, after the user's calibration step, the adapted counter
(see :mod:`vision.counting.mlp`), so that ``oware-companion count`` and the live
source both read the same file.

>>> cal = Calibration(corners=((10, 10), (394, 10), (394, 138), (10, 138)), image_size=(400, 150))
>>> Calibration.from_json(cal.to_json()).corners == cal.corners
True
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.geometry.layout import BoardLayout
from vision.image_types import Image

FORMAT = "oware-vision-calibration"
VERSION = 1


class CalibrationError(ValueError):
    """A calibration file that cannot be used; the message says why."""


@dataclass(frozen=True)
class Calibration:
    """Where the board is in the camera image, and how to read it."""

    corners: tuple[tuple[float, float], ...]
    """Image coordinates of the playing-area corners NW, NE, SE, SW."""
    image_size: tuple[int, int]
    """(width, height) of the frames the corners refer to."""
    layout: BoardLayout = field(default_factory=BoardLayout)
    method: str = "manual"
    """How the corners were found: "aruco", "grid" or "manual"."""
    counter: dict[str, Any] | None = None
    """The adapted counter's parameters (JSON form), or None for the built-in one."""

    def __post_init__(self) -> None:
        if len(self.corners) != 4:
            raise CalibrationError(f"need 4 corners (NW, NE, SE, SW), got {len(self.corners)}")
        quad = np.array(self.corners, np.float32)
        if not np.all(np.isfinite(quad)):
            raise CalibrationError("corner coordinates must be finite numbers")
        if abs(cv2.contourArea(quad)) < 100:
            raise CalibrationError("the four corners enclose almost no area")

    # ------------------------------------------------------------------ geometry

    def homography(self, image_size: tuple[int, int] | None = None) -> npt.NDArray[np.float64]:
        """3 × 3 matrix from frame pixels to rectified pixels.

        ``image_size`` scales the corners when frames arrive at another size
        than the calibration was made at (a camera switching resolution).
        """
        quad = np.array(self.corners, np.float32)
        if image_size is not None and image_size != self.image_size:
            quad[:, 0] *= image_size[0] / self.image_size[0]
            quad[:, 1] *= image_size[1] / self.image_size[1]
        w, h = self.layout.size
        dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
        return np.asarray(cv2.getPerspectiveTransform(quad, dst), np.float64)

    def rectify(self, frame: Image) -> Image:
        """The top-down view of the playing area (layout.size pixels)."""
        hom = self.homography((frame.shape[1], frame.shape[0]))
        return np.asarray(
            cv2.warpPerspective(frame, hom, self.layout.size, flags=cv2.INTER_AREA), np.uint8
        )

    def pit_crops(self, rectified: Image) -> list[Image]:
        """One square image per pit, in pit order."""
        out = []
        for pit in range(self.layout.pits):
            x0, y0, x1, y1 = self.layout.box(pit)
            out.append(rectified[y0:y1, x0:x1])
        return out

    def pit_polygons(
        self, image_size: tuple[int, int] | None = None
    ) -> list[npt.NDArray[np.float32]]:
        """Each pit's cell as a 4-point polygon in frame coordinates (for drawing, masks)."""
        inv = np.linalg.inv(self.homography(image_size or self.image_size))
        out = []
        for pit in range(self.layout.pits):
            x0, y0, x1, y1 = self.layout.box(pit)
            pts = np.array([[[x0, y0]], [[x1, y0]], [[x1, y1]], [[x0, y1]]], np.float32)
            out.append(np.asarray(cv2.perspectiveTransform(pts, inv), np.float32).reshape(4, 2))
        return out

    def with_counter(self, counter: dict[str, Any] | None) -> Calibration:
        """A copy holding another adapted counter."""
        return replace(self, counter=counter)

    # ------------------------------------------------------------------ JSON

    def to_json(self) -> dict[str, Any]:
        """The JSON form saved to disk."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "method": self.method,
            "image_size": list(self.image_size),
            "corners": [[round(float(x), 2), round(float(y), 2)] for x, y in self.corners],
            "layout": self.layout.to_json(),
            "counter": self.counter,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Calibration:
        """Parse a calibration; raise :class:`CalibrationError` with a readable reason."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise CalibrationError(f"not a calibration file (expected format {FORMAT!r})")
        if data.get("version") != VERSION:
            raise CalibrationError(f"unsupported calibration version {data.get('version')!r}")
        try:
            corners = tuple((float(x), float(y)) for x, y in data["corners"])
            w, h = data["image_size"]
            size = (int(w), int(h))
        except (KeyError, TypeError, ValueError) as exc:
            raise CalibrationError(f"malformed calibration: {exc}") from None
        counter = data.get("counter")
        if counter is not None and not isinstance(counter, dict):
            raise CalibrationError("'counter' must be an object or null")
        return cls(
            corners=corners,
            image_size=size,
            layout=BoardLayout.from_json(data.get("layout") or {}),
            method=str(data.get("method", "manual")),
            counter=counter,
        )

    def save(self, path: Path | str) -> None:
        """Write the calibration as pretty JSON (atomically: temp file then rename)."""
        target = Path(path)
        tmp = target.with_suffix(target.suffix + ".tmp")
        tmp.write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")
        tmp.replace(target)

    def save_replacing(self, path: Path | str) -> Path | None:
        """Write to ``path``, first moving a file already there to ``<path>.previous``
        (a counter trained from labelled photos took minutes to hours: never lose it).
        Returns where the previous file went, or None when there was none."""
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        backup = None
        if target.is_file():
            backup = target.with_name(target.name + ".previous")
            target.replace(backup)
        self.save(target)
        return backup

    @classmethod
    def load(cls, path: Path | str) -> Calibration:
        """Read a calibration file."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise CalibrationError(f"{path}: not valid JSON ({exc})") from None
        return cls.from_json(data)


def default_path() -> Path:
    """Where ``oware-companion calibrate`` saves a camera calibration unless told
    otherwise (the user's config directory), and so where ``serve`` looks for one."""
    import platformdirs  # only for this path: the rest of vision does not need it

    return Path(platformdirs.user_config_dir("oware-companion")) / "camera-calibration.json"


def parse_corners(text: str) -> tuple[tuple[float, float], ...]:
    """Corners typed on the command line: ``"x,y x,y x,y x,y"`` (NW NE SE SW).

    >>> parse_corners("10,20 300,20 310,120 5,125")
    ((10.0, 20.0), (300.0, 20.0), (310.0, 120.0), (5.0, 125.0))
    """
    parts = text.replace(";", " ").split()
    try:
        pts = tuple((float(a), float(b)) for a, b in (p.split(",") for p in parts))
    except ValueError:
        raise CalibrationError(f"corners must look like 'x,y x,y x,y x,y', got {text!r}") from None
    if len(pts) != 4:
        raise CalibrationError(f"need 4 corners (NW NE SE SW), got {len(pts)}")
    return pts
