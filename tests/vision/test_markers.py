"""The printable marker sheet holds the four markers the locator looks for."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import cv2
import numpy as np

SHEET = Path(__file__).resolve().parents[2] / "hardware" / "markers"


def _module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_sheet", SHEET / "make_sheet.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_sheet_cells_are_detectable_markers() -> None:
    mod = _module()
    detector = cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), cv2.aruco.DetectorParameters()
    )
    for marker_id in range(4):
        cells = np.array(mod.marker_cells(marker_id), np.uint8)
        assert cells.shape == (6, 6) and cells[0].all() and cells[:, 0].all()  # black border
        img = np.where(np.kron(cells, np.ones((20, 20), np.uint8)) > 0, 0, 255).astype(np.uint8)
        img = cv2.copyMakeBorder(img, 30, 30, 30, 30, cv2.BORDER_CONSTANT, value=255)
        _corners, ids, _rej = detector.detectMarkers(img)
        assert ids is not None and ids.ravel().tolist() == [marker_id]


def test_committed_sheet_is_what_the_script_makes() -> None:
    svg = (SHEET / "markers.svg").read_text()
    assert svg == _module().sheet_svg()
    assert svg.count("North-West") == 1 and svg.count("South-West") == 1
    assert len(re.findall(r'fill="black"', svg)) > 40
