"""Counting labelled pit photographs by eye, blind to their labels, against the labels.

When a counter reads a photograph as another count than its label, is the counter wrong,
or does the photograph itself show another count (a seed hidden under the others, or a
wrong label)? The eye's agreement with the labels is the ceiling for a counter of the
seeds one can see (one that infers a hidden seed from how the others sit could do better).

:func:`write_sheets` deals the chosen photographs in a shuffled order onto numbered
contact sheets (``sheet-00.png``, ..., :data:`GRID` × :data:`GRID` tiles, each pit enlarged
to :data:`TILE` pixels, no label anywhere) and writes :data:`KEY` (which number is which
file, and its label) and :data:`COUNTS`, one line per number, for a person to fill in
with what they count. The shuffle keeps counts from clustering, so the sheets do not hint
at the labels. :func:`read_counts` reads the filled-in counts back; :func:`score` compares
them (and a counter's readings, saved by :func:`save_beliefs`) with the labels.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from vision.evaluation.dataset import load_folder

TILE = 250
"""Side of one enlarged pit on a sheet, in pixels."""
GRID = 4
"""Tiles per row and per column of a sheet."""
KEY = "key.json"
COUNTS = "counts.txt"


def write_sheets(dataset: Path, split: str, counts: range, out: Path, seed: int) -> tuple[int, int]:
    """Numbered, label-free contact sheets of the chosen photographs: (photos, sheets)."""
    chosen = [e for e in load_folder(dataset, split) if e.count in counts]
    if not chosen:
        raise ValueError(f"no photographs of {counts.start}-{counts.stop - 1} seeds in {dataset}")
    random.Random(seed).shuffle(chosen)
    out.mkdir(parents=True, exist_ok=True)
    per_sheet = GRID * GRID
    sheets = 0
    for start in range(0, len(chosen), per_sheet):
        tiles = []
        for number, example in enumerate(chosen[start : start + per_sheet], start):
            tile = cv2.resize(example.image, (TILE, TILE), interpolation=cv2.INTER_CUBIC)
            # White with a dark outline: readable on pale and on dark wood.
            for colour, width in (((0, 0, 0), 4), ((255, 255, 255), 2)):
                cv2.putText(
                    tile, str(number), (6, 26), cv2.FONT_HERSHEY_SIMPLEX, 0.8, colour, width
                )
            tiles.append(tile)
        tiles += [np.zeros_like(tiles[0])] * (per_sheet - len(tiles))
        rows = [np.hstack(tiles[r * GRID : (r + 1) * GRID]) for r in range(GRID)]
        cv2.imwrite(str(out / f"sheet-{sheets:02d}.png"), np.vstack(rows))
        sheets += 1
    key = [{"number": n, "file": e.path.name, "label": e.count} for n, e in enumerate(chosen)]
    (out / KEY).write_text(json.dumps(key, indent=1) + "\n", encoding="utf-8")
    (out / COUNTS).write_text(
        "# what you count in each numbered pit, after the colon\n"
        + "".join(f"{n}:\n" for n in range(len(chosen))),
        encoding="utf-8",
    )
    return len(chosen), sheets


def read_counts(path: Path, photos: int) -> dict[int, int]:
    """``number: count`` lines (``#`` comments allowed); every number must be counted."""
    counted: dict[int, int] = {}
    for line_no, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        number, sep, count = line.partition(":")
        if sep and not count.strip():
            continue  # the template's own line, not filled in yet
        try:
            n, c = int(number), int(count)
        except ValueError:
            raise ValueError(f"{path}:{line_no}: expected 'number: count', got {raw!r}") from None
        if not sep or not 0 <= n < photos or c < 0:
            raise ValueError(f"{path}:{line_no}: no photograph {n} or a negative count")
        counted[n] = c
    missing = sorted(set(range(photos)) - set(counted))
    if missing:
        shown = ", ".join(map(str, missing[:10])) + (" ..." if len(missing) > 10 else "")
        raise ValueError(f"{path}: {len(missing)} photographs not counted yet: {shown}")
    return counted


@dataclass(frozen=True)
class Disagreement:
    """A photograph where the eye, the label or the counter differ."""

    number: int
    file: str
    label: int
    eye: int
    counter: int | None


@dataclass(frozen=True)
class EyeScore:
    """The photographs compared; every count is derived from the ones that disagree."""

    photos: int
    rows: list[Disagreement]
    """Photographs where the eye or the counter differs from the label."""
    with_counter: bool

    @property
    def eye_agrees(self) -> int:
        return self.photos - sum(r.eye != r.label for r in self.rows)

    @property
    def counter_right(self) -> int | None:
        if not self.with_counter:
            return None
        return self.photos - sum(r.counter != r.label for r in self.rows)

    @property
    def counter_agrees_with_eye_when_wrong(self) -> int | None:
        if not self.with_counter:
            return None
        return sum(r.counter != r.label and r.counter == r.eye for r in self.rows)

    def lines(self) -> list[str]:
        out = [
            f"the eye agrees with the label on {self.eye_agrees} of {self.photos} photographs"
            f" ({self.eye_agrees / self.photos:.1%}): a counter of the seeds one can see"
            " scores no higher on them"
        ]
        right = self.counter_right
        if right is not None:
            out.append(
                f"the counter reads {right} of {self.photos} as labelled"
                f" ({right / self.photos:.1%}); of its {self.photos - right} errors,"
                f" {self.counter_agrees_with_eye_when_wrong} read what the eye counts"
            )
        out.append("number  file  label  eye" + ("  counter" if self.with_counter else ""))
        for r in self.rows:
            shown = "" if r.counter is None else f"  {r.counter}"
            out.append(f"{r.number}  {r.file}  {r.label}  {r.eye}{shown}")
        return out


def score(
    key: Sequence[dict[str, object]],
    counted: dict[int, int],
    read: dict[str, int] | None = None,
) -> EyeScore:
    """Compare the eye's counts (and a counter's readings, by file) with the labels."""
    rows: list[Disagreement] = []
    for entry in key:
        n, name, label = int(str(entry["number"])), str(entry["file"]), int(str(entry["label"]))
        eye = counted[n]
        counter = None
        if read is not None:
            if name not in read:
                raise ValueError(f"the beliefs file has no reading of {name}")
            counter = read[name]
        if eye != label or (counter is not None and counter != label):
            rows.append(Disagreement(n, name, label, eye, counter))
    return EyeScore(len(key), rows, read is not None)


def save_beliefs(
    path: Path, names: Sequence[str], truth: npt.NDArray[np.int64], beliefs: npt.NDArray[np.float64]
) -> None:
    """One row per photograph: its file name, its label and the counter's belief (what
    :func:`counter_readings` reads)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, names=np.array(names), truth=truth, beliefs=beliefs)


def counter_readings(path: Path) -> dict[str, int]:
    """File name → most likely count, from a file :func:`save_beliefs` wrote."""
    with np.load(path) as saved:
        names, beliefs = saved["names"], saved["beliefs"]
    return {str(n): int(b.argmax()) for n, b in zip(names, beliefs, strict=True)}
