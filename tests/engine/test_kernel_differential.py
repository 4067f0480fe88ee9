"""The compiled kernel agrees with the rules core over random positions (a quarter of a
million in the suite; ``OWARE_DIFF_POSITIONS=1000000`` for the million of a full check).

For every random board and rule set we compare, between
:mod:`core.engine.kernel` and :class:`core.Position`:

* whether the game is over, and the final scores when it is;
* the set of legal moves;
* for one random legal move per position (all moves on a share of them): the
  board after the move and the seeds captured.

Boards are drawn to hit the rare rules often: small counts (captures of 2 and
3), one side empty (must-feed), lone seeds on a side (grand slams), big piles
(laps of 12 and more).
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from core import Position
from core.engine.kernel import GRAND_SLAM_MODES, NOT_OVER, game_end, legal_moves, play_into

#: Rule sets covered, with the kernel mode each maps to (abapa-declared and
#: mankala-pl differ from their mode's base only in the cycle rule, which a
#: single move never meets).
RULE_SETS = ("abapa", "abapa-declared", "mankala-pl", "grand-slam-all")

#: Positions in the suite's run (``OWARE_DIFF_POSITIONS`` overrides). A million took 140 to
#: 300 s of one CI worker, the longest test of the suite.
POSITIONS = int(os.environ.get("OWARE_DIFF_POSITIONS", "250000"))


def random_boards(rng: np.random.Generator, count: int) -> np.ndarray:
    """``count`` boards (absolute, South to move or not decided here) with rules-rich shapes."""
    kind = rng.integers(0, 4, size=count)
    small = rng.integers(0, 4, size=(count, 12))
    medium = rng.integers(0, 7, size=(count, 12))
    boards = np.where(kind[:, None] < 2, small, medium)
    # some boards get one empty side (must-feed) or a single big pile (laps)
    empty_side = rng.random(count) < 0.15
    side = rng.integers(0, 2, size=count)
    for i in np.nonzero(empty_side)[0]:
        boards[i, 6 * side[i] : 6 * side[i] + 6] = 0
    big = rng.random(count) < 0.1
    pits = rng.integers(0, 12, size=count)
    boards[big, pits[big]] = rng.integers(11, 25, size=int(big.sum()))
    # keep every total within the 48 seeds of a real game
    totals = boards.sum(axis=1)
    over = totals > 48
    boards[over] = np.minimum(boards[over], 3)
    return boards.astype(np.int64)


def check_position(
    rules: str, pits: list[int], to_move: int, rng: np.random.Generator, all_moves: bool
) -> None:
    seeds = sum(pits)
    rest = 48 - seeds
    stores = [rest // 2, rest - rest // 2]
    pos = Position(rules, pits, stores, to_move)
    mode = GRAND_SLAM_MODES[pos.ruleset.options["grand_slam"]]
    board = np.array(pits[6:] + pits[:6] if to_move else pits, dtype=np.int8)
    moves = np.zeros(6, dtype=np.int64)
    count = legal_moves(board, moves, mode)
    kernel_moves = sorted(int(m) + 6 * to_move for m in moves[:count])
    end = game_end(board, mode)
    ending = pos.ending
    context = f"{rules} {pos.to_text()}"
    if ending is not None and ending.reason == "score":
        return  # 24-24 with an empty board: a score rule the kernel leaves to the search
    assert (ending is not None) == (end != NOT_OVER), context
    if ending is not None:
        mine = stores[to_move] + end
        theirs = stores[1 - to_move] + seeds - end
        assert ending.scores[to_move] == mine and ending.scores[1 - to_move] == theirs, context
        assert count == 0, context
        return
    assert kernel_moves == pos.legal_moves(), context
    chosen = kernel_moves if all_moves else [kernel_moves[int(rng.integers(len(kernel_moves)))]]
    after = np.zeros(12, dtype=np.int8)
    for pit in chosen:
        taken = play_into(board, pit - 6 * to_move, after, mode)
        out = pos.outcome(pit)
        expected = list(out.position.pits)
        got = [int(x) for x in after]
        if to_move:
            got = got[6:] + got[:6]
        assert got == expected, f"{context} move {out.name}"
        assert taken == out.captured, f"{context} move {out.name}"


def run(count: int, seed: int) -> int:
    rng = np.random.default_rng(seed)
    boards = random_boards(rng, count)
    to_move = rng.integers(0, 2, size=count)
    checked = 0
    for i in range(count):
        rules = RULE_SETS[i % len(RULE_SETS)]
        check_position(rules, boards[i].tolist(), int(to_move[i]), rng, all_moves=i % 8 == 0)
        checked += 1
    return checked


def test_kernel_agrees_on_a_sample() -> None:
    assert run(20_000, seed=1) == 20_000


# (no_cover: pure computation that other tests cover; traced, it takes three times as long)
@pytest.mark.no_cover
@pytest.mark.slow
def test_kernel_agrees_on_a_quarter_million_positions() -> None:
    assert run(POSITIONS, seed=2) == POSITIONS


def test_the_sampler_reaches_the_rare_rules() -> None:
    """The boards drawn really contain must-feed, grand-slam and lap situations."""
    rng = np.random.default_rng(3)
    boards = random_boards(rng, 5000)
    assert (boards[:, :6].sum(axis=1) == 0).any()
    assert (boards.max(axis=1) >= 12).any()
    grand_slams = 0
    for b in boards[:2000].tolist():
        pos = Position("abapa", b, [(48 - sum(b)) // 2, 48 - sum(b) - (48 - sum(b)) // 2], 0)
        for pit in pos.legal_moves():
            grand_slams += pos.outcome(pit).grand_slam
    assert grand_slams > 0
