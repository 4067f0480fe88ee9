"""Proofs that a side forces the win of a small Abapa endgame under the cycle rule.

The databases' value of a small board may rest on their cycle convention, and the game
bounds (:func:`core.engine.retrograde.game_bounds`) leave most boards open; the
segment's attractors (:mod:`core.engine.segment`) settle a board only where one side
forces its result without ever coming back to a position. Between them lie boards whose
result under the real rule depends on the positions the play goes through: a position
played is seen, and a return to it ends the game.

:func:`prove_win` searches those paths: an AND-OR search over the moves from the
position, each node carrying its history (the rules core's chain of positions since the
last capture), to a given number of plies. A node is proven for the winner where the
segment's attractor with that history already forces the win (a node of the other side
is refuted where it forces a draw or better), at a capture by the game bound of the
board it makes worst for the winner, and at the end of the game by the rules. The
search is a depth-first proof-number search: it goes down the line whose proof or
refutation looks cheapest (fewest positions left to settle under it), each node's
numbers kept per position and set of positions seen, until proven, refuted, or a budget
of nodes is spent. A proof holds under the real rule as far as the game bounds do; no
proof says nothing.

>>> from core.engine import retrograde
>>> from core import Position
>>> values, bounds = retrograde.build(2), retrograde.game_bounds(2)
>>> def board(stores):  # South: a seed in B and one in F; North: none
...     return Position("abapa", (0, 1, 0, 0, 0, 1) + (0,) * 6, stores, 0, check_total=False)
>>> [prove_win(board((23, 22)), side, values, bounds).proven for side in (0, 1)]
[True, False]
>>> [prove_win(board((23, 23)), side, values, bounds).proven for side in (0, 1)]
[False, False]

Under the rule South keeps one of its two seeds there (the databases' convention gives
it both): a win from 23-22, a draw from 23-23.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from core.engine._jit import njit
from core.engine.analysis import since_capture
from core.engine.kernel import to_relative
from core.engine.ranking import layer_size
from core.engine.segment import (
    MAX_SEEDS,
    Segment,
    _grow,
    _mark_seen,
    _needs,
    _no_journal,
    _save,
    _wants,
    play_out,
)
from core.position import Position

U8 = npt.NDArray[np.uint8]
I8 = npt.NDArray[np.int8]
I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]
BOOL = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class Proof:
    """What :func:`prove_win` found."""

    proven: bool
    """The winner forces the win against any defence, under the cycle rule."""
    plies: int
    """The deepest line the proof-number search went down (deepened: the depth the proof
    needed, or the deepest searched in full)."""
    nodes: int
    """Positions visited, all depths together."""
    disproven: bool = False
    """The other side forces the opposite (for :func:`prove_win`: the winner does not
    win against best defence)."""


class _OutOfNodes(Exception):
    """The budget of nodes, or of time, is spent."""


def prove_win(
    position: Position,
    winner: int,
    values: U8,
    bounds: tuple[U8, U8],
    max_plies: int = 80,
    max_nodes: int = 200_000,
    max_seconds: float | None = None,
) -> Proof:
    """Whether ``winner`` (0 South, 1 North) forces the win from ``position``, with its
    history, under Abapa's cycle rule; ``values`` and ``bounds`` the endgame databases
    and their game bounds, holding every layer under the position's. The search stops
    unproven past ``max_nodes`` positions or ``max_seconds``; a board of more than
    :data:`core.engine.segment.MAX_SEEDS` seeds is not searched (nothing proven)."""
    if position.is_over:
        return Proof(position.scores[winner] > position.scores[1 - winner], 0, 1)
    found = _segment_at(position, values, bounds)
    if found is None:
        return Proof(False, 0, 0)
    segment, win_from, lose_below = found
    player, threshold = (0, win_from) if winner == position.to_move else (1, lose_below)
    return prove_share(segment, player, threshold, max_plies, max_nodes, max_seconds)


def result_range(
    position: Position,
    side: int,
    values: U8,
    bounds: tuple[U8, U8],
    max_plies: int = 0,
    max_nodes: int = 200_000,
) -> tuple[float, float]:
    """The worst and the best result (0, 1/2, 1) for ``side`` that best play from
    ``position``, with its history, can still give under Abapa's cycle rule as far as
    the game bounds and a search of ``max_plies`` tell; ``(0.0, 1.0)`` where they tell
    nothing (and above :data:`core.engine.segment.MAX_SEEDS` seeds). At 0 plies, what
    the segment's attractors settle with the history's positions seen: a return to one
    ends the game there, so a board the databases rate drawn may be lost for its
    history.

    >>> from core.engine import retrograde
    >>> values, bounds = retrograde.build(2), retrograde.game_bounds(2)
    >>> two = Position("abapa", (0, 1, 0, 0, 0, 1) + (0,) * 6, (23, 22), 0, check_total=False)
    >>> result_range(two, 0, values, bounds)  # the attractors alone: open
    (0.0, 1.0)
    >>> result_range(two, 0, values, bounds, 2), result_range(two, 1, values, bounds, 2)
    ((1.0, 1.0), (0.0, 0.0))

    South wins from 23-22 under the rule (as :func:`prove_win`'s example shows).
    """
    if position.is_over:
        mine, theirs = position.scores[side], position.scores[1 - side]
        result = 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
        return result, result
    found = _segment_at(position, values, bounds)
    if found is None:
        return 0.0, 1.0
    segment, win_from, lose_below = found

    def forced(player: int, threshold: int) -> int:
        proof = prove_share(segment, player, threshold, max_plies, max_nodes)
        return 1 if proof.proven else -1 if proof.disproven else 0

    wins, loses = forced(0, win_from), forced(1, lose_below)  # for the position's mover
    low = 1.0 if wins > 0 else 0.5 if loses < 0 else 0.0
    high = 0.0 if loses > 0 else 0.5 if wins < 0 else 1.0
    return (low, high) if side == position.to_move else (1.0 - high, 1.0 - low)


def _segment_at(
    position: Position, values: U8, bounds: tuple[U8, U8]
) -> tuple[Segment, int, int] | None:
    """The segment of ``position`` (not over) played out with its history, and the
    shares of its seeds from which the mover wins and below which it loses; None above
    :data:`core.engine.segment.MAX_SEEDS` seeds or where it is not played out."""
    mover = position.to_move
    root = to_relative(position.pits, mover)
    n = int(root.sum())
    if n > MAX_SEEDS:
        return None
    history = [
        (to_relative(p.pits, p.to_move), p.to_move == mover) for p in since_capture(position)
    ]
    # the segment once, every position the play can reach before a capture (a layer of
    # ten seeds holds 705,432 boards counting both movers): each node of the search is a
    # node of it with the path that led there
    segment = play_out(root, history, values, 2 * layer_size(n), bounds)
    if segment is None:
        return None
    mine, theirs = position.stores[mover], position.stores[1 - mover]
    # the root's mover ends with x of the n seeds: it wins from x >= win_from and loses
    # below lose_below (the same where no draw is possible)
    return segment, (theirs + n - mine) // 2 + 1, (theirs + n - mine + 1) // 2


def prove_share(
    segment: Segment,
    player: int,
    threshold: int,
    max_plies: int = 80,
    max_nodes: int = 200_000,
    max_seconds: float | None = None,
    deepening: bool = False,
) -> Proof:
    """Whether ``player`` forces, from the root of an explored ``segment`` (with the
    history it was explored with), that the root's mover ends with at least
    ``threshold`` of the seeds now on the board (``player`` 0, the root's mover) or with
    fewer (1, the other side), under the cycle rule; budget as :func:`prove_win`'s. By
    proof-number search (:meth:`_PathSearch.prove_numbers`); ``deepening``: by the
    search deepened two plies at a time that it replaced (:meth:`_PathSearch.prove`),
    which needs several times the nodes (``python -m bench.engine --proofs``).

    >>> from core.engine import retrograde
    >>> from core.engine.segment import play_out
    >>> values, bounds = retrograde.build(2), retrograde.game_bounds(2)
    >>> root = np.array([0, 1, 0, 0, 0, 1] + [0] * 6, dtype=np.int8)  # (South's two)
    >>> segment = play_out(root, [], values, bounds=bounds)
    >>> [prove_share(segment, player, 1).proven for player in (0, 1)]
    [True, False]
    >>> [prove_share(segment, player, 2).proven for player in (0, 1)]
    [False, True]
    """
    if threshold <= 0 or threshold > segment.seeds:
        # out of the segment's reach: every ending gives the root's mover at least 0
        # seeds and at most all of them
        forced = (threshold <= 0) == (player == 0)
        return Proof(forced, 0, 1, disproven=not forced)
    search = _PathSearch(segment, player, threshold)
    if deepening:
        return search.prove(max_plies, max_nodes, max_seconds)
    return search.prove_numbers(max_plies, max_nodes, max_seconds)


#: A proof or disproof number that nothing brings down: the position is settled.
_INFINITE = 1 << 40


#: The margin of :func:`_above`: 0.25 closed 18 of a sample of 40 open eight-seed boards
#: where going one past the second cheapest closed 14, and 16 at 0.5 (``docs/ENGINE.md``).
_EPSILON = 0.25


def _above(second: int) -> int:
    """How far the search goes down the cheapest move: until it costs more than the
    second cheapest by a margin (the "1 + epsilon" rule: going back and forth between two
    moves of nearly equal cost re-grows their attractors every time)."""
    if second >= _INFINITE:
        return _INFINITE
    return max(second + 1, int(second * (1 + _EPSILON)) + 1)


def _combine(numbers: list[tuple[int, int, bool]], ours: bool) -> tuple[int, int, bool]:
    """A position's proof and disproof numbers from its moves' (``ours``: the player to
    move needs one move proving, else every move), and whether a disproof is soft: it
    rests on a move (ours: on one of the moves) settled as neither."""
    if ours:
        pn = min(n[0] for n in numbers)
        dn = min(_INFINITE, sum(n[1] for n in numbers))
        return pn, dn, dn == 0 and any(n[2] for n in numbers)
    pn = min(_INFINITE, sum(n[0] for n in numbers))
    dn = min(n[1] for n in numbers)
    # (a hard disproof among the moves is enough for the other side)
    return pn, dn, dn == 0 and all(n[2] for n in numbers if n[1] == 0)


class _PathSearch:
    """The AND-OR search over the paths of one explored segment for ``player`` (0 the
    root's mover, 1 the other side): it wants the root's mover at ``threshold`` seeds or
    more (player 0) or below (player 1)."""

    def __init__(self, segment: Segment, player: int, threshold: int) -> None:
        self.segment = segment
        self.player = player
        self.threshold = threshold
        total = segment.graph[0]
        # a path's positions as a set: the XOR of a random number per position
        draw = np.random.default_rng(total)
        self.keys: list[int] = draw.integers(0, 1 << 63, total, dtype=np.int64).tolist()
        self.on_path = np.zeros(total, dtype=np.bool_)
        # the path's positions in order (the root first), for the attractors to mark
        self.path = np.zeros(total, dtype=np.int32)
        self.length = 0
        # what each attractor needs of every position before any is seen: the same at
        # every node of the search, so computed once (each node then marks its path)
        _, side, edges, count, ends, _, _ = segment.graph
        mine, theirs = (segment.low, segment.high) if player == 0 else (segment.high, segment.low)
        needs = (
            _needs(total, side, edges, mine, count, ends, threshold, player),
            _needs(total, side, edges, theirs, count, ends, threshold, 1 - player),
        )
        self.needs = tuple((need, np.flatnonzero(need == 0).astype(np.int32)) for need in needs)
        # the two attractors (the player's, the other side's) as grown whole for the
        # last node of the path with the path seen: each position's ``need`` and entry
        # number (``order``, -1 outside), and per depth the next entry numbers. A
        # child's are its parent's grown on by the child alone (:func:`_extend`), what
        # that changes kept in a journal per attractor and written back when the search
        # leaves the child (:func:`_rewind`): no arrays copied per node, and memory
        # that does not grow with the depth of the search
        self.need = np.empty((2, total), dtype=np.int32)
        self.order = np.empty((2, total), dtype=np.int32)
        self.numbered: list[list[int]] = []
        self.journal = [np.empty((total, 3), dtype=np.int32) for _ in range(2)]
        self.fill = np.zeros((2, 2), dtype=np.int64)  # per attractor: rows used, step
        self.stamp = np.zeros((2, total), dtype=np.int64)
        self.root_grown = False
        self.queue = np.empty(total, dtype=np.int32)
        self.leaving = np.zeros(total, dtype=np.bool_)
        # what the attractors settle for a node with the positions of its path seen
        # (depth does not matter to them, so the deepenings share it)
        self.settled: dict[tuple[int, int], int] = {}
        self.nodes = 0
        self.max_nodes = 0
        self.deadline: float | None = None

    def prove(self, max_plies: int, max_nodes: int, max_seconds: float | None) -> Proof:
        """Deepen two plies at a time until proven or disproven, or out of plies or
        budget."""
        self.max_nodes = max_nodes
        self.deadline = None if max_seconds is None else time.perf_counter() + max_seconds
        searched = 0
        try:
            for plies in range(0, max_plies + 1, 2):
                self.on_path[0] = True
                self.path[0], self.length = 0, 1
                result = self._won(0, self.keys[0], plies, 0)
                if result != 0:
                    return Proof(result > 0, plies, self.nodes, disproven=result < 0)
                searched = plies
        except _OutOfNodes:
            pass
        return Proof(False, searched, self.nodes)

    def prove_numbers(self, max_plies: int, max_nodes: int, max_seconds: float | None) -> Proof:
        """The same question as :meth:`prove`, by depth-first proof-number search: the
        search goes down the line whose proof (or disproof) looks cheapest, by how many
        positions are still to settle under it, rather than to every line's end at each
        depth. A line longer than ``max_plies`` settles nothing."""
        self.max_nodes = max_nodes
        self.deadline = None if max_seconds is None else time.perf_counter() + max_seconds
        self.table: dict[tuple[int, int], tuple[int, int, bool]] = {}
        self.max_plies = max_plies
        self.deepest = 0
        try:
            self.on_path[0] = True
            self.path[0], self.length = 0, 1
            pn, dn, soft = self._mid(0, self.keys[0], 0, _INFINITE, _INFINITE)
        except _OutOfNodes:
            return Proof(False, self.deepest, self.nodes)
        return Proof(pn == 0, self.deepest, self.nodes, disproven=dn == 0 and not soft)

    def _leaf(self, result: int) -> tuple[int, int, bool]:
        """Proof and disproof numbers of a position settled as ``result`` (1 proven, -1
        disproven, 0 neither: the player cannot count on it, and it proves nothing for
        the other side either: a soft disproof)."""
        if result > 0:
            return 0, _INFINITE, False
        return _INFINITE, 0, result == 0

    def _mid(
        self, node: int, key: int, depth: int, pn_limit: int, dn_limit: int
    ) -> tuple[int, int, bool]:
        """Search ``node`` (the last of the path, ``key`` its set) until its proof number
        reaches ``pn_limit`` or its disproof number ``dn_limit``; returns both and whether
        a disproof rests on a position settled as neither (soft)."""
        self.nodes += 1
        if self.nodes > self.max_nodes or (
            self.deadline is not None and time.perf_counter() > self.deadline
        ):
            raise _OutOfNodes
        self.deepest = max(self.deepest, depth)
        ends = self.segment.graph[4]
        if ends[node] >= 0:
            return self._leaf(self._ending(int(ends[node]), int(ends[node])))
        marks = (int(self.fill[0, 0]), int(self.fill[1, 0]))
        try:
            return self._expand(node, key, depth, pn_limit, dn_limit)
        finally:
            self._rewind_to(marks)

    def _expand(
        self, node: int, key: int, depth: int, pn_limit: int, dn_limit: int
    ) -> tuple[int, int, bool]:
        """:meth:`_mid` of a node whose game goes on (its numbers go to the table where
        its parent receives them)."""
        _, side, edges, count, _, _, _ = self.segment.graph
        settled = self._grow_at(node, depth)
        if settled != 0:
            return self._leaf(settled)
        if depth >= self.max_plies:
            return self._leaf(0)
        ours = side[node] == self.player  # an OR node: one move proving is enough
        # each move: a position settled already (a leaf), or one to search (its key)
        moves: list[tuple[int, int]] = []
        fixed: list[tuple[int, int, bool]] = []
        for k in range(int(count[node])):
            child = int(edges[node, k])
            if child < 0:
                fixed.append(
                    self._leaf(
                        self._ending(
                            int(self.segment.low[node, k]), int(self.segment.high[node, k])
                        )
                    )
                )
            elif self.on_path[child]:
                own = int(self.segment.own[child])
                fixed.append(self._leaf(self._ending(own, own)))
            else:
                moves.append((child, key ^ self.keys[child]))
        while True:
            numbers = fixed + [self.table.get((c, ck), (1, 1, False)) for c, ck in moves]
            pn, dn, soft = _combine(numbers, ours)
            if pn >= pn_limit or dn >= dn_limit or pn == 0 or dn == 0:
                return pn, dn, soft
            # the move to search: the cheapest to prove (ours) or to disprove (theirs),
            # with the second cheapest bounding how far it goes
            at = len(fixed)
            scored = sorted(range(len(moves)), key=lambda i: numbers[at + i][0 if ours else 1])
            best = scored[0]
            second = numbers[at + scored[1]][0 if ours else 1] if len(scored) > 1 else _INFINITE
            best_pn, best_dn, _ = numbers[at + best]
            if ours:
                child_pn = min(pn_limit, _above(second))
                child_dn = min(_INFINITE, dn_limit - dn + best_dn)
            else:
                child_dn = min(dn_limit, _above(second))
                child_pn = min(_INFINITE, pn_limit - pn + best_pn)
            child, child_key = moves[best]
            self.on_path[child] = True
            self.path[self.length] = child
            self.length += 1
            try:
                found = self._mid(child, child_key, depth + 1, child_pn, child_dn)
            finally:
                self.length -= 1
                self.on_path[child] = False
            self.table[(child, child_key)] = found

    def _ending(self, low: int, high: int) -> int:
        """An ending worth between ``low`` and ``high`` seeds to the root's mover: 1 what
        the player wants whatever it is worth there, -1 what it does not, 0 either."""
        t = self.threshold
        if self.player == 0:
            return 1 if low >= t else -1 if high < t else 0
        return 1 if high < t else -1 if low >= t else 0

    def _grow_at(self, node: int, depth: int) -> int:
        """Both attractors grown whole for ``node`` at ``depth``, the last position of the
        path (the root at depth 0, else a child of the node at ``depth - 1``, whose
        attractors are there); what they settle for it: 1 the player forces its result, -1
        the other side forces the opposite, 0 neither."""
        total, side, edges, count, _, first, preds = self.segment.graph
        while len(self.numbered) <= depth:
            self.numbered.append([0, 0])
        need, order, numbered = self.need, self.order, self.numbered[depth]
        path = self.path[: self.length]
        for who in (0, 1):
            base, zero = self.needs[who]
            player = self.player if who == 0 else 1 - self.player
            if depth == 0:
                if not self.root_grown:
                    numbered[who] = _grow_whole(
                        need[who], order[who], base, zero, side, self.segment.own, first,
                        preds, self.on_path, path, self.threshold, player, self.queue,
                    )  # fmt: skip
                    self.fill[who, 0] = 0
            else:
                journal = self.journal[who]
                if len(journal) - self.fill[who, 0] < total:  # a step keeps each position once
                    self.journal[who] = journal = np.concatenate((journal, journal))
                numbered[who] = _extend(
                    need[who], order[who], self.numbered[depth - 1][who], base, side, edges,
                    count, self.segment.own, first, preds, self.on_path, node,
                    self.threshold, player, self.queue, self.leaving, journal, self.fill[who],
                    self.stamp[who],
                )  # fmt: skip
        self.root_grown = True
        return 1 if need[0, node] <= 0 else -1 if need[1, node] <= 0 else 0

    def _rewind_to(self, marks: tuple[int, int]) -> None:
        """Both attractors back to what they were when their journals held ``marks``
        rows."""
        for who in (0, 1):
            if self.fill[who, 0] > marks[who]:
                need, order = self.need[who], self.order[who]
                _rewind(need, order, self.journal[who], self.fill[who], marks[who])

    def _won(self, node: int, key: int, plies: int, depth: int) -> int:
        """1 where the player forces its result from ``node``, the last position of the
        path (``on_path``, whose set ``key`` names) at ``depth``, -1 where the other
        side forces the opposite, 0 where ``plies`` more do not tell."""
        self.nodes += 1
        if self.nodes > self.max_nodes or (
            self.deadline is not None and time.perf_counter() > self.deadline
        ):
            raise _OutOfNodes
        ends = self.segment.graph[4]
        if ends[node] >= 0:
            return self._ending(int(ends[node]), int(ends[node]))
        # the attractors are the parent's now; the node's grown on from them are undone
        # on the way back
        marks = (int(self.fill[0, 0]), int(self.fill[1, 0]))
        try:
            return self._search(node, key, plies, depth)
        finally:
            self._rewind_to(marks)

    def _search(self, node: int, key: int, plies: int, depth: int) -> int:
        """:meth:`_won` of a node whose game goes on."""
        _, side, edges, count, _, _, _ = self.segment.graph
        # what the attractors settle, or an earlier deepening did, for the node with its
        # path's positions seen
        known = self.settled.get((node, key))
        grown = False
        if known is None:
            known = self._grow_at(node, depth)
            grown = True
            self.settled[(node, key)] = known
        if known != 0 or plies == 0:
            return known
        if not grown:  # settled by an earlier deepening: its children grow from it
            self._grow_at(node, depth)
        # the player needs one move it wants, the other side one escape: ``want`` is
        # the result the side to move looks for (a search for a proof: at the other
        # side's nodes the first move not known to fail ends it, as a refutation would)
        want = 1 if side[node] == self.player else -1
        unknown = False
        for k in range(int(count[node])):
            child = int(edges[node, k])
            if child < 0:  # a capture, an ending, or a return to the history's positions
                result = self._ending(
                    int(self.segment.low[node, k]), int(self.segment.high[node, k])
                )
            elif self.on_path[child]:  # a return to the path: the game ends there
                own = int(self.segment.own[child])
                result = self._ending(own, own)
            else:
                self.on_path[child] = True
                self.path[self.length] = child
                self.length += 1
                result = self._won(child, key ^ self.keys[child], plies - 1, depth + 1)
                self.length -= 1
                self.on_path[child] = False
            if result == want:
                self.settled[(node, key)] = want
                return want
            if result == 0 and want < 0:
                return 0  # the other side may escape here: no proof through this node
            unknown = unknown or result == 0
        if unknown:
            return 0
        self.settled[(node, key)] = -want  # every move gives the other side its result
        return -want


@njit
def _grow_whole(
    need: I32,
    order: I32,
    base: I32,
    zero: I32,
    side: I8,
    own: I32,
    first: I32,
    preds: I32,
    on_path: BOOL,
    path: I32,
    threshold: int,
    player: int,
    queue: I32,
) -> int:
    """``player``'s attractor (as :func:`core.engine.segment._attractor`'s) with the
    positions of ``path`` seen, grown whole into ``need`` from ``base`` and ``zero``
    (what each position needs before any is seen, and those needing nothing): a
    position is in it where its ``need`` is 0 or less, numbered in ``order`` as it
    entered (-1 outside). Returns the next number."""
    need[:] = base
    queue[: len(zero)] = zero
    journal, fill, stamp = _no_journal()
    tail = _mark_seen(
        need, side, own, first, preds, path, threshold, player, queue, len(zero), order,
        journal, fill, stamp,
    )  # fmt: skip
    order[:] = -1
    for i in range(tail):
        order[queue[i]] = i
    return _grow(
        need, side, first, preds, on_path, player, queue, tail, order, tail, journal, fill, stamp
    )


@njit
def _extend(
    need: I32,
    order: I32,
    numbered: int,
    base: I32,
    side: I8,
    edges: I32,
    count: I32,
    own: I32,
    first: I32,
    preds: I32,
    on_path: BOOL,
    child: int,
    threshold: int,
    player: int,
    queue: I32,
    leaving: BOOL,
    journal: I32,
    fill: I64,
    stamp: I64,
) -> int:
    """``player``'s attractor, ``need`` and ``order`` as :func:`_grow_whole`'s for the
    path without ``child``, made the attractor with ``child`` seen too (its last
    position, marked in ``on_path``); ``numbered`` the next entry number, and the next
    one returned. What changes is kept in ``journal`` first, as one step
    (:func:`core.engine.segment._save`): :func:`_rewind` undoes it.

    A seen position ends the game where play comes back to it. Where the player wants
    that ending, seeing ``child`` can only add positions: those from which the player
    forces play back into it, grown on from the moves into it (where ``child`` was in
    the attractor already, its predecessors were counted when it entered, and nothing
    changes). Where the player does not want it and ``child`` was not in the attractor,
    no position's way in went through it: nothing changes either. Only where ``child``
    was in and now ends the game against the player may positions leave: those whose
    way in went through it (:func:`_shrink`)."""
    fill[1] += 1  # a new step
    good = _wants(own[child], threshold, player)
    if need[child] <= 0 and not good:
        return _shrink(
            need, order, numbered, base, side, edges, count, own, first, preds, on_path,
            child, threshold, player, queue, leaving, journal, fill, stamp,
        )  # fmt: skip
    if good and need[child] > 0:
        seen = np.full(1, child, dtype=np.int32)
        tail = _mark_seen(
            need, side, own, first, preds, seen, threshold, player, queue, 0, order, journal,
            fill, stamp,
        )  # fmt: skip
        for i in range(tail):
            order[queue[i]] = numbered + i
        return _grow(
            need, side, first, preds, on_path, player, queue, tail, order, numbered + tail,
            journal, fill, stamp,
        )  # fmt: skip
    return numbered


@njit
def _shrink(
    need: I32,
    order: I32,
    numbered: int,
    base: I32,
    side: I8,
    edges: I32,
    count: I32,
    own: I32,
    first: I32,
    preds: I32,
    on_path: BOOL,
    child: int,
    threshold: int,
    player: int,
    queue: I32,
    leaving: BOOL,
    journal: I32,
    fill: I64,
    stamp: I64,
) -> int:
    """:func:`_extend` where ``child`` was in the attractor and now ends the game
    against the player. A position entered on moves into positions that had entered
    before it; only those that entered after ``child`` on a chain of such moves from it
    can depend on it. They leave (``leaving``, cleared again), their ``need`` and that of
    the positions outside they had counted for are counted again from the positions
    that stay, and the attractor is grown on from those that still need nothing."""
    # the chain: predecessors in the attractor that entered after the position they move
    # to (a seen position other than ``child`` counted for no one: moves into it end the
    # game)
    queue[0] = child
    leaving[child] = True
    tail = 1
    head = 0
    while head < tail:
        node = queue[head]
        head += 1
        if on_path[node] and node != child:
            continue
        for j in range(first[node], first[node + 1]):
            p = preds[j]
            if need[p] <= 0 and not leaving[p] and order[p] > order[node]:
                leaving[p] = True
                queue[tail] = p
                tail += 1
    # every position leaving, and every one outside that one of them counted for, is
    # counted again from the moves into positions that stay (or that end the game)
    gone = tail
    for i in range(gone):
        node = queue[i]
        _save(node, need, order, journal, fill, stamp)
        order[node] = -1
        if on_path[node] and node != child:
            continue
        for j in range(first[node], first[node + 1]):
            p = preds[j]
            if need[p] > 0 and not leaving[p]:
                _save(p, need, order, journal, fill, stamp)
                need[p] = _recount(
                    p, need, base, side, edges, count, own, on_path, leaving, threshold, player
                )
    for i in range(gone):
        node = queue[i]
        need[node] = _recount(
            node, need, base, side, edges, count, own, on_path, leaving, threshold, player
        )
    # those that still need nothing enter again, numbered after every other, and the
    # attractor grows on from them
    tail = 0
    for i in range(gone):
        node = queue[i]
        leaving[node] = False
        if need[node] <= 0:
            order[node] = numbered + tail
            queue[tail] = node  # (tail <= i: in place)
            tail += 1
    return _grow(
        need, side, first, preds, on_path, player, queue, tail, order, numbered + tail, journal,
        fill, stamp,
    )  # fmt: skip


@njit
def _rewind(need: I32, order: I32, journal: I32, fill: I64, mark: int) -> None:
    """Undo the steps kept in ``journal`` after its first ``mark`` rows, the last first."""
    for row in range(fill[0] - 1, mark - 1, -1):
        p = journal[row, 0]
        need[p] = journal[row, 1]
        order[p] = journal[row, 2]
    fill[0] = mark


@njit
def _recount(
    node: int,
    need: I32,
    base: I32,
    side: I8,
    edges: I32,
    count: I32,
    own: I32,
    on_path: BOOL,
    leaving: BOOL,
    threshold: int,
    player: int,
) -> int:
    """What ``node`` needs (as :func:`core.engine.segment._needs`'s count, its moves
    leaving the segment in ``base``), its moves into positions of the attractor that
    stay, or into seen positions ending the game as the player wants, counted."""
    counted = 0
    for k in range(count[node]):
        c = edges[node, k]
        if c < 0:
            continue
        if on_path[c]:
            counted += _wants(own[c], threshold, player)
        elif need[c] <= 0 and not leaving[c]:
            counted += 1
    if side[node] == player:
        return 0 if base[node] <= 0 or counted > 0 else 1
    return int(base[node]) - counted
