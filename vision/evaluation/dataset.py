"""Folders of labelled pit images: ``<count>/<image>.png``.

This is the layout of the development set (``/work/shared/datasets/
awale-pits-dev``) and of any set a user records from their own board. The
data itself never enters the repository; this module only reads it.

The held-out split is deterministic and depends only on the file name (a
hash), so every script, on every machine, keeps the same images out of
training and tuning:

>>> is_held_out("456745ea-028d-11e7-ad2c-704d7b38f2eb.png") in (True, False)
True
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.image_types import Image

HELD_OUT_PERCENT = 40
"""Share of images (by file-name hash) that are never used to train or tune."""

_EXTENSIONS = {".png", ".jpg", ".jpeg", ".bmp", ".webp"}


def is_held_out(name: str) -> bool:
    """True if the image called ``name`` belongs to the held-out evaluation split."""
    digest = hashlib.sha256(Path(name).name.encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "big") % 100 < HELD_OUT_PERCENT


@dataclass(frozen=True)
class Example:
    """One labelled pit image."""

    path: Path
    count: int
    image: Image


def load_folder(root: Path | str, split: str = "all") -> list[Example]:
    """Every ``<count>/<image>`` under ``root``; ``split`` is "all", "held_out" or "train"."""
    base = Path(root)
    if not base.is_dir():
        raise FileNotFoundError(f"no such dataset folder: {base}")
    if split not in ("all", "held_out", "train"):
        raise ValueError(f"unknown split {split!r}")
    out: list[Example] = []
    for sub in sorted(base.iterdir()):
        if not sub.is_dir() or not sub.name.isdigit():
            continue
        for path in sorted(sub.iterdir()):
            if path.suffix.lower() not in _EXTENSIONS:
                continue
            held = is_held_out(path.name)
            if (split == "held_out" and not held) or (split == "train" and held):
                continue
            img = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if img is None:
                continue
            out.append(Example(path, int(sub.name), np.asarray(img, np.uint8)))
    return out


def per_count_subset(examples: list[Example], per_count: int) -> list[Example]:
    """At most ``per_count`` examples of each count (the first by file-name hash)."""
    if per_count <= 0:
        return list(examples)
    chosen: dict[int, list[Example]] = {}
    for ex in sorted(examples, key=lambda e: hashlib.sha256(e.path.name.encode()).hexdigest()):
        bucket = chosen.setdefault(ex.count, [])
        if len(bucket) < per_count:
            bucket.append(ex)
    return [ex for bucket in chosen.values() for ex in bucket]
