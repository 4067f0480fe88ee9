"""The stages a board passes through while one move is played, correct and mistaken.

From a position, before the next one, the board passes through a few states:
a pit lifted, then one seed more at a time, the capture pending, then its pits
taken one by one. The mistakes players make (:mod:`core.referee.mistakes`) are
more stages: a pit lifted that may not be played, seeds sown the wrong way, a
capture taken wrongly. A :class:`MoveGraph` holds the stages of one position,
each with its board and whether seeds are still in a hand, and says where play
can go from each (:meth:`MoveGraph.reach`). The tracker
(:mod:`core.referee.tracker`) strings graphs together into game histories.

Stage keys are tuples of strings and ints, so that the tracker's state can be
written as JSON:

* ``("idle",)``: the position itself, nothing lifted;
* ``("sow", m, k)``: move ``m`` lifted and ``k`` of its seeds sown;
* ``("cap", m, taken)``: move ``m`` sown, its capture pending, the pits ``taken``
  (a sorted tuple, never all of them) already emptied;
* ``("bad", m, kind, i, k)``: move ``m`` sown wrongly from its seed ``i`` on
  (``kind`` of :func:`core.referee.mistakes.mistaken_path`), ``k`` seeds down;
* ``("lift", o, k)``: pit ``o``, which may not be played, lifted (``k`` = 0) or
  sown (``k`` = 1);
* ``("wrongcap", m, removed)``: move ``m`` sown and the pits ``removed`` taken,
  some of them wrongly; ``("taken", removed)``: the same after the move that led
  to this position was done (seeds taken on the next player's turn).

A move done leaves the graph by an :class:`Exit`: to the next position's
``idle`` stage, or, when the next player starts playing with the capture still
on the board, to that player's move from the board as it physically is (a
missed capture).

>>> from core import Position
>>> g = MoveGraph(Position.initial())
>>> g.stage(("sow", 5, 2)).board
(4, 4, 4, 4, 4, 0, 5, 5, 4, 4, 4, 4)
>>> [(key, round(cost, 2)) for key, cost in g.reach(("sow", 5, 2))[0] if key[0] == "sow"]
[(('sow', 5, 2), 0.0), (('sow', 5, 3), -0.05)]
>>> sorted({key[2] for key, _ in g.reach(("sow", 5, 2))[0] if key[0] == "bad"})
['double', 'skip']
>>> [(e.record, round(cost, 2)) for e, cost in g.reach(("sow", 5, 2))[1]]
[((5, False), -0.1)]
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations
from operator import add
from typing import Any

from core.errors import InvalidPositionError
from core.position import MoveOutcome, Position
from core.referee import mistakes
from core.referee.mistakes import Mistake

StageKey = tuple[Any, ...]
Record = tuple[int, bool]
"""A move done: its pit, and whether its capture was left on the board."""

#: Log prior of a move begun (a pit lifted): play goes on only when the board says so.
LIFT = -0.5
#: Log prior of each further seed sown or pit taken.
STEP = -0.05
#: Log prior of a mistake: a referee assumes good play first.
MISTAKE = -5.0
#: Wrong captures seen only after the move was done are rarer than a lift by the next
#: player; taken from the mover's own side, rarer still.
LATE_CAPTURE = -1.0
OWN_SIDE = -2.5
#: A pit lifted to play it from another player's side is rarer than one of the mover's own
#: that the rules forbid; and seeds gone from the other side look like a capture taken.
OTHER_SIDE = -0.75
#: After a missed capture, lifting a pit that was to be captured (it looks just like the
#: capture being taken, and the player would be lifting the seeds they should have lost).
UNTOUCHABLE = -3.0


# Not frozen: a frozen dataclass's __init__ costs four times as much, and the referee
# builds thousands of stages a second. Treat a stage as immutable all the same.
@dataclass(slots=True)
class Stage:
    """One state of the board between two positions."""

    key: StageKey
    board: tuple[int, ...]
    in_hand: bool
    """A hand is at work: seeds in it still to be sown, or a capture half taken (a still
    board with every pit in view shows neither)."""
    move: int | None
    """The pit being played (None: nothing lifted)."""
    mistake: Mistake | None = None

    @property
    def kind(self) -> str:
        return str(self.key[0])


@dataclass(frozen=True, slots=True)
class Exit:
    """A move done: play goes on in the position after ``record``."""

    record: Record

    @property
    def missed(self) -> bool:
        return self.record[1]


Reach = tuple[list[tuple[StageKey, float]], list[tuple[Exit, float]]]

_EXITS: dict[Record, Exit] = {}


def _exit(move: int, missed: bool) -> Exit:
    """The :class:`Exit` of ``(move, missed)``, one instance each (they are immutable, and
    every reach lists them)."""
    found = _EXITS.get((move, missed))
    if found is None:
        found = _EXITS[(move, missed)] = Exit((move, missed))
    return found


def sowing_boards(
    before: Sequence[int], origin: int, path: Sequence[int], relay_steps: Sequence[int] = ()
) -> Iterator[tuple[int, tuple[int, ...]]]:
    """(seeds sown, board) after lifting ``origin`` and after each seed of ``path``.

    Store slots (< 0) do not change the board; relay pickups empty their pit
    right after the seed that triggered them.
    """
    board = list(before)
    board[origin] = 0
    yield 0, tuple(board)
    relays = set(relay_steps)
    for k, slot in enumerate(path, 1):
        if slot >= 0:
            board[slot] += 1
        if k in relays:
            board[slot] = 0
        yield k, tuple(board)


def board_after(before: Sequence[int], origin: int, path: Sequence[int], k: int) -> tuple[int, ...]:
    """The board after lifting ``origin`` and sowing the first ``k`` seeds of ``path`` (no
    relays): the board :func:`sowing_boards` gives at ``k``, without the boards before it.

    >>> board_after((1, 2, 0, 0), 1, (2, 3, -1), 2)
    (1, 0, 1, 1)
    """
    board = list(before)
    board[origin] = 0
    for slot in path[:k]:
        if slot >= 0:
            board[slot] += 1
    return tuple(board)


def stores_without_capture(out: MoveOutcome) -> list[int]:
    """The stores after ``out`` as if its capture had not been taken (a missed capture)."""
    stores = list(out.position.stores)
    stores[out.player] -= out.captured
    return stores


def missed_capture_position(out: MoveOutcome) -> Position | None:
    """The position when the next player plays on with the capture of ``out`` left on the
    board (None if that is not a position: it never is for a move without capture)."""
    if not out.captures:
        return None
    try:
        return Position(
            out.before.ruleset,
            mistakes.sown_board(out),
            stores_without_capture(out),
            out.position.to_move,
        )
    except InvalidPositionError:
        return None


@dataclass(frozen=True, slots=True)
class _Move:
    """The correct stages of one legal move."""

    out: MoveOutcome
    sowing: tuple[tuple[int, StageKey], ...]
    """(seeds sown, key) of each sowing stage with seeds still in hand."""
    captures: tuple[int, ...]
    """The pits its capture takes (empty: none, or its board never differs)."""
    sown: tuple[int, ...]


#: The stages from which a reading may show a wrong capture (see
#: :meth:`MoveGraph.propose_wrong_capture`).
PROPOSING_STAGES = frozenset({"cap", "idle", "wrongcap", "taken"})


def _has_pit(slots: Sequence[int]) -> bool:
    return any(s >= 0 for s in slots)


def _last_pit(slots: Sequence[int]) -> int:
    """The index of the last slot that is a pit (-1: none is); ``_has_pit(slots[k:])``
    is ``k <= _last_pit(slots)``, without a slice per ``k``.

    >>> _last_pit((3, -1, 4, -1, -1)), _last_pit((-1,))
    (2, -1)
    """
    for i in range(len(slots) - 1, -1, -1):
        if slots[i] >= 0:
            return i
    return -1


class MoveGraph:
    """Every stage of play from ``position`` until the next position (see the module)."""

    def __init__(
        self,
        position: Position,
        last: MoveOutcome | None = None,
        *,
        untouchable: Sequence[int] = (),
    ) -> None:
        self.position = position
        self.last = last
        self.untouchable = frozenset(untouchable)
        """Pits a player is unlikely to lift to play: after a missed capture, the pits that
        were to be taken (lifting one looks exactly like taking it)."""
        """The move that led here, if one did (its wrong captures are seen here)."""
        self.n = position.ruleset.num_pits
        self._stages: dict[StageKey, Stage] = {
            ("idle",): Stage(("idle",), position.pits, False, None)
        }
        self._moves: dict[int, _Move] = {}
        self._reach: dict[StageKey, Reach] = {}
        self._mistakes: dict[int, list[mistakes.SowingMistake]] = {}
        """Each move's wrong sowings, built on first use (most moves' are never looked at)."""
        self._bad_keys: dict[int, list[tuple[int, StageKey, StageKey | None, int]]] = {}
        """Their stages' keys (:meth:`_wrong_stage_keys`)."""
        self._lifts: list[int] | None = None
        """The pits that may not be played but hold seeds (None: not listed yet)."""
        for m in position.legal_moves():
            self._add_move(position.outcome(m))

    # -- building -------------------------------------------------------------------
    def _add(self, stage: Stage) -> None:
        self._stages.setdefault(stage.key, stage)

    def _add_move(self, out: MoveOutcome) -> None:
        m, path = out.pit, out.sown
        final = out.position.pits
        sown = mistakes.sown_board(out)
        sowing: list[tuple[int, StageKey]] = []
        stages = self._stages
        last_pit = _last_pit(path)
        for k, here in sowing_boards(self.position.pits, m, path, out.relay_steps):
            if k > last_pit:
                break  # only seeds for the stores are left: the move is over
            # Seeds still to go into a store leave the board as it will end: such a board
            # means the move is over, not "seeds still in hand".
            if here in (sown, final):
                continue
            key = ("sow", m, k)
            if key not in stages:
                stages[key] = Stage(key, here, True, m)
            sowing.append((k, key))
        captures: tuple[int, ...] = ()
        if out.captures and sown != final:
            captures = tuple(sorted({p for p, _ in out.captures}))
            for size in range(len(captures)):
                for taken in combinations(captures, size):
                    left = list(sown)
                    for p in taken:
                        left[p] = 0
                    # Some pits taken and not all: the hand is carrying seeds to the store.
                    self._add(Stage(("cap", m, taken), tuple(left), bool(taken), m))
        self._moves[m] = _Move(out, tuple(sowing), captures, sown)

    def _move_mistakes(self, m: int) -> list[mistakes.SowingMistake]:
        """The wrong sowings of move ``m`` the referee keeps; their first wrong seed and
        the wrong sowing done become stages (the stages between, of the first, are built
        on first use: most wrong sowings are never believed)."""
        found = self._mistakes.get(m)
        if found is not None:
            return found
        mv = self._moves.get(m)
        variants: list[mistakes.SowingMistake] = []
        self._mistakes[m] = variants
        bad_keys: list[tuple[int, StageKey, StageKey | None, int]] = []
        self._bad_keys[m] = bad_keys
        if mv is None:
            return variants
        # The boards come from each wrong sowing's seed counts (shared by every position,
        # see core.referee.mistakes): the lifted board plus them.
        lifted = list(self.position.pits)
        lifted[m] = 0
        for v in mistakes.sowing_mistakes(mv.out):
            end = len(v.path)
            last = tuple(map(add, lifted, v.end_adds))
            if last in (mv.sown, mv.out.position.pits):
                # A lap sown the wrong way (or skipping its origin's neighbour) can end on
                # the very board the move leaves: no board tells it apart.
                continue
            variants.append(v)
            first = v.wrong_index + 1
            first_key = self._add_bad(m, v, first, tuple(map(add, lifted, v.first_adds)))
            last_key = self._add_bad(m, v, end, last) if end > first else None
            bad_keys.append((v.wrong_index, first_key, last_key, end - first))
        return variants

    def _illegal_lifts(self) -> list[int]:
        """The pits that may not be played but hold seeds, each with its two stages."""
        if self._lifts is None:
            self._lifts = []
            pos = self.position
            if not pos.is_over:
                for o, seeds in enumerate(pos.pits):
                    if seeds == 0 or o in self._moves:
                        continue
                    mistake = mistakes.illegal_lift(pos, o)
                    lifted = list(sowing_boards(pos.pits, o, mistakes.illegal_lift_path(pos, o)))
                    # Seeds lifted from a pit that may not be played are often held up
                    # while the players sort it out, not sown at once.
                    self._add(Stage(("lift", o, 0), lifted[0][1], False, o, mistake))
                    self._add(Stage(("lift", o, 1), lifted[-1][1], False, o, mistake))
                    self._lifts.append(o)
        return self._lifts

    def _add_bad(
        self, m: int, v: mistakes.SowingMistake, k: int, board: tuple[int, ...] | None = None
    ) -> StageKey:
        """The stage of wrong sowing ``v`` of move ``m`` with ``k`` of its seeds sown
        (``board``: its board, when the caller has it already); returns its key."""
        key = ("bad", m, v.kind, v.wrong_index, k)
        in_hand = k < len(v.path) and _has_pit(v.path[k:])
        if board is None:
            board = board_after(self.position.pits, m, v.path, k)
        self._add(Stage(key, board, in_hand, m, v.mistake))
        return key

    def _wrong_stage_keys(self, m: int) -> list[tuple[int, StageKey, StageKey | None, int]]:
        """Move ``m``'s wrong sowings as (first wrong seed, its stage, the finished stage or
        None when that is the same, seeds between the two), built on first use."""
        self._move_mistakes(m)
        return self._bad_keys[m]

    def _variant(self, m: int, kind: str, wrong_index: int) -> mistakes.SowingMistake | None:
        """Move ``m``'s wrong sowing of ``kind`` going wrong at seed ``wrong_index`` (None:
        not one the referee keeps)."""
        for v in self._move_mistakes(m):
            if v.kind == kind and v.wrong_index == wrong_index:
                return v
        return None

    def stage(self, key: StageKey) -> Stage:
        """The stage of ``key``; mistaken stages are built on first use."""
        found = self._stages.get(key)
        if found is None:
            kind = key[0]
            if kind == "lift":
                self._illegal_lifts()
            elif kind == "bad":
                m, i, k = int(key[1]), int(key[3]), int(key[4])
                v = self._variant(m, str(key[2]), i)
                if key not in self._stages and v is not None and i < k <= len(v.path):
                    self._add_bad(m, v, k)
            elif kind == "wrongcap":
                self._add_wrong_capture(int(key[1]), tuple(key[2]))
            elif kind == "taken":
                self._add_taken(tuple(key[1]))
            found = self._stages.get(key)
            if found is None:
                raise KeyError(key)
        return found

    def outcome(self, move: int) -> MoveOutcome:
        return self._moves[move].out

    def sown_board(self, move: int) -> tuple[int, ...]:
        return self._moves[move].sown

    @property
    def moves(self) -> list[int]:
        return list(self._moves)

    # -- wrong captures (proposed from what the reading shows) ------------------------
    def propose_wrong_capture(
        self, key: StageKey, seen: Sequence[int | None]
    ) -> tuple[StageKey, float] | None:
        """A wrong capture the reading ``seen`` shows, reached from stage ``key``, and its
        prior; None if the reading shows none."""
        if key[0] == "cap":
            m = int(key[1])
            mv = self._moves[m]
            removed = mistakes.wrong_capture_removed(mv.out, mv.sown, seen)
            if removed is None:
                return None
            return ("wrongcap", m, removed), MISTAKE
        if key[0] == "idle" and self.last is not None:
            last = self.last
            removed = mistakes.wrong_capture_removed(last, mistakes.sown_board(last), seen)
            if removed is None:
                return None
            allowed = {p for p, _ in last.captures}
            wrong = [p for p in removed if p not in allowed]
            prior = MISTAKE + LATE_CAPTURE
            if any(self.position.ruleset.owner(p) == last.player for p in wrong):
                prior += OWN_SIDE
            return ("taken", removed), prior
        # Pits are taken one after the other: a wrong capture under way that the reading
        # shows grown by more pits is the same mistake going on (paid for once).
        if key[0] == "wrongcap":
            mv = self._moves[int(key[1])]
            grown = mistakes.wrong_capture_removed(mv.out, mv.sown, seen)
        elif key[0] == "taken" and self.last is not None:
            grown = mistakes.wrong_capture_removed(self.last, mistakes.sown_board(self.last), seen)
        else:
            return None
        before = tuple(key[-1])
        if grown is None or not set(before) < set(grown):
            return None
        return (*key[:-1], grown), STEP * (len(grown) - len(before))

    def _add_wrong_capture(self, m: int, removed: tuple[int, ...]) -> None:
        mv = self._moves[m]
        board = list(mv.sown)
        for p in removed:
            board[p] = 0
        mistake = mistakes.wrong_capture(mv.out, mv.sown, removed)
        self._add(Stage(("wrongcap", m, removed), tuple(board), False, m, mistake))

    def _add_taken(self, removed: tuple[int, ...]) -> None:
        assert self.last is not None
        sown = mistakes.sown_board(self.last)
        board = list(sown)
        for p in removed:
            board[p] = 0
        mistake = mistakes.wrong_capture(self.last, sown, removed)
        self._add(Stage(("taken", removed), tuple(board), False, self.last.pit, mistake))

    # -- where play goes ------------------------------------------------------------------
    def reach(self, key: StageKey) -> Reach:
        """The stages play can reach from ``key`` before the next position, each with the
        log prior of getting there (0 for staying), and the ways out of the graph (moves
        done) with theirs.

        From a correct stage: the rest of its move, and its mistakes from the seed in
        hand on (the first wrong seed, and that wrong sowing finished). From a mistake:
        the rest of it, and the board put back (the position, or, for one wrong seed,
        that seed moved where it belonged). Cached per stage.
        """
        cached = self._reach.get(key)
        if cached is None:
            cached = self._reach[key] = self._compute_reach(key)
        return cached

    def _compute_reach(self, key: StageKey) -> Reach:
        kind = key[0]
        stages: list[tuple[StageKey, float]] = [(key, 0.0)]
        exits: list[tuple[Exit, float]] = []
        if kind == "idle":
            if self.position.is_over:
                return stages, exits
            for m in self._moves:
                self._rest_of_move(m, -1, self.lift_cost(m), stages, exits, with_mistakes=True)
            owner, mover = self.position.ruleset.owner, self.position.to_move
            for o in self._illegal_lifts():
                cost = MISTAKE + (OTHER_SIDE if owner(o) != mover else 0.0)
                stages.append((("lift", o, 0), cost))
                stages.append((("lift", o, 1), cost + STEP))
        elif kind == "sow":
            m, k = int(key[1]), int(key[2])
            stages.pop()  # _rest_of_move lists it again, at no cost
            self._rest_of_move(m, k, 0.0, stages, exits, with_mistakes=True, from_step=k)
        elif kind == "cap":
            m, taken = int(key[1]), tuple(key[2])
            mv = self._moves[m]
            for t2 in self._cap_keys(mv):
                if set(taken) < set(t2):
                    stages.append((("cap", m, t2), STEP * (len(t2) - len(taken))))
            exits.append((_exit(m, False), STEP * (len(mv.captures) - len(taken))))
            if not taken:
                exits.append((_exit(m, True), MISTAKE))
        elif kind == "bad":
            m, bad_kind, i, k = int(key[1]), str(key[2]), int(key[3]), int(key[4])
            variant = self._variant(m, bad_kind, i)
            assert variant is not None  # the stage ``key`` was built from it
            for k2 in range(k + 1, len(variant.path) + 1):
                stages.append((("bad", m, bad_kind, i, k2), STEP * (k2 - k)))
            stages.append((("idle",), 0.0))
            if k == i + 1:
                # The wrong seed moved to where it belonged: the sowing goes on correctly.
                self._after_seeds(m, i + 1, 0.0, stages, exits)
        elif kind == "lift":
            if int(key[2]) == 0:
                stages.append((("lift", key[1], 1), STEP))
            stages.append((("idle",), 0.0))
        elif kind == "wrongcap":
            m = int(key[1])
            stages.append((("cap", m, ()), 0.0))
            exits.append((_exit(m, False), 0.0))
        elif kind == "taken":
            stages.append((("idle",), 0.0))
        return stages, exits

    def lift_cost(self, move: int) -> float:
        """The log prior of lifting ``move`` to play it."""
        return LIFT + (UNTOUCHABLE if move in self.untouchable else 0.0)

    @staticmethod
    def _cap_keys(mv: _Move) -> Iterator[tuple[int, ...]]:
        for size in range(len(mv.captures)):
            yield from combinations(mv.captures, size)

    def _rest_of_move(
        self,
        m: int,
        k0: int,
        base: float,
        stages: list[tuple[StageKey, float]],
        exits: list[tuple[Exit, float]],
        *,
        with_mistakes: bool,
        from_step: int | None = None,
    ) -> None:
        """Stages of move ``m`` after ``k0`` seeds (-1: not lifted yet), at log prior
        ``base`` for where it stands now."""
        mv = self._moves[m]
        start = 0 if k0 < 0 else k0
        for k, key in mv.sowing:
            if k >= start:
                stages.append((key, base + STEP * (k - start)))
        n = len(mv.out.sown)
        if mv.captures:
            for taken in self._cap_keys(mv):
                stages.append((("cap", m, taken), base + STEP * (n - start + len(taken))))
            exits.append((_exit(m, False), base + STEP * (n - start + len(mv.captures))))
            exits.append((_exit(m, True), base + STEP * (n - start) + MISTAKE))
        else:
            exits.append((_exit(m, False), base + STEP * (n - start)))
        if not with_mistakes:
            return
        for wrong_index, first, last, more in self._wrong_stage_keys(m):
            if wrong_index < start:
                continue
            cost = base + STEP * (wrong_index - start) + MISTAKE
            stages.append((first, cost))
            if last is not None:
                stages.append((last, cost + STEP * more))

    def _after_seeds(
        self,
        m: int,
        k: int,
        base: float,
        stages: list[tuple[StageKey, float]],
        exits: list[tuple[Exit, float]],
    ) -> None:
        """The correct stage of move ``m`` with ``k`` seeds sown (or the move done)."""
        mv = self._moves[m]
        for k2, key in mv.sowing:
            if k2 >= k:
                stages.append((key, base + STEP * (k2 - k)))
                return
        if mv.captures:
            stages.append((("cap", m, ()), base))
        else:
            exits.append((_exit(m, False), base))


def next_graph(graph: MoveGraph, record: Record) -> MoveGraph:
    """The graph of the position after ``record`` is played from ``graph``'s position."""
    m, missed = record
    out = graph.outcome(m)
    if not missed:
        return MoveGraph(out.position, out)
    pos = missed_capture_position(out)
    assert pos is not None
    return MoveGraph(pos, None, untouchable=[p for p, _ in out.captures])
