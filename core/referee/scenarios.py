"""Test sessions made from a list of moves: what a source would report while people play.

:func:`render_game` turns a start position and moves into Observations in one
of two styles:

* ``settled``: what a camera reports: hand frames (pits hidden, unstable),
  then one settled board per move (sometimes with the capture still on the
  board first);
* ``seed``: what a sensor board reports: the origin lifted, every seed
  dropped, every captured pit emptied, each step settled.

with optional noise (crowded pits read as honest but uncertain probability
vectors whose most likely count may be off by one) and hands passing over.
Mistakes (:data:`MISTAKES`) can be injected before a given move; each says
which event it must cause. Deterministic for a given ``seed``.

>>> from core import Position
>>> session = render_game(Position.initial(), [5, 6], style="seed")
>>> from core.referee import Referee
>>> ref = Referee(Position.initial())
>>> [e.type for obs in session.observations for e in ref.observe(obs)]
['move', 'move']
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from core.observation import Observation, PitReading
from core.position import Position
from core.referee.mistakes import mistaken_path
from core.referee.stages import sowing_boards, stores_without_capture

MISTAKES = (
    "illegal_move",  # the mover lifts a pit they may not play, then puts it back
    "skip",  # a pit is skipped while sowing, then the sowing is redone
    "double",  # a pit receives two seeds, then the sowing is redone
    "clockwise",  # sown the wrong way, then redone
    "origin",  # a seed into the origin pit on a lap of 12+ (only moves with 12+ seeds)
    "wrong_capture",  # a pit that may not be taken is taken, then put back
    "missed_capture",  # the next player moves with the capture still on the board
    "disturbed",  # a seed appears from nowhere, then goes away again
)

#: The event type each mistake must cause.
EXPECTED_EVENT = {
    "illegal_move": "illegal_move",
    "skip": "illegal_sowing",
    "double": "illegal_sowing",
    "clockwise": "illegal_sowing",
    "origin": "illegal_sowing",
    "wrong_capture": "wrong_capture",
    "missed_capture": "missed_capture",
    "disturbed": "board_disturbed",
}


#: Seconds a settled board is held before the next frame (a source repeating it).
HOLD = 0.5


@dataclass
class Expected:
    """An event the session must cause: its type, the pits it names, at which move."""

    type: str
    pits: frozenset[int]
    move_index: int


@dataclass
class Session:
    start: Position
    observations: list[Observation] = field(default_factory=list)
    moves: list[int] = field(default_factory=list)
    """The moves the referee must confirm, in order."""
    expected: list[Expected] = field(default_factory=list)
    final: Position | None = None


@dataclass
class _Renderer:
    style: str
    noise: float
    hands: float
    rng: random.Random
    source: str
    t: float = 0.0
    out: list[Observation] = field(default_factory=list)

    def reading(self, count: int) -> PitReading:
        if self.noise and count >= 5 and self.rng.random() < self.noise:
            # An honest but uncertain belief, sometimes centred one off.
            shift = self.rng.choice((-1, 1))
            width = max(count + 3, 2)
            vec = [0.0] * width
            vec[count] = 0.35
            vec[count + shift] = 0.55
            vec[count - shift] = 0.10
            return tuple(vec)
        return count

    def frame(self, board: Sequence[int], stable: bool, hidden: Sequence[int] = ()) -> None:
        self.t = round(self.t + 0.1, 3)
        pits: tuple[PitReading, ...] = tuple(
            None if i in hidden else (self.reading(c) if stable else c) for i, c in enumerate(board)
        )
        self.out.append(Observation(self.t, self.source, stable, pits))

    def hand(self, board: Sequence[int], near: int) -> None:
        n = len(board)
        hidden = [(near + d) % n for d in (-1, 0, 1)]
        self.frame(board, False, hidden)

    def settle(self, board: Sequence[int], near: int | None = None) -> None:
        if near is not None and self.hands and self.rng.random() < self.hands:
            self.hand(board, near)
        self.frame(board, False)
        self.frame(board, True)
        # People leave a still board a moment, and a source repeats it (the referee
        # announces a mistake only on a board that held still for its settle time).
        self.t = round(self.t + HOLD, 3)
        self.frame(board, True)

    def steps(self, boards: Iterator[tuple[int, tuple[int, ...]]], near: int) -> None:
        """Show a sequence of boards: every one (seed style) or only the last (settled)."""
        listed = list(boards)
        if self.style == "seed":
            for _, b in listed:
                self.settle(b, near)
        else:
            self.hand(listed[-1][1], near)
            self.settle(listed[-1][1], near)


def render_game(
    start: Position,
    moves: Sequence[int],
    *,
    style: str = "settled",
    noise: float = 0.0,
    hands: float = 0.0,
    seed: int = 0,
    mistakes: Sequence[tuple[int, str]] = (),
    source: str = "scenario",
) -> Session:
    """Render ``moves`` from ``start`` as a session; ``mistakes`` = (move index, kind) pairs."""
    if style not in ("settled", "seed"):
        raise ValueError("style must be 'settled' or 'seed'")
    r = _Renderer(style, noise, hands, random.Random(seed), source)
    session = Session(start)
    injected = dict(mistakes)
    pos = start
    r.settle(pos.pits)
    for index, pit in enumerate(moves):
        kind = injected.get(index)
        if kind is not None and kind != "missed_capture" and kind != "wrong_capture":
            made = _inject_before(r, pos, pit, kind, index)
            if made is not None:
                session.expected.append(made)
        out = pos.outcome(pit)
        sown_boards = sowing_boards(pos.pits, pit, out.sown, out.relay_steps)
        r.steps(sown_boards, pit)
        after = out.position
        if out.captures:
            sown = list(after.pits)
            for p, c in out.captures:
                sown[p] += c
            if kind == "missed_capture" and index + 1 < len(moves):
                session.expected.append(
                    Expected("missed_capture", frozenset(p for p, _ in out.captures), index)
                )
                session.moves.append(pit)
                pos = Position(pos.ruleset, sown, stores_without_capture(out), after.to_move)
                r.settle(sown, pit)
                continue
            if kind == "wrong_capture":
                made = _wrong_capture(r, pos, out.captures, sown, pit, index)
                if made is not None:
                    session.expected.append(made)
            if style == "seed":
                board = list(sown)
                for p, _ in out.captures:
                    board[p] = 0
                    r.settle(board, p)
            elif r.rng.random() < 0.5:
                r.settle(sown, pit)  # the camera sees the capture before it is taken
                r.settle(after.pits, out.captures[0][0])
        elif kind == "wrong_capture":
            made = _wrong_capture(r, pos, (), list(after.pits), pit, index)
            if made is not None:
                session.expected.append(made)
        session.moves.append(pit)
        pos = after
        r.settle(pos.pits)
    for _ in range(3):  # the source keeps watching the final board for a moment
        r.frame(pos.pits, True)
    session.observations = r.out
    session.final = pos
    return session


def _inject_before(r: _Renderer, pos: Position, pit: int, kind: str, index: int) -> Expected | None:
    """Show a mistake, then put the board back as it was; return the event it must cause."""
    rules = pos.ruleset
    board = pos.pits
    if kind == "illegal_move":
        legal = set(pos.legal_moves())
        wrong = [o for o, c in enumerate(board) if c and o not in legal]
        if not wrong:
            return None
        o = r.rng.choice(wrong)
        lifted = list(board)
        lifted[o] = 0
        r.hand(lifted, o)
        r.settle(lifted, o)
        r.settle(board, o)
        return Expected("illegal_move", frozenset({o}), index)
    if kind == "disturbed":
        extra = list(board)
        target = r.rng.randrange(len(board))
        extra[target] += 2
        r.settle(extra, target)
        r.settle(board, target)
        return Expected("board_disturbed", frozenset({target}), index)
    out = pos.outcome(pit)
    ring = rules.sowing_ring(pos.to_move, pit)
    size = len(ring)
    n = len(out.sown)
    limit = min(n, out.relay_steps[0] if out.relay_steps else n)
    path: list[int]
    if kind == "skip":
        nxt = (pos.to_move + 1) % rules.players

        def aliased(i: int) -> bool:
            # Skipping the last pit when it was empty and the next player's looks exactly
            # like the move done and the next player sowing that lone seed one pit on.
            meant = ring[i % size]
            return i == n - 1 and board[meant] == 0 and rules.owner(meant) == nxt

        choices = [i for i in range(limit) if _named("skip", ring, pit, i) and not aliased(i)]
        if not choices:
            return None
        i = r.rng.choice(choices)
        path = mistaken_path("skip", ring, pit, n, i)
        pits = _named("skip", ring, pit, i)
    elif kind == "double":
        choices = [i for i in range(1, limit) if _named("double", ring, pit, i)]
        if not choices:
            return None
        i = r.rng.choice(choices)
        path = mistaken_path("double", ring, pit, n, i)
        pits = _named("double", ring, pit, i)
    elif kind == "clockwise":
        pits = _named("clockwise", ring, pit, 0)
        if not pits:
            return None
        path = mistaken_path("clockwise", ring, pit, n)
    elif kind == "origin":
        if n <= size:
            return None
        path = mistaken_path("origin", ring, pit, n)
        pits = frozenset({pit})
    else:
        raise ValueError(f"unknown mistake {kind!r}")
    if r.style == "settled" and _settles_like_another(ring, pit, n, limit, path, pits):
        return None
    r.steps(sowing_boards(board, pit, path), pit)
    r.settle(board, pit)  # the players notice and start again
    return Expected("illegal_sowing", pits, index)


def _named(kind: str, ring: Sequence[int], pit: int, i: int) -> frozenset[int]:
    """The pits the alert about sowing mistake ``kind`` at seed ``i`` names (the slot
    that went wrong and its neighbour), or none where one of them is a store."""
    size = len(ring)
    if kind == "skip":
        slots = (ring[i % size], ring[(i + 1) % size])
    elif kind == "double":
        slots = (ring[(i - 1) % size], ring[i % size])
    else:  # clockwise: the first seed went to the pit before the origin, not after it
        if min(ring[0], ring[-1]) < 0:
            return frozenset()
        slots = (pit, ring[-1])
    return frozenset(slots) if min(slots) >= 0 else frozenset()


def _settles_like_another(
    ring: Sequence[int], pit: int, n: int, limit: int, path: list[int], pits: frozenset[int]
) -> bool:
    """Whether another sowing mistake, naming other pits, leaves the same board.

    A camera that sees only settled boards cannot tell such two apart (a clockwise lap one
    pit short of the ring fills exactly the pits that skipping the first pit does), so a
    session must not ask the referee to name one of them.
    """
    seen = Counter(path)
    for kind, seeds in (("skip", range(limit)), ("double", range(1, limit)), ("clockwise", [0])):
        for i in seeds:
            named = _named(kind, ring, pit, i)
            if named and named != pits and Counter(mistaken_path(kind, ring, pit, n, i)) == seen:
                return True
    return False


def _wrong_capture(
    r: _Renderer,
    pos: Position,
    captures: Sequence[tuple[int, int]],
    sown: list[int],
    pit: int,
    index: int,
) -> Expected | None:
    """Take seeds that may not be taken, then put them back.

    With a capture due: the right pits and one of the mover's own. Without: the last two pits
    sown on the opponent's side, as a player who miscounts a 4 for a 3 would. (One
    emptied pit alone looks exactly like the next player lifting it.)
    """
    allowed = {p for p, _ in captures}
    sown_path = [s for s in pos.outcome(pit).sown if s >= 0]
    mover = pos.to_move
    if captures:
        # One more pit than allowed: on the mover's own side (an opponent's pit emptied with
        # the right ones looks just like the opponent starting their move).
        candidates = [
            i
            for i in set(sown_path)
            if sown[i] and i not in allowed and pos.ruleset.owner(i) == mover
        ]
        if not candidates:
            return None
        wrong = {r.rng.choice(sorted(candidates))}
    else:
        theirs = [
            i
            for i in dict.fromkeys(reversed(sown_path))
            if sown[i] and pos.ruleset.owner(i) != mover
        ]
        if len(theirs) < 2:
            return None
        wrong = set(theirs[:2])
    board = list(sown)
    for p in allowed | wrong:
        board[p] = 0
    r.settle(board, min(wrong))
    r.settle(sown, min(wrong))
    return Expected("wrong_capture", frozenset(wrong), index)


def random_game(start: Position, length: int, seed: int = 0) -> list[int]:
    """A random legal move sequence of at most ``length`` moves."""
    rng = random.Random(seed)
    moves: list[int] = []
    pos = start
    while len(moves) < length and not pos.is_over:
        m = rng.choice(pos.legal_moves())
        moves.append(m)
        pos = pos.play(m)
    return moves


def mistake_session(
    start: Position,
    kind: str,
    *,
    seed: int = 0,
    length: int = 40,
    style: str = "settled",
    noise: float = 0.0,
) -> Session | None:
    """A random game from ``start`` with one mistake of ``kind`` injected at a move where it
    can happen (a capture for the capture mistakes, 12+ seeds for ``origin``), or None if
    this game offers no such move."""
    rng = random.Random(seed)
    moves = random_game(start, length, seed)
    positions = [start]
    for m in moves:
        positions.append(positions[-1].play(m))
    fits: list[int] = []
    for i, (p, m) in enumerate(zip(positions, moves, strict=False)):
        if i < 1 or i + 2 >= len(moves):
            continue
        out = p.outcome(m)
        ring = len(p.ruleset.sowing_ring(p.to_move, m))
        if kind in ("missed_capture", "wrong_capture") and not out.captures:
            continue
        if kind == "origin" and (len(out.sown) <= ring or out.relays):
            continue
        # A one-seed mistake looks exactly like legal play (f->B is also f->A then A->B), and a
        # clockwise lap of 12+ can pass through the correct final board: a camera cannot
        # tell these apart, so do not ask the referee to.
        if kind in ("skip", "double", "clockwise") and not 2 <= len(out.sown) < ring:
            continue
        fits.append(i)
    if not fits:
        return None
    at = rng.choice(fits)
    if kind == "missed_capture":
        # After the missed capture the game goes on from the board as it physically is.
        p, m = positions[at], moves[at]
        out = p.outcome(m)
        sown = list(out.position.pits)
        for pit, c in out.captures:
            sown[pit] += c
        skipped = Position(p.ruleset, sown, stores_without_capture(out), out.position.to_move)
        # The next player must not lift a pit that was to be captured: an emptied capture
        # pit looks exactly like the capture being taken.
        taken = {pit for pit, _ in out.captures}
        firsts = [m for m in skipped.legal_moves() if m not in taken]
        if not firsts:
            return None
        first = rng.choice(firsts)
        rest = random_game(skipped.play(first), max(1, length - at - 2), seed + 1)
        moves = [*moves[: at + 1], first, *rest]
    session = render_game(start, moves, style=style, noise=noise, seed=seed, mistakes=[(at, kind)])
    return session if session.expected else None
