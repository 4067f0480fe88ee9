"""Features of one pit image: numbers that grow with the seeds in it.

A pit crop is compared with the bare wood around it. The corners of the crop
lie outside the round pit, so their median colour is the board's own wood
under the current light; "seed-like" pixels are those far from it. This makes
the features mostly independent of the wood colour and of the lighting, which
is what lets a model trained on rendered boards say something sensible about
a real board, and lets a few labelled images of the user's board finish the job.

The vector holds, inside the pit disk:

* histograms of the colour distance to the wood (chroma and lightness),
* histograms of the signed a*, b* and L* differences,
* a histogram of the edge strength (seed outlines make edges; piles make more),
* the chroma distance and edge strength averaged over a coarse 4 × 4 grid,
* a small, coarse thumbnail of the pit, in wood-relative Lab,
* blob cues: bright convex bumps (difference-of-Gaussians peaks, one per
  lit seed top) at two scales with their response histograms, and the share
  of the pit in the colour cluster farthest from the wood (two-means).

>>> import numpy as np
>>> pit_features(np.full((64, 64, 3), 120, np.uint8)).shape == (FEATURE_SIZE,)
True
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from vision.image_types import Image

Vector = npt.NDArray[np.float32]

SIDE = 48
"""Crops are resized to SIDE × SIDE before anything is measured."""

_yy, _xx = np.mgrid[0:SIDE, 0:SIDE].astype(np.float32)
_R = np.sqrt((_xx - (SIDE - 1) / 2) ** 2 + (_yy - (SIDE - 1) / 2) ** 2) / SIDE
DISK = _R < 0.43
"""Pixels inside the pit (the crop is centred on it)."""
RING = _R > 0.49
"""Pixels in the crop's corners: bare wood around the pit."""

_CHROMA_BINS = np.array([0, 3, 6, 9, 12, 16, 20, 25, 32, 45, 1e9], np.float32)
_SIGNED_BINS = np.array([-1e9, -30, -20, -12, -6, -2, 2, 6, 12, 20, 30, 1e9], np.float32)
_EDGE_BINS = np.array([0, 4, 8, 12, 18, 26, 36, 1e9], np.float32)
_GRID = 4
_THUMB = 6

_DOG_BINS = np.array([-1e9, -8, -4, -2, 0, 2, 4, 8, 1e9], np.float32)
_DOG_SCALES = ((1.5, 4.0), (2.5, 6.0))

FEATURE_SIZE = (
    len(_DOG_SCALES) * len(_DOG_BINS)
    + 2
    + (len(_CHROMA_BINS) - 1)
    + 3 * (len(_SIGNED_BINS) - 1)
    + (len(_EDGE_BINS) - 1)
    + 2 * _GRID * _GRID
    + 3 * _THUMB * _THUMB
)


def _hist(values: npt.NDArray[np.float32], bins: npt.NDArray[np.float32]) -> Vector:
    counts, _ = np.histogram(values, bins=bins)
    return (counts / max(1, values.size)).astype(np.float32)


def pit_features(crop: Image) -> Vector:
    """The feature vector (length :data:`FEATURE_SIZE`) of one BGR pit crop."""
    img = cv2.resize(crop, (SIDE, SIDE), interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(img, cv2.COLOR_BGR2LAB).astype(np.float32)
    ref = np.median(lab[RING], axis=0)
    rel = lab - ref[None, None, :]
    chroma = np.sqrt(rel[..., 1] ** 2 + rel[..., 2] ** 2)
    light = cv2.GaussianBlur(lab[..., 0], (0, 0), 0.8)
    gx = cv2.Sobel(light, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(light, cv2.CV_32F, 0, 1, ksize=3)
    edge = np.sqrt(gx * gx + gy * gy) / 4.0
    parts = [
        _hist(chroma[DISK], _CHROMA_BINS),
        _hist(rel[..., 0][DISK], _SIGNED_BINS),
        _hist(rel[..., 1][DISK], _SIGNED_BINS),
        _hist(rel[..., 2][DISK], _SIGNED_BINS),
        _hist(edge[DISK], _EDGE_BINS),
        cv2.resize(chroma, (_GRID, _GRID), interpolation=cv2.INTER_AREA).ravel() / 30.0,
        cv2.resize(edge, (_GRID, _GRID), interpolation=cv2.INTER_AREA).ravel() / 20.0,
        cv2.resize(rel, (_THUMB, _THUMB), interpolation=cv2.INTER_AREA).ravel() / 40.0,
    ]
    parts += _blob_cues(lab, ref)
    return np.concatenate(parts).astype(np.float32)


def _blob_cues(lab: npt.NDArray[np.float32], ref: npt.NDArray[np.float32]) -> list[Vector]:
    """Seed-shaped bumps in lightness, and the share of seed-coloured pixels."""
    light = lab[..., 0]
    out: list[Vector] = []
    kernel = np.ones((7, 7), np.uint8)
    for small, large in _DOG_SCALES:
        dog = cv2.GaussianBlur(light, (0, 0), small) - cv2.GaussianBlur(light, (0, 0), large)
        peaks = (dog >= cv2.dilate(dog, kernel)) & (dog > 2) & DISK
        out.append(np.array([peaks.sum() / 10.0], np.float32))
        out.append(_hist(dog[DISK], _DOG_BINS))
    pts = np.ascontiguousarray(lab[DISK][:, 1:3])
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
    # Deterministic start (no random seeding, so a crop always gives the same
    # features): the half of the pixels farther from the wood's colour.
    dist = np.linalg.norm(pts - ref[None, 1:3], axis=1)
    start = (dist > np.median(dist)).astype(np.int32).reshape(-1, 1)
    _compact, labels, centres = cv2.kmeans(
        pts, 2, start, criteria, 1, cv2.KMEANS_USE_INITIAL_LABELS
    )
    far = int(np.argmax(np.linalg.norm(centres - ref[None, 1:3], axis=1)))
    share = float(np.mean(labels.ravel() == far))
    gap = float(np.linalg.norm(centres[0] - centres[1])) / 20.0
    out.append(np.array([share, gap], np.float32))
    return out


def features_of(crops: list[Image]) -> npt.NDArray[np.float32]:
    """Features of many crops as one (n, FEATURE_SIZE) array."""
    if not crops:
        return np.zeros((0, FEATURE_SIZE), np.float32)
    return np.stack([pit_features(c) for c in crops])
