"""Alpha-beta search for Abapa: iterative deepening, PVS, transposition table.

The compiled part (:func:`negamax`, :func:`search_root`) works on the
mover-relative boards of :mod:`core.engine.kernel`; :class:`Searcher` drives
it from Python: iterative deepening under a time or node limit, a stop flag
another thread may raise, and the endgame database when one is loaded.

Techniques, and why:

* **Negamax with principal variation search**: the first (best-ordered)
  move gets the full window, the others a null window, re-searched only
  when they surprise; with good ordering most of the tree is refuted cheaply.
* **Transposition table** (Zobrist hashing, always-replace): Oware reaches
  the same board by different move orders all the time; the stored best
  move is also the first move tried at the next depth. Positions are stored
  from the mover's side, so South-to-move and the mirrored North-to-move
  board share an entry, which is sound because the rules are symmetric.
  Each entry's key and payload lie side by side: one cache line per probe.
* **Move ordering**: table move, then captures (largest first), then the two
  killer moves of the ply, then the history score (moves that caused
  cut-offs before).
* **Exact leaves**: a finished game, or a board the endgame database holds,
  scores its exact result (see :mod:`core.engine.evaluation`).
* **Solved detection**: table entries remember whether a heuristic guess lies
  below them, so "solved" (every line searched to its end) is never claimed
  on the strength of a guess stored by an earlier, shallower search.
* **Aspiration windows** (off by default: measured, they did not pay, see
  ``docs/ENGINE.md``): when playing, the first root move is searched within
  a window around the last depth's score, in full only when it falls outside.
* **Late-move reductions**: with good ordering a move tried third or later
  that neither captures nor is the table's or a killer rarely turns out
  best; it is searched one ply shallower first, fully only if it beats alpha.
* **Stop flag** checked every 1024 nodes: the time limit (a timer thread)
  and cancellation (the live worker) both just raise it. A depth that could not
  finish in the time left is not started: its unfinished search would be thrown away.

* **Repetitions**: the positions since the last capture, of the game
  (``history``) and of the search path, are hashed in a stack; a position
  that recurs as the rule set's cycle rule says (Abapa: once) ends the game
  there, each side taking the seeds on its side. A score that rests on such
  an end holds for that history only, so the table keeps just its move. In
  endgames (``HISTORY_BOUND_BELOW`` seeds or fewer) that goes for every node
  with positions before it since the last capture: a line that repeats under
  one history need not under another, so a score found under one must not
  answer for the same board under another.
* **Endgame databases where exact**: a database value assumes no history
  (no earlier position to repeat), and some values are a convention about
  cycles (below 11 seeds a side keeping its own seeds at a cycle the rule need
  not close there; above, through captures into those layers). So a value is
  a result only where the game bounds (:func:`core.engine.retrograde.game_bounds`,
  whose captures are scored by the lower layers' bounds) prove one: they meet,
  or the lower bound already wins, or the upper bound cannot avoid a loss.
  Elsewhere it is scored as a guess, its margin in seeds, never as a result.
  Scored as a result, the bound worst for the side searched for would make
  every line of an open ending look lost alike, and the value would make
  lines look won that the rule need not give. A position reached by a
  capture with 11 seeds or more is not searched through; elsewhere the search
  goes on through a database position and uses it only at its horizon. Where
  the result the bounds prove at the root (a draw or a win for the side to
  move, :meth:`Searcher.proven_target`) is at stake, a database position whose
  proven bound would leave that side under it is scored by the bound. Without
  stored bounds (``endgame build --bounds``) the layers from 11 seeds up are
  taken as their values say.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from core.engine import retrograde, segment
from core.engine._jit import borrowed, njit, njit_typed
from core.engine.evaluation import DEFAULT_WEIGHTS, WIN, evaluate, final_score
from core.engine.kernel import (
    NO_CAPTURE,
    NOT_OVER,
    flip_into,
    game_end,
    legal_moves,
    play_into,
    side_sum,
)
from core.engine.ranking import CUMULATIVE, layer_offset, rank
from core.engine.retrograde import OFFSETS

I8 = npt.NDArray[np.int8]
I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]

MAX_PLY = 128
INF = 1 << 30

# Indices into the ``stats`` array shared between Python and compiled code.
NODES, LIMIT, STOP, DB_HITS, EVALS, TAINTED, REPS, FLAGS, GUARD = 0, 1, 2, 3, 4, 5, 6, 7, 8
#: Length of the ``stats`` array.
STATS = 9

#: ``stats[FLAGS]`` bits: search techniques that can be switched off to measure them.
LMR = 1

#: From this many seeds on the board every database value is forced (its lower
#: and upper bounds meet, see core.engine.retrograde); below, some values are the
#: databases' convention for cycles, which the real game need not follow.
DB_EXACT_FROM = 11

#: With this many seeds on the board or fewer, a node with positions before it since the
#: last capture neither takes a score from the table nor leaves one there (only its move):
#: the score of such a node depends on that history (the cycle rule), and endgames are
#: where the cycle rule decides games.
HISTORY_BOUND_BELOW = 20

#: Under a time limit the next depth is started only if it could finish taking this many
#: times as long as the last one. A depth seldom takes less time than the one before, so
#: this seldom gives up a depth the time would have finished, and it saves the time the
#: search would spend on one it throws away (``python -m bench.engine --iterations``;
#: ``docs/ENGINE.md``, "Speed").
NEXT_ITERATION = 1.0

#: Depths a time limit does not cut short: the clock is looked at only after this
#: depth. Below 11 seeds the segment's play-out runs first and may take the whole move
#: on a loaded machine; a search left a ply or two can then play, among moves it scores
#: equal, one that a few plies more prove lost (game 9's board on values to 12 seeds,
#: ``docs/ENGINE.md``). Eight plies cost a few milliseconds on a middlegame board
#: (``python -m bench.engine --search --depth 8 --positions 40``).
MIN_DEPTH = 8

#: Half-width of the root's aspiration window (centi-seeds).
ASPIRATION = 60

#: Move-ordering key of a killer move (captures and the table move rank above).
KILLER_KEY = 1 << 34

#: Mixed into the table key of a node where the side the search plays for is not to move.
PARITY_KEY = np.uint64(0x9E3779B97F4A7C15)

# Transposition-table entry flags (bits 0-1), and bit 2: the score rests on a
# heuristic evaluation somewhere below (so a search using it is not "solved").
EXACT, LOWER, UPPER, HEURISTIC = 0, 1, 2, 4


def zobrist_keys(seed: int = 2002) -> U64:
    """Random keys: rows 0-11 a pit's count, row 12 the mover's store, row 13 the other's."""
    rng = np.random.default_rng(seed)
    return rng.integers(1, 2**63 - 1, size=(14, 200), dtype=np.int64).astype(np.uint64)


#: The search's Zobrist keys (a global: numba freezes it into the compiled code).
ZOB = zobrist_keys()


@njit
def position_hash(board: I8, mine: int, theirs: int, zob: U64) -> np.uint64:
    """Zobrist hash of a mover-relative board and the two stores."""
    h = zob[12, mine] ^ zob[13, theirs]
    for i in range(12):
        h ^= zob[i, board[i]]
    return np.uint64(h)


@njit
def tt_pack(score: int, depth: int, flag: int, move: int) -> int:
    """One table entry's payload in an int64: score, depth, flag, move."""
    return ((score + (1 << 31)) << 16) | (depth << 8) | (flag << 4) | (move + 1)


#: Types of :func:`negamax`, given explicitly so numba can cache the recursion.
NEGAMAX_SIGNATURE = (
    "int64(int8[::1], int64, int64, int64, int64, int64, int64, uint64[:, ::1], "
    "uint8[::1], uint8[::1], uint8[::1], int64, "
    "int64[::1], int64[::1], "
    "int8[:, :, ::1], int64[:, ::1], int64[:, ::1], int8[:, ::1], int64[:, ::1], int64[::1], "
    "int64, uint64[::1], int64, int64, int64)"
)


@njit
def repeated(hist: U64, idx: int, floor: int, needed: int) -> bool:
    """Whether ``hist[idx]`` occurred ``needed`` times before, same side to move, since ``floor``.

    ``hist`` holds the hash of each position of the game and of the search
    path in turn (one side to move, then the other); ``floor`` is the index
    of the first position after the last capture (earlier ones cannot
    recur: the stores differ). ``needed`` 0 means the rule set has no
    automatic cycle end.
    """
    if needed <= 0:
        return False
    h = hist[idx]
    count = 0
    j = idx - 2
    while j >= floor:
        if hist[j] == h:
            count += 1
            if count >= needed:
                return True
        j -= 2
    return False


@njit
def own_side_score(board: I8, mine: int, theirs: int) -> int:
    """A cycle's end: each player adds the seeds on their side."""
    return final_score(mine + side_sum(board, 0), theirs + side_sum(board, 6))


@njit_typed(NEGAMAX_SIGNATURE)
def negamax(
    board: I8,
    mine: int,
    theirs: int,
    depth: int,
    alpha: int,
    beta: int,
    ply: int,
    tt: U64,
    values: npt.NDArray[np.uint8],
    lows: npt.NDArray[np.uint8],
    highs: npt.NDArray[np.uint8],
    db_max: int,
    weights: I64,
    stats: I64,
    after: I8,
    taken: I64,
    moves: I64,
    child: I8,
    killers: I64,
    history: I64,
    mode: int,
    hist: U64,
    base: int,
    floor: int,
    needed: int,
) -> int:
    """Score of ``board`` for the mover, searched ``depth`` plies within ``(alpha, beta)``.

    The node's position is ``hist[base + ply]`` in the game's history
    (see :func:`repeated`); ``floor`` is where that history starts (the
    first position after the last capture). ``lows``/``highs``: the databases'
    game bounds for the layers whose values may be the cycle convention
    (:func:`core.engine.retrograde.game_bounds`; empty: none).
    """
    stats[NODES] += 1
    if (stats[NODES] & 1023) == 0 and stats[NODES] >= stats[LIMIT]:
        stats[STOP] = 1
    if stats[STOP] != 0:
        return 0
    seeds = 0
    for i in range(12):
        seeds += board[i]
    total = seeds + mine + theirs
    if 2 * mine > total or 2 * theirs > total:  # more than half: the game is decided
        return final_score(mine, theirs)
    h = position_hash(board, mine, theirs, ZOB)
    idx = base + ply
    hist[idx] = h
    if repeated(hist, idx, floor, needed):  # the cycle rule ends the game here
        stats[REPS] += 1
        return own_side_score(board, mine, theirs)
    end = game_end(board, mode)
    if end != NOT_OVER:
        return final_score(mine + end, theirs + seeds - end)
    exact_here = needed <= 0 or (idx == floor and seeds >= DB_EXACT_FROM)
    if seeds <= db_max and (exact_here or depth <= 0):
        r = OFFSETS[seeds] + rank(board, CUMULATIVE)
        v = int(values[r])
        stats[DB_HITS] += 1
        if not exact_here:
            # reached without a capture, the value ignores the history since the
            # last one (a repetition could end the game sooner): a guess
            stats[EVALS] += 1
        if needed > 0 and r < lows.shape[0]:
            low = int(lows[r])
            high = int(highs[r])
            if stats[GUARD] > 0:
                # Where the root's proven result is at stake (the side searched for
                # would end under stats[GUARD] seeds by what the bounds prove), take
                # the bound: no line trades a proof for a promise.
                g = low if ply % 2 == 0 else high
                proven = mine + g if ply % 2 == 0 else theirs + seeds - g
                if proven < stats[GUARD]:
                    if exact_here:
                        stats[EVALS] += 1
                    return final_score(mine + g, theirs + seeds - g)
            if low < high:
                # Open under the cycle rule: a result only where a bound decides it,
                # else a guess in seeds of margin (see the module docstring).
                if 2 * (mine + low) > total:
                    v = low
                elif 2 * (mine + high) < total:
                    v = high
                else:
                    if exact_here:
                        stats[EVALS] += 1
                    return 100 * (2 * (mine + v) - total)
        return final_score(mine + v, theirs + seeds - v)
    if depth <= 0 or ply >= MAX_PLY - 1:
        stats[EVALS] += 1
        return evaluate(board, mine, theirs, weights)

    guesses_before = stats[EVALS] + stats[TAINTED]
    reps_before = stats[REPS]
    history_bound = idx > floor and seeds <= HISTORY_BOUND_BELOW and needed > 0
    # (scores below rest on bounds chosen for the side the search plays for: the table
    # keeps a board seen by that side apart from the same board seen by the other)
    tk = h ^ PARITY_KEY if ply % 2 == 1 else h
    slot = tk & np.uint64(tt.shape[0] - 1)
    tt_move = -1
    if tt[slot, 0] == tk:
        data = np.int64(tt[slot, 1])
        tt_move = int((data & 15) - 1)
        t_depth = (data >> 8) & 255
        if t_depth >= depth and not history_bound:
            t_flag = (data >> 4) & 3
            t_score = int((data >> 16) - (1 << 31))
            if (
                (t_flag == EXACT)
                or (t_flag == LOWER and t_score >= beta)
                or (t_flag == UPPER and t_score <= alpha)
            ):
                if (data >> 4) & HEURISTIC:
                    stats[TAINTED] += 1
                return t_score

    count = legal_moves(board, moves[ply], mode)
    # (a ply's row of ``taken`` holds the seeds each move takes, then the order and
    # keys: no array is allocated per node)
    order = taken[ply, 6:12]
    keys = taken[ply, 12:18]
    for k in range(count):
        pit = moves[ply, k]
        taken[ply, k] = play_into(board, pit, after[ply, k], mode)
        if pit == tt_move:
            keys[k] = 1 << 40
        elif taken[ply, k] > 0:
            keys[k] = (1 << 36) + taken[ply, k]
        elif pit == killers[ply, 0] or pit == killers[ply, 1]:
            keys[k] = KILLER_KEY
        else:
            keys[k] = history[pit]
        order[k] = k
    for i in range(1, count):  # insertion sort, best key first
        j = i
        while j > 0 and keys[order[j]] > keys[order[j - 1]]:
            order[j], order[j - 1] = order[j - 1], order[j]
            j -= 1

    original_alpha = alpha
    best = -INF
    best_move = -1
    for i in range(count):
        k = order[i]
        flip_into(after[ply, k], child[ply])
        gain = taken[ply, k]
        # Principal variation search: the first move with the full window, the others
        # with a null window, searched again in full only when they beat alpha.
        # Late-move reduction: a late quiet move (no capture, not the table's or a
        # killer) is first searched one ply shallower, again at full depth if it
        # beats alpha.
        lo = -beta if i == 0 else -alpha - 1
        d = depth - 1
        if (
            (stats[FLAGS] & LMR) != 0
            and i >= 2
            and depth >= 3
            and gain == 0
            and keys[k] < KILLER_KEY
        ):
            d = depth - 2
        while True:
            score = -negamax(
                child[ply],
                theirs,
                mine + gain,
                d,
                lo,
                -alpha,
                ply + 1,
                tt,
                values,
                lows,
                highs,
                db_max,
                weights,
                stats,
                after,
                taken,
                moves,
                child,
                killers,
                history,
                mode,
                hist,
                base,
                idx + 1 if gain > 0 else floor,
                needed,
            )
            if stats[STOP] != 0:
                break
            if d < depth - 1 and score > alpha:
                d = depth - 1  # the reduced search was wrong: search it fully
            elif lo != -beta and alpha < score < beta:
                lo = -beta  # a surprise under the null window: the full window
            else:
                break
        if stats[STOP] != 0:
            return 0
        if score > best:
            best = score
            best_move = moves[ply, k]
        if score > alpha:
            alpha = score
        if alpha >= beta:
            if gain == 0:
                if killers[ply, 0] != best_move:
                    killers[ply, 1] = killers[ply, 0]
                    killers[ply, 0] = best_move
                history[best_move] += depth * depth
            break

    flag = EXACT
    if best <= original_alpha:
        flag = UPPER
    elif best >= beta:
        flag = LOWER
    if stats[EVALS] + stats[TAINTED] > guesses_before:
        flag |= HEURISTIC
    tt[slot, 0] = tk
    # a score that rests on a repetition holds for this history only: keep just the move
    stored_depth = 0 if stats[REPS] > reps_before or history_bound else min(depth, 255)
    tt[slot, 1] = np.uint64(tt_pack(best, stored_depth, flag, best_move))
    return best


#: The search's scratch arrays, per ply: boards after each move, (seeds taken, move
#: order, ordering keys), legal moves, the board searched, killer moves; and the
#: history score of each pit (see :func:`search_work`).
Work = tuple[I8, I64, I64, I8, I64, I64]


def search_work() -> Work:
    """Fresh scratch arrays for :func:`search_root`."""
    return (
        np.zeros((MAX_PLY, 6, 12), dtype=np.int8),
        np.zeros((MAX_PLY, 18), dtype=np.int64),
        np.zeros((MAX_PLY, 6), dtype=np.int64),
        np.zeros((MAX_PLY, 12), dtype=np.int8),
        np.full((MAX_PLY, 2), -1, dtype=np.int64),
        np.zeros(6, dtype=np.int64),
    )


@njit
def search_root(
    board: I8,
    mine: int,
    theirs: int,
    depth: int,
    root_moves: I64,
    exact_all: bool,
    scores: I64,
    tt: U64,
    values: npt.NDArray[np.uint8],
    lows: npt.NDArray[np.uint8],
    highs: npt.NDArray[np.uint8],
    db_max: int,
    weights: I64,
    stats: I64,
    mode: int,
    hist: U64,
    base: int,
    needed: int,
    guess: int,
    window: int,
    work: Work,
) -> bool:
    """Score every move of ``root_moves`` at ``depth`` into ``scores``; False if stopped.

    With ``exact_all`` every move gets its exact score (for analysis); without,
    moves after the first are only proven worse (their score is an upper
    bound), which is faster and all a player needs. ``hist[:base]`` are the
    game's positions since the last capture (hashes, oldest first), the
    root is ``hist[base]``; ``needed`` is how many earlier occurrences end
    the game (the cycle rule: 1, 2, or 0 for none). ``window`` > 0: an
    aspiration window, the first move searched within ``guess ± window``
    (the last depth's score) and again in full only if it falls outside.
    ``work``: the search's scratch arrays (:func:`search_work`), which the caller keeps.
    """
    hist[base] = position_hash(board, mine, theirs, ZOB)
    after_, taken_, moves_, child_, killers_, history_ = work
    killers_[:] = -1
    history_[:] = 0
    # negamax gets views that own nothing: it is called for every node, and numba
    # counts a reference to each array it is given, on entry and on return (two atomic
    # operations per array per node). The caller (Searcher, or warm_up) keeps the
    # arrays alive until the search is over.
    tt = borrowed(tt)
    values = borrowed(values)
    lows = borrowed(lows)
    highs = borrowed(highs)
    weights = borrowed(weights)
    stats = borrowed(stats)
    hist = borrowed(hist)
    after = borrowed(after_)
    taken = borrowed(taken_)
    moves = borrowed(moves_)
    child = borrowed(child_)
    killers = borrowed(killers_)
    history = borrowed(history_)
    first_after = after[0, 0]  # (row 0 is the root's: negamax uses rows 1 and up)
    first_child = child[0]
    alpha = -INF
    for i in range(root_moves.shape[0]):
        gain = play_into(board, root_moves[i], first_after, mode)
        flip_into(first_after, first_child)
        lo = -INF if (exact_all or i == 0) else alpha
        hi = INF if (exact_all or i == 0) else alpha + 1
        if not exact_all and i == 0 and window > 0:
            lo = guess - window
            hi = guess + window
        while True:
            score = -negamax(
                first_child,
                theirs,
                mine + gain,
                depth - 1,
                -hi,
                -lo,
                1,
                tt,
                values,
                lows,
                highs,
                db_max,
                weights,
                stats,
                after,
                taken,
                moves,
                child,
                killers,
                history,
                mode,
                hist,
                base,
                base + 1 if gain > 0 else 0,
                needed,
            )
            if stats[STOP] != 0 or exact_all:
                break
            if i == 0 and ((score <= lo and lo > -INF) or (score >= hi and hi < INF)):
                lo = -INF  # outside the aspiration window: search it in full
                hi = INF
            elif i > 0 and score > alpha and hi == alpha + 1:
                lo = alpha  # better than the best so far: its exact score
                hi = INF
            else:
                break
        if stats[STOP] != 0:
            return False
        scores[i] = score
        if score > alpha:
            alpha = score
    return True


@njit
def principal_variation(
    board: I8,
    mine: int,
    theirs: int,
    first: int,
    tt: U64,
    zob: U64,
    out: I64,
    mode: int,
) -> int:
    """Follow table moves from ``board`` after playing ``first``; return the PV length.

    ``out`` receives mover-relative pits (0-5) of each side in turn.
    """
    cur = board.copy()
    after = np.zeros(12, dtype=np.int8)
    moves = np.zeros(6, dtype=np.int64)
    length = 0
    pit = first
    while length < out.shape[0]:
        ply = length + 1
        out[length] = pit
        length += 1
        gain = play_into(cur, pit, after, mode)
        flip_into(after, cur)
        mine, theirs = theirs, mine + gain
        count = legal_moves(cur, moves, mode)
        if count == 0:
            break
        h = position_hash(cur, mine, theirs, zob)
        if ply % 2 == 1:
            h ^= PARITY_KEY  # (as negamax keys the table)
        slot = h & np.uint64(tt.shape[0] - 1)
        if tt[slot, 0] != h:
            break
        pit = int((np.int64(tt[slot, 1]) & 15) - 1)
        legal = False
        for k in range(count):
            if moves[k] == pit:
                legal = True
        if not legal:
            break
    return length


def history_hashes(boards: list[tuple[I8, int, int]], zob: U64 | None = None) -> U64:
    """Hashes of earlier positions, each a (mover-relative board, mine, theirs), oldest first."""
    keys = ZOB if zob is None else zob
    out = np.zeros(len(boards), dtype=np.uint64)
    for i, (board, mine, theirs) in enumerate(boards):
        out[i] = position_hash(np.ascontiguousarray(board, dtype=np.int8), mine, theirs, keys)
    return out


_NO_BOUNDS = (np.zeros(0, dtype=np.uint8), np.zeros(0, dtype=np.uint8))
_bounds_cache: list[tuple[int, npt.NDArray[np.uint8], npt.NDArray[np.uint8]]] = []


def database_bounds(
    db_max: int,
    stored: tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]] | None = None,
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]]:
    """The bounds a :class:`Searcher` with databases up to ``db_max`` seeds uses.

    The ``stored`` game bounds (``companion.endgame_store.load_bounds``), as far as the
    databases go, where they hold every layer below :data:`DB_EXACT_FROM` the databases
    do; else :func:`core.engine.retrograde.game_bounds` of those layers (they depend on
    the rules only, not on the stored values), computed once (under a second once
    compiled: call this before a clock starts)."""
    below = min(db_max + 1, DB_EXACT_FROM)
    if stored is not None and stored[0].shape[0] >= layer_offset(below):
        size = layer_offset(db_max + 1)
        return stored[0][:size], stored[1][:size]
    for upto, lows, highs in _bounds_cache:
        if upto == below:
            return lows, highs
    lows, highs = retrograde.game_bounds(below)
    _bounds_cache[:] = [*_bounds_cache[-3:], (below, lows, highs)]
    return lows, highs


_warm = False


def warm_up() -> None:
    """Compile (or load from numba's cache) the search before any clock starts.

    The first compilation takes about ten seconds; later processes load it
    from the on-disk cache in about a second.
    """
    global _warm
    if _warm:
        return
    segment.warm_up()
    board = np.full(12, 4, dtype=np.int8)
    stats = np.zeros(STATS, dtype=np.int64)
    stats[LIMIT] = 1 << 62
    search_root(
        board,
        0,
        0,
        2,
        np.arange(6, dtype=np.int64),
        True,
        np.zeros(6, np.int64),
        np.zeros((2, 2), np.uint64),
        np.zeros(1, np.uint8),
        np.zeros(0, np.uint8),
        np.zeros(0, np.uint8),
        -1,
        DEFAULT_WEIGHTS,
        stats,
        NO_CAPTURE,
        np.zeros(MAX_PLY + 2, np.uint64),
        0,
        1,
        0,
        0,
        search_work(),
    )
    principal_variation(
        board,
        0,
        0,
        0,
        np.zeros((2, 2), np.uint64),
        ZOB,
        np.zeros(4, np.int64),
        NO_CAPTURE,
    )
    _warm = True


@dataclass
class SearchResult:
    """What one search found, in mover-relative pits (0-5 for the side to move)."""

    best: int
    scores: dict[int, int]
    """Score of each legal move (centi-seeds, see :mod:`core.engine.evaluation`)."""
    exact_all: bool
    """Every score is exact at ``depth`` (else only the best is; others are upper bounds)."""
    depth: int
    nodes: int
    seconds: float
    pv: list[int] = field(default_factory=list)
    """Best line, each side's pits 0-5 relative to the side playing it."""
    solved: bool = False
    """No leaf of the last search was a heuristic guess: the scores are the game's values."""
    db_hits: int = 0
    repetitions: int = 0
    """Lines of the last iteration that the cycle rule ended (a repetition)."""

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0


class Searcher:
    """Iterative deepening over the compiled search, with a reusable table.

    ``values`` is an endgame database (flat array from
    :mod:`core.engine.retrograde` or ``companion.endgame_store.load``) and
    ``db_max`` its highest layer; without one the search plays on to the end.
    ``bounds``: the game bounds stored beside it (``companion.endgame_store.load_bounds``);
    with them, and ``guard``, the search keeps the result they prove at its root (see
    :meth:`proven_target`); without them it computes the layers under
    :data:`DB_EXACT_FROM` seeds itself (:func:`database_bounds`).
    Thread-safety: one search at a time per Searcher; :meth:`stop` may be
    called from any thread.
    """

    def __init__(
        self,
        values: npt.NDArray[np.uint8] | None = None,
        db_max: int = -1,
        tt_bits: int = 20,
        weights: I64 | None = None,
        mode: int = NO_CAPTURE,
        cycle_needed: int = 1,
        lmr: bool = True,
        aspiration: bool = False,
        cycle_bounds: bool = True,
        bounds: tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]] | None = None,
        guard: bool = True,
    ) -> None:
        self.mode = mode
        #: Earlier occurrences of a position that end the game (the rule set's
        #: cycle rule): 1 Abapa's first repetition, 2 two rounds, 0 never.
        self.cycle_needed = cycle_needed
        #: Late-move reductions on (see :func:`negamax`); off only to measure them.
        self.lmr = lmr
        #: Aspiration windows at the root (play mode only); off by default.
        self.aspiration = aspiration
        # the databases hold Abapa values: other grand-slam rules must not use them
        usable = values is not None and mode == NO_CAPTURE
        self.values = values if values is not None and usable else np.zeros(1, dtype=np.uint8)
        self.db_max = db_max if usable else -1
        #: The game bounds: where they leave a database value open, it is a guess, not a
        #: result; where they prove one, it is (see :func:`negamax`).
        self.lows, self.highs = _NO_BOUNDS
        if usable and cycle_bounds and cycle_needed > 0 and self.db_max >= 0:
            self.lows, self.highs = database_bounds(self.db_max, bounds)
        #: Keep the result the bounds prove at the root (see :meth:`proven_target`).
        self.guard = guard
        self._last_target = 0
        self.weights = DEFAULT_WEIGHTS if weights is None else np.asarray(weights, np.int64)
        self.tt = np.zeros((1 << tt_bits, 2), dtype=np.uint64)
        self.zob = ZOB  # (the keys negamax hashes with: history hashes must match)
        self.stats = np.zeros(STATS, dtype=np.int64)
        self._work = search_work()

    def proven_target(self, board: I8, mine: int, theirs: int) -> int:
        """The seeds the mover must end with to keep the result (win, draw) the game
        bounds prove at ``board``, or 0 if they prove none or do not hold the board.

        The bounds prove it for a board reached by a capture (no history); the search
        then scores every database position where that result is at stake by its
        proven bound, not by its value (see :func:`negamax`).
        """
        seeds = int(board.sum())
        if seeds < DB_EXACT_FROM or self.lows.shape[0] < layer_offset(seeds + 1):
            return 0
        forced = mine + int(self.lows[OFFSETS[seeds] + rank(board, CUMULATIVE)])
        total = seeds + mine + theirs
        if 2 * forced > total:
            return total // 2 + 1
        if 2 * forced == total:
            return total // 2
        return 0

    def clear(self) -> None:
        """Forget the transposition table (a new game)."""
        self.tt[:, 0] = 0

    def stop(self) -> None:
        """Ask the running search to stop soon (within about a thousand nodes)."""
        self.stats[STOP] = 1

    def search(
        self,
        board: I8,
        mine: int = 0,
        theirs: int = 0,
        *,
        seconds: float | None = None,
        nodes: int | None = None,
        max_depth: int = 60,
        exact_all: bool = True,
        on_iteration: Callable[[SearchResult], None] | None = None,
        history: U64 | None = None,
        min_depth: int = MIN_DEPTH,
    ) -> SearchResult:
        """Search a mover-relative ``board`` until a limit; return the deepest finished result.

        ``on_iteration`` (a callable taking a :class:`SearchResult`) is called
        after each completed depth. Depth 1 always completes, whatever the limit; under
        ``seconds`` so does every depth up to ``min_depth`` (:data:`MIN_DEPTH`), and a
        deeper one is not started when it could not finish (:data:`NEXT_ITERATION`).
        Only :meth:`stop` and ``nodes`` end the search sooner.
        ``history``: the hashes (:func:`history_hashes`) of the game's positions
        since the last capture, oldest first, without this one; a position
        recurring as the cycle rule says then ends the game in the search too.
        """
        board = np.ascontiguousarray(board, dtype=np.int8)
        warm_up()
        started = time.perf_counter()
        moves_buf = np.zeros(6, dtype=np.int64)
        count = legal_moves(board, moves_buf, self.mode)
        if count == 0:
            raise ValueError("the game is over: there is no move to search")
        order = [int(m) for m in moves_buf[:count]]
        past = np.zeros(0, np.uint64) if history is None else np.asarray(history, np.uint64)
        hist = np.zeros(past.shape[0] + MAX_PLY + 2, dtype=np.uint64)
        hist[: past.shape[0]] = past
        self._hist, self._base = hist, int(past.shape[0])
        self.stats[:] = 0
        self.stats[LIMIT] = 1 << 62
        self.stats[FLAGS] = LMR if self.lmr else 0
        target = self.proven_target(board, mine, theirs) if self.guard else 0
        if target != self._last_target:
            self.clear()  # the table's scores were taken under the other target
            self._last_target = target
        self.stats[GUARD] = target
        timers: list[threading.Timer] = []
        try:
            return self._deepen(
                board,
                mine,
                theirs,
                order,
                started,
                seconds,
                nodes,
                max_depth,
                exact_all,
                on_iteration,
                timers,
                min_depth,
            )
        finally:  # also when on_iteration raises (the live worker cancels that way)
            for timer in timers:
                timer.cancel()

    def _deepen(
        self,
        board: I8,
        mine: int,
        theirs: int,
        order: list[int],
        started: float,
        seconds: float | None,
        nodes: int | None,
        max_depth: int,
        exact_all: bool,
        on_iteration: Callable[[SearchResult], None] | None,
        timers: list[threading.Timer],
        min_depth: int,
    ) -> SearchResult:
        """The iterative-deepening loop of :meth:`search` (timers go in ``timers``)."""
        result: SearchResult | None = None
        total_nodes = 0
        for depth in range(1, max_depth + 1):
            iteration_started = time.perf_counter()
            self.stats[NODES] = 0
            self.stats[EVALS] = 0
            self.stats[TAINTED] = 0
            self.stats[DB_HITS] = 0
            self.stats[REPS] = 0
            if result is not None:
                self.stats[LIMIT] = max(nodes - total_nodes, 1) if nodes else 1 << 62
                if seconds is not None and not timers and depth > min_depth:
                    remaining = seconds - (time.perf_counter() - started)
                    if remaining <= 0:
                        break
                    timer = threading.Timer(remaining, self.stop)
                    timer.daemon = True
                    timer.start()
                    timers.append(timer)
                if self.stats[STOP]:
                    break
            guess, window = 0, 0
            if self.aspiration and result is not None and not exact_all:
                guess = result.scores[result.best]
                window = ASPIRATION if abs(guess) < WIN else 0
            root = np.array(order, dtype=np.int64)
            scores = np.zeros(len(order), dtype=np.int64)
            finished = search_root(
                board,
                mine,
                theirs,
                depth,
                root,
                exact_all,
                scores,
                self.tt,
                self.values,
                self.lows,
                self.highs,
                self.db_max,
                self.weights,
                self.stats,
                self.mode,
                self._hist,
                self._base,
                self.cycle_needed,
                guess,
                window,
                self._work,
            )
            total_nodes += int(self.stats[NODES])
            if not finished and result is not None:
                break
            by_move = {order[i]: int(scores[i]) for i in range(len(order))}
            best = max(order, key=lambda m: by_move[m])
            pv_buf = np.zeros(min(depth, 40), dtype=np.int64)
            length = principal_variation(
                board, mine, theirs, best, self.tt, self.zob, pv_buf, self.mode
            )
            result = SearchResult(
                best=best,
                scores=by_move,
                exact_all=exact_all,
                depth=depth,
                nodes=total_nodes,
                seconds=time.perf_counter() - started,
                pv=[int(p) for p in pv_buf[:length]],
                solved=bool(self.stats[EVALS] == 0 and self.stats[TAINTED] == 0 and finished),
                db_hits=int(self.stats[DB_HITS]),
                repetitions=int(self.stats[REPS]),
            )
            if on_iteration is not None:
                on_iteration(result)
            if result.solved or not finished:
                break
            if seconds is not None and depth >= min_depth:
                # An iteration takes at least about as long as the one before it (see
                # NEXT_ITERATION); one that cannot finish in time is thrown away, so
                # stop here rather than spend the rest of the time on it.
                now = time.perf_counter()
                if now + NEXT_ITERATION * (now - iteration_started) > started + seconds:
                    break
            # best first next time: the table then proves the others worse quickly
            order.sort(key=lambda m: -by_move[m])
        assert result is not None
        return result


def describe_score(score: int) -> str:
    """A score in words: ``win by 4``, ``draw``, ``+1.3 seeds``."""
    if score >= WIN:
        return f"win by {(score - WIN) // 100}"
    if score <= -WIN:
        return f"loss by {(-score - WIN) // 100}"
    return f"{score / 100:+.1f} seeds"
