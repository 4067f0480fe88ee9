"""More labelled piles from the user's own photographs: seeds cut out and pasted.

The learning curve of the development photographs (``python -m bench.learning_curve``)
says the counter needs several hundred more labelled photographs of the
board, most of them piles of four to nine seeds. Rendered pits
(:mod:`vision.render.synth`) do not look enough like a real board to stand in for
them. This module makes new piles out of the user's *real* pixels instead:

1. **Cut.** Every crop labelled one seed shows one seed on the user's wood
   under the user's light. :func:`seed_mask` finds it by colour (a seed is
   less red than the wood it lies on: the ``a`` channel of CIE Lab, against
   a ring of the bowl's wood, split by Otsu's threshold). :func:`cut_seed`
   keeps its pixels and a soft-edged alpha mask, and refuses what does not
   look like one seed (too small, too large, too long).
2. **Paste.** :func:`paste_seeds` lays one to three of those seeds onto
   another labelled crop of ``n`` seeds, which becomes a crop of ``n + k``.
   Each seed is turned and scaled a little, takes a seed cut under the most
   similar light (the nearest wood colour) and is brightened or darkened to
   the target's wood, drops a soft shadow, and lands where it overlaps the
   seeds already there by at most :data:`MAX_OVERLAP` of its area, as near
   the middle of the bowl as it can (seeds roll to the bottom). A pasted
   seed may lie partly on others, as on a real pile.

A fine-tuning batch draws a share of its crops
(:data:`vision.counting.deep.PASTED_SHARE`) from the pasted piles. Against the
same fine-tuning without them, they gave better beliefs every time and more
exact counts on average; the figures, and a variant that did no better, are
in ``docs/VISION.md``, "Pasted piles".

Assumptions, and what happens when they fail: the crop is framed on its pit
(the pit fills most of it, as :meth:`vision.geometry.calibration.Calibration.pit_crops`
cuts them), and the seeds differ from the wood in colour. When no crop of one
seed gives a clean cut (for example a calibration of only 0 and 4 seeds, or
red seeds on red wood) there is nothing to paste, and fine-tuning goes on
without pasted piles.

>>> import numpy as np
>>> pasted_piles([np.full((64, 64, 3), 90, np.uint8)], [0], total=10, seed=0)
([], [])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from vision.image_types import Image

Floats = npt.NDArray[np.float32]

MAX_OVERLAP = 0.35
"""A pasted seed covers at most this share of its area with seeds already in the pit."""
SEED_AREA = (0.02, 0.12)
"""A cut seed covers this share of its crop (smaller: noise; larger: two seeds, or shade)."""
MAX_ELONGATION = 2.2
"""Longest side over shortest of a cut seed's box (longer: two seeds touching, or a rim)."""
PER_PILE = 3
"""At most this many seeds pasted onto one crop."""
NEAREST_LIGHTS = 6
"""A pasted seed is one of the cut seeds under this many most similar lights."""
PLACEMENT_TRIES = 40


def _radius(shape: tuple[int, ...]) -> Floats:
    """Each pixel's distance from the crop's centre, as a share of its longer side."""
    h, w = shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    return np.asarray(np.hypot(xx - w / 2, yy - h / 2) / max(h, w), np.float32)


def _bowl_wood(crop: Image) -> npt.NDArray[np.bool_]:
    """A ring of the pit's own wood: inside the bowl, around where the seeds usually lie."""
    r = _radius(crop.shape)
    return np.asarray((r > 0.30) & (r < 0.40))


def wood_colour(crop: Image) -> Floats:
    """The median BGR colour of the bowl's wood (the light the crop was taken in)."""
    return np.asarray(np.median(crop[_bowl_wood(crop)].astype(np.float32), axis=0), np.float32)


def seed_mask(crop: Image) -> npt.NDArray[np.uint8]:
    """1 where a seed lies inside the pit, else 0 (seeds are less red than the wood)."""
    redness = np.asarray(cv2.cvtColor(crop, cv2.COLOR_BGR2LAB)[..., 1], np.float32)
    ref = float(np.median(redness[_bowl_wood(crop)]))
    less_red = np.clip(ref - redness, 0, 63) * 4  # 0 … 252, for Otsu on 8 bits
    inside = _radius(crop.shape) < 0.42
    values = less_red[inside].astype(np.uint8).reshape(-1, 1)
    threshold, _ = cv2.threshold(values, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    mask = ((less_red > threshold) & inside).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    return np.asarray(cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8)))


@dataclass(frozen=True)
class CutSeed:
    """One seed cut from a crop: its pixels, how opaque each is, and the light it was in."""

    pixels: Floats
    """BGR, float, the seed's box with a small margin."""
    alpha: Floats
    """0 … 1, the same size: 1 on the seed, soft at its edge."""
    wood: Floats
    """:func:`wood_colour` of the crop it came from."""


def cut_seed(crop: Image) -> CutSeed | None:
    """The seed of a crop labelled one seed, or None when no clean single seed shows."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats(seed_mask(crop))
    if n < 2:
        return None
    k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    x, y, w, h, area = (int(v) for v in stats[k])
    share = area / (crop.shape[0] * crop.shape[1])
    if not SEED_AREA[0] < share < SEED_AREA[1] or max(w, h) > MAX_ELONGATION * min(w, h):
        return None
    pad = 3
    x0, y0 = max(0, x - pad), max(0, y - pad)
    x1, y1 = min(crop.shape[1], x + w + pad), min(crop.shape[0], y + h + pad)
    box = (labels[y0:y1, x0:x1] == k).astype(np.float32)
    # Eroded a pixel and softened: the seed's edge blends with the wood it lands on.
    alpha = cv2.GaussianBlur(cv2.erode(box, np.ones((2, 2), np.uint8)), (0, 0), 0.8)
    pixels = crop[y0:y1, x0:x1].astype(np.float32)
    return CutSeed(pixels, np.asarray(alpha, np.float32), wood_colour(crop))


def seed_bank(crops: Sequence[Image], counts: Sequence[int]) -> list[CutSeed]:
    """The seeds of every crop labelled one seed that gives a clean cut."""
    cuts = (cut_seed(crop) for crop, n in zip(crops, counts, strict=True) if n == 1)
    return [cut for cut in cuts if cut is not None]


def _turned(seed: CutSeed, gain: Floats, rng: np.random.Generator) -> tuple[Floats, Floats]:
    """The seed's pixels (relit by ``gain``) and alpha, turned and scaled at random."""
    h, w = seed.alpha.shape
    side = int(np.ceil(np.hypot(h, w))) + 2
    m = cv2.getRotationMatrix2D((w / 2, h / 2), float(rng.uniform(0, 360)), rng.uniform(0.92, 1.08))
    m[0, 2] += side / 2 - w / 2
    m[1, 2] += side / 2 - h / 2
    pixels = cv2.warpAffine(
        seed.pixels * gain, m, (side, side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    alpha = cv2.warpAffine(seed.alpha, m, (side, side), flags=cv2.INTER_LINEAR)
    return np.asarray(pixels, np.float32), np.asarray(alpha, np.float32)


def _place(occupied: Floats, alpha: Floats, rng: np.random.Generator) -> tuple[int, int] | None:
    """Top-left corner for a seed: little overlap, near the bowl's middle; None if none fits."""
    h, w = occupied.shape
    side = alpha.shape[0]
    area = float(alpha.sum())
    best: tuple[float, int, int] | None = None
    for _ in range(PLACEMENT_TRIES):
        distance = 0.30 * min(h, w) * np.sqrt(rng.random())  # uniform over the disc
        angle = rng.uniform(0, 2 * np.pi)
        x = round(w / 2 + distance * np.cos(angle) - side / 2)
        y = round(h / 2 + distance * np.sin(angle) - side / 2)
        if x < 0 or y < 0 or x + side > w or y + side > h:
            continue
        if float((occupied[y : y + side, x : x + side] * alpha).sum()) > MAX_OVERLAP * area:
            continue
        score = distance + rng.normal(0, 4)  # seeds roll towards the bottom of the bowl
        if best is None or score < best[0]:
            best = (score, x, y)
    return None if best is None else (best[1], best[2])


@dataclass(frozen=True)
class _Base:
    """What pasting needs to know of a crop before any seed lands on it (worked out once:
    :func:`pasted_piles` lays piles on the same crop many times)."""

    crop: Image
    occupied: Floats
    """:func:`seed_mask` of the crop, 0/1."""
    wood: Floats
    lights: npt.NDArray[np.intp]
    """The bank's seeds, nearest light first."""

    @classmethod
    def of(cls, crop: Image, bank: Sequence[CutSeed]) -> _Base:
        wood = wood_colour(crop)
        lights = np.argsort([float(np.abs(seed.wood - wood).sum()) for seed in bank])
        return cls(crop, seed_mask(crop).astype(np.float32), wood, lights)


def paste_seeds(
    crop: Image, bank: Sequence[CutSeed], extra: int, rng: np.random.Generator
) -> Image | None:
    """``crop`` with ``extra`` seeds of ``bank`` laid in its pit, or None if they do not fit."""
    if not bank:
        raise ValueError("no cut seeds to paste")
    return _paste(_Base.of(crop, bank), bank, extra, rng)


def _paste(
    base: _Base, bank: Sequence[CutSeed], extra: int, rng: np.random.Generator
) -> Image | None:
    img = base.crop.astype(np.float32)
    occupied = base.occupied.copy()
    for _ in range(extra):
        seed = bank[int(base.lights[int(rng.integers(min(NEAREST_LIGHTS, len(bank))))])]
        gain = np.clip(base.wood / np.maximum(seed.wood, 1.0), 0.8, 1.25).astype(np.float32)
        pixels, alpha = _turned(seed, gain, rng)
        spot = _place(occupied, alpha, rng)
        if spot is None:
            return None
        x, y = spot
        side = alpha.shape[0]
        shadow = cv2.GaussianBlur(alpha, (0, 0), 2.5)
        right, down = int(rng.integers(-2, 3)), int(rng.integers(0, 3))
        shadow = np.roll(shadow, (down, right), (0, 1))
        region = img[y : y + side, x : x + side]
        region *= (1 - 0.35 * shadow)[..., None]
        region[:] = region * (1 - alpha[..., None]) + pixels * alpha[..., None]
        taken = occupied[y : y + side, x : x + side]
        np.maximum(taken, (alpha > 0.5).astype(np.float32), out=taken)
    return np.clip(img, 0, 255).astype(np.uint8)


def pasted_piles(
    crops: Sequence[Image], counts: Sequence[int], total: int, seed: int, top: int | None = None
) -> tuple[list[Image], list[int]]:
    """Up to ``total`` new labelled crops: 1 … 3 seeds pasted onto the user's crops.

    Each pile starts from one of the user's crops, any below ``top`` (by
    default the highest count among ``counts``: pasting does not invent
    piles taller than the user showed). Empty lists when no crop of one
    seed gives a clean cut.
    """
    if len(crops) != len(counts):
        raise ValueError("need as many counts as crops")
    if total <= 0:
        return [], []
    bank = seed_bank(crops, counts)
    highest = max(counts, default=0) if top is None else top
    bases = [i for i, n in enumerate(counts) if n < highest]
    if not bank or not bases:
        return [], []
    rng = np.random.default_rng(seed + 7)
    known: dict[int, _Base] = {}
    made: list[Image] = []
    labels: list[int] = []
    for _ in range(total * 5):  # a crowded pit refuses a seed now and then
        if len(made) == total:
            break
        i = bases[int(rng.integers(len(bases)))]
        extra = int(rng.integers(1, min(PER_PILE, highest - counts[i]) + 1))
        if i not in known:
            known[i] = _Base.of(crops[i], bank)
        pile = _paste(known[i], bank, extra, rng)
        if pile is not None:
            made.append(pile)
            labels.append(counts[i] + extra)
    return made, labels
