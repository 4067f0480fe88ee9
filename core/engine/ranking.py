"""Combinatorial ranking: every board with ``n`` seeds gets a number 0 … count-1.

An endgame database layer stores one byte per board with ``n`` seeds on it.
To find a board's byte without a hash table we number the boards in
lexicographic order (pit 0 most significant) of their 12 counts: the rank of
a board is the number of boards with the same seed total that come before it.
There are ``C(n + 11, 11)`` boards with ``n`` seeds (84 672 315 for 20).

:func:`rank` is a sum of table look-ups, one per pit; :func:`next_board`
steps to the following board in rank order, which is how the database builder
walks a layer without ever unranking.

>>> import numpy as np
>>> b = np.array([0] * 11 + [3], dtype=np.int8)
>>> int(rank(b, CUMULATIVE))
0
>>> layer_size(3)
364
>>> c = np.array([3] + [0] * 11, dtype=np.int8)
>>> int(rank(c, CUMULATIVE)) == layer_size(3) - 1
True
"""

from __future__ import annotations

from math import comb

import numpy as np
import numpy.typing as npt

from core.engine._jit import njit

PITS = 12

#: Most seeds on the board a layer can have (the whole Oware set).
MAX_SEEDS = 48


def ways(pits: int, seeds: int) -> int:
    """How many ways ``seeds`` can be spread over ``pits`` pits."""
    if pits == 0:
        return 1 if seeds == 0 else 0
    return comb(seeds + pits - 1, pits - 1)


def layer_size(seeds: int) -> int:
    """Boards with exactly ``seeds`` seeds on the 12 pits."""
    return ways(PITS, seeds)


def layer_offset(seeds: int) -> int:
    """Boards with fewer than ``seeds`` seeds: where layer ``seeds`` starts in a flat array."""
    return comb(seeds + PITS - 1, PITS) if seeds > 0 else 0


def _cumulative_table() -> npt.NDArray[np.int64]:
    """``table[k, m, v]``: boards whose next pit holds less than ``v``.

    With ``m`` seeds left for the current pit and the ``k`` pits after it, the
    boards putting ``u < v`` seeds here number ``sum(ways(k, m - u))``.
    """
    table = np.zeros((PITS, MAX_SEEDS + 1, MAX_SEEDS + 2), dtype=np.int64)
    for k in range(PITS):
        for m in range(MAX_SEEDS + 1):
            total = 0
            for v in range(m + 2):
                table[k, m, v] = total
                if v <= m:
                    total += ways(k, m - v)
    return table


#: The look-up table :func:`rank` needs (pass it in; compiled code cannot see globals
#: that are arrays without freezing them).
CUMULATIVE = _cumulative_table()


@njit
def rank(board: npt.NDArray[np.int8], table: npt.NDArray[np.int64]) -> int:
    """Rank of ``board`` among the boards with the same seed total."""
    remaining = 0
    for i in range(PITS):
        remaining += board[i]
    r = 0
    for i in range(PITS - 1):
        r += table[PITS - 1 - i, remaining, board[i]]
        remaining -= board[i]
    return r


@njit
def unrank_into(
    r: int, seeds: int, table: npt.NDArray[np.int64], out: npt.NDArray[np.int8]
) -> None:
    """Write the board of rank ``r`` with ``seeds`` seeds into ``out``."""
    remaining = seeds
    for i in range(PITS - 1):
        k = PITS - 1 - i
        v = 0
        # the largest v whose count of smaller boards does not pass r
        while v < remaining and table[k, remaining, v + 1] <= r:
            v += 1
        r -= table[k, remaining, v]
        out[i] = v
        remaining -= v
    out[PITS - 1] = remaining


@njit
def next_board(board: npt.NDArray[np.int8]) -> bool:
    """Step ``board`` to the next one in rank order; ``False`` after the last."""
    # find the rightmost pit j (not the last) with seeds after it, add one
    # seed there and put the rest of the suffix into the last pit
    j = PITS - 2
    suffix = board[PITS - 1]
    while j >= 0:
        if suffix > 0:
            board[j] += 1
            for t in range(j + 1, PITS - 1):
                board[t] = 0
            board[PITS - 1] = suffix - 1
            return True
        suffix += board[j]
        j -= 1
    return False
