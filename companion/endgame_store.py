"""Endgame databases on disk: built once, kept in the user's cache directory,
memory-mapped when used.

The computation lives in :mod:`core.engine.retrograde` (arrays in, arrays
out, no I/O); this module decides where the bytes go, how a long build
survives being interrupted, and how a companion opens them at start-up.

Layout (``<cache>/endgame/abapa-v2/``, ``<cache>`` from platformdirs, e.g.
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
* ``bounds-low.u8`` and ``bounds-high.u8`` (above 10 seeds, ``endgame build --bounds``): the
  game bounds of every board (:func:`core.engine.retrograde.game_bounds`),
  laid out as ``values.u8`` and appended layer by layer the same way, both
  files at once; the shorter decides which layers are whole. They say which
  values hold under the real cycle rule (``L == U``) and what each side can
  force where they do not; the match bench rates games by them. The bounds of the
  layers up to :data:`core.engine.tighten.CLAMPED_UP_TO` seeds are always built with
  the values, layer by layer, as :func:`core.engine.tighten.build_exact` does: those up
  to ``close_up_to`` seeds closed by proofs under the cycle rule, and the values of
  those layers clamped into them (where the bounds close, the value is the game's, not
  the cycle convention's); every layer above is built on them.
* ``closed.txt``: how far the proofs closed those layers (the budget of each layer's
  proofs). A build asked to close more (``--close-up-to``, ``--proof-nodes``) builds
  the store again from the first layer it must close, the layers below kept; in the
  layers it builds again, what the earlier bounds had closed stays closed (bounds on
  the game hold whoever proved them, so the new ones are cut to the earlier ones) and
  the proofs go only to the boards still open. A layer with no board left open has
  nothing to close: bigger proofs do not build it again. Until the build has made every small
  layer again, those earlier bounds wait in ``bounds-earlier.npz``, so that a build
  stopped on the way keeps them too.
* ``proofs-tried.npz``: while a layer's proofs go, which of its boards they have tried
  (and the bounds they found, added to ``bounds-earlier.npz``), written as each part of
  the layer ends: a build stopped halfway through a layer's proofs (they take hours at
  8 seeds) goes on from there when run again with the same or a smaller budget, rather
  than proving the layer from its first board.

The directory name carries a format version: if the meaning of the bytes ever
changes (rules, value convention) the version changes and old files are
simply not used.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import fcntl
import os
import sys
import time
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO, TextIO

import numpy as np
import platformdirs

from core.engine import retrograde, tighten
from core.engine.ranking import layer_offset, layer_size

#: Bump when the stored values change meaning; part of the directory name (v2: the
#: values of small layers clamped into game bounds closed by proofs).
FORMAT = "abapa-v2"

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


def bounds_paths(root: Path | None = None) -> tuple[Path, Path]:
    """The files of the game bounds, lower and upper, laid out as the values."""
    directory = store_dir(root)
    return directory / "bounds-low.u8", directory / "bounds-high.u8"


def closing_path(root: Path | None = None) -> Path:
    """The record of how far proofs closed the stored game bounds: per layer up to
    :data:`core.engine.tighten.CLAMPED_UP_TO` seeds, the budget of its proofs (0: the
    sweep alone), one number a line."""
    return store_dir(root) / "closed.txt"


def stored_closing(root: Path | None = None) -> list[int]:
    """The budget of the proofs that closed each small layer of the store (index: seeds;
    0 where none ran). A store built before the record was kept counts as built with
    the defaults; an unreadable record, as closed nowhere (a build asked to close a
    layer then closes it again)."""
    small = tighten.CLAMPED_UP_TO + 1
    path = closing_path(root)
    if not path.exists():
        return [_budget(seeds, tighten.CLOSED_UP_TO, tighten.PROOF_NODES) for seeds in range(small)]
    try:
        budgets = [int(word) for word in path.read_text().split()]
    except ValueError:
        budgets = []
    return (budgets + [0] * small)[:small]


def _budget(seeds: int, close_up_to: int, proof_nodes: int) -> int:
    """The budget of the proofs a build closing up to ``close_up_to`` seeds with
    ``proof_nodes`` nodes a proof spends on layer ``seeds`` (0: none; no layer under 2
    seeds has a board to prove)."""
    return proof_nodes if 2 <= seeds <= close_up_to else 0


def _first_to_close(
    budgets: list[int], close_up_to: int, proof_nodes: int, root: Path | None
) -> int:
    """The first layer that a build closing the layers up to ``close_up_to`` seeds with
    proofs of ``proof_nodes`` nodes must build again: one the store closed with smaller
    proofs and left boards open in, or not at all (a layer closed further than asked is
    kept, and so is one whose every board is closed: bigger proofs have nothing to do
    there)."""
    for seeds in range(2, min(close_up_to, tighten.CLAMPED_UP_TO) + 1):
        if budgets[seeds] < proof_nodes and _open_in_store(root, seeds):
            return seeds
    return tighten.CLAMPED_UP_TO + 1


def _open_in_store(root: Path | None, seeds: int) -> bool:
    """Whether the stored game bounds leave a board of layer ``seeds`` open (or do not
    hold the layer whole)."""
    if complete_bound_layers(root) <= seeds:
        return True
    start, size = layer_offset(seeds), layer_size(seeds)
    lows, highs = (np.fromfile(path, np.uint8, size, offset=start) for path in bounds_paths(root))
    return bool((lows < highs).any())


def _write_whole(path: Path, write: Callable[[BinaryIO], object]) -> None:
    """Write ``path`` whole or not at all: ``write`` fills a file beside it, which then
    replaces it (a build stopped meanwhile leaves the old one)."""
    partial = path.with_suffix(".part")
    with partial.open("wb") as out:
        write(out)
    os.replace(partial, path)


def _record_closing(root: Path | None, budgets: list[int]) -> None:
    """Write the record of :func:`stored_closing` whole or not at all."""
    text = "".join(f"{budget}\n" for budget in budgets)
    _write_whole(closing_path(root), lambda out: out.write(text.encode()))


def earlier_path(root: Path | None = None) -> Path:
    """The small layers' bounds a build making them again cuts its own to (a build
    stopped before it made them all finds them there)."""
    return store_dir(root) / "bounds-earlier.npz"


def tried_path(root: Path | None = None) -> Path:
    """Which boards of the layer under proof a build has tried, and with what budget (a
    build stopped there does not try them again)."""
    return store_dir(root) / "proofs-tried.npz"


def _tried(root: Path | None, seeds: int, proof_nodes: int) -> np.ndarray:
    """The boards of layer ``seeds`` (by rank) whose proofs a stopped build tried with at
    least ``proof_nodes`` nodes; none where it tried another layer or smaller proofs."""
    tried = np.zeros(layer_size(seeds), dtype=np.bool_)
    kept = _read_kept(tried_path(root), ("seeds", "nodes", "tried"))
    if kept is None:
        return tried
    layer, nodes, boards = int(kept[0]), int(kept[1]), kept[2]
    if layer == seeds and nodes >= proof_nodes and boards.shape == tried.shape:
        tried[:] = boards
    return tried


def _read_kept(path: Path, names: tuple[str, ...]) -> list[np.ndarray] | None:
    """The arrays ``names`` of a record a build kept in ``path`` (:func:`_write_whole`),
    or None where there is none or it cannot be read."""
    try:
        with np.load(path) as kept:
            return [kept[name] for name in names]
    except (OSError, ValueError, KeyError, zipfile.BadZipFile):
        return None


def _keep_tried(root: Path | None, seeds: int, proof_nodes: int, tried: np.ndarray) -> None:
    """Write :func:`tried_path` whole or not at all."""
    _write_whole(
        tried_path(root), lambda out: np.savez(out, seeds=seeds, nodes=proof_nodes, tried=tried)
    )


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


def complete_layers(root: Path | None = None) -> int:
    """How many layers from 0 upwards are on disk and whole (the next to build)."""
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

    def proving(self, seeds: int, done: int, total: int) -> None:
        """Called as the proofs closing a layer's game bounds go (its values built)."""
        self._draw(self._done_below(seeds), f"layer {seeds}/{self.last} proofs {done}/{total}")

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


#: Characters a bar's line may take (label, bar, figures and the longest note).
BAR_LINE = 120


def wipe_bar(stream: TextIO | None = None) -> None:
    """Blank the bar's line on ``stream`` (stderr), so that a line printed next is not
    drawn over it; the bar's next update draws it again."""
    out = stream if stream is not None else sys.stderr
    out.write("\r" + " " * BAR_LINE + "\r")
    out.flush()


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
    close_up_to: int = tighten.CLOSED_UP_TO,
    proof_nodes: int = tighten.PROOF_NODES,
    workers: int | None = None,
) -> np.ndarray:
    """Build (or finish building) every layer up to ``max_seeds`` and return them all.

    Layers already on disk are read, not rebuilt (the build needs every lower
    layer in memory). ``on_layer`` receives the figures of each layer built
    (seeds, positions, sweeps, cyclic, seconds; for the layers up to
    :data:`core.engine.tighten.CLAMPED_UP_TO`, open: how many boards the game bounds
    leave open, closed: how many proofs closed, clamped: values moved into the
    bounds). The game bounds of those layers are built with the values; those up to
    ``close_up_to`` seeds closed by proofs of ``proof_nodes`` nodes at most each,
    ``workers`` processes sharing a layer (the machine's cores by default). With
    ``bounds``, the game bounds are then brought up to ``max_seeds`` too
    (:func:`build_bounds`).
    """
    with _locked(root):
        path = values_path(root)
        path.touch()
        first = min(_whole_layers(path.stat().st_size), max_seeds + 1)
        small = tighten.CLAMPED_UP_TO + 1  # the layers built with their bounds
        if first <= small:
            # a build stopped between the values and the bounds of a layer redoes it
            first = min(first, complete_bound_layers(root))
        # a layer closed less than asked is built again, and every layer above it (their
        # captures are scored by it)
        budgets = stored_closing(root)
        first = min(first, _first_to_close(budgets, min(close_up_to, max_seeds), proof_nodes, root))
        earlier = _earlier_bounds(root, first, small)
        if first < small and _knows(earlier, layer_offset(first)):
            _keep_earlier(root, earlier)
        values = retrograde.empty_values(max_seeds)
        values[: layer_offset(first)] = np.fromfile(path, np.uint8, layer_offset(first))
        lows = np.zeros(layer_offset(small), dtype=np.uint8)
        highs = np.zeros(layer_offset(small), dtype=np.uint8)
        below = min(first, small)
        for array, bound_path in zip((lows, highs), bounds_paths(root), strict=True):
            if below:
                array[: layer_offset(below)] = np.fromfile(
                    bound_path, np.uint8, layer_offset(below)
                )
        bar = ProgressBar(first, max_seeds, stream) if show_progress else None
        with contextlib.ExitStack() as files:
            out = files.enter_context(path.open("ab"))
            low_out = high_out = None
            if first <= max_seeds:
                # (a stopped append, or a layer whose bounds did not reach the disk)
                out.truncate(layer_offset(first))
            if first <= min(max_seeds, small - 1):
                low_out, high_out = (
                    files.enter_context(bound_path.open("ab")) for bound_path in bounds_paths(root)
                )
                for bound_out in (low_out, high_out):
                    bound_out.truncate(layer_offset(first))
            for seeds in range(first, max_seeds + 1):
                started = time.perf_counter()
                info: dict[str, int | float] = dict(
                    retrograde.build_layer(seeds, values, bar.update if bar else None)
                )
                start, stop = layer_offset(seeds), layer_offset(seeds + 1)
                if seeds < small and low_out is not None and high_out is not None:
                    closing = (close_up_to, proof_nodes)
                    info.update(
                        _close_layer(
                            seeds, values, lows, highs, earlier, closing, workers, bar, root
                        )
                    )
                    _append(low_out, lows[start:stop])
                    _append(high_out, highs[start:stop])
                info["seconds"] = time.perf_counter() - started
                _append(out, values[start:stop])
                if seeds < small:
                    budgets[seeds] = _budget(seeds, close_up_to, proof_nodes)
                    _record_closing(root, budgets)
                    tried_path(root).unlink(missing_ok=True)  # (its proofs are all in)
                if bar is not None:
                    bar.layer_done(seeds)
                if on_layer is not None:
                    on_layer(info)
        if not _knows(earlier, layer_offset(min(max_seeds + 1, small))):
            earlier_path(root).unlink(missing_ok=True)  # (every layer known made again)
        if bar is not None:
            bar.finish()
        if bounds:
            _build_bounds(max_seeds, root, stream, show_progress, on_layer)
    return values


def _earlier_bounds(root: Path | None, first: int, small: int) -> tuple[np.ndarray, np.ndarray]:
    """The bounds known of the small layers from ``first`` up before the build cuts the
    files: those whole in both files, cut to those a stopped build kept in
    :func:`earlier_path`; 0 and 255 where nothing is known."""
    size = layer_offset(small)
    lows = np.zeros(size, dtype=np.uint8)
    highs = np.full(size, 255, dtype=np.uint8)
    upto = min(complete_bound_layers(root), small)
    if upto > first:
        start, count = layer_offset(first), layer_offset(upto) - layer_offset(first)
        for array, path in zip((lows, highs), bounds_paths(root), strict=True):
            with path.open("rb") as source:
                source.seek(start)
                array[start : start + count] = np.fromfile(source, np.uint8, count)
    kept = _read_kept(earlier_path(root), ("lows", "highs"))
    if kept is None:
        return lows, highs
    kept_lows, kept_highs = kept
    if kept_lows.shape == kept_highs.shape == (size,):
        np.maximum(lows, kept_lows, out=lows)
        np.minimum(highs, kept_highs, out=highs)
    return lows, highs


def _knows(earlier: tuple[np.ndarray, np.ndarray], start: int) -> bool:
    """Whether :func:`_earlier_bounds` knows anything of the boards from ``start`` up."""
    return bool((earlier[0][start:] > 0).any() or (earlier[1][start:] < 255).any())


def _keep_earlier(root: Path | None, earlier: tuple[np.ndarray, np.ndarray]) -> None:
    """Write :func:`earlier_path` whole or not at all."""
    _write_whole(earlier_path(root), lambda out: np.savez(out, lows=earlier[0], highs=earlier[1]))


def _close_layer(
    seeds: int,
    values: np.ndarray,
    lows: np.ndarray,
    highs: np.ndarray,
    earlier: tuple[np.ndarray, np.ndarray],
    closing: tuple[int, int],
    workers: int | None,
    bar: ProgressBar | None,
    root: Path | None,
) -> dict[str, int | float]:
    """Layer ``seeds``'s game bounds (cut to the ``earlier`` ones, then closed by proofs
    up to ``closing`` = (seeds, nodes a proof)) and its values clamped into them, as
    :func:`core.engine.tighten.build_exact` does; the proofs' progress is kept under
    ``root`` (:func:`tried_path`)."""
    retrograde.bound_layer(seeds, lows, highs)
    start, stop = layer_offset(seeds), layer_offset(seeds + 1)
    low = np.maximum(lows[start:stop], earlier[0][start:stop])
    high = np.minimum(highs[start:stop], earlier[1][start:stop])
    agree = low <= high  # (always, both being bounds on the game)
    lows[start:stop][agree] = low[agree]
    highs[start:stop][agree] = high[agree]
    still_open = int(np.count_nonzero(lows[start:stop] < highs[start:stop]))
    closed = 0
    close_up_to, proof_nodes = closing
    if _budget(seeds, close_up_to, proof_nodes):
        closed = _tighten(seeds, values, (lows, highs), earlier, proof_nodes, workers, bar, root)
    clamped = tighten.clamp_layer(seeds, values, lows, highs)
    return {"open": still_open - closed, "closed": closed, "clamped": clamped}


def _tighten(
    seeds: int,
    values: np.ndarray,
    bounds: tuple[np.ndarray, np.ndarray],
    earlier: tuple[np.ndarray, np.ndarray],
    proof_nodes: int,
    workers: int | None,
    bar: ProgressBar | None,
    root: Path | None,
) -> int:
    """:func:`core.engine.tighten.tighten_layer` on layer ``seeds`` of ``bounds``, its
    open boards dealt out in parts to ``workers`` processes (each proof plays out a
    segment of its own: nothing is shared but the lower layers); returns how many boards
    closed. As each part ends, the boards it tried go to :func:`tried_path` and the
    bounds it found into ``earlier`` (:func:`earlier_path`): a build stopped here tries
    only the others when run again."""
    lows, highs = bounds
    start, stop = layer_offset(seeds), layer_offset(seeds + 1)
    still_open = lows[start:stop] < highs[start:stop]
    tried = _tried(root, seeds, proof_nodes)
    todo = np.flatnonzero(still_open & ~tried)
    total, done = int(np.count_nonzero(still_open)), int(np.count_nonzero(still_open & tried))
    processes = workers or os.cpu_count() or 1
    # enough parts for the bar to move, the processes to end together and a stopped
    # build to lose little (a hundred boards a part: minutes at 8 seeds)
    parts = max(processes * 16, len(todo) // 100)
    # copies: the pool sends a part's arguments when a process is free, by then the merge
    # below has closed other boards, which would move the parts' shares of the open ones
    below = (values[:stop].copy(), lows[:stop].copy(), highs[:stop].copy())
    closed = 0

    def merge(part: int, part_lows: np.ndarray, part_highs: np.ndarray) -> None:
        nonlocal closed, done
        # each part changed only its own boards, of the copies it was sent
        moved = (part_lows != below[1][start:]) | (part_highs != below[2][start:])
        lows[start:stop][moved] = part_lows[moved]
        highs[start:stop][moved] = part_highs[moved]
        closed += int(np.count_nonzero(moved & (part_lows == part_highs)))
        mine = todo[part::parts]
        if not len(mine):
            return  # (a small layer: fewer boards than parts)
        tried[mine] = True
        done += len(mine)
        np.maximum(earlier[0][start:stop], lows[start:stop], out=earlier[0][start:stop])
        np.minimum(earlier[1][start:stop], highs[start:stop], out=earlier[1][start:stop])
        _keep_earlier(root, earlier)
        _keep_tried(root, seeds, proof_nodes, tried)
        if bar is not None:
            bar.proving(seeds, done, total)

    skip = tried.copy()
    if processes == 1 or len(todo) < 200:  # (a few seconds: not worth the processes)
        for part in range(parts):
            part_bounds = (below[1].copy(), below[2].copy())
            merge(
                part, *_tighten_part(seeds, below[0], *part_bounds, proof_nodes, part, parts, skip)
            )
        return closed
    with concurrent.futures.ProcessPoolExecutor(processes) as pool:
        futures = {
            pool.submit(_tighten_part, seeds, *below, proof_nodes, part, parts, skip): part
            for part in range(parts)
        }
        for future in concurrent.futures.as_completed(futures):
            merge(futures[future], *future.result())
    return closed


def _tighten_part(
    seeds: int,
    values: np.ndarray,
    lows: np.ndarray,
    highs: np.ndarray,
    proof_nodes: int,
    part: int,
    parts: int,
    skip: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """One part of :func:`_tighten`: its layer's bounds after the proofs."""
    tighten.tighten_layer(
        seeds, lows, highs, values, proof_nodes, part=part, parts=parts, skip=skip
    )
    start = layer_offset(seeds)
    return lows[start:], highs[start:]


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
    first = min(complete_bound_layers(root), max_seeds + 1)
    lows = retrograde.empty_values(max_seeds)
    highs = retrograde.empty_values(max_seeds)
    for array, path in zip((lows, highs), paths, strict=True):
        if path.exists():
            array[: layer_offset(first)] = np.fromfile(path, np.uint8, layer_offset(first))
    show_progress = show_progress and first <= max_seeds  # (nothing to build: no bar)
    bar = ProgressBar(first, max_seeds, stream, label="bounds") if show_progress else None
    with paths[0].open("ab") as low_out, paths[1].open("ab") as high_out:
        for out in (low_out, high_out):
            out.truncate(layer_offset(first))  # a stopped append, or the longer file's layer
        for seeds in range(first, max_seeds + 1):
            started = time.perf_counter()
            still_open = retrograde.bound_layer(seeds, lows, highs, bar.update if bar else None)
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
    if bar is not None:
        bar.finish()
    return lows, highs
