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
  and often captures several pits at once.

:data:`DEFAULT_WEIGHTS` are fitted by least squares to the scores of deep searches
(:mod:`core.engine.fitting`; ``python -m bench.engine --fit`` remakes them), and
kept because they beat the weights chosen before them by hand and self-play
(:data:`SELF_PLAY_WEIGHTS`) in self-play matches (``python -m bench.engine --tune
--weights ...``; the figures are in ``docs/ENGINE.md``, "The evaluation's weights").
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from core.engine._jit import njit

#: Score of a won game before the margin is added (a draw is 0).
WIN = 100_000

#: Weights of (captured, on_side, vulnerable, empty, kroo), in centi-seeds: fitted
#: (``python -m bench.engine --fit --samples 4000 --label-nodes 300000 --seed 1``).
DEFAULT_WEIGHTS = np.array([100, -9, 64, -213, 329], dtype=np.int64)

#: The weights before the fit, chosen by hand and self-play matches.
SELF_PLAY_WEIGHTS = np.array([100, 12, 18, -10, 25], dtype=np.int64)

#: Only the store difference: the baseline the weights are measured against.
MATERIAL_ONLY = np.array([100, 0, 0, 0, 0], dtype=np.int64)


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
def evaluate(
    board: npt.NDArray[np.int8], mine: int, theirs: int, weights: npt.NDArray[np.int64]
) -> int:
    """Heuristic score of a game still going on (see the module docstring)."""
    on_side = 0
    vulnerable = 0
    empty = 0
    kroo = 0
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
        if b == 0:
            empty -= 1
        if a >= 12:
            kroo += 1
        if b >= 12:
            kroo -= 1
    return int(
        weights[0] * (int(mine) - int(theirs))
        + weights[1] * on_side
        + weights[2] * vulnerable
        + weights[3] * empty
        + weights[4] * kroo
    )
