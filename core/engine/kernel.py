"""The Abapa rules as small array functions, fast enough for search and databases.

This is the engine's own implementation of the default Oware rules (Abapa),
kept deliberately independent of :mod:`core.rules` and checked against it by a
differential test (``tests/engine/test_kernel_differential.py``).

Everything here works on a *mover-relative* board: a ``numpy.int8`` array of
12 pit counts where the player to move owns pits 0-5 and the opponent 6-11,
sowing going from pit ``i`` to ``i + 1``. Turning the board round for the
opponent is a rotation by six (:func:`flip_into`). Working from the mover's
side means one code path serves both players and a database needs one entry
per board, not two.

The rules, in short:

* sowing skips the emptied pit when it holds 12 or more seeds;
* the last seed landing on the opponent's side making 2 or 3 captures that
  pit, and the capture chains backwards over opponent pits holding 2 or 3;
* a capture that would take every opponent seed (grand slam) is legal but
  captures nothing;
* if the opponent has no seeds the mover must give them some; if no move does,
  the game ends and the mover takes every seed left (they are all theirs);
* a player to move with no seeds at all ends the game and the opponent takes
  what is left (this cannot follow a legal move, but databases contain it).

Two other grand-slam readings are options of the Oware rule set and are
supported here through the ``mode`` argument (:data:`FORBIDDEN`,
:data:`CAPTURE_ALL`); the endgame databases are built for Abapa only.

>>> import numpy as np
>>> board = np.full(12, 4, dtype=np.int8)
>>> moves = np.zeros(6, dtype=np.int64)
>>> legal_moves(board, moves)
6
>>> perft(board, 3)
190
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from core.engine._jit import njit

Board = npt.NDArray[np.int8]
IntArray = npt.NDArray[np.int64]

#: :func:`game_end` result when the game goes on.
NOT_OVER = -1

# Grand-slam modes (``mode`` argument), as the rule sets' ``grand_slam`` option:
#: Abapa: a grand slam is legal and captures nothing.
NO_CAPTURE = 0
#: A move leaving the opponent no seed may not be played while another move exists.
FORBIDDEN = 1
#: A grand slam captures everything.
CAPTURE_ALL = 2

#: Rule-set option value -> mode.
GRAND_SLAM_MODES = {"no_capture": NO_CAPTURE, "forbidden": FORBIDDEN, "capture_all": CAPTURE_ALL}


@njit
def side_sum(board: Board, first: int) -> int:
    """Seeds in the six pits starting at ``first`` (0: mover, 6: opponent)."""
    total = 0
    for i in range(first, first + 6):
        total += board[i]
    return total


@njit
def sow_into(board: Board, pit: int, out: Board) -> int:
    """Copy ``board`` to ``out``, sow ``pit`` in ``out``; return the last pit sown."""
    for i in range(12):
        out[i] = board[i]
    seeds = out[pit]
    out[pit] = 0
    pos = pit
    while seeds > 0:
        pos += 1
        if pos == 12:
            pos = 0
        if pos == pit:  # the emptied pit is skipped on laps of 12 or more
            continue
        out[pos] += 1
        seeds -= 1
    return pos


@njit
def capture_in_place(out: Board, last: int, mode: int) -> int:
    """Apply the capture ending at ``last`` to a sown board; return seeds taken.

    A capture that would take every opponent seed (grand slam) takes nothing
    under Abapa (:data:`NO_CAPTURE`) and everything under :data:`CAPTURE_ALL`;
    under :data:`FORBIDDEN` such a move is never played (see :func:`legal_moves`).
    """
    if last < 6 or (out[last] != 2 and out[last] != 3):
        return 0
    taken = 0
    pos = last
    while pos >= 6 and (out[pos] == 2 or out[pos] == 3):
        taken += out[pos]
        pos -= 1
    if taken == side_sum(out, 6) and mode == NO_CAPTURE:
        return 0  # grand slam: legal, captures nothing
    pos = last
    while pos >= 6 and (out[pos] == 2 or out[pos] == 3):
        out[pos] = 0
        pos -= 1
    return taken


@njit
def play_into(board: Board, pit: int, out: Board, mode: int = NO_CAPTURE) -> int:
    """Play ``pit`` (assumed legal) from ``board`` into ``out``; return seeds captured.

    ``out`` stays in the mover's frame: use :func:`flip_into` for the opponent's.
    """
    last = sow_into(board, pit, out)
    return capture_in_place(out, last, mode)


@njit
def flip_into(board: Board, out: Board) -> None:
    """Write ``board`` seen from the other side (rotate by six pits) into ``out``."""
    for i in range(6):
        out[i] = board[i + 6]
        out[i + 6] = board[i]


@njit
def legal_moves(board: Board, moves: IntArray, mode: int = NO_CAPTURE) -> int:
    """Write the mover's legal pits (0-5, in order) into ``moves``; return how many.

    Zero means the game is over (see :func:`game_end`).
    """
    count = 0
    opponent = side_sum(board, 6)
    if opponent > 0 and mode != FORBIDDEN:
        for pit in range(6):
            if board[pit] > 0:
                moves[count] = pit
                count += 1
        return count
    # must feed (and under FORBIDDEN never leave the opponent bare): try each move
    if opponent == 0 and mode == NO_CAPTURE:
        for pit in range(6):  # without a capture-all, reaching them is enough
            if board[pit] >= 6 - pit:
                moves[count] = pit
                count += 1
        return count
    out = np.empty(12, dtype=np.int8)
    for pit in range(6):
        if board[pit] == 0:
            continue
        play_into(board, pit, out, mode)
        if side_sum(out, 6) > 0:
            moves[count] = pit
            count += 1
    return count


@njit
def game_end(board: Board, mode: int = NO_CAPTURE) -> int:
    """Seeds the *mover* collects when no legal move is left, else :data:`NOT_OVER`.

    With no seeds of their own the mover collects nothing (the opponent takes
    theirs). Otherwise every way of running out of moves — unable to feed an
    empty opponent, or (grand slam forbidden) every move would leave the
    opponent bare — gives each player the seeds on their own side, which for
    an empty opponent is everything.
    """
    mine = side_sum(board, 0)
    if mine == 0:
        return 0
    if side_sum(board, 6) > 0 and mode != FORBIDDEN:
        return NOT_OVER
    moves = np.empty(6, dtype=np.int64)
    if legal_moves(board, moves, mode) > 0:
        return NOT_OVER
    return mine


@njit
def perft(board: Board, depth: int) -> int:
    """Count the leaf positions ``depth`` plies ahead (games that end count as none)."""
    if depth == 0:
        return 1
    moves = np.zeros(6, dtype=np.int64)
    count = legal_moves(board, moves)
    total = 0
    after = np.zeros(12, dtype=np.int8)
    child = np.zeros(12, dtype=np.int8)
    for k in range(count):
        play_into(board, moves[k], after)
        flip_into(after, child)
        total += perft(child, depth - 1)
    return total


def to_relative(pits: tuple[int, ...] | list[int], to_move: int) -> Board:
    """Absolute pits (South 0-5, North 6-11) to a board seen by ``to_move``."""
    board = np.asarray(pits, dtype=np.int8)
    return board if to_move == 0 else np.roll(board, 6)


def to_absolute_pit(pit: int, to_move: int) -> int:
    """A mover-relative pit index (0-5) to the absolute index for ``to_move``."""
    return pit + 6 * to_move
