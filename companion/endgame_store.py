"""Endgame databases on disk: built once, kept in the user's cache directory.

The computation lives in :mod:`core.engine.retrograde` (arrays in, arrays
out, no I/O); this module decides where the bytes go and how a long build
survives being interrupted.

Layout (``<cache>/endgame/abapa-v1/``, ``<cache>`` from platformdirs, e.g.
``~/.cache/oware-companion``):

* ``layer-07.u8`` — one byte per board with 7 seeds, in rank order;
* each layer is written to a temporary name and renamed when complete, so a
  file that exists is whole. A build that is stopped resumes at the first
  missing layer (``endgame build --max-seeds N`` again).

The directory name carries a format version: if the meaning of the bytes ever
changes (rules, value convention) the version changes and old files are
simply not used.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

import numpy as np
import platformdirs

from core.engine import retrograde
from core.engine.ranking import layer_offset, layer_size

#: Bump when the stored values change meaning; part of the directory name.
FORMAT = "abapa-v1"

#: Environment variable that overrides the cache directory (tests, shared installs).
CACHE_ENV = "OWARE_COMPANION_CACHE"


def cache_root() -> Path:
    """The user's cache directory for oware-companion (``$OWARE_COMPANION_CACHE`` wins)."""
    override = os.environ.get(CACHE_ENV)
    if override:
        return Path(override)
    return Path(platformdirs.user_cache_dir("oware-companion"))


def store_dir(root: Path | None = None) -> Path:
    """Where the layers of the current format live."""
    return (root if root is not None else cache_root()) / "endgame" / FORMAT


def layer_path(seeds: int, root: Path | None = None) -> Path:
    """File of layer ``seeds``."""
    return store_dir(root) / f"layer-{seeds:02d}.u8"


def complete_layers(root: Path | None = None) -> int:
    """How many layers from 0 upwards are on disk and whole (the next to build)."""
    seeds = 0
    while True:
        path = layer_path(seeds, root)
        if not path.exists() or path.stat().st_size != layer_size(seeds):
            return seeds
        seeds += 1


def load(max_seeds: int | None = None, root: Path | None = None) -> np.ndarray | None:
    """Read the stored layers (up to ``max_seeds``) into one flat array, or None if none.

    The array is what :mod:`core.engine.search` takes; ``max_seeds`` of the
    result is ``database_seeds(array)``.
    """
    available = complete_layers(root) - 1
    if available < 0:
        return None
    top = available if max_seeds is None else min(max_seeds, available)
    values = retrograde.empty_values(top)
    for seeds in range(top + 1):
        start = layer_offset(seeds)
        values[start : start + layer_size(seeds)] = np.fromfile(
            layer_path(seeds, root), dtype=np.uint8
        )
    return values


def database_seeds(values: np.ndarray) -> int:
    """The highest layer a flat array from :func:`load` or :func:`build` holds."""
    seeds = 0
    while layer_offset(seeds + 2) <= values.shape[0]:
        seeds += 1
    return seeds


class ProgressBar:
    """A one-line progress bar on a text stream (stderr), weighted by positions."""

    def __init__(self, first: int, last: int, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.total = sum(layer_size(n) for n in range(first, last + 1))
        self.before = sum(layer_size(n) for n in range(first))
        self.last = last
        self.started = time.monotonic()

    def update(self, seeds: int, sweep: int, changed: int) -> None:
        """Called after each sweep of a layer (the layers below it are done)."""
        self._draw(
            self._done_below(seeds), f"layer {seeds}/{self.last} sweep {sweep} ({changed} changed)"
        )

    def layer_done(self, seeds: int) -> None:
        """Called when layer ``seeds`` is built and saved: it counts as done."""
        self._draw(self._done_below(seeds + 1), f"layer {seeds}/{self.last} done")

    def finish(self) -> None:
        """End the line (at 100 %: every layer is built)."""
        self._draw(self.total, "all layers built")
        self.stream.write("\n")
        self.stream.flush()

    def _done_below(self, seeds: int) -> int:
        return sum(layer_size(n) for n in range(seeds)) - self.before

    def _draw(self, done: int, what: str) -> None:
        fraction = done / self.total if self.total else 1.0
        width = 30
        filled = int(fraction * width)
        elapsed = time.monotonic() - self.started
        self.stream.write(
            f"\rendgame [{'#' * filled}{'.' * (width - filled)}] {fraction:6.1%} "
            f"{what} {elapsed:6.0f}s "
        )
        self.stream.flush()


LayerDone = Callable[[dict[str, int | float]], None]


def build(
    max_seeds: int,
    root: Path | None = None,
    stream: TextIO | None = None,
    show_progress: bool = True,
    on_layer: LayerDone | None = None,
) -> np.ndarray:
    """Build (or finish building) every layer up to ``max_seeds`` and return them all.

    Layers already on disk are loaded, not rebuilt. ``on_layer`` receives the
    figures of each layer built (seeds, positions, sweeps, cyclic, seconds).
    """
    directory = store_dir(root)
    directory.mkdir(parents=True, exist_ok=True)
    values = retrograde.empty_values(max_seeds)
    first = min(complete_layers(root), max_seeds + 1)
    existing = load(first - 1, root) if first > 0 else None
    if existing is not None:
        values[: existing.shape[0]] = existing
    bar = ProgressBar(first, max_seeds, stream) if show_progress else None
    for seeds in range(first, max_seeds + 1):
        started = time.perf_counter()
        info: dict[str, int | float] = dict(
            retrograde.build_layer(seeds, values, bar.update if bar else None)
        )
        info["seconds"] = time.perf_counter() - started
        start = layer_offset(seeds)
        path = layer_path(seeds, root)
        # (named for this process: two companions building the same layer at once must
        # not write into one file)
        temporary = path.with_suffix(f".{os.getpid()}.part")
        values[start : start + layer_size(seeds)].tofile(temporary)
        os.replace(temporary, path)  # atomic: a layer file is always whole
        if bar is not None:
            bar.layer_done(seeds)
        if on_layer is not None:
            on_layer(info)
    if bar is not None:
        bar.finish()
    return values
