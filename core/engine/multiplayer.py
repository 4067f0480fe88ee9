"""Search for universal mancala with 2, 3 or 4 players: the paranoid algorithm.

With more than two players there is no single opponent to minimise against.
Two classical answers:

* **max-n**: every player maximises their own score; a node's value is a
  vector, and almost no pruning is possible;
* **paranoid**: the player we advise assumes everyone else plays *against
  them*; the game becomes two-sided (us against the coalition) and ordinary
  alpha-beta pruning applies, reaching roughly twice the depth of max-n in
  the same time.

We use paranoid search: the coalition assumption is pessimistic but safe
advice for the player who asked, and depth matters more in mancala games
than a sharper model of the opponents. Extra turns (a last seed in one's
own store) need nothing special: the side to move simply stays the same,
and the node stays a max node or a min node accordingly.

The search runs on :class:`core.Position` itself, so every variant of the
universal rules is supported exactly as the rules core plays it (this is
pure Python, a few thousand nodes per second: enough for a suggestion).

Evaluation (for the advised player ``me``): own store minus the best
opponent's store, plus a quarter of a seed per seed on one's own side.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from core.engine.evaluation import WIN
from core.notation import PITS_PER_PLAYER, move_name
from core.position import Position

if TYPE_CHECKING:
    from core.engine.analysis import Analysis

INF = 1 << 30


class _Timeout(Exception):
    """Raised inside the search when the deadline passes."""


def evaluate_for(position: Position, me: int) -> int:
    """Heuristic score for player ``me`` in centi-seeds (exact for finished games)."""
    if position.is_over:
        scores = position.scores
        best_other = max(s for p, s in enumerate(scores) if p != me)
        margin = scores[me] - best_other
        if margin > 0:
            return WIN + 100 * margin
        if margin < 0:
            return -WIN + 100 * margin
        return 0
    stores = position.stores
    best_other = max(s for p, s in enumerate(stores) if p != me)
    own = sum(position.pits[PITS_PER_PLAYER * me : PITS_PER_PLAYER * (me + 1)])
    return 100 * (stores[me] - best_other) + 25 * own


class ParanoidSearch:
    """Iterative-deepening paranoid alpha-beta for player ``me``."""

    def __init__(self, me: int, deadline: float) -> None:
        self.me = me
        self.deadline = deadline
        self.nodes = 0

    def value(self, position: Position, depth: int, alpha: int, beta: int) -> int:
        """Paranoid value of ``position`` for ``me``, ``depth`` plies deep."""
        self.nodes += 1
        if (self.nodes & 255) == 0 and time.perf_counter() > self.deadline:
            raise _Timeout
        moves = position.legal_moves()
        if depth == 0 or not moves:
            return evaluate_for(position, self.me)
        # captures first: they decide most lines and make the cut-offs early
        outcomes = sorted(
            (position.outcome(m) for m in moves), key=lambda o: -sum(c for _, c in o.captures)
        )
        if position.to_move == self.me:
            best = -INF
            for o in outcomes:
                best = max(best, self.value(o.position, depth - 1, alpha, beta))
                alpha = max(alpha, best)
                if alpha >= beta:
                    break
            return best
        best = INF
        for o in outcomes:
            best = min(best, self.value(o.position, depth - 1, alpha, beta))
            beta = min(beta, best)
            if alpha >= beta:
                break
        return best


def analyze_paranoid(
    position: Position,
    *,
    seconds: float = 1.0,
    on_iteration: Callable[[Analysis], None] | None = None,
    max_depth: int = 40,
) -> Analysis:
    """Analyse any position by paranoid search for the player to move."""
    from core.engine.analysis import Analysis, MoveValue

    started = time.perf_counter()
    me = position.to_move
    moves = position.legal_moves()
    if not moves:
        raise ValueError("the game is over: there is nothing to analyse")
    search = ParanoidSearch(me, started + seconds)
    order = list(moves)
    result: Analysis | None = None
    for depth in range(1, max_depth + 1):
        scores: dict[int, int] = {}
        try:
            for m in order:
                child = position.play(m)
                scores[m] = search.value(child, depth - 1, -INF, INF)
        except _Timeout:
            if result is not None:
                break
            # not even depth 1 finished: keep what we have, unknown moves last
            for m in order:
                scores.setdefault(m, -INF)
        values = [MoveValue(m, move_name(m, position.players), s, False) for m, s in scores.items()]
        values.sort(key=lambda v: (-v.score, v.pit))
        order = [v.pit for v in values]
        result = Analysis(
            position,
            values,
            [values[0].pit],
            depth,
            search.nodes,
            time.perf_counter() - started,
            False,
            "paranoid",
        )
        if on_iteration is not None:
            on_iteration(result)
        if time.perf_counter() > search.deadline:
            break
    assert result is not None
    return result
