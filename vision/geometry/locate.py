"""Find the board in a camera frame.

Two automatic methods, tried in this order by :func:`find_board`:

1. **ArUco markers** (most robust). The user prints the sheet made by
   ``hardware/markers/make_sheet.py`` and lays marker 0 at the North-West
   corner of the playing area, 1 at North-East, 2 at South-East, 3 at
   South-West, each with its inner corner touching the playing-area corner.
   The marker ids give the orientation, so the camera may sit on any side.
2. **The 2 × 6 grid of pits** (no markers). Pits are round hollows of one
   size in two straight rows; Hough circles find candidates and the twelve
   that fit a 2 × 6 lattice best give a homography. South is taken to be the
   row nearer the bottom of the image (a camera on South's side).

When both fail the user calibrates by hand (four corners on the command line).
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.geometry.calibration import Calibration
from vision.geometry.layout import BoardLayout
from vision.image_types import Image

Quad = npt.NDArray[Any]

_DICTIONARY = cv2.aruco.DICT_4X4_50


def find_markers(frame: Image) -> Quad | None:
    """Playing-area corners (NW, NE, SE, SW) from the four ArUco markers, or None."""
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    detector = cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(_DICTIONARY), cv2.aruco.DetectorParameters()
    )
    corners, ids, _rejected = detector.detectMarkers(gray)
    if ids is None:
        return None
    found: dict[int, npt.NDArray[np.float32]] = {}
    for quad, marker_id in zip(corners, ids.ravel(), strict=True):
        if 0 <= int(marker_id) <= 3:
            found[int(marker_id)] = np.asarray(quad, np.float32).reshape(4, 2)
    if len(found) < 4:
        return None
    centre = np.mean([q.mean(axis=0) for q in found.values()], axis=0)
    # The inner corner of each marker is the one nearest the middle of the four:
    # this does not depend on how the user rotated each printed marker.
    out = np.zeros((4, 2), np.float32)
    for k in range(4):
        quad = found[k]
        out[k] = quad[int(np.argmin(np.linalg.norm(quad - centre, axis=1)))]
    return out


def _lattice_points(layout: BoardLayout) -> npt.NDArray[np.float32]:
    """Pit centres in the rectified view, North row then South row, left to right."""
    cell = layout.cell
    return np.array(
        [
            [(c + 0.5) * cell, (r + 0.5) * cell]
            for r in range(layout.rows)
            for c in range(layout.cols)
        ],
        np.float32,
    )


def _circles(gray: Image) -> npt.NDArray[np.float32]:
    """Circle candidates (x, y, r) in a 640-pixel-wide working image."""
    norm = cv2.createCLAHE(2.0, (8, 8)).apply(gray)
    norm = cv2.GaussianBlur(norm, (0, 0), 1.2)
    found = cv2.HoughCircles(
        norm,
        cv2.HOUGH_GRADIENT_ALT,
        dp=1.5,
        minDist=20,
        param1=40,
        param2=0.5,
        minRadius=10,
        maxRadius=60,
    )
    if found is None:
        return np.zeros((0, 3), np.float32)
    return np.asarray(found[0][:60], np.float32)


def _fit_lattice(
    cands: npt.NDArray[np.float32], layout: BoardLayout
) -> tuple[Quad, int, float] | None:
    """Best 2 × cols lattice through the candidates (RANSAC over neighbouring pairs).

    Each pair of similar circles a plausible pit-pitch apart proposes a
    lattice: the pair's direction is a row, the rows are one pitch apart.
    Every placement of the pair in the lattice is scored by how many
    candidates sit near a predicted pit; the winner is refined with a
    homography through its inliers.
    """
    cols, rows = layout.cols, layout.rows
    if len(cands) < cols:
        return None
    xy = cands[:, :2]
    rad = cands[:, 2]
    best: tuple[int, float, npt.NDArray[np.float64]] | None = None
    grid_c, grid_r = np.meshgrid(np.arange(cols), np.arange(rows))
    cols_at = grid_c.ravel().astype(np.float64)
    rows_at = grid_r.ravel().astype(np.float64)
    for i in range(len(cands)):
        for j in range(len(cands)):
            if i == j or xy[j, 0] <= xy[i, 0]:
                continue
            if abs(rad[i] - rad[j]) > 0.25 * max(rad[i], rad[j]):
                continue
            d = xy[j] - xy[i]
            pitch = float(np.hypot(*d))
            if not 1.8 * rad[i] <= pitch <= 3.2 * rad[i]:
                continue
            u = d / pitch
            if abs(u[1]) > 0.6:  # rows run across the image, not up it
                continue
            v = np.array([-u[1], u[0]]) * pitch  # points down the image
            for c0 in range(cols - 1):
                for r0 in range(rows):
                    origin = xy[i] - c0 * d - r0 * v
                    pred = (
                        origin[None, :]
                        + cols_at[:, None] * d[None, :]
                        + rows_at[:, None] * v[None, :]
                    )
                    dist = np.linalg.norm(pred[:, None, :] - xy[None, :, :], axis=2)
                    near = dist.min(axis=1)
                    inliers = int((near < 0.3 * pitch).sum())
                    err = float(np.mean(np.minimum(near, 0.3 * pitch)))
                    if best is None or (inliers, -err) > (best[0], -best[1]):
                        best = (inliers, err, pred)
    if best is None or best[0] < layout.pits - 2:
        return None
    pred = best[2]
    dist = np.linalg.norm(pred[:, None, :] - xy[None, :, :], axis=2)
    match = dist.argmin(axis=1)
    ok = dist.min(axis=1) < 0.3 * np.linalg.norm(pred[1] - pred[0])
    src = _lattice_points(layout)[ok]
    dst = xy[match[ok]]
    hom, _mask = cv2.findHomography(src, dst, 0)
    if hom is None:
        return None
    w, h = layout.size
    quad = np.array([[[0, 0]], [[w, 0]], [[w, h]], [[0, h]]], np.float32)
    ratio = float(np.median(rad[match[ok]])) / float(np.linalg.norm(pred[1] - pred[0]))
    return cv2.perspectiveTransform(quad, hom).reshape(4, 2).astype(np.float32), best[0], ratio


def find_grid(frame: Image, layout: BoardLayout | None = None) -> Quad | None:
    """Playing-area corners from the pits themselves (no markers), or None."""
    lay = layout or BoardLayout()
    if lay.rows != 2:
        return None
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    # Work at a fixed width: the pit size then falls in a known range.
    scale = 640.0 / gray.shape[1]
    small = cv2.resize(gray, (640, round(gray.shape[0] * scale)), interpolation=cv2.INTER_AREA)
    fit = _fit_lattice(_circles(small), lay)
    if fit is None:
        return None
    quad = (fit[0] / scale).astype(np.float32)
    return _refine(gray, quad, lay, fit[2])


def _rim_score(gray: Image, quad: Quad, layout: BoardLayout, ratio: float) -> float:
    """How well a quad puts a pit rim on every expected circle (mean radial edge strength)."""
    cell = 48
    lay = BoardLayout(layout.cols, layout.rows, cell, layout.stores)
    w, h = lay.size
    dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    hom = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    view = cv2.warpPerspective(gray, hom, (w, h), flags=cv2.INTER_LINEAR).astype(np.float32)
    gx = cv2.Sobel(view, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(view, cv2.CV_32F, 0, 1, ksize=3)
    centres = _lattice_points(lay)
    radius = ratio * cell
    xs = centres[:, None, 0] + radius * _COS[None, :]
    ys = centres[:, None, 1] + radius * _SIN[None, :]
    xi = np.clip(np.round(xs).astype(int), 0, w - 1)
    yi = np.clip(np.round(ys).astype(int), 0, h - 1)
    radial = gx[yi, xi] * _COS[None, :] + gy[yi, xi] * _SIN[None, :]
    return float(np.mean(np.abs(radial)))


_ANGLES = np.linspace(0, 2 * np.pi, 48, endpoint=False)
_COS, _SIN = np.cos(_ANGLES), np.sin(_ANGLES)


def _refine(gray: Image, quad: Quad, layout: BoardLayout, ratio: float) -> Quad:
    """Sharpen a lattice fit by moving the corners until the pit rims line up.

    The first fit extrapolates the corners from roughly placed circle
    centres. Here each corner coordinate (and the pit radius) is nudged in
    turn, keeping any change that puts stronger edges on the twelve expected
    rim circles; the steps shrink from 8 to 1 pixel. Slow-ish (a few hundred
    small warps), but it runs once, at calibration.
    """
    best = np.asarray(quad, np.float32).copy()
    best_r = ratio
    best_score = _rim_score(gray, best, layout, best_r)
    for step in (8.0, 4.0, 2.0, 1.0):
        improved = True
        rounds = 0
        while improved and rounds < 6:
            improved = False
            rounds += 1
            for k in range(8):
                for sign in (-1.0, 1.0):
                    trial = best.copy()
                    trial[k // 2, k % 2] += sign * step
                    score = _rim_score(gray, trial, layout, best_r)
                    if score > best_score:
                        best, best_score, improved = trial, score, True
            for sign in (-1.0, 1.0):
                r = best_r * (1 + sign * 0.01 * step)
                score = _rim_score(gray, best, layout, r)
                if score > best_score:
                    best_r, best_score, improved = r, score, True
    return best


def find_board(frame: Image, layout: BoardLayout | None = None) -> Calibration | None:
    """A calibration found automatically (markers first, then the pit grid), or None."""
    lay = layout or BoardLayout()
    size = (int(frame.shape[1]), int(frame.shape[0]))
    quad = find_markers(frame)
    method = "aruco"
    if quad is None:
        quad = find_grid(frame, lay)
        method = "grid"
    if quad is None:
        return None
    corners = tuple((float(x), float(y)) for x, y in quad)
    return Calibration(corners=corners, image_size=size, layout=lay, method=method)


def corner_error(found: Quad | Calibration, truth: npt.NDArray[np.float32]) -> float:
    """Largest distance in pixels between found and true corners (for tests and bench)."""
    quad = np.array(found.corners if isinstance(found, Calibration) else found, np.float32)
    return float(np.max(np.linalg.norm(quad - np.asarray(truth, np.float32), axis=1)))
