"""An independent endgame solver, for checking the retrograde databases.

Nothing here shares code with :mod:`core.engine`: moves come from the rules
core (:class:`core.Position`), boards are tuples in a dict, and the values
come from attractor sets over an explicit game graph instead of sweeps.

For each threshold ``k`` of a layer with ``n`` seeds we compute

* ``win[k]``: boards whose mover can force ending with at least ``k`` of the
  ``n`` seeds in finitely many moves;
* ``lose[k]``: boards whose mover cannot stop the opponent forcing at least
  ``k`` for themselves;

by the classical backward induction with move counters. Then
``low = max{k: board in win[k]}``, ``high = n - max{k: board in lose[k]}``,
and the value is the own-side seed count clamped into ``[low, high]`` (the
cycle rule applied where neither side can force anything better), exactly
the convention :mod:`core.engine.retrograde` documents.
"""

from __future__ import annotations

from collections.abc import Iterator

from core import Position

Board = tuple[int, ...]


def boards(seeds: int, pits: int = 12) -> Iterator[Board]:
    """Every way to put ``seeds`` seeds into ``pits`` pits."""
    if pits == 1:
        yield (seeds,)
        return
    for first in range(seeds + 1):
        for rest in boards(seeds - first, pits - 1):
            yield (first, *rest)


def turned(pits: tuple[int, ...]) -> Board:
    """An absolute board with North to move, seen from North's seat (North = pits 0-5)."""
    return pits[6:] + pits[:6]


def solve(max_seeds: int) -> dict[Board, int]:
    """Value (mover's share of the board) of every board with up to ``max_seeds`` seeds."""
    values: dict[Board, int] = {}
    for n in range(max_seeds + 1):
        values.update(_solve_layer(n, values))
    return values


def _solve_layer(n: int, lower: dict[Board, int]) -> dict[Board, int]:
    layer = list(boards(n))
    terminal: dict[Board, int] = {}
    exits: dict[Board, list[int]] = {}  # mover's result of each capturing move
    succ: dict[Board, list[Board]] = {}  # same-layer children (opponent to move)
    for b in layer:
        pos = Position("abapa", b, (0, 0), 0, check_total=False)
        end = pos.ending
        if end is not None:
            terminal[b] = end.scores[0]
            continue
        exits[b] = []
        succ[b] = []
        for pit in pos.legal_moves():
            out = pos.outcome(pit)
            child = turned(out.position.pits)
            taken = out.captured
            if taken:
                exits[b].append(n - lower[child])
            else:
                succ[b].append(child)
    preds: dict[Board, list[Board]] = {b: [] for b in layer}
    for b, children in succ.items():
        for c in children:
            preds[c].append(b)

    best_win = {b: 0 for b in layer}
    best_lose = {b: 0 for b in layer}
    for k in range(1, n + 1):
        # Two copies of the board set: ``win`` holds boards whose mover is the
        # player aiming at k seeds, ``lose`` boards whose mover is the other
        # one (who cannot stop it). For k <= n/2 a board can be in both.
        win: set[Board] = set()
        lose: set[Board] = set()
        queue: list[tuple[Board, bool]] = []
        remaining: dict[Board, int] = {}
        for b in layer:
            if b in terminal:
                if terminal[b] >= k:
                    win.add(b)
                    queue.append((b, True))
                if terminal[b] <= n - k:
                    lose.add(b)
                    queue.append((b, False))
                continue
            if any(v >= k for v in exits[b]):
                win.add(b)
                queue.append((b, True))
            # moves not (yet) known to hand the other player k seeds
            remaining[b] = len(succ[b]) + sum(1 for v in exits[b] if v > n - k)
            if remaining[b] == 0:
                lose.add(b)
                queue.append((b, False))
        while queue:
            b, won = queue.pop()
            for p in preds[b]:
                if not won:  # p's mover can move where the opponent cannot stop them
                    if p not in win:
                        win.add(p)
                        queue.append((p, True))
                elif p not in lose:  # one more of p's moves hands the other k seeds
                    remaining[p] -= 1
                    if remaining[p] == 0:
                        lose.add(p)
                        queue.append((p, False))
        for b in win:
            best_win[b] = k
        for b in lose:
            best_lose[b] = k
    result: dict[Board, int] = {}
    for b in layer:
        if b in terminal:
            result[b] = terminal[b]
            continue
        low, high = best_win[b], n - best_lose[b]
        own = sum(b[:6])
        result[b] = min(max(own, low), high)
    return result
