"""A Monte Carlo tree search player with random rollouts (the benchmark's opponent).

Plain UCT: select by upper confidence bound, expand one move, play the game
out at random (compiled, :func:`random_playout`), back the result up. It
knows the rules but nothing about strategy, which makes it the standard
yardstick a search engine should beat clearly (``python -m bench.engine``).

Results are from the point of view of the player to move at each node: 1 for
a win, 0.5 for a draw, 0 for a loss.
"""

from __future__ import annotations

import math
import time

import numpy as np
import numpy.typing as npt

from core.engine._jit import njit
from core.engine.kernel import NO_CAPTURE, NOT_OVER, flip_into, game_end, legal_moves, play_into

I8 = npt.NDArray[np.int8]

#: A random game longer than this is scored as it stands (cycles can go on forever).
MAX_PLAYOUT = 400


@njit
def random_playout(board: I8, mine: int, theirs: int, seed: int) -> float:
    """Play random legal moves to the end; the result for the side to move now."""
    np.random.seed(seed)
    cur = board.copy()
    after = np.zeros(12, dtype=np.int8)
    moves = np.zeros(6, dtype=np.int64)
    me_to_move = True
    a = mine  # seeds of the player to move at the root
    b = theirs
    for _ in range(MAX_PLAYOUT):
        seeds = 0
        for i in range(12):
            seeds += cur[i]
        total = seeds + a + b
        if 2 * a > total or 2 * b > total:
            break
        end = game_end(cur, NO_CAPTURE)
        if end != NOT_OVER:
            if me_to_move:
                a += end
                b += seeds - end
            else:
                b += end
                a += seeds - end
            break
        count = legal_moves(cur, moves, NO_CAPTURE)
        pit = moves[np.random.randint(count)]
        taken = play_into(cur, pit, after, NO_CAPTURE)
        if me_to_move:
            a += taken
        else:
            b += taken
        flip_into(after, cur)
        me_to_move = not me_to_move
    if a > b:
        return 1.0
    if a < b:
        return 0.0
    return 0.5


class _Node:
    __slots__ = ("board", "children", "mine", "moves", "theirs", "untried", "visits", "wins")

    def __init__(self, board: I8, mine: int, theirs: int) -> None:
        self.board = board
        self.mine = mine
        self.theirs = theirs
        buf = np.zeros(6, dtype=np.int64)
        count = legal_moves(board, buf, NO_CAPTURE)
        over = count == 0 or 2 * max(mine, theirs) > int(board.sum()) + mine + theirs
        self.untried: list[int] = [] if over else [int(m) for m in buf[:count]]
        self.moves: list[int] = []
        self.children: list[_Node] = []
        self.visits = 0
        self.wins = 0.0  # from the point of view of the player to move here


def mcts_move(
    board: I8, mine: int, theirs: int, seconds: float, seed: int = 0, exploration: float = 1.4
) -> int:
    """The move (mover-relative pit) UCT prefers after ``seconds`` of thinking."""
    rng = np.random.default_rng(seed)
    root = _Node(np.ascontiguousarray(board, dtype=np.int8), mine, theirs)
    if not root.untried:
        raise ValueError("no legal move")
    if len(root.untried) == 1:
        return root.untried[0]
    deadline = time.perf_counter() + seconds
    after = np.zeros(12, dtype=np.int8)
    while time.perf_counter() < deadline:
        for _ in range(16):
            path = [root]
            node = root
            while not node.untried and node.children:  # selection
                log_n = math.log(node.visits)
                best_i = 0
                best_u = -1.0
                for i, child in enumerate(node.children):
                    # the child's wins are the opponent's: our value is 1 - theirs
                    u = (
                        1.0
                        - child.wins / child.visits
                        + exploration * math.sqrt(log_n / child.visits)
                    )
                    if u > best_u:
                        best_u, best_i = u, i
                node = node.children[best_i]
                path.append(node)
            if node.untried:  # expansion
                pit = node.untried.pop(int(rng.integers(len(node.untried))))
                taken = play_into(node.board, pit, after, NO_CAPTURE)
                child_board = np.zeros(12, dtype=np.int8)
                flip_into(after, child_board)
                child = _Node(child_board, node.theirs, node.mine + taken)
                node.moves.append(pit)
                node.children.append(child)
                node = child
                path.append(node)
            result = random_playout(node.board, node.mine, node.theirs, int(rng.integers(1 << 31)))
            for n in reversed(path):  # backpropagation, flipping sides each ply
                n.visits += 1
                n.wins += result
                result = 1.0 - result
    best = max(range(len(root.children)), key=lambda i: root.children[i].visits)
    return root.moves[best]
