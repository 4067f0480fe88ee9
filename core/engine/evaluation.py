"""How the search scores a position it cannot see to the end.

Scores are in *centi-seeds* from the point of view of the player to move:
100 is one captured seed ahead. A finished game (or a position the endgame
database knows) scores :data:`WIN` plus 100 per seed of final margin, so any
known win outranks any heuristic advantage and a bigger win outranks a
smaller one.

The heuristic terms, each a difference (mover minus opponent):

* ``captured``: seeds in the stores, the only thing that counts at the end;
* ``on_side``: seeds on one's own side — they are one's reserve of moves and
  what a player keeps if the game ends by must-feed or by a cycle;
* ``vulnerable``: the *opponent's* pits holding 1 or 2 seeds, which a seed
  landing there would turn into a capture (counted for the mover, minus the
  same count on the mover's side);
* ``empty``: one's own empty pits (few moves left, and landing spots for the
  opponent's captures), counted against;
* ``kroo``: pits holding 12 or more seeds, a big sowing that laps the board
  and often captures several pits at once;
* ``threat``: the most seeds the mover could capture with one move now, and
  ``threatened``: the most the opponent could, were it to move (counted
  against): a leaf is seldom quiet in Oware, and the search stops there;
* ``reach``: seeds one's moves would sow on the other side (a seed sown there
  is one the opponent may play or keep).

(One's pits holding seeds, the moves one has, would be ``empty`` negated: no term
of its own.)

The capture terms reckon each sowing without playing it (whole laps, the
emptied pit skipped, a grand slam capturing nothing), the same as
:func:`core.engine.kernel.play_into` would give.

:data:`DEFAULT_WEIGHTS` are fitted by least squares to the scores of deep searches
(:mod:`core.engine.fitting`; ``python -m bench.engine --fit`` remakes them), and
kept because they beat the weights before them in matches (the figures are in
``docs/ENGINE.md``, "The evaluation's weights").
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from core.engine._jit import njit
from core.engine.kernel import side_sum

#: Score of a won game before the margin is added (a draw is 0).
WIN = 100_000

#: Weights of (captured, on_side, vulnerable, empty, kroo, threat, threatened, reach), in
#: centi-seeds: fitted on every sample of
#: ``python -m bench.engine --fit --fit-seeds 11 12 --samples 1600 --label-nodes 300000``.
DEFAULT_WEIGHTS = np.array([100, 71, -24, -88, 23, 114, 65, -107], dtype=np.int64)

#: The five-term weights fitted before (``--fit --samples 4000 --seed 1``), the default
#: until the capture and reach terms came.
FIVE_TERM_WEIGHTS = np.array([100, -9, 64, -213, 329, 0, 0, 0], dtype=np.int64)

#: The weights before any fit, chosen by hand and self-play matches.
SELF_PLAY_WEIGHTS = np.array([100, 12, 18, -10, 25, 0, 0, 0], dtype=np.int64)

#: Only the store difference: the baseline the weights are measured against.
MATERIAL_ONLY = np.array([100, 0, 0, 0, 0, 0, 0, 0], dtype=np.int64)


@njit
def final_score(mine: int, theirs: int) -> int:
    """Score of a finished game where the mover ends with ``mine`` and the opponent ``theirs``."""
    # (int(): the counts may come as int8 from a board array, and without numba NumPy 2
    # keeps int8 through the arithmetic and overflows at WIN)
    margin = int(mine) - int(theirs)
    if margin > 0:
        return WIN + 100 * margin
    if margin < 0:
        return -WIN + 100 * margin
    return 0


@njit
def _sowing_capture(
    board: npt.NDArray[np.int8], pit: int, first: int, before: int
) -> tuple[int, int]:
    """(seeds captured, seeds sown on the other side) if ``pit`` were sown now by the
    owner of the six pits from ``first`` (0: the mover, 6: the opponent), whose other
    side holds ``before`` seeds, without changing ``board``: every other pit gets ``q``
    seeds (whole laps, the emptied pit skipped) and the ``r`` after ``pit`` one more,
    the last landing on ``pit + r``."""
    c = int(board[pit])  # (at least 1: callers skip empty pits)
    q = 0 if c <= 11 else (c - 1) // 11
    r = c - 11 * q
    other = 6 - first
    # (closed forms, no modulo: this runs twelve times a leaf) The other side's pit
    # ``other + j`` lies ``6 - p + j`` pits after ``pit`` (``p`` its place on its side,
    # 0-5), so the ``r`` extra seeds reach ``r - 5 + p`` of its six pits, at most all.
    p = pit - first
    sown_there = 6 * q + min(max(r - 5 + p, 0), 6)
    last = pit + r
    if last >= 12:
        last -= 12
    if last < other or last >= other + 6:
        return 0, sown_there
    taken = 0
    pos = last
    while pos >= other:
        n = int(board[pos]) + q + (1 if 6 - p + pos - other <= r else 0)
        if n != 2 and n != 3:
            break
        taken += n
        pos -= 1
    if taken == before + sown_there:
        return 0, sown_there  # a grand slam captures nothing
    return taken, sown_there


@njit
def terms(
    board: npt.NDArray[np.int8], mine: int, theirs: int
) -> tuple[int, int, int, int, int, int, int, int]:
    """The evaluation's terms, each mover minus opponent (see the module docstring)."""
    on_side = 0
    vulnerable = 0
    empty = 0
    kroo = 0
    threat = 0
    threatened = 0
    reach = 0
    # (each side's seeds, once: a capture of them all is a grand slam)
    mover_seeds = int(side_sum(board, 0))
    opponent_seeds = int(side_sum(board, 6))
    for i in range(6):
        a = int(board[i])
        b = int(board[i + 6])
        on_side += a - b
        if b == 1 or b == 2:
            vulnerable += 1
        if a == 1 or a == 2:
            vulnerable -= 1
        if a == 0:
            empty += 1
        else:
            taken, there = _sowing_capture(board, i, 0, opponent_seeds)
            threat = max(threat, taken)
            reach += there
        if b == 0:
            empty -= 1
        else:
            taken, there = _sowing_capture(board, i + 6, 6, mover_seeds)
            threatened = max(threatened, taken)
            reach -= there
        if a >= 12:
            kroo += 1
        if b >= 12:
            kroo -= 1
    return (
        int(mine) - int(theirs),
        on_side,
        vulnerable,
        empty,
        kroo,
        threat,
        -threatened,
        reach,
    )


@njit
def evaluate(
    board: npt.NDArray[np.int8], mine: int, theirs: int, weights: npt.NDArray[np.int64]
) -> int:
    """Heuristic score of a game still going on (see the module docstring)."""
    t = terms(board, mine, theirs)
    total = 0
    for k in range(len(t)):
        total += weights[k] * t[k]
    return int(total)
