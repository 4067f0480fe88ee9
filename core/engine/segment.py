"""The capture-free segment of a small Abapa endgame, played out with its history.

Abapa ends the game at the first repetition of a position since the last capture, each
side taking the seeds on its side. The endgame databases value a position without that
history (:mod:`core.engine.retrograde`), and the search, which does know it, sees only as
far as its horizon: a side the databases rate winner can go round in circles until a
repetition ends the game at a worse split, and every move of the circle looked as good
as the others to a search that saw no end.

This module plays the segment out: every position reachable from the root without a
capture is a node; a move reaching a position seen since the last capture (or the root)
ends the game there with each side keeping its own seeds; a capture leaves the segment
for the position it makes, worth what the databases say of it; a side that cannot move
ends the game as the rules say. The game inside the segment is a reachability game: the
root's mover can *force* a total of at least ``t`` seeds if, against any defence, play
reaches such an ending in a finite number of moves (an attractor, computed backwards
from the endings); play that goes round for ever is counted against the mover there, and
in the mover's favour for what it *may* get.

When the mover forces a win, or a draw, :func:`solve_segment` returns a move that forces
it: each of its moves leads to a position that entered the attractor earlier, so play
never comes back to a position and reaches an ending worth the threshold. Every move
into the attractor keeps the result too (:attr:`SegmentPlan.keeps`): from any position
of the attractor, with the history grown by the moves played, the attractor's own play
still reaches such an ending. Where the draw is forced and a win may still be there, the
plan says so (:attr:`SegmentPlan.win_open`), for the search to choose among the moves
that keep the draw. An exit is worth, to each side, the game bound
worst for it (:func:`core.engine.retrograde.game_bounds`), so that the plan's promise
holds under the real cycle rule; without bounds, the databases' values, which may rest
on their cycle convention. Where the bounds settle nothing, the plan on the values is
there on request, marked as a guess (:attr:`SegmentPlan.proven`).

Where the mover forces no draw, the other side may not force its loss either, and yet
some of the mover's moves would let it: :func:`segment_outlook` names the moves that do
not (:attr:`SegmentOutlook.holds`), the other side's attractor computed the same way,
its exits at the bound worst for it, so that a move outside them is a loss the bounds
prove against the mover's best play.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from core.engine._jit import njit
from core.engine.kernel import (
    NO_CAPTURE,
    NOT_OVER,
    flip_into,
    game_end,
    legal_moves,
    play_into,
    side_sum,
)
from core.engine.ranking import CUMULATIVE, layer_size, rank
from core.engine.retrograde import OFFSETS

#: Seeds on the board up to which the segment is played out.
MAX_SEEDS = 10
#: Positions of a segment beyond which it is not (a layer of 10 seeds holds 705,432
#: positions counting both movers; a segment of 9 seeds was seen holding 303,806).
MAX_NODES = 400_000
#: Positions of a segment explored per second the move is given, where that is more
#: than :data:`MAX_NODES`: each costs about half a microsecond to explore, and a segment
#: of 10 seeds can hold 646,556 (game 13 of the 2 s match, ``docs/ENGINE.md``).
NODES_PER_SECOND = 400_000
#: Nodes visited at most, over all the replies, to look one reply further for the moves
#: that hold off a loss (about 40 ns each here: 2,000,000 is 0.08 s).
REPLY_VISITS = 2_000_000

I8 = npt.NDArray[np.int8]
U8 = npt.NDArray[np.uint8]
I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]
BOOL = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class SegmentPlan:
    """What the root's mover forces in its segment, and a move that forces it."""

    result: int
    """1 win, 0 draw: the best result the mover forces, and no play does better against
    best defence."""
    seeds: int
    """Seeds now on the board the mover is sure to end with (at least)."""
    move: int
    """A mover-relative pit (0-5) that forces :attr:`seeds`."""
    positions: int
    """Positions of the segment."""
    proven: bool
    """Whether the captures leaving the segment were scored by the game bounds (the plan
    holds under the cycle rule); False: by the databases' values, which may rest on
    their cycle convention (see :func:`solve_segment`)."""
    win_open: bool
    """A draw the mover forces while the other side cannot hold off a win: play that
    goes round, or captures whose scores are open, may still give the mover more."""
    keeps: tuple[int, ...]
    """Every mover-relative pit that keeps :attr:`seeds` forced (:attr:`move` among
    them): where a win is open, the one to play is the best of these by other means."""
    toward: int = -1
    """Where a win is open and asked for (``guess``): the move of the databases' values'
    win when it is one of :attr:`keeps`, else -1."""


@dataclass(frozen=True)
class SegmentOutlook:
    """The segment played out from the root: what its mover forces, and which of its
    moves keep the other side from forcing its loss."""

    plan: SegmentPlan | None
    """What :func:`solve_segment` returns."""
    holds: tuple[int, ...] | None
    """Where the mover forces no draw: the mover-relative pits after which the other side
    still cannot force the mover's loss, where some other move would let it (by the game
    bounds: such a move loses under the cycle rule against best play). None where no
    move would, where every move does (the loss is forced already), where the mover
    forces a draw or a win (the plan's :attr:`SegmentPlan.keeps` hold it), or without
    bounds."""


@njit
def _explore(
    root: I8,
    history: I8,
    history_side: I64,
    lows: U8,
    highs: U8,
    values: U8,
    offsets: I64,
    max_nodes: int,
    side: I8,
    edges: I32,
    fixed: I32,
    fixed_high: I32,
    fixed_value: I32,
    count: I32,
    ends: I32,
    own: I32,
) -> int:
    """Every position of the root's segment, breadth first; returns how many, or -1 past
    ``max_nodes``.

    Node ``i``: ``side[i]`` 0 where the root's mover is to move. Its ``count[i]`` moves:
    ``edges[i, k]`` the child node, or -1 where the move ends the game or leaves the
    segment, worth at least ``fixed[i, k]`` and at most ``fixed_high[i, k]`` seeds to
    the root's mover (a capture's child is scored by ``lows`` and ``highs``, its
    mover's bounds; a repetition is worth one exact split), and worth
    ``fixed_value[i, k]`` by the databases' ``values``. ``ends[i]`` >= 0: no move (the
    game ends there), worth that. ``own[i]``: the seeds on the root's mover's side, what
    it keeps where a repetition of node ``i`` ends the game.
    """
    n = int(root.sum())
    size = offsets[n + 1] - offsets[n]
    index = np.full(2 * size, -1, dtype=np.int32)
    seen = np.zeros(2 * size, dtype=np.uint8)  # positions since the last capture, and root
    for j in range(history.shape[0]):
        seen[history_side[j] * size + rank(history[j], CUMULATIVE)] = 1
    seen[rank(root, CUMULATIVE)] = 1
    boards = np.zeros((max_nodes, 12), dtype=np.int8)
    boards[0, :] = root
    side[0] = 0
    index[rank(root, CUMULATIVE)] = 0
    total = 1
    head = 0
    moves = np.zeros(6, dtype=np.int64)
    after = np.zeros(12, dtype=np.int8)
    child = np.zeros(12, dtype=np.int8)
    while head < total:
        board = boards[head]
        s = side[head]
        ends[head] = -1
        count[head] = 0
        end = game_end(board, NO_CAPTURE)
        if end != NOT_OVER:
            ends[head] = end if s == 0 else n - end
            head += 1
            continue
        c = legal_moves(board, moves, NO_CAPTURE)
        count[head] = c
        for k in range(c):
            taken = play_into(board, moves[k], after, NO_CAPTURE)
            flip_into(after, child)
            if taken > 0:
                # the capture leaves the segment: the child's mover (the other side) ends
                # with between its low and high bound of the seeds left
                left = n - taken
                at = offsets[left] + rank(child, CUMULATIVE)
                low = int(lows[at]) if left else 0
                high = int(highs[at]) if left else 0
                value = int(values[at]) if left else 0
                edges[head, k] = -1
                if s == 0:  # the root's mover took: it ends with the rest of n
                    fixed[head, k] = n - high
                    fixed_high[head, k] = n - low
                    fixed_value[head, k] = n - value
                else:  # the other side took: the root's mover moves in the child
                    fixed[head, k] = low
                    fixed_high[head, k] = high
                    fixed_value[head, k] = value
                continue
            cs = 1 - s
            key = cs * size + rank(child, CUMULATIVE)
            if seen[key]:
                # a repetition: each side keeps the seeds on its side of the child
                edges[head, k] = -1
                fixed[head, k] = side_sum(child, 0) if cs == 0 else side_sum(child, 6)
                fixed_high[head, k] = fixed[head, k]
                fixed_value[head, k] = fixed[head, k]
                continue
            at = index[key]
            if at < 0:
                if total >= max_nodes:
                    return -1
                at = total
                index[key] = at
                boards[at, :] = child
                side[at] = cs
                own[at] = side_sum(child, 0) if cs == 0 else side_sum(child, 6)
                total += 1
            edges[head, k] = at
        head += 1
    return total


@njit
def _attractor(
    total: int,
    side: I8,
    edges: I32,
    fixed: I32,
    count: I32,
    ends: I32,
    first: I32,
    preds: I32,
    threshold: int,
    player: int,
    order: I32,
    seen: BOOL,
    own: I32,
) -> None:
    """The positions from which ``player`` (0 the root's mover, 1 the other) forces an
    ending of its liking in finitely many moves: for player 0 worth at least
    ``threshold`` seeds to the root's mover, for player 1 less than that. ``order[i]``:
    when node ``i`` entered (-1 never), so that play along entering order ends.

    A move into a node marked in ``seen`` (positions played since the root, beyond the
    history the segment was explored with) ends the game there, worth ``own`` of it."""
    need = _needs(total, side, edges, fixed, count, ends, threshold, player)
    queue = np.zeros(total, dtype=np.int32)
    marked = np.flatnonzero(seen).astype(np.int32)
    journal, fill, stamp = _no_journal()
    _mark_seen(
        need, side, own, first, preds, marked, threshold, player, queue, 0, order, journal,
        fill, stamp,
    )  # fmt: skip
    tail = 0
    for i in range(total):
        order[i] = -1
        if need[i] <= 0:
            order[i] = tail
            queue[tail] = i
            tail += 1
    _grow(need, side, first, preds, seen, player, queue, tail, order, tail, journal, fill, stamp)


@njit
def _no_journal() -> tuple[I32, I64, I64]:
    """An empty journal: :func:`_save` keeps nothing in it."""
    nothing = np.zeros(0, dtype=np.int64)
    return np.zeros((0, 3), dtype=np.int32), np.zeros(2, dtype=np.int64), nothing


@njit
def _save(p: int, need: I32, order: I32, journal: I32, fill: I64, stamp: I64) -> None:
    """Keep ``need[p]`` and ``order[p]`` (-1 where ``order`` is empty) in ``journal`` as
    a row (position, need, order) before the first change to them in a step, so that
    the step can be undone by writing its rows back, the last first: ``fill[0]`` rows
    are used, ``fill[1]`` numbers the step, ``stamp[p]`` the last step that kept ``p``.
    An empty ``journal`` keeps nothing."""
    if len(journal) == 0 or stamp[p] == fill[1]:
        return
    stamp[p] = fill[1]
    row = fill[0]
    journal[row, 0] = p
    journal[row, 1] = need[p]
    journal[row, 2] = order[p] if len(order) else -1
    fill[0] = row + 1


@njit
def _wants(worth: int, threshold: int, player: int) -> bool:
    """Whether an ending worth ``worth`` seeds to the root's mover is one ``player`` (0
    the root's mover, 1 the other side) wants: ``threshold`` or more for the mover,
    fewer for the other side."""
    return worth >= threshold if player == 0 else worth < threshold


@njit
def _needs(
    total: int,
    side: I8,
    edges: I32,
    fixed: I32,
    count: I32,
    ends: I32,
    threshold: int,
    player: int,
) -> I32:
    """For :func:`_attractor` of ``player``, no position seen: how many more of its
    moves each position needs to be won for the player (its own positions one, the
    other side's all of them; 0 where its endings already do)."""
    need = np.zeros(total, dtype=np.int32)
    for i in range(total):
        if ends[i] >= 0:
            good = _wants(ends[i], threshold, player)
            need[i] = 0 if good else 1 << 30
            continue
        good_exits = 0
        for k in range(count[i]):
            if edges[i, k] < 0:
                v = fixed[i, k]
                if _wants(v, threshold, player):
                    good_exits += 1
        need[i] = (1 if good_exits == 0 else 0) if side[i] == player else count[i] - good_exits
    return need


@njit
def _mark_seen(
    need: I32,
    side: I8,
    own: I32,
    first: I32,
    preds: I32,
    seen: I32,
    threshold: int,
    player: int,
    queue: I32,
    tail: int,
    order: I32,
    journal: I32,
    fill: I64,
    stamp: I64,
) -> int:
    """The moves into the positions ``seen`` (node numbers) end the game there, worth
    ``own`` of them: counted in ``need`` (:func:`_needs`) where the player wants that
    ending; the positions that now need nothing go on ``queue`` from ``tail`` (returns
    the new tail). What changes is kept in ``journal`` first (:func:`_save`)."""
    for s in seen:
        v = own[s]
        if not _wants(v, threshold, player):
            continue  # an ending the player does not want: as the moves counted already
        for j in range(first[s], first[s + 1]):
            p = preds[j]
            if need[p] <= 0:
                continue
            _save(p, need, order, journal, fill, stamp)
            need[p] = 0 if side[p] == player else need[p] - 1
            if need[p] <= 0:
                queue[tail] = p
                tail += 1
    return tail


@njit
def _grow(
    need: I32,
    side: I8,
    first: I32,
    preds: I32,
    seen: BOOL,
    player: int,
    queue: I32,
    tail: int,
    order: I32,
    numbered: int,
    journal: I32,
    fill: I64,
    stamp: I64,
) -> int:
    """Grow the attractor whose positions needing nothing are ``queue[:tail]``, from
    their predecessors back (``need`` counted down); where ``order`` is not empty, each
    position entering is numbered there from ``numbered`` on. Returns the next number.
    What changes is kept in ``journal`` first (:func:`_save`)."""
    head = 0
    while head < tail:
        node = queue[head]
        head += 1
        if seen[node]:
            continue  # the moves into it end the game: counted as endings
        for j in range(first[node], first[node + 1]):
            p = preds[j]
            if need[p] <= 0:
                continue
            _save(p, need, order, journal, fill, stamp)
            need[p] = 0 if side[p] == player else need[p] - 1
            if need[p] <= 0:
                if len(order):
                    order[p] = numbered
                numbered += 1
                queue[tail] = p
                tail += 1
    return numbered


@njit
def _predecessors(total: int, edges: I32, count: I32, first: I32, preds: I32) -> None:
    """``preds[first[i]:first[i + 1]]``: the nodes with a move into node ``i`` (once per
    move)."""
    degree = np.zeros(total + 1, dtype=np.int32)
    for i in range(total):
        for k in range(count[i]):
            if edges[i, k] >= 0:
                degree[edges[i, k] + 1] += 1
    for i in range(total):
        degree[i + 1] += degree[i]
    first[:] = degree
    fill = degree[:total].copy()
    for i in range(total):
        for k in range(count[i]):
            c = edges[i, k]
            if c >= 0:
                preds[fill[c]] = i
                fill[c] += 1


Graph = tuple[int, I8, I32, I32, I32, I32, I32]
"""An explored segment as the attractors read it: (positions, side, edges, count, ends,
first, preds); see :func:`_explore` and :func:`_predecessors`."""


@dataclass(frozen=True)
class Segment:
    """Every position of a root's segment and the moves between them (see
    :func:`_explore` for what each array holds, node 0 the root)."""

    seeds: int
    """Seeds on the board."""
    graph: Graph
    low: I32
    """Per move leaving the segment: at least what it is worth to the root's mover."""
    high: I32
    """Per move leaving the segment: at most what it is worth to the root's mover."""
    by_values: I32
    """Per move leaving the segment: its worth by the databases' values."""
    own: I32
    """Per position: the seeds on the root's mover's side (its share where a return to
    the position ends the game)."""


def play_out(
    root: I8,
    history: list[tuple[I8, bool]],
    values: U8,
    max_nodes: int = MAX_NODES,
    bounds: tuple[U8, U8] | None = None,
) -> Segment | None:
    """Explore the segment of the mover-relative ``root`` (arguments as
    :func:`solve_segment`'s); None past ``max_nodes`` positions, above :data:`MAX_SEEDS`
    seeds, on an empty board or without the databases' layers under the root."""
    root = np.ascontiguousarray(root, dtype=np.int8)
    n = int(root.sum())
    lows, highs = (values, values) if bounds is None else bounds
    if n > MAX_SEEDS or n == 0 or min(lows.shape[0], highs.shape[0], values.shape[0]) < OFFSETS[n]:
        return None
    hist = np.zeros((len(history), 12), dtype=np.int8)
    hist_side = np.zeros(len(history), dtype=np.int64)
    for j, (board, root_mover) in enumerate(history):
        hist[j] = board
        hist_side[j] = 0 if root_mover else 1
    cap = min(max_nodes, 2 * layer_size(n))
    side = np.zeros(cap, dtype=np.int8)
    edges = np.zeros((cap, 6), dtype=np.int32)
    fixed = np.zeros((cap, 6), dtype=np.int32)
    fixed_high = np.zeros((cap, 6), dtype=np.int32)
    fixed_value = np.zeros((cap, 6), dtype=np.int32)
    count = np.zeros(cap, dtype=np.int32)
    ends = np.zeros(cap, dtype=np.int32)
    own = np.zeros(cap, dtype=np.int32)
    total = _explore(
        root,
        hist,
        hist_side,
        lows,
        highs,
        values,
        OFFSETS,
        cap,
        side,
        edges,
        fixed,
        fixed_high,
        fixed_value,
        count,
        ends,
        own,
    )
    if total < 0:
        return None
    first = np.zeros(total + 1, dtype=np.int32)
    preds = np.zeros(max(1, int((edges[:total] >= 0).sum())), dtype=np.int32)
    _predecessors(total, edges, count, first, preds)
    graph = (total, side, edges, count, ends, first, preds)
    return Segment(n, graph, fixed, fixed_high, fixed_value, own)


def solve_segment(
    root: I8,
    history: list[tuple[I8, bool]],
    mine: int,
    theirs: int,
    values: U8,
    max_nodes: int = MAX_NODES,
    bounds: tuple[U8, U8] | None = None,
    guess: bool = False,
) -> SegmentPlan | None:
    """The result the mover of the mover-relative ``root`` forces in its segment, when no
    play can do better, and a move forcing it; None when the segment does not settle it
    (or the root has too many seeds or positions, or no database under it).

    ``history``: the positions since the last capture before the root, each as a
    mover-relative board and whether the root's mover was to move there. ``mine`` and
    ``theirs``: the stores of the root's mover and of the other side. ``values``: the
    endgame databases, holding every layer under the root's. ``bounds``: the lower and
    upper bounds of those layers (:func:`core.engine.retrograde.game_bounds`), by which
    a capture leaving the segment is scored, the bound worst for the side whose forcing
    is asked; without them, by ``values``, which below 11 seeds may rest on the
    databases' cycle convention and promise what the cycle rule does not give.

    ``guess``: where the bounds settle nothing, the plan with the captures scored by
    ``values`` instead (:attr:`SegmentPlan.proven` False). It still plays the segment's
    own repetitions out exactly, which a search sees only to its horizon; what it
    promises holds if the values of the positions the captures make do.
    """
    outlook = segment_outlook(root, history, mine, theirs, values, max_nodes, bounds, guess)
    return None if outlook is None else outlook.plan


def segment_outlook(
    root: I8,
    history: list[tuple[I8, bool]],
    mine: int,
    theirs: int,
    values: U8,
    max_nodes: int = MAX_NODES,
    bounds: tuple[U8, U8] | None = None,
    guess: bool = False,
) -> SegmentOutlook | None:
    """:func:`solve_segment`'s plan with the moves that hold off a loss
    (:attr:`SegmentOutlook.holds`), from one play-out of the segment; None where it is
    not played out (too many seeds or positions, no database under the root, or a
    result the segment no longer decides), arguments as :func:`solve_segment`'s."""
    root = np.ascontiguousarray(root, dtype=np.int8)
    segment = play_out(root, history, values, max_nodes, bounds)
    if segment is None:
        return None
    n = segment.seeds
    graph = segment.graph
    fixed, fixed_high, fixed_value = segment.low, segment.high, segment.by_values
    # the root's mover ends with x of the n seeds: mine + x against theirs + n - x
    win_from = (theirs + n - mine) // 2 + 1
    draw_at = (theirs + n - mine) // 2 if (theirs + n - mine) % 2 == 0 else -1
    if win_from <= 0 or win_from > n + 1:
        return None  # the result no longer depends on the segment (or a win is out of reach)
    plan = _plan(graph, root, n, win_from, draw_at, fixed, fixed_high, bounds is not None)
    on_values = None
    if guess and bounds is not None and (plan is None or plan.win_open):
        on_values = _plan(graph, root, n, win_from, draw_at, fixed_value, fixed_value, False)
    if plan is not None:
        # a draw or a win forced: the plan's moves hold off the loss
        if on_values is not None and on_values.result == 1 and on_values.move in plan.keeps:
            # the values' win, by a move that keeps the proven draw: the way to aim
            return SegmentOutlook(replace(plan, toward=on_values.move), None)
        return SegmentOutlook(plan, None)
    if bounds is None:
        return SegmentOutlook(None, None)
    # below this many seeds the mover loses (no draw where the total is odd)
    lose_below = draw_at if draw_at >= 0 else win_from
    return SegmentOutlook(on_values, _holds(graph, segment.own, root, n, lose_below, fixed_high))


def _holds(
    graph: Graph,
    own: I32,
    root: I8,
    n: int,
    lose_below: int,
    high: I32,
) -> tuple[int, ...] | None:
    """The root's moves after which the other side cannot force the mover below
    ``lose_below`` seeds (see :attr:`SegmentOutlook.holds`), each capture leaving the
    segment worth ``high``, the bound worst for the other side.

    Each move's position is then seen too: a return to it ends the game, which the graph
    from the root (where it is a position like the others) does not know, and which may
    be what gives the other side its win (game 3 of the seed-3 match, ply 156). Where the
    segment is small enough (:data:`REPLY_VISITS`), each reply is looked at too: a move
    after which some reply leaves the mover only moves into the other side's attractor
    (the three positions seen) does not hold either (a game from the same board, ply
    172)."""
    if lose_below <= 0 or lose_below > n:
        return None  # the mover cannot lose, or cannot but lose
    total, side, edges, count, ends, first, preds = graph
    order = np.zeros(total, dtype=np.int32)

    def lost(seen: tuple[int, ...]) -> bool:
        """Whether the last of ``seen`` is in the other side's attractor, with every node
        of ``seen`` a position a return to ends the game at."""
        marked = np.zeros(total, dtype=np.bool_)
        marked[list(seen)] = True
        _attractor(
            total,
            side,
            edges,
            high,
            count,
            ends,
            first,
            preds,
            lose_below,
            1,
            order,
            marked,
            own,
        )
        return bool(order[seen[-1]] >= 0)

    moves = np.zeros(6, dtype=np.int64)
    legal_moves(root, moves, NO_CAPTURE)
    holds: list[tuple[int, int]] = []  # (move, its node; -1 a move leaving the segment)
    for k in range(int(count[0])):
        at = int(edges[0, k])
        if (high[0, k] >= lose_below) if at < 0 else not lost((at,)):
            holds.append((int(moves[k]), at))

    def cornered(seen: tuple[int, int]) -> bool:
        """Whether the mover, to move at ``seen[1]`` after its move to ``seen[0]`` and the
        reply, has only moves into the other side's attractor, each seen in turn."""
        at = seen[1]
        if ends[at] >= 0:
            return bool(ends[at] < lose_below)  # the reply ended the game
        for j in range(int(count[at])):
            child = int(edges[at, j])
            if (high[at, j] >= lose_below) if child < 0 else not lost((*seen, child)):
                return False
        return True

    # one reply further, the positions of the move, the reply and the mover's next
    # move seen, where the segment is small enough
    visits = total * sum(int(count[at]) * 6 for _, at in holds if at >= 0)
    if holds and visits <= REPLY_VISITS:
        deeper = [
            (move, at)
            for move, at in holds
            if at < 0
            or not any(
                int(edges[at, j]) >= 0 and cornered((at, int(edges[at, j])))
                for j in range(int(count[at]))
            )
        ]
        holds = deeper or holds  # (all lost a reply further: the loss is forced anyway)
    return tuple(m for m, _ in holds) if 0 < len(holds) < int(count[0]) else None


def _plan(
    graph: Graph,
    root: I8,
    n: int,
    win_from: int,
    draw_at: int,
    low: I32,
    high: I32,
    proven: bool,
) -> SegmentPlan | None:
    """:func:`solve_segment`'s plan on the explored segment ``graph``, each capture
    leaving it worth ``low`` to the root's mover when it asks what it forces and
    ``high`` when the other side does (``proven``: by the game bounds)."""
    total, side, edges, count, ends, first, preds = graph
    order = np.zeros(total, dtype=np.int32)
    unseen = np.zeros(total, dtype=np.bool_)
    own = np.zeros(total, dtype=np.int32)

    def in_attractor(threshold: int, player: int) -> bool:
        """Whether the root is in ``player``'s attractor for ``threshold`` (see
        :func:`_attractor`; its order of entry is left in ``order``)."""
        if threshold > n:
            return player == 1  # no ending gives the mover more than every seed
        # each player counts an exit at the bound worst for it
        worth = low if player == 0 else high
        _attractor(
            total,
            side,
            edges,
            worth,
            count,
            ends,
            first,
            preds,
            threshold,
            player,
            order,
            unseen,
            own,
        )
        return bool(order[0] >= 0)

    win_open = False
    if in_attractor(win_from, 0):
        result, threshold = 1, win_from
    elif draw_at >= 1 and in_attractor(draw_at, 0):
        # a win may be there for the taking where the other side cannot hold it off
        win_open = not in_attractor(win_from, 1)
        result, threshold = 0, draw_at
        in_attractor(draw_at, 0)  # the draw's order of entry again, for the moves
    else:
        return None  # the mover cannot force a draw: the search looks for the opponent's slip
    moves = np.zeros(6, dtype=np.int64)
    legal_moves(root, moves, NO_CAPTURE)
    best_move, best_order = -1, 1 << 30
    keeps = []
    for k in range(int(count[0])):
        at = int(edges[0, k])
        entered = (0 if low[0, k] >= threshold else -1) if at < 0 else int(order[at])
        if entered >= 0:
            keeps.append(int(moves[k]))
        if 0 <= entered < best_order:
            best_move, best_order = int(moves[k]), entered
    if best_move < 0:
        return None  # cannot happen: the root entered the attractor through a move
    return SegmentPlan(result, threshold, best_move, total, proven, win_open, tuple(keeps))


def warm_up() -> None:
    """Compile (or load from the on-disk cache) the solver before any clock starts."""
    values = np.zeros(int(OFFSETS[3]), dtype=np.uint8)
    root = np.array([1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0], dtype=np.int8)
    solve_segment(root, [(root, False)], 0, 0, values)
