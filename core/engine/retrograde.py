"""Endgame databases for Abapa by retrograde analysis, one layer per seed count.

What a value means
------------------
For a board with ``n`` seeds on it and a player to move (the board is stored
from the mover's side, see :mod:`core.engine.kernel`), the value is the number
of those ``n`` seeds the mover ends the game with under best play by both
sides, each maximising their own final total. Stores do not matter: seeds
already captured never come back, so the best play for the rest of the game
is the same whatever the score. (Oware stops at 25; playing on to the end
changes the margin but never who wins, because captures only grow. The value
is therefore exact for win/draw/loss and gives the best final split.)

A capture leaves the layer: the captor gets ``c`` seeds and the rest of the
game is a position with ``n - c`` seeds whose value is already known. So
layers are built from 0 seeds upwards and each layer only has to solve its
own non-capturing moves, which can go round in circles.

How repetition is resolved
--------------------------
Abapa ends the game at the first repetition of a position (with seeds on
both sides), each player taking the seeds on their side. Taken literally the
value of a position would depend on the whole history since the last
capture, which no database can store. We use the standard two-bound
construction instead:

* ``L`` (lower bound): the value of the layer game when never leaving the
  layer counts as the worst possible for the mover (0 seeds);
* ``U`` (upper bound): the same when never leaving it counts as the best (all
  ``n`` seeds).

Both are least fixpoints reached by sweeping the layer until nothing changes
(``L`` only rises, ``U`` only falls, so the sweeps may update in place and in
parallel). Where ``L == U`` the value is forced whatever a cycle would give:
it is exact under any cycle rule. Where ``L < U`` neither player can force
the play out of the layer with a better result than by keeping it going:
the game will repeat, and we apply the cycle rule *at that position* — the
mover keeps the seeds on their side — clamped into ``[L, U]`` because
neither player would accept less than what they can force. It is exact when
the repeated position is the one being valued; otherwise (the cycle may be
closed at another position of the loop, depending on history) it is a
convention, and only the positions counted as ``cyclic`` by
:func:`build_layer` depend on it directly. In practice they are few and
small: none at all from 11 seeds up (the build reports the count per layer).
Indirectly, more do: a capture leads into a lower layer, whose value may be
the convention, so a value from 11 seeds up is exact only if the lower
values its play reaches are. :func:`game_bounds` scores each layer's captures
by the lower layers' own bounds instead, which makes ``L`` and ``U`` hold
under the real cycle rule (for a position reached by a capture: no history);
they leave most positions of 11 seeds and more open. The store builds the small layers'
bounds with the values and closes what proofs can of them (:mod:`core.engine.tighten`),
then clamps those layers' values into them, so that the layers above are built on
values the cycle rule gives wherever the bounds close.
The independent solver in the tests computes ``L`` and ``U`` by attractor
sets over an explicit game graph and applies the same clamp.

Speed
-----
The first sweep generates every move of every board. The positions still
open after it get their capture moves' best value and their same-layer
children's ranks recorded (33 bytes each), so that the remaining sweeps
are plain gathers over compact arrays. Nearly all positions are still open
after the first sweep, so these records take several times the memory of
the values and bounds (figures: ``docs/ENGINE.md``, "Endgame databases:
memory").

Memory layout
-------------
All layers live in one flat ``uint8`` array; layer ``n`` starts at
:func:`core.engine.ranking.layer_offset` and a board is found at
``offset + rank(board)``. Up to 20 seeds this is 225 792 840 bytes.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from core.engine._jit import njit, njit_parallel, prange
from core.engine.kernel import (
    NO_CAPTURE,
    NOT_OVER,
    flip_into,
    game_end,
    legal_moves,
    play_into,
    side_sum,
)
from core.engine.ranking import CUMULATIVE, layer_offset, layer_size, next_board, rank, unrank_into

Values = npt.NDArray[np.uint8]

#: Layer offsets as an array the compiled code can index (seeds -> first index).
OFFSETS = np.array([layer_offset(n) for n in range(50)], dtype=np.int64)

#: How many slices a layer is cut into for the parallel sweep.
CHUNKS = 64

#: ``progress(seeds, sweep, changed)`` is called after every sweep.
Progress = Callable[[int, int, int], None]


@njit
def _tighten(low: Values, high: Values, r: int, lo: int | np.int64, hi: int | np.int64) -> int:
    """Raise ``low[r]`` to ``lo`` and lower ``high[r]`` to ``hi`` where that narrows the
    bounds; return how many of the two changed."""
    changed = 0
    if lo > low[r]:
        low[r] = lo
        changed += 1
    if hi < high[r]:
        high[r] = hi
        changed += 1
    return changed


@njit_parallel
def sweep_layer(
    seeds: int,
    values: Values,
    values_high: Values,
    low: Values,
    high: Values,
    table: npt.NDArray[np.int64],
    offsets: npt.NDArray[np.int64],
    chunks: int,
    first: bool,
) -> int:
    """One pass over layer ``seeds``: tighten ``low``/``high``; return how many moved.

    ``values`` and ``values_high`` must already hold every layer below ``seeds``: a
    capture is scored with the first for ``low`` and with the second for ``high``
    (see :func:`layer_bounds`).
    """
    size = low.shape[0]
    changed = 0
    for chunk in prange(chunks):
        start = size * chunk // chunks
        stop = size * (chunk + 1) // chunks
        if start >= stop:
            continue
        board = np.zeros(12, dtype=np.int8)
        after = np.zeros(12, dtype=np.int8)
        child = np.zeros(12, dtype=np.int8)
        moves = np.zeros(6, dtype=np.int64)
        unrank_into(start, seeds, table, board)
        local = 0
        for r in range(start, stop):
            if r > start:
                next_board(board)
            if not first and low[r] == high[r]:
                continue
            end = game_end(board, NO_CAPTURE)
            if end != NOT_OVER:
                if low[r] != end or high[r] != end:
                    low[r] = end
                    high[r] = end
                    local += 1
                continue
            count = legal_moves(board, moves, NO_CAPTURE)
            lo = 0
            hi = 0
            for k in range(count):
                taken = play_into(board, moves[k], after, NO_CAPTURE)
                flip_into(after, child)
                cr = rank(child, table)
                if taken > 0:
                    at = offsets[seeds - taken] + cr
                    lo = max(lo, seeds - values[at])
                    hi = max(hi, seeds - values_high[at])
                else:
                    lo = max(lo, seeds - high[cr])
                    hi = max(hi, seeds - low[cr])
            local += _tighten(low, high, r, lo, hi)
        changed += local
    return changed


@njit_parallel
def count_open(low: Values, high: Values, chunks: int) -> npt.NDArray[np.int64]:
    """Per slice of the layer, how many positions still have ``low < high``."""
    size = low.shape[0]
    counts = np.zeros(chunks, dtype=np.int64)
    for chunk in prange(chunks):
        start = size * chunk // chunks
        stop = size * (chunk + 1) // chunks
        n = 0
        for r in range(start, stop):
            if low[r] != high[r]:
                n += 1
        counts[chunk] = n
    return counts


@njit_parallel
def collect_open(
    seeds: int,
    values: Values,
    values_high: Values,
    low: Values,
    high: Values,
    table: npt.NDArray[np.int64],
    offsets: npt.NDArray[np.int64],
    chunks: int,
    first: npt.NDArray[np.int64],
    index: npt.NDArray[np.int64],
    exits: Values,
    exits_high: Values,
    children: npt.NDArray[np.int32],
) -> None:
    """Record, for every open position, its best capture (for ``low`` in ``exits``, for
    ``high`` in ``exits_high``) and its same-layer children.

    Later sweeps then only gather bounds (``children`` holds ranks, -1 for
    none) instead of sowing and ranking every move again.
    """
    size = low.shape[0]
    for chunk in prange(chunks):
        start = size * chunk // chunks
        stop = size * (chunk + 1) // chunks
        if start >= stop:
            continue
        board = np.zeros(12, dtype=np.int8)
        after = np.zeros(12, dtype=np.int8)
        child = np.zeros(12, dtype=np.int8)
        moves = np.zeros(6, dtype=np.int64)
        unrank_into(start, seeds, table, board)
        j = first[chunk]
        for r in range(start, stop):
            if r > start:
                next_board(board)
            if low[r] == high[r]:
                continue
            index[j] = r
            count = legal_moves(board, moves, NO_CAPTURE)
            best = 0
            best_high = 0
            for k in range(6):
                children[j, k] = -1
            slot = 0
            for k in range(count):
                taken = play_into(board, moves[k], after, NO_CAPTURE)
                flip_into(after, child)
                cr = rank(child, table)
                if taken > 0:
                    at = offsets[seeds - taken] + cr
                    best = max(best, seeds - values[at])
                    best_high = max(best_high, seeds - values_high[at])
                else:
                    children[j, slot] = cr
                    slot += 1
            exits[j] = best
            exits_high[j] = best_high
            j += 1


@njit_parallel
def sweep_open(
    seeds: int,
    low: Values,
    high: Values,
    index: npt.NDArray[np.int64],
    exits: Values,
    exits_high: Values,
    children: npt.NDArray[np.int32],
    chunks: int,
) -> int:
    """A sweep over the recorded open positions only (see :func:`collect_open`)."""
    size = index.shape[0]
    changed = 0
    for chunk in prange(chunks):
        start = size * chunk // chunks
        stop = size * (chunk + 1) // chunks
        local = 0
        for j in range(start, stop):
            r = index[j]
            if low[r] == high[r]:
                continue
            lo = np.int64(exits[j])
            hi = np.int64(exits_high[j])
            for k in range(6):
                c = children[j, k]
                if c < 0:
                    break
                lo = max(lo, seeds - np.int64(high[c]))
                hi = max(hi, seeds - np.int64(low[c]))
            local += _tighten(low, high, r, lo, hi)
        changed += local
    return changed


@njit_parallel
def resolve_cycles(
    seeds: int, low: Values, high: Values, out: Values, table: npt.NDArray[np.int64], chunks: int
) -> int:
    """Final values: ``low`` where forced, else own seeds clamped into the bounds.

    Returns how many positions were settled by the cycle rule.
    """
    size = low.shape[0]
    cyclic = 0
    for chunk in prange(chunks):
        start = size * chunk // chunks
        stop = size * (chunk + 1) // chunks
        if start >= stop:
            continue
        board = np.zeros(12, dtype=np.int8)
        unrank_into(start, seeds, table, board)
        local = 0
        for r in range(start, stop):
            if r > start:
                next_board(board)
            if low[r] == high[r]:
                out[r] = low[r]
                continue
            local += 1
            own = side_sum(board, 0)
            out[r] = min(max(own, low[r]), high[r])
        cyclic += local
    return cyclic


def empty_values(max_seeds: int) -> Values:
    """A flat array big enough for layers 0 … ``max_seeds``."""
    return np.zeros(layer_offset(max_seeds + 1), dtype=np.uint8)


def layer_bounds(
    seeds: int,
    for_low: Values,
    for_high: Values,
    progress: Progress | None = None,
) -> tuple[Values, Values, int]:
    """The bounds ``L`` and ``U`` of every position of layer ``seeds`` (see the module
    docstring), and the sweeps it took.

    A capture leaves the layer for a position of a lower layer, whose worth to its
    mover is read from ``for_low`` for ``L`` and from ``for_high`` for ``U`` (both only
    read, laid out as the databases are). The databases' build passes their values for
    both; :func:`game_bounds` passes the lower layers' own ``U`` for ``L`` and ``L`` for
    ``U`` (the captured position's mover then moves for the other side), so that the
    bounds hold however the lower layers' cycles close.
    """
    size = layer_size(seeds)
    low = np.zeros(size, dtype=np.uint8)
    high = np.full(size, seeds, dtype=np.uint8)
    # first sweep: every position, moves generated on the fly
    changed = sweep_layer(seeds, for_low, for_high, low, high, CUMULATIVE, OFFSETS, CHUNKS, True)
    sweeps = 1
    if progress is not None:
        progress(seeds, sweeps, changed)
    if changed:
        # then only the positions still open, with their moves recorded once
        counts = count_open(low, high, CHUNKS)
        first = np.zeros(CHUNKS, dtype=np.int64)
        first[1:] = np.cumsum(counts)[:-1]
        total = int(counts.sum())
        index = np.zeros(total, dtype=np.int64)
        exits = np.zeros(total, dtype=np.uint8)
        exits_high = np.zeros(total, dtype=np.uint8)
        children = np.zeros((total, 6), dtype=np.int32)
        collect_open(
            seeds,
            for_low,
            for_high,
            low,
            high,
            CUMULATIVE,
            OFFSETS,
            CHUNKS,
            first,
            index,
            exits,
            exits_high,
            children,
        )
        while changed:
            changed = sweep_open(seeds, low, high, index, exits, exits_high, children, CHUNKS)
            sweeps += 1
            if progress is not None:
                progress(seeds, sweeps, changed)
        del index, exits, exits_high, children
    return low, high, sweeps


def build_layer(seeds: int, values: Values, progress: Progress | None = None) -> dict[str, int]:
    """Solve layer ``seeds`` into ``values`` (lower layers must be there already).

    Returns figures about the build: sweeps, positions settled by the cycle rule.
    """
    low, high, sweeps = layer_bounds(seeds, values, values, progress)
    size = low.shape[0]
    start = layer_offset(seeds)
    cyclic = resolve_cycles(seeds, low, high, values[start : start + size], CUMULATIVE, CHUNKS)
    return {"seeds": seeds, "positions": size, "sweeps": sweeps, "cyclic": int(cyclic)}


def cycle_bounds(values: Values, below: int) -> tuple[Values, Values]:
    """``L`` and ``U`` of every position with fewer than ``below`` seeds, laid out as
    ``values`` is (``values`` must hold those layers; it is only read).

    Where they differ, a stored value is the cycle convention, which the game under
    its real cycle rule need not reach (a search can take the bound that is worst for
    the side it plays for instead). Layers from 11 seeds up have
    none of their own (the lower layers' conventions reach them through
    captures: :func:`game_bounds`); for the layers below it this takes about a
    second.

    >>> values = build(4)
    >>> low, high = cycle_bounds(values, 5)
    >>> bool((low <= values).all() and (values <= high).all()), bool((low < high).any())
    (True, True)
    """
    lows = np.zeros(layer_offset(below), dtype=np.uint8)
    highs = np.zeros(layer_offset(below), dtype=np.uint8)
    for seeds in range(below):
        _place_layer(seeds, lows, highs, values, values)
    return lows, highs


def _place_layer(
    seeds: int,
    lows: Values,
    highs: Values,
    for_low: Values,
    for_high: Values,
    progress: Progress | None = None,
) -> int:
    """:func:`layer_bounds` of layer ``seeds`` put into ``lows`` and ``highs``; returns how
    many of its positions stay open (``L < U``)."""
    low, high, _ = layer_bounds(seeds, for_low, for_high, progress)
    start = layer_offset(seeds)
    lows[start : start + low.shape[0]] = low
    highs[start : start + high.shape[0]] = high
    return int(np.count_nonzero(low < high))


def bound_layer(seeds: int, lows: Values, highs: Values, progress: Progress | None = None) -> int:
    """Put layer ``seeds`` of the game bounds (see :func:`game_bounds`) into ``lows`` and
    ``highs``, whose lower layers must be there; returns how many of its positions
    stay open (``L < U``)."""
    return _place_layer(seeds, lows, highs, highs, lows, progress)


def game_bounds(below: int, progress: Progress | None = None) -> tuple[Values, Values]:
    """``L`` and ``U`` of every position with fewer than ``below`` seeds, each layer's
    captures scored by the lower layers' own bounds (not by their values): what the
    mover can force, and what it cannot be kept from, under any cycle rule, from a
    position reached by a capture (no history). Laid out as the databases are.

    :func:`cycle_bounds` scores captures by the stored values, which below 11 seeds
    may rest on the cycle convention; these do not, and where ``L == U`` the value is
    the game's. Where they differ, the game value under the real cycle rule lies
    between them. (Up to 10 seeds this takes under a second once compiled; every
    layer to 22 about a quarter of an hour: ``endgame build`` stores them.)

    >>> values = build(6)
    >>> low, high = game_bounds(7)
    >>> bool((low <= values).all() and (values <= high).all())
    True
    >>> loose = cycle_bounds(values, 7)
    >>> bool((low <= loose[0]).all() and (loose[1] <= high).all())
    True
    """
    lows = np.zeros(layer_offset(below), dtype=np.uint8)
    highs = np.zeros(layer_offset(below), dtype=np.uint8)
    for seeds in range(below):
        bound_layer(seeds, lows, highs, progress)
    return lows, highs


def build(max_seeds: int, progress: Progress | None = None) -> Values:
    """Build every layer from 0 to ``max_seeds`` seeds in memory and return them."""
    values = empty_values(max_seeds)
    for seeds in range(max_seeds + 1):
        build_layer(seeds, values, progress)
    return values


def lookup(values: Values, board: npt.NDArray[np.int8]) -> int:
    """The stored value of a mover-relative ``board`` (its layer must be built)."""
    seeds = int(board.sum())
    return int(values[layer_offset(seeds) + rank(board, CUMULATIVE)])
