"""The game tracker: a belief over the histories the board may have gone through.

From the last certain position (the *root*), the tracker keeps a beam of
*nodes*. A node is a history: the moves done since the root (records, see
:mod:`core.referee.stages`) and the stage the board stands at now (a move
being sown, a capture pending, a mistake…). Every observation, still or not,
moves every node on to the stages play can reach from it
(:meth:`core.referee.stages.MoveGraph.reach`, then one move further, so that
the next move may start before the last one's board was ever still) and
weighs each by how well its board explains the reading.

**Evidence is counted once per look at a pile.** A camera looking at a pile
nobody touches keeps reading it the same way, right or wrong; counting each
frame as new evidence would make a misread pile certain. So the evidence of a
pit is split into *looks*: while the node says the pit holds the same count
and the reading keeps its most likely count, the latest reading replaces the
look's evidence (a vector that wavers a little says nothing new). When the
node's count changes (a seed sown in) or the reading changes its mind (another
most likely count), the look is closed and a new one begins. A node's log
weight is its prior (the log priors of the stages it went through) plus its
closed looks plus its open ones.

A sensor board's noise changes from frame to frame, but most of its doubt does
not: a pile of eight light seeds weighs like seven for as long as it lies there.
So its frames add up within a look, but only up to what the reading itself
claims (:attr:`Evidence.cap`): frames of a sharp reading soon count as much as
it says (an empty pit read empty is no seed there), frames of "7 at 0.82, 8 at
0.18" never make 8 less likely than 0.18. An exact count claims certainty, so
its frames add up without end, each as the likelihood model weighs it (a cell
glitching for one frame is outvoted by the frames around it).

**A still board has no seed in hand.** Seeds in a hand are held over the board:
a camera sees the hand, and a board that is still with every pit in view means
the hand is away. Nodes with seeds in hand pay :data:`HAND_AWAY` when a still
board begins, and :data:`HAND_AWAY_PER_S` for every second it lasts, up to
:data:`HAND_AWAY_MAX` (so that a sensor, which sees no hands but counts exactly,
is still believed when it says a seed is missing).

**A hand over the board is a move.** A history that neither moved nor changed the
board between two still boards while a camera saw a hand over the pits pays
:data:`IDLE_HANDS` (people point and hover, but mostly a hand means a move). When a
misread pile ties two histories pit for pit (one seed read in the wrong one of two
pits, so that one move explains the board as well as three), this is what tells them
apart. A move while no hand was seen costs nothing: a camera with a low frame rate
can miss a quick hand. A sensor board sees no hands.

**And the hand is where the move is.** A history whose board changed between two
still boards only in pits far from some pit a camera saw a hand over in between pays
:data:`STRAY_HANDS`: when quick moves and a misread leave "three moves" and "one move
now, two later" explaining the boards alike, the hands over the other pits tell them
apart. And the same moves in another order are taken as a transposition (the likelier
order named, see :meth:`Tracker.transposed_masses`) only once the board cannot tell
them apart any more.

**One hand at a time.** The next move may start before the last one's board was
ever still, but not before its last seed is down and the other player's hand has
come over the board. So a history may end one move and begin the next between
two observations only if they are at least :data:`HANDOVER` seconds apart (a
frame can miss a second of play); closer observations show the move's end
first. Otherwise two misread piles that mimic a one-seed move are "explained"
by the opponent playing it under the mover's hand, in the same tenth of a
second as the mover's last seeds. (It also spares building the next move's
stages at every frame.) A capture left on the board is the exception: the
board waits with the capture pending, and the next player's lift is what
misses it. A source that reads each seed as it lands (a sensor board) reads a
move's end when it happens, so there a history that begins a move within
:data:`QUICKEST_LIFT` of the observation that read its last move done pays
:data:`QUICK_START`. A node is kept as its likeliest history; where that one read
the last move done just now while others of the node read it done before (a seed
long sown, its pile misread), the move begun at once costs the share of the belief
those others hold (:attr:`Tracker.ended_before`), not the veto.

Nodes are pruned by weight (:data:`PRUNE` below the best, at most
:data:`WIDTH`), never by time. :meth:`Tracker.masses` gives the posterior mass
of each first move; the referee (:mod:`core.referee.referee`) commits a move
once its mass passes its threshold (:meth:`Tracker.commit`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from core.position import Position
from core.referee.stages import MoveGraph, Record, Stage, StageKey, next_graph

NodeKey = tuple[tuple[Record, ...], StageKey]
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

#: Log weight below the best node at which a node is dropped.
PRUNE = 18.0
#: Most nodes kept (64 named the same moves on the growing-spread bench, but lost games
#: with flat spreads of 0.1).
WIDTH = 96
#: Belief a first move's histories may hold away from the likeliest first move's
#: positions and still count as the same game played in another order.
TRANSPOSITION_STRAY = 1e-3
#: Log prior of each move done, beyond the first, between two still boards: players
#: usually leave the board still a moment after a move (in a game at an ordinary pace, the
#: next hand arrives first about one move in five).
RUSH = -1.6
#: Log likelihood of a still board with every pit in view while seeds are in a hand.
HAND_AWAY = -4.5
#: ... and for each second it stays still, up to HAND_AWAY_MAX in all.
HAND_AWAY_PER_S = -1.0
HAND_AWAY_MAX = -8.0
#: Log likelihood, per second of a still board, of a capture still pending (the move sown,
#: nothing taken yet). Players take their captures as they finish sowing: a capture left
#: on a board that stays still is rarer each second (a forgotten one is a missed capture),
#: and nothing but this tells a board read between "sown" and "taken" at a game's end,
#: where no next move comes to settle it.
CAPTURE_WAIT_PER_S = -0.75
#: ... up to this much in all: well under what one misread pile costs, so that a capture
#: forgotten on the board is still believed over a misreading of it.
CAPTURE_WAIT_MAX = -3.0
#: Log prior of a history that neither moved nor changed the board between two still
#: boards while a camera saw a hand over the pits.
IDLE_HANDS = -2.0
#: Log prior of a history that changed the board between two still boards, but nowhere
#: near some pit a camera saw a hand over in between: a hand sows and takes where the
#: moves are (people also reach across and point, so it is a doubt, not a veto).
STRAY_HANDS = -2.0
#: Seconds one player's last seed and capture, the hand leaving and the other player's
#: hand reaching and lifting a pit take at the very quickest.
HANDOVER = 0.5
#: Seconds between the reading of a move's last seed landing and the next player's lift
#: that no hand beats, where a source reads each seed as it lands (a sensor board, ten
#: readings a second): two frames. The bench's quickest players take 0.3 s.
QUICKEST_LIFT = 0.2
#: Log prior of a history that begins a move sooner than that: two cells misread in one
#: reading can mimic a one-seed move, and the next reading, the board back as it was, a
#: move begun at once would "explain" as the next player sowing a seed back the wrong way.
QUICK_START = -30.0
#: How far along the ring of pits from a pit whose count changed a hand may be and still
#: be at that move's work (it hides the pit it is over and its neighbours, and a pit
#: sown and played again in between changes nothing itself).
HAND_REACH = 2


@dataclass(frozen=True, slots=True)
class Evidence:
    """One observation, as the tracker weighs it."""

    table: FloatArray
    """``table[i, c]``: log P(reading of pit i | it holds c); rows of zeros where unseen."""
    visible: BoolArray
    fresh: BoolArray
    """Pits whose reading changed its most likely count since they were last seen."""
    still: bool
    """The board is still with every pit in view."""
    hand_away: float
    """What nodes with seeds in hand pay for this observation (0, or a stillness penalty)."""
    hand_away_new: float
    """What a node pays that takes seeds in hand during a still board (it was seen away)."""
    still_start: bool = False
    """A still board begins: histories pay :data:`RUSH` for the moves done since the last."""
    hand_pits: tuple[bool, ...] | None = None
    """At a still board's start: the pits a hand was seen over since the last one (None:
    the source cannot see hands)."""
    gap: float = math.inf
    """Seconds since the previous observation (see :data:`HANDOVER`)."""
    capture_wait: float = 0.0
    """What nodes with a capture pending pay for this observation (see
    :data:`CAPTURE_WAIT_PER_S`)."""
    ends_seen: bool = False
    """The source reads each seed as it lands, so a move's end is read when it happens
    (see :data:`QUICK_START`)."""
    t: float = 0.0
    """The observation's time (seconds)."""
    cap: FloatArray | None = None
    """A source whose noise changes frame to frame: ``cap[i, c]``, the most the frames of
    one look at pit i may count for it holding c, which is what the reading claims
    (:func:`core.referee.likelihood.claimed_table`); None (a camera): a look counts its
    latest reading only."""

    @property
    def hands(self) -> bool:
        """A hand was seen over the board since the last still board."""
        return self.hand_pits is not None and any(self.hand_pits)

    @property
    def ceiling(self) -> float:
        """The log likelihood of the reading's own most likely board."""
        return float(self.table.max(axis=1).sum())


def fresh_pits(seen: Sequence[int | None], looked: Sequence[int | None]) -> BoolArray:
    """Which pits' readings begin a new look (:attr:`Evidence.fresh`), against ``looked``,
    each pit's most likely count when it was last looked at: those whose reading changed
    its mind.

    >>> fresh_pits([1, 2, None], [1, 3, 0]).tolist()
    [False, True, False]
    """
    return np.array(
        [x is not None and looked[i] is not None and x != looked[i] for i, x in enumerate(seen)],
        dtype=bool,
    )


@dataclass(frozen=True, slots=True)
class _Reach:
    """Where play can go from one node, as arrays (built once per node)."""

    suffixes: tuple[tuple[Record, ...], ...]
    stages: tuple[StageKey, ...]
    boards: IntArray
    costs: FloatArray
    in_hand: BoolArray
    moved: IntArray
    """Moves in each suffix (a candidate's depth is its parent's plus this)."""


def _sliced(r: _Reach, a: int, b: int) -> _Reach:
    return _Reach(
        r.suffixes[a:b], r.stages[a:b], r.boards[a:b], r.costs[a:b], r.in_hand[a:b], r.moved[a:b]
    )


def _joined(parts: list[_Reach]) -> _Reach:
    if len(parts) == 1:
        return parts[0]
    return _Reach(
        sum((r.suffixes for r in parts), ()),
        sum((r.stages for r in parts), ()),
        np.concatenate([r.boards for r in parts]),
        np.concatenate([r.costs for r in parts]),
        np.concatenate([r.in_hand for r in parts]),
        np.concatenate([r.moved for r in parts]),
    )


@dataclass(frozen=True, slots=True)
class Fit:
    """How well the best candidate of an observation explained it."""

    deficit: float
    """Log likelihood below the reading's own best board (0: as well as possible)."""
    board: tuple[int, ...]
    key: NodeKey


class Tracker:
    """The beam of histories from ``root`` (see the module docstring)."""

    def __init__(self, root: Position, last: Any = None) -> None:
        self.n = root.ruleset.num_pits
        self.max_count = root.ruleset.total_seeds
        self._graphs: dict[tuple[Record, ...], MoveGraph] = {(): MoveGraph(root, last)}
        self._reach: dict[NodeKey, _Reach] = {}
        """Each node's reach without the next move begun (see :data:`HANDOVER`) ..."""
        self._reach_on: dict[NodeKey, _Reach] = {}
        """... and with it."""
        self._blocks: dict[tuple[tuple[Record, ...], Record], _Reach] = {}
        key: NodeKey = ((), ("idle",))
        self.keys: list[NodeKey] = [key]
        self.prior: FloatArray = np.zeros(1)
        self.closed: FloatArray = np.zeros(1)
        self.open: FloatArray = np.zeros((1, self.n))
        self.boards: IntArray = np.array([root.pits], dtype=np.int64)
        self.in_hand: BoolArray = np.zeros(1, dtype=bool)
        self.still_moves: IntArray = np.zeros(1, dtype=np.int64)
        """Moves in each node's history at the last still board."""
        self.still_boards: IntArray = self.boards.copy()
        """Each node's board at the last still board."""
        self.ended_at: FloatArray = np.full(1, -math.inf)
        """When the observation that read each node's last move done was made."""
        self.ended_before: FloatArray = np.full(1, -math.inf)
        """The log share of each node's belief whose histories read that move done earlier
        (see :data:`QUICK_START`): a node is kept as its likeliest history, but when that
        one read the move done just now while others read it done before, a move begun at
        once is as likely as those."""

    def __setstate__(self, state: dict[str, Any]) -> None:
        # (a checkpoint written before ended_at was kept: every move long done)
        state.setdefault("ended_at", np.full(len(state["keys"]), -math.inf))
        state.setdefault("ended_before", np.full(len(state["keys"]), -math.inf))
        self.__dict__.update(state)

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without its caches (the graphs past the root, the reaches): they are
        rebuilt on use, the same, and were most of a checkpoint's size and time."""
        state = dict(self.__dict__)
        state["_graphs"] = {(): self._graphs[()]}
        state["_reach"] = {}
        state["_reach_on"] = {}
        state["_blocks"] = {}
        return state

    # -- graphs --------------------------------------------------------------------------
    @property
    def root(self) -> Position:
        return self._graphs[()].position

    def graph(self, hist: tuple[Record, ...]) -> MoveGraph:
        found = self._graphs.get(hist)
        if found is None:
            found = self._graphs[hist] = next_graph(self.graph(hist[:-1]), hist[-1])
        return found

    def stage(self, key: NodeKey) -> Stage:
        return self.graph(key[0]).stage(key[1])

    # -- weights -------------------------------------------------------------------------
    @property
    def scores(self) -> FloatArray:
        total: FloatArray = self.prior + self.closed + self.open.sum(axis=1)
        return total

    def posterior(self) -> FloatArray:
        s = self.scores
        w = np.exp(s - s.max())
        out: FloatArray = w / w.sum()
        return out

    def depth(self) -> int:
        """Moves done since the root in the likeliest history."""
        return len(self.keys[int(np.argmax(self.scores))][0])

    def masses(self) -> dict[Record | None, float]:
        """Posterior mass of each first move done (None: no move done yet)."""
        out: dict[Record | None, float] = {}
        for key, p in zip(self.keys, self.posterior(), strict=True):
            first = key[0][0] if key[0] else None
            out[first] = out.get(first, 0.0) + float(p)
        return out

    def transposed_masses(self, doubt: float = 0.05) -> dict[Record | None, float]:
        """:meth:`masses`, with the mass of a first move given to the most likely one when
        every history that starts with it stands where a history of the most likely one
        stands too (same position, same stage, the same moves in another order): two
        moves played in either order, each
        into a pile the other does not touch, leave the same game, and the boards can
        never tell which came first. Committing the likelier order lets the referee
        follow the game instead of waiting for ever.

        Not while the board can still tell: if the other order holds ``doubt`` of the
        belief or more and the most likely move holds as much where the other order's
        histories do not stand (a pile the two read differently, that a count settles),
        the doubt is about the board, not only the order, and it stays."""
        masses = self.masses()
        done = [(m, r) for r, m in masses.items() if r is not None]
        if len(done) < 2:
            return masses
        _, top = max(done)
        nodes: list[tuple[Record | None, Any, float]] = []
        for key, p in zip(self.keys, self.posterior(), strict=True):
            hist, skey = key
            pos = self.graph(hist).position
            # The same moves in another order (a transposition), not another move that
            # happens to leave the same board (twins: the referee asks which).
            place = (pos.pits, pos.stores, pos.to_move, skey, tuple(sorted(hist)))
            nodes.append((hist[0] if hist else None, place, float(p)))
        places: dict[Record | None, set[Any]] = {}
        for first, place, _ in nodes:
            places.setdefault(first, set()).add(place)
        top_places = places[top]
        stray: dict[Record | None, float] = {}
        for first, place, p in nodes:
            if place not in top_places:
                stray[first] = stray.get(first, 0.0) + p
        out = dict(masses)
        for record in list(out):
            # Histories of it that stand nowhere the top's do may hold a trace of belief.
            if record in (None, top) or stray.get(record, 0.0) > TRANSPOSITION_STRAY:
                continue
            if masses[record] >= doubt:
                apart = sum(p for f, pl, p in nodes if f == top and pl not in places[record])
                if apart >= doubt:
                    continue
            out[top] += out.pop(record)
        return out

    def best(self) -> int:
        return int(np.argmax(self.scores))

    def best_position(self) -> Position:
        """The position of the likeliest history."""
        return self.graph(self.keys[self.best()][0]).position

    # -- the update -------------------------------------------------------------------------
    def _node_reach(self, key: NodeKey, handover: bool) -> _Reach:
        """Every node one observation can lead to from ``key`` (see the module docstring);
        with ``handover``, also the next move begun once this one is done (always after a
        missed capture)."""
        cache = self._reach_on if handover else self._reach
        found = cache.get(key)
        if found is None:
            plain = self._reach.get(key)
            if plain is None:
                plain = self._reach[key] = self._plain_reach(key)
            found = self._handed_over(key, plain) if handover else plain
            cache[key] = found
        return found

    def _plain_reach(self, key: NodeKey) -> _Reach:
        """:meth:`_node_reach` without the next move begun: the node's own stages, then for
        each way out of its move, in order, the position after it (or, after a missed
        capture, the next move begun)."""
        hist, skey = key
        g = self.graph(hist)
        stages, exits = g.reach(skey)
        # Rows gathered in lists, arrays made once per run of rows: this runs for every
        # node new to the beam, and small arrays per row cost more than the rows.
        own = [g.stage(sk) for sk, _ in stages]
        parts: list[_Reach] = []
        suffixes: list[tuple[Record, ...]] = [()] * len(stages)
        keys: list[StageKey] = [sk for sk, _ in stages]
        costs = [c for _, c in stages]
        rows = [s.board for s in own]
        in_hand = [s.in_hand for s in own]
        moved = [0] * len(stages)

        def flush(always: bool = False) -> None:
            if keys or always:
                parts.append(
                    _Reach(
                        tuple(suffixes),
                        tuple(keys),
                        np.array(rows, dtype=np.int64).reshape(len(rows), self.n),
                        np.array(costs, dtype=np.float64),
                        np.array(in_hand, dtype=bool),
                        np.array(moved, dtype=np.int64),
                    )
                )
                for column in (suffixes, keys, costs, rows, in_hand, moved):
                    column.clear()

        for e, c in exits:
            if not e.missed:
                # the position after the move (its graph is built once a node stands there)
                suffixes.append((e.record,))
                keys.append(("idle",))
                costs.append(c)
                rows.append(g.outcome(e.record[0]).position.pits)
                in_hand.append(False)
                moved.append(1)
            else:
                # (a capture left on the board has no still position of its own to wait
                # in: the capture-pending stage is where the board waits, and the next
                # player's lift is what misses it)
                flush()
                block = self._next_move(hist, e.record)
                parts.append(replace(block, costs=block.costs + c))
        flush(always=not parts)
        return _joined(parts)

    def _handed_over(self, key: NodeKey, plain: _Reach) -> _Reach:
        """``plain`` (:meth:`_plain_reach`) with the next move begun after each move done
        put in after that move's position: the rows of ``plain`` are reused, in the order
        the plain reach gives them."""
        hist, skey = key
        g = self.graph(hist)
        stages, exits = g.reach(skey)
        parts: list[_Reach] = []
        start = i = len(stages)
        for e, c in exits:
            block = self._next_move(hist, e.record)
            # the plain reach holds the position after the move, or the whole block after
            # a missed capture; either way its rows run on
            i += len(block.costs) if e.missed else 1
            if not e.missed:
                parts.append(_sliced(plain, 0 if not parts else start, i))
                start = i
                parts.append(replace(block, costs=block.costs + c))
        if start < i or not parts:
            parts.append(_sliced(plain, 0 if not parts else start, i))
        return _joined(parts)

    def _next_move(self, hist: tuple[Record, ...], record: Record) -> _Reach:
        """The next move begun once ``record`` is done after ``hist`` (its correct stages
        and its end), costs relative to the move's end; built once and shared by every
        stage of ``hist`` that can end the move."""
        found = self._blocks.get((hist, record))
        if found is not None:
            return found
        g2 = self.graph((*hist, record))
        one = (record,)
        suffixes: list[tuple[Record, ...]] = []
        keys: list[StageKey] = []
        boards: list[tuple[int, ...]] = []
        costs: list[float] = []
        in_hand: list[bool] = []
        if not g2.position.is_over:
            st2: list[tuple[StageKey, float]] = []
            ex2: list[tuple[Any, float]] = []
            for m2 in g2.moves:
                g2._rest_of_move(m2, -1, g2.lift_cost(m2), st2, ex2, with_mistakes=False)
            for sk, c2 in st2:
                s = g2.stage(sk)
                suffixes.append(one)
                keys.append(sk)
                boards.append(s.board)
                costs.append(c2)
                in_hand.append(bool(s.in_hand))
            for e2, c2 in ex2:
                if e2.missed:
                    continue
                suffixes.append((record, e2.record))
                keys.append(("idle",))
                boards.append(g2.outcome(e2.record[0]).position.pits)
                costs.append(c2)
                in_hand.append(False)
        found = _Reach(
            tuple(suffixes),
            tuple(keys),
            np.array(boards, dtype=np.int64).reshape(len(boards), self.n),
            np.array(costs, dtype=np.float64),
            np.array(in_hand, dtype=bool),
            np.array([len(x) for x in suffixes], dtype=np.int64),
        )
        self._blocks[(hist, record)] = found
        return found

    def update(self, ev: Evidence, extra: Sequence[tuple[int, NodeKey, float]] = ()) -> Fit:
        """Move every node on and weigh it by the observation ``ev``.

        ``extra``: more candidates, each (beam index of its parent, node, log prior from the
        parent) — wrong captures proposed from the reading. Returns how well the best
        candidate fits the reading.
        """
        handover = ev.gap >= HANDOVER
        reaches = [self._node_reach(key, handover) for key in self.keys]
        if extra:
            stages = [self.stage(node) for _, node, _ in extra]
            reaches.append(
                _Reach(
                    tuple(node[0] for _, node, _ in extra),
                    tuple(node[1] for _, node, _ in extra),
                    np.array([st.board for st in stages], dtype=np.int64).reshape(-1, self.n),
                    np.array([c for _, _, c in extra], dtype=np.float64),
                    np.array([st.in_hand for st in stages], dtype=bool),
                    np.array([len(node[0]) for _, node, _ in extra], dtype=np.int64),
                )
            )
        sizes = [len(r.costs) for r in reaches]
        parents = np.repeat(np.arange(len(self.keys)), sizes[: len(self.keys)])
        if extra:
            parents = np.concatenate([parents, np.array([j for j, _, _ in extra], dtype=np.int64)])
        boards = np.concatenate([r.boards for r in reaches])
        costs = np.concatenate([r.costs for r in reaches])
        hands = np.concatenate([r.in_hand for r in reaches])
        # (an extra candidate's "suffix" is its whole history: its parent's depth is not added)
        beam_depth = np.array([len(k[0]) for k in self.keys] + [0], dtype=np.int64)
        owner = np.repeat(np.arange(len(reaches)), sizes)
        moved_now = np.concatenate([r.moved for r in reaches])
        depth = beam_depth[np.minimum(owner, len(self.keys))] + moved_now

        # Evidence, pit by pit: a pit's look ends when the pile changes (in this history) or
        # the reading changes its mind; its evidence then stays with the history.
        cols = np.arange(self.n)
        ev_rows = ev.table[cols, np.minimum(boards, self.max_count)]
        open_p = self.open[parents]
        ends = (boards != self.boards[parents]) | ev.fresh
        carried = np.where(ends, 0.0, open_p)  # the evidence of looks that go on
        looked = ev_rows
        if ev.cap is not None:
            # frames add up within a look, down to what the reading claims (and at least
            # what this frame says)
            claimed = ev.cap[cols, np.minimum(boards, self.max_count)]
            looked = np.maximum(carried + ev_rows, np.minimum(claimed, ev_rows))
        opened = np.where(ev.visible, looked, carried)
        closed = self.closed[parents] + (ends * open_p).sum(axis=1)
        if ev.hand_away or ev.hand_away_new:
            # Seeds in hand on a still board: a node paid for the still board so far if it
            # had seeds in hand itself; one that takes them now pays what it missed.
            pay = np.where(self.in_hand[parents], ev.hand_away, ev.hand_away_new)
            closed = closed + np.where(hands, pay, 0.0)
        still_moves = self.still_moves[parents]
        still_boards = self.still_boards[parents]
        if ev.still_start:
            moved = depth - still_moves
            closed = closed + RUSH * np.maximum(0, moved - 1)
            if ev.hand_pits is not None and ev.hands:
                idle = (moved == 0) & (boards == still_boards).all(axis=1)
                closed = closed + np.where(idle, IDLE_HANDS, 0.0)
                stray = _stray_hands(boards != still_boards, ev.hand_pits)
                closed = closed + np.where(stray & ~idle, STRAY_HANDS, 0.0)
            still_moves = depth
            still_boards = boards
        prior = self.prior[parents] + costs
        ended_at = self.ended_at[parents]
        if ev.ends_seen:
            beam = len(self.keys)
            idle = np.array([k[1] == ("idle",) for k in self.keys], dtype=bool)
            begun = (owner < beam) & idle[parents] & (boards != self.boards[parents]).any(axis=1)
            quick = begun & (ev.t - ended_at < QUICKEST_LIFT)
            early = np.maximum(QUICK_START, self.ended_before[parents])
            prior = prior + np.where(quick, early, 0.0)
        ended_at = np.where(moved_now > 0, ev.t, ended_at)
        scores = prior + closed + opened.sum(axis=1)

        fits = ev_rows.sum(axis=1)
        best_fit = int(np.argmax(fits))
        key_of = self._key_maker(reaches, sizes, owner, extra)
        deficit = ev.ceiling - float(fits[best_fit])
        if slips(key_of(best_fit)) >= 2:
            # Two mistakes at once explain anything: a board only they explain was
            # disturbed (the best candidate of fewer, if one explains it as well)
            deficit = math.inf
            for i in np.argsort(-fits, kind="stable").tolist():
                if slips(key_of(i)) < 2:
                    best_fit, deficit = i, ev.ceiling - float(fits[i])
                    break
        fit = Fit(deficit, tuple(int(x) for x in boards[best_fit]), key_of(best_fit))

        # Keep the best candidate of each node, by weight (PRUNE below the best, WIDTH).
        order = np.argsort(-scores, kind="stable")
        floor = scores[order[0]] - PRUNE
        seen: dict[NodeKey, int] = {}
        kept: list[int] = []
        keys: list[NodeKey] = []
        # per node kept: the belief (relative to its kept history's) of its other
        # histories that read its last move done earlier than the kept one did
        before: list[float] = []
        for i in order:
            if scores[i] < floor or len(kept) >= WIDTH:
                break
            k = key_of(int(i))
            at = seen.get(k)
            if at is not None:
                if ended_at[i] < ended_at[kept[at]]:
                    before[at] += math.exp(float(scores[i] - scores[kept[at]]))
                continue
            seen[k] = len(kept)
            kept.append(int(i))
            keys.append(k)
            before.append(0.0)
        idx = np.array(kept, dtype=np.int64)
        shares = np.array(before)
        with np.errstate(divide="ignore"):
            self.ended_before = np.where(shares > 0, np.log(shares / (1.0 + shares)), -math.inf)
        self.keys = keys
        self.closed = closed[idx]
        self.open = opened[idx]
        self.boards = boards[idx]
        self.in_hand = hands[idx]
        self.still_moves = still_moves[idx]
        self.still_boards = still_boards[idx]
        self.ended_at = ended_at[idx]
        # Weights only matter relative to each other: keep them near zero.
        self.prior = prior[idx] - float(scores[order[0]])
        self._pay_pending(ev.capture_wait)
        return fit

    def _key_maker(
        self,
        reaches: list[_Reach],
        sizes: list[int],
        owner: IntArray,
        extra: Sequence[tuple[int, NodeKey, float]],
    ) -> Any:
        """Candidate index → its node key, built only for the candidates looked at."""
        offsets: list[int] = np.cumsum([0, *sizes]).tolist()
        owners: list[int] = owner.tolist()  # (plain lists: this runs for hundreds of candidates)
        keys = self.keys
        beam = len(keys)

        def key_of(i: int) -> NodeKey:
            j = owners[i]
            row = i - offsets[j]
            r = reaches[j]
            if j >= beam:
                return extra[row][1]
            suffix = r.suffixes[row]
            return ((*keys[j][0], *suffix) if suffix else keys[j][0], r.stages[row])

        return key_of

    def prepare(self, budget: int) -> int:
        """Build, for up to ``budget`` nodes of the beam not built yet (the likeliest
        first), their reach with the next move begun (:data:`HANDOVER`), and so their
        plain reach too: what the next observation needs from them, which it would
        otherwise build all at once. Returns how many were built. Only a cache: the beam
        and every weight stay as they are."""
        built = 0
        if budget <= 0:
            return built
        for i in np.argsort(-self.scores, kind="stable").tolist():
            key = self.keys[i]
            if key in self._reach_on:
                continue
            self._node_reach(key, True)
            built += 1
            if built >= budget:
                break
        return built

    def pay_stillness(self, amount: float, capture_wait: float = 0.0) -> None:
        """A still board lasts: nodes with seeds in hand pay ``amount`` more, nodes with a
        capture pending ``capture_wait``."""
        if amount:
            self.closed = self.closed + np.where(self.in_hand, amount, 0.0)
        self._pay_pending(capture_wait)

    def _pay_pending(self, amount: float) -> None:
        if amount:
            pending = np.array([k[1][0] == "cap" and not k[1][2] for k in self.keys])
            self.closed = self.closed + np.where(pending, amount, 0.0)

    def count_pit(self, pit: int, count: int) -> None:
        """A person counted ``pit``: its open evidence becomes that count's certainty."""
        right = self.boards[:, pit] == count
        opened = self.open.copy()
        opened[:, pit] = np.where(right, 0.0, math.log(1e-9))
        self.open = opened

    # -- committing ---------------------------------------------------------------------------
    def commit(self, record: Record) -> MoveGraph:
        """``record`` is certain: its position becomes the root. Nodes whose history does not
        begin with it are dropped; the others lose it from their history."""
        keep = [i for i, k in enumerate(self.keys) if k[0][:1] == (record,)]
        new_root = self.graph((record,))
        self._graphs = {h[1:]: g for h, g in self._graphs.items() if h[:1] == (record,)}
        # A node's reach is relative to its history (suffixes, boards, costs), so what was
        # built for the histories that begin with ``record`` still holds without it.
        self._reach = {(h[1:], sk): r for (h, sk), r in self._reach.items() if h[:1] == (record,)}
        self._reach_on = {
            (h[1:], sk): r for (h, sk), r in self._reach_on.items() if h[:1] == (record,)
        }
        self._blocks = {(h[1:], r): b for (h, r), b in self._blocks.items() if h[:1] == (record,)}
        if not keep:
            self.reset(new_root)
            return new_root
        idx = np.array(keep, dtype=np.int64)
        self.keys = [(self.keys[i][0][1:], self.keys[i][1]) for i in keep]
        self.prior = self.prior[idx]
        self.closed = self.closed[idx]
        self.open = self.open[idx]
        self.boards = self.boards[idx]
        self.in_hand = self.in_hand[idx]
        self.still_moves = np.maximum(0, self.still_moves[idx] - 1)
        self.still_boards = self.still_boards[idx]
        self.ended_at = self.ended_at[idx]
        self.ended_before = self.ended_before[idx]
        return new_root

    def reset(self, graph: MoveGraph, keys: Iterable[StageKey] = (("idle",),)) -> None:
        """Start again from ``graph``'s position (a correction, a new game, a resync)."""
        self._graphs = {(): graph}
        self._reach = {}
        self._reach_on = {}
        self._blocks = {}
        ks = list(keys)
        self.keys = [((), k) for k in ks]
        self.boards = np.array([graph.stage(k).board for k in ks], dtype=np.int64)
        self.in_hand = np.array([graph.stage(k).in_hand for k in ks], dtype=bool)
        self.prior = np.zeros(len(ks))
        self.closed = np.zeros(len(ks))
        self.open = np.zeros((len(ks), self.n))
        self.still_moves = np.zeros(len(ks), dtype=np.int64)
        self.still_boards = self.boards.copy()
        self.ended_at = np.full(len(ks), -math.inf)
        self.ended_before = np.full(len(ks), -math.inf)

    # -- state as data -------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "keys": [[[list(r) for r in h], _key_to_json(s)] for h, s in self.keys],
            "prior": self.prior.tolist(),
            "closed": self.closed.tolist(),
            "open": self.open.tolist(),
            "still_moves": self.still_moves.tolist(),
            "still_boards": self.still_boards.tolist(),
        }

    def load_json(self, data: Mapping[str, Any]) -> None:
        """Restore the beam written by :meth:`to_json` (the root graph is already set)."""
        self.keys = [
            (tuple((int(p), bool(m)) for p, m in h), _key_from_json(s)) for h, s in data["keys"]
        ]
        self.prior = np.array(data["prior"], dtype=np.float64)
        self.closed = np.array(data["closed"], dtype=np.float64)
        self.open = np.array(data["open"], dtype=np.float64).reshape(len(self.keys), self.n)
        stages = [self.stage(k) for k in self.keys]
        self.boards = np.array([s.board for s in stages], dtype=np.int64).reshape(-1, self.n)
        self.in_hand = np.array([s.in_hand for s in stages], dtype=bool)
        self.still_moves = np.array(data["still_moves"], dtype=np.int64)
        self.still_boards = np.array(
            data.get("still_boards", self.boards.tolist()), dtype=np.int64
        ).reshape(-1, self.n)
        self.ended_at = np.full(len(self.keys), -math.inf)
        self.ended_before = np.full(len(self.keys), -math.inf)


#: The stages that are a mistake under way.
MISTAKE_STAGES = frozenset({"bad", "lift", "wrongcap", "taken"})


def slips(key: NodeKey) -> int:
    """The mistakes in a node's history: captures left on the board, and the stage it
    stands at if that is a mistake.

    >>> slips((((5, True), (7, False)), ("bad", 1, "skip", 0, 1)))
    2
    >>> slips((((5, False),), ("sow", 1, 0)))
    0
    """
    return sum(1 for record in key[0] if record[1]) + (key[1][0] in MISTAKE_STAGES)


def _key_to_json(key: Any) -> Any:
    if isinstance(key, tuple):
        return [_key_to_json(k) for k in key]
    return key


def _key_from_json(data: Any) -> Any:
    if isinstance(data, list):
        return tuple(_key_from_json(d) for d in data)
    return data


def _stray_hands(changed: BoolArray, hand_pits: Sequence[bool]) -> BoolArray:
    """For each history (rows of ``changed``: the pits whose count differs from the last
    still board), whether a hand was seen over a pit more than :data:`HAND_REACH` pits
    along the ring from every pit that changed.

    >>> changed = np.array([[0, 1, 1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 1, 1, 0]], dtype=bool)
    >>> _stray_hands(changed, [False, False, False, False, False, False, True, True]).tolist()
    [True, False]
    """
    near = changed.copy()
    for d in range(1, HAND_REACH + 1):
        near |= np.roll(changed, d, axis=1) | np.roll(changed, -d, axis=1)
    return np.asarray((np.asarray(hand_pits, dtype=bool) & ~near).any(axis=1), dtype=bool)


class Snapshot:
    """The tracker's beam, to put back when an observation turns out to tell nothing (and
    its root with its caches, which a move confirmed since replaced)."""

    __slots__ = ("arrays", "caches", "keys")

    def __init__(self, keys: list[NodeKey], arrays: tuple[Any, ...], caches: tuple[Any, ...]):
        self.keys = keys
        self.arrays = arrays
        self.caches = caches

    @classmethod
    def of(cls, t: Tracker) -> Snapshot:
        arrays = (
            t.prior, t.closed, t.open, t.boards, t.in_hand, t.still_moves, t.still_boards,
            t.ended_at, t.ended_before,
        )  # fmt: skip
        # (a commit or a reset puts new dicts in place: these stay as they were)
        return cls(t.keys, arrays, (t._graphs, t._reach, t._reach_on, t._blocks))

    def restore(self, t: Tracker) -> None:
        t.keys = self.keys
        (
            t.prior, t.closed, t.open, t.boards, t.in_hand, t.still_moves, t.still_boards,
            t.ended_at, t.ended_before,
        ) = self.arrays  # fmt: skip
        t._graphs, t._reach, t._reach_on, t._blocks = self.caches
