"""Endgame databases on disk: built once, kept in the user's cache directory,
memory-mapped when used.

The computation lives in :mod:`core.engine.retrograde` (arrays in, arrays
out, no I/O); this module decides where the bytes go, how a long build
survives being interrupted, and how a companion opens them at start-up.

Layout (``<cache>/endgame/abapa-v1/``, ``<cache>`` from platformdirs, e.g.
``~/.cache/oware-companion``):

* ``values.u8`` — one byte per board, layers 0, 1, 2, ... one after the
  other in rank order: exactly the flat array the search takes, so
  :func:`load` maps the file instead of reading it. The operating system
  reads a page the first time the search touches it; a companion that
  never reaches an endgame never reads the big layers, and several
  companions on one computer share the pages.
* A build appends each layer when it is complete and flushes it to disk.
  The file's size says which layers are whole: bytes past the last whole
  layer (a build stopped while appending) are ignored by :func:`load` and
  cut by the next build, which resumes at the first missing layer
  (``endgame build --max-seeds N`` again). Builds take ``values.lock`` so
  that two companions never append to the file at once.
* ``layer-NN.u8`` files (one file per layer, as earlier versions wrote
  them) are appended to ``values.u8`` the first time the store is opened,
  then removed.
* ``bounds-low.u8`` and ``bounds-high.u8`` (``endgame build --bounds``): the
  game bounds of every board (:func:`core.engine.retrograde.game_bounds`),
  laid out as ``values.u8`` and appended layer by layer the same way, both
  files at once; the shorter decides which layers are whole. They say which
  values hold under the real cycle rule (``L == U``) and what each side can
  force where they do not; the match bench rates games by them. The layers up to
  :data:`core.engine.tighten.CLOSED_UP_TO` seeds are closed by proofs under the cycle
  rule as they are built (:func:`core.engine.tighten.tighten_layer`), and every layer
  above is swept from them; ``bounds-closed.txt`` says up to which layer, and with what
  budget, the stored bounds were closed so (a build with other settings sweeps them all
  again).

The directory name carries a format version: if the meaning of the bytes ever
changes (rules, value convention) the version changes and old files are
simply not used.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO, TextIO

import numpy as np
import platformdirs

from core.engine import retrograde, tighten
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
    """Where the databases of the current format live."""
    return (root if root is not None else cache_root()) / "endgame" / FORMAT


def values_path(root: Path | None = None) -> Path:
    """The file of every layer, one after the other (the search's flat array)."""
    return store_dir(root) / "values.u8"


def layer_path(seeds: int, root: Path | None = None) -> Path:
    """Where earlier versions kept layer ``seeds`` in a file of its own."""
    return store_dir(root) / f"layer-{seeds:02d}.u8"


def bounds_paths(root: Path | None = None) -> tuple[Path, Path]:
    """The files of the game bounds, lower and upper, laid out as the values."""
    directory = store_dir(root)
    return directory / "bounds-low.u8", directory / "bounds-high.u8"


def complete_bound_layers(root: Path | None = None) -> int:
    """How many layers of the game bounds from 0 upwards are whole in both files."""
    sizes = [path.stat().st_size if path.exists() else 0 for path in bounds_paths(root)]
    return _whole_layers(min(sizes))


def load_bounds(
    max_seeds: int | None = None, root: Path | None = None
) -> tuple[np.ndarray, np.ndarray] | None:
    """Map the stored game bounds (up to ``max_seeds``) as two flat arrays laid out as
    :func:`load`'s, or None if none are stored; nothing read until used, and nothing
    written back (copy-on-write, as :func:`load`: numba compiles for writable arrays)."""
    available = complete_bound_layers(root) - 1
    if available < 0:
        return None
    top = available if max_seeds is None else min(max_seeds, available)
    low, high = bounds_paths(root)
    shape = (layer_offset(top + 1),)
    return (
        np.memmap(low, dtype=np.uint8, mode="c", shape=shape),
        np.memmap(high, dtype=np.uint8, mode="c", shape=shape),
    )


def _whole_layers(size: int) -> int:
    """How many layers from 0 upwards ``size`` bytes hold entirely."""
    seeds = 0
    while layer_offset(seeds + 1) <= size:
        seeds += 1
    return seeds


@contextlib.contextmanager
def _locked(root: Path | None) -> Iterator[None]:
    """Hold the store's lock (another process building waits here until it is done)."""
    directory = store_dir(root)
    directory.mkdir(parents=True, exist_ok=True)
    with (directory / "values.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _adopt_layer_files(root: Path | None) -> None:
    """Append the whole ``layer-NN.u8`` files that continue ``values.u8``, then remove
    every layer file the values file covers (call with the lock held)."""
    path = values_path(root)
    size = path.stat().st_size if path.exists() else 0
    whole = _whole_layers(size)
    with path.open("ab") as out:
        if size != layer_offset(whole):
            out.truncate(layer_offset(whole))  # a stopped append
        while True:
            layer = layer_path(whole, root)
            if not layer.exists() or layer.stat().st_size != layer_size(whole):
                break
            out.write(layer.read_bytes())
            whole += 1
        out.flush()
        os.fsync(out.fileno())
    for seeds in range(whole):
        layer_path(seeds, root).unlink(missing_ok=True)


def _has_layer_files(root: Path | None) -> bool:
    directory = store_dir(root)
    return directory.is_dir() and any(directory.glob("layer-*.u8"))


def complete_layers(root: Path | None = None) -> int:
    """How many layers from 0 upwards are on disk and whole (the next to build)."""
    if _has_layer_files(root):
        with _locked(root):
            _adopt_layer_files(root)
    path = values_path(root)
    return _whole_layers(path.stat().st_size) if path.exists() else 0


def load(max_seeds: int | None = None, root: Path | None = None) -> np.ndarray | None:
    """Map the stored layers (up to ``max_seeds``) as one flat array, or None if none.

    The array is what :mod:`core.engine.search` takes; ``max_seeds`` of the
    result is ``database_seeds(array)``. Nothing is read until the search
    touches it; the mapping is copy-on-write (numba compiles for writable
    arrays), and nothing is ever written back to the file.
    """
    available = complete_layers(root) - 1
    if available < 0:
        return None
    top = available if max_seeds is None else min(max_seeds, available)
    return np.memmap(values_path(root), dtype=np.uint8, mode="c", shape=(layer_offset(top + 1),))


def database_seeds(values: np.ndarray) -> int:
    """The highest layer a flat array from :func:`load` or :func:`build` holds."""
    seeds = 0
    while layer_offset(seeds + 2) <= values.shape[0]:
        seeds += 1
    return seeds


class ProgressBar:
    """A one-line progress bar on a text stream (stderr), weighted by positions."""

    def __init__(
        self, first: int, last: int, stream: TextIO | None = None, label: str = "endgame"
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.label = label
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
            f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {fraction:6.1%} "
            f"{what} {elapsed:6.0f}s "
        )
        self.stream.flush()


LayerDone = Callable[[dict[str, int | float]], None]


def _append(out: BinaryIO, layer: np.ndarray) -> None:
    """Append a layer's bytes to a store file and wait until they are on disk: a layer
    on disk is a layer kept."""
    out.write(layer.tobytes())
    out.flush()
    os.fsync(out.fileno())


def build(
    max_seeds: int,
    root: Path | None = None,
    stream: TextIO | None = None,
    show_progress: bool = True,
    on_layer: LayerDone | None = None,
    bounds: bool = False,
) -> np.ndarray:
    """Build (or finish building) every layer up to ``max_seeds`` and return them all.

    Layers already on disk are read, not rebuilt (the build needs every lower
    layer in memory). ``on_layer`` receives the figures of each layer built
    (seeds, positions, sweeps, cyclic, seconds). With ``bounds``, the game bounds
    are then brought up to ``max_seeds`` too (:func:`build_bounds`).
    """
    with _locked(root):
        _adopt_layer_files(root)
        path = values_path(root)
        first = min(_whole_layers(path.stat().st_size), max_seeds + 1)
        values = retrograde.empty_values(max_seeds)
        values[: layer_offset(first)] = np.fromfile(path, np.uint8, layer_offset(first))
        bar = ProgressBar(first, max_seeds, stream) if show_progress else None
        with path.open("ab") as out:
            for seeds in range(first, max_seeds + 1):
                started = time.perf_counter()
                info: dict[str, int | float] = dict(
                    retrograde.build_layer(seeds, values, bar.update if bar else None)
                )
                info["seconds"] = time.perf_counter() - started
                start = layer_offset(seeds)
                _append(out, values[start : start + layer_size(seeds)])
                if bar is not None:
                    bar.layer_done(seeds)
                if on_layer is not None:
                    on_layer(info)
        if bar is not None:
            bar.finish()
        if bounds:
            _build_bounds(max_seeds, root, stream, show_progress, on_layer)
    return values


def build_bounds(
    max_seeds: int,
    root: Path | None = None,
    stream: TextIO | None = None,
    show_progress: bool = True,
    on_layer: LayerDone | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Bring the stored game bounds up to ``max_seeds`` (resumable as the values are)
    and return them; ``on_layer`` receives each layer's figures (seeds, positions,
    open: how many stay ``L < U``, seconds, bounds: 1)."""
    with _locked(root):
        return _build_bounds(max_seeds, root, stream, show_progress, on_layer)


def _build_bounds(
    max_seeds: int,
    root: Path | None,
    stream: TextIO | None,
    show_progress: bool,
    on_layer: LayerDone | None,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`build_bounds` with the lock held."""
    paths = bounds_paths(root)
    closing = f"{tighten.CLOSED_UP_TO} {tighten.PROOF_NODES}"
    marker = paths[0].parent / "bounds-closed.txt"
    first = min(complete_bound_layers(root), max_seeds + 1)
    if not marker.exists() or marker.read_text().strip() != closing:
        first = 0  # bounds closed otherwise (or not at all): every layer again
    lows = retrograde.empty_values(max_seeds)
    highs = retrograde.empty_values(max_seeds)
    for array, path in zip((lows, highs), paths, strict=True):
        if path.exists():
            array[: layer_offset(first)] = np.fromfile(path, np.uint8, layer_offset(first))
    # the proofs play segments out with the values' layers under them (never read for
    # what they prove)
    closed = min(max_seeds, tighten.CLOSED_UP_TO)
    values = np.fromfile(values_path(root), np.uint8, layer_offset(closed + 1))
    bar = ProgressBar(first, max_seeds, stream, label="bounds") if show_progress else None
    with paths[0].open("ab") as low_out, paths[1].open("ab") as high_out:
        for out in (low_out, high_out):
            out.truncate(layer_offset(first))  # a stopped append, or the longer file's layer
        for seeds in range(first, max_seeds + 1):
            started = time.perf_counter()
            still_open = retrograde.bound_layer(seeds, lows, highs, bar.update if bar else None)
            if 2 <= seeds <= closed:
                report = tighten.tighten_layer(seeds, lows, highs, values)
                still_open -= report.closed
            start, stop = layer_offset(seeds), layer_offset(seeds + 1)
            _append(low_out, lows[start:stop])
            _append(high_out, highs[start:stop])
            if bar is not None:
                bar.layer_done(seeds)
            if on_layer is not None:
                on_layer(
                    {
                        "seeds": seeds,
                        "positions": stop - start,
                        "open": still_open,
                        "seconds": time.perf_counter() - started,
                        "bounds": 1,
                    }
                )
            if seeds == closed:
                marker.write_text(closing + "\n")
    if bar is not None:
        bar.finish()
    return lows, highs
