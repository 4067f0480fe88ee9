"""Games at playing pace: full games rendered as the session a camera or a sensor board gives.

:mod:`core.referee.scenarios` renders a list of moves as tidy snapshots, a
still board after every move. People do not play like that. This module
renders a game the way it happens at a table, for the referee's benchmark
(``python -m bench.referee_games``) and its tests:

* **Pace** (:class:`Pace`): a hand comes in over the pit to play, lifts it,
  sows seed by seed, takes the capture pit by pit and leaves; the board then
  stays still for a while (0.3 to 3 s), and in one move of five the next hand
  arrives before the last seeds are still.
* **Hands**: a camera does not see the pits under a hand (``None``); a
  sensor board reads every pit but a pressed one.
* **Beliefs** (:class:`BeliefModel`): what a source says about a pile of a
  given count: exact counts with an occasional reading off by one (a sensor
  with a noisy cell), a sensor board's weight model on seeds of unequal weight,
  or a probability vector like a camera's. A camera reads
  a pile nobody touches the same way frame after frame, right or wrong: a
  belief is drawn when the pile's count changes and kept while it stays.
* **Mistakes**: one injected at a random move where it can happen, shown,
  left on the board a moment, then put right as players do (the board set
  back and the move played correctly; a missed capture stays missed).
* **Desync**: the players start a new game on the board; a person's command
  (undo, new game, a position set by hand) that the board does not show,
  while the players put the board back or play on.

Like a camera source, a session sends a reading when it changes and repeats
a still one every second. Deterministic for a given seed.

>>> import random
>>> from core import Position
>>> from core.referee import Referee
>>> play = render_game(Position.initial(), [5, 6, 0], EXACT, CAMERA, random.Random(1))
>>> ref = Referee(play.start)
>>> [e["name"] for item in play.timeline for e in feed(ref, item) if e.type == "move"]
['F', 'a', 'A']
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from core.observation import Observation, PitReading
from core.position import Position
from core.referee.events import Event
from core.referee.mistakes import mistaken_path
from core.referee.referee import Referee
from core.referee.stages import missed_capture_position, sowing_boards

# -- pace ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Pace:
    """How fast people play, and how the source reports it."""

    frame: float = 0.1
    """Seconds between two frames of the source."""
    repeat: float = 1.0
    """A reading that does not change is sent again after this many seconds."""
    reach: float = 0.3
    """A hand coming in over the pit to play."""
    seed: float = 0.25
    """Each seed sown."""
    take: float = 0.4
    """Each pit of a capture taken."""
    still: tuple[float, float] = (0.3, 3.0)
    """The board still between two moves, drawn uniformly."""
    rush: float = 0.2
    """The share of moves whose next hand arrives before the board was ever still."""
    settle: float = 0.2
    """A source calls a board stable once it has not changed for this long."""
    hand_width: int = 1
    """A hand hides the pit it is over and this many on each side."""
    camera: bool = True
    """A camera (hands hide pits, a board is stable once no hand is over it) or a sensor
    board (it reads every pit, and calls each seed's board stable once it settles)."""


#: A camera over a table of players at an ordinary pace.
CAMERA = Pace()
#: A sensor board under the same players: it weighs every pit, seed by seed.
SENSOR = Pace(camera=False, settle=0.15)

# -- beliefs ---------------------------------------------------------------------------------


class BeliefModel:
    """What a source says about a pile of ``count`` seeds: what stays with a look at the
    pile (drawn when its count changes, :meth:`look`) and what each frame adds
    (:meth:`frame`)."""

    name = "exact"
    per_frame = False
    """A new draw every frame (a noisy sensor cell), not one per look at a pile."""

    def draw(self, count: int, rng: random.Random) -> PitReading:
        return count

    def look(self, count: int, rng: random.Random) -> Any:
        """What a pile of ``count`` seeds shows for as long as nobody touches it."""
        return None if self.per_frame else self.draw(count, rng)

    def frame(self, count: int, look: Any, rng: random.Random) -> PitReading:
        """One frame's reading of that pile."""
        return self.draw(count, rng) if self.per_frame else look


@dataclass(frozen=True)
class Exact(BeliefModel):
    """Exact counts; ``off`` of readings are one off (a sensor with a noisy cell)."""

    off: float = 0.0
    name: str = "exact"
    per_frame: bool = True

    def draw(self, count: int, rng: random.Random) -> PitReading:
        if self.off and rng.random() < self.off:
            return max(0, count + rng.choice((-1, 1)))
        return count


@dataclass(frozen=True)
class Spread(BeliefModel):
    """An honest probability vector: ``right(count)`` on the count it centres on, the rest
    split between its two neighbours; the centre is drawn from the same belief around the
    true count (so a pile is misread as often as the belief says)."""

    right: Callable[[int], float]
    name: str = "spread"

    def draw(self, count: int, rng: random.Random) -> PitReading:
        p = self.right(count)
        u = rng.random()
        if u < p:
            centre = count
        elif u < p + (1 - p) / 2 or count == 0:
            centre = count + 1
        else:
            centre = count - 1
        q = self.right(centre)
        vec = [0.0] * (centre + 2)
        vec[centre] = q
        vec[centre + 1] = (1 - q) / 2
        vec[max(0, centre - 1)] += (1 - q) / 2
        return tuple(vec)


def camera_like(count: int) -> float:
    """The belief a camera puts on a pile's count: sure of small piles, less of tall ones."""
    if count == 0:
        return 0.97
    if count <= 4:
        return 0.92
    if count <= 8:
        return 0.76
    return 0.56


def flat(right: float, count: int) -> float:
    """The same belief on every pile's count, whatever its size (a module-level function:
    the bench sends belief models to other processes)."""
    return right


@dataclass(frozen=True)
class PhotoBeliefs(BeliefModel):
    """Beliefs a real counter gave about real photographs, by true count
    (``by_count[c]``: the belief vectors of photographs of ``c`` seeds). A pile above the
    counts photographed gets a belief of the tallest one, moved up to its count: as wide
    as the counter's at its largest counts."""

    by_count: Mapping[int, Sequence[Sequence[float]]] = field(default_factory=dict)
    name: str = "photos"

    def draw(self, count: int, rng: random.Random) -> PitReading:
        top = max(self.by_count)
        source = min(count, top)
        belief = list(rng.choice(list(self.by_count[source])))
        shift = count - source
        vec = [0.0] * shift + belief
        total = sum(vec)
        return tuple(v / total for v in vec)


@dataclass(frozen=True)
class Weighed(BeliefModel):
    """A sensor board's cells: a pile weighs what its seeds weigh, and seeds are not all
    alike, so a pile of eight may weigh like seven for as long as it lies there; each
    frame adds the cell's own noise. The belief is the sensor board's weight model's
    (``firmware_bridge.weights.CountModel``: the same spreads, and a tenth of a seed for
    drift), here with the seeds spread as its calibration says."""

    seed_g: float = 2.4
    seed_sd_g: float = 0.25
    noise_g: float = 0.05
    name: str = "weighed"
    per_frame: bool = True
    tail: float = 1e-4
    """Counts less likely than this are left out of the belief (as the sensor's source does)."""

    def look(self, count: int, rng: random.Random) -> float:
        return rng.gauss(0.0, 1.0) * math.sqrt(count) * self.seed_sd_g  # the seeds' deviation

    def frame(self, count: int, look: Any, rng: random.Random) -> PitReading:
        grams = count * self.seed_g + float(look) + rng.gauss(0.0, self.noise_g)
        logs = []
        for n in range(count + 12):
            var = self.noise_g**2 + n * self.seed_sd_g**2 + (0.1 * self.seed_g) ** 2
            logs.append(-0.5 * math.log(var) - (grams - n * self.seed_g) ** 2 / (2 * var))
        top = max(logs)
        ps = [math.exp(v - top) for v in logs]
        total = sum(ps)
        ps = [p / total for p in ps]
        last = max(i for i, p in enumerate(ps) if p >= self.tail) + 1
        kept = ps[:last]
        total = sum(kept)
        return tuple(p / total for p in kept)


EXACT = Exact()
SENSOR_NOISE = Exact(off=0.01, name="sensor 1% off by one")
WEIGHED = Weighed(name="sensor board, seeds of unequal weight")
GROWING = Spread(camera_like, name="camera-like spread")
FLAT_01 = Spread(partial(flat, 0.8), name="flat 0.1")
FLAT_02 = Spread(partial(flat, 0.6), name="flat 0.2")

# -- sessions --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Command:
    """A person's command at time ``t`` (the referee page's buttons)."""

    t: float
    command: dict[str, Any]


TimelineItem = Observation | Command


@dataclass(frozen=True, slots=True)
class Expected:
    """An alert the session must cause: its type, the pits it names, after how many moves."""

    type: str
    pits: frozenset[int]
    move_index: int


@dataclass
class Playthrough:
    """A rendered session, and the truth it shows."""

    start: Position
    timeline: list[TimelineItem] = field(default_factory=list)
    moves: list[int] = field(default_factory=list)
    """Every move played, in order, over all the games of the session."""
    done_at: list[float] = field(default_factory=list)
    """When each move's board was complete (its last seed down, its capture taken)."""
    games: list[int] = field(default_factory=list)
    """How many moves each game of the session had (a new game starts a new count)."""
    expected: list[Expected] = field(default_factory=list)
    still_boards: list[float] = field(default_factory=list)
    """When each still board began."""
    desync: tuple[str, float] | None = None
    """A desync case: its kind, and from when the board lets the game be found again."""
    truth: list[tuple[float, tuple[int, ...]]] = field(default_factory=list)
    """The board as it physically was, from each time it changed (what a person who
    counts the pits would find)."""
    final: Position | None = None


class _Camera:
    """Turns the physical board, hands over it, into the readings a source sends."""

    def __init__(self, pace: Pace, beliefs: BeliefModel, rng: random.Random) -> None:
        self.pace = pace
        self.beliefs = beliefs
        self.rng = rng
        self.t = 0.0
        self.looks: dict[int, tuple[int, Any]] = {}
        self.out: list[TimelineItem] = []
        self._sent: tuple[bool, tuple[PitReading, ...]] | None = None
        self._sent_t = -math.inf
        self._calm_since = 0.0
        self._last: tuple[tuple[int, ...], bool] | None = None
        self.still_boards: list[float] = []
        self.truth: list[tuple[float, tuple[int, ...]]] = []

    def reading(self, pit: int, count: int) -> PitReading:
        held = self.looks.get(pit)
        if held is None or held[0] != count:
            held = (count, self.beliefs.look(count, self.rng))
            self.looks[pit] = held
        return self.beliefs.frame(count, held[1], self.rng)

    def hidden(self, near: int | None, n: int) -> set[int]:
        if near is None or not self.pace.camera:
            return set()
        w = self.pace.hand_width
        return {(near + d) % n for d in range(-w, w + 1)}

    def frames(self, board: Sequence[int], seconds: float, near: int | None = None) -> None:
        """The board as it stands for ``seconds``, a hand over ``near`` (None: no hand)."""
        n = len(board)
        board = tuple(board)
        if not self.truth or self.truth[-1][1] != board:
            self.truth.append((self.t, board))
        hand = near is not None
        if self._last != (board, hand):
            # A camera calls a board stable once no hand is over it and it has not changed
            # for a moment; a sensor, once it has not changed (it sees no hands).
            if self._last is None or self._last[0] != board or (self.pace.camera and not hand):
                self._calm_since = self.t
            if not hand and (self._last is None or self._last[1] or self._last[0] != board):
                self.still_boards.append(self.t)
            self._last = (board, hand)
        steps = max(1, round(seconds / self.pace.frame))
        for _ in range(steps):
            self.t = round(self.t + self.pace.frame, 6)
            hide = self.hidden(near, n)
            pits = tuple(None if i in hide else self.reading(i, c) for i, c in enumerate(board))
            calm = self.t - self._calm_since >= self.pace.settle
            stable = calm and (not hand or not self.pace.camera)
            key = (stable, pits)
            if key == self._sent and self.t - self._sent_t < self.pace.repeat:
                continue
            self._sent, self._sent_t = key, self.t
            source = "camera" if self.pace.camera else "sensor"
            self.out.append(Observation(self.t, source, stable, pits))

    def command(self, command: dict[str, Any]) -> None:
        self.out.append(Command(self.t, command))


class _Player:
    """Plays moves on the physical board at the pace's speed."""

    def __init__(self, cam: _Camera, rng: random.Random) -> None:
        self.cam = cam
        self.rng = rng
        self.pace = cam.pace

    def sow(
        self, before: Sequence[int], origin: int, path: Sequence[int], relays: Sequence[int] = ()
    ) -> tuple[int, ...]:
        """Lift ``origin`` and sow ``path`` seed by seed; return the board."""
        self.cam.frames(before, self.pace.reach, origin)
        board: tuple[int, ...] = tuple(before)
        for k, b in sowing_boards(before, origin, path, relays):
            board = b
            slot = path[k - 1] if k else origin
            self.cam.frames(board, self.pace.seed, slot if slot >= 0 else origin)
        return board

    def take(self, board: Sequence[int], pits: Sequence[int]) -> tuple[int, ...]:
        out = list(board)
        for p in pits:
            out[p] = 0
            self.cam.frames(out, self.pace.take, p)
        return tuple(out)

    def still(self, board: Sequence[int], seconds: float | None = None) -> None:
        lo, hi = self.pace.still
        self.cam.frames(board, seconds if seconds is not None else self.rng.uniform(lo, hi))

    def set_up(self, board: Sequence[int], near: int) -> None:
        """Hands over the board while seeds are put where they go (a restore, a new game)."""
        self.cam.frames(board, 1.0, near)


def random_full_game(start: Position, rng: random.Random, limit: int = 400) -> list[int]:
    """Random legal moves until the game ends (or ``limit`` moves)."""
    moves: list[int] = []
    pos = start
    while not pos.is_over and len(moves) < limit:
        m = rng.choice(pos.legal_moves())
        moves.append(m)
        pos = pos.play(m)
    return moves


#: Mistakes a player makes, and the alert each must cause.
MISTAKES = {
    "illegal_move": "illegal_move",
    "skip": "illegal_sowing",
    "double": "illegal_sowing",
    "clockwise": "illegal_sowing",
    "origin": "illegal_sowing",
    "wrong_capture": "wrong_capture",
    "missed_capture": "missed_capture",
    "disturbed": "board_disturbed",
}


def mistake_fits(pos: Position, move: int, kind: str) -> bool:
    """Whether mistake ``kind`` can be made, and seen, at ``move`` from ``pos``."""
    out = pos.outcome(move)
    ring = len(pos.ruleset.sowing_ring(pos.to_move, move))
    if kind in ("missed_capture", "wrong_capture") and not out.captures:
        return kind == "wrong_capture" and _late_wrong_capture(pos, move) is not None
    if kind == "missed_capture":
        after = missed_capture_position(out)
        taken = {p for p, _ in out.captures}
        return (
            after is not None
            and not after.is_over
            and any(m not in taken for m in after.legal_moves())
        )
    if kind == "origin":
        return len(out.sown) > ring and not out.relays
    if kind in ("skip", "double", "clockwise"):
        # A one-seed mistake looks exactly like legal play (f->B is also f->A then A->B),
        # and a clockwise lap of 12+ can pass through the correct board.
        return 2 <= len(out.sown) < ring
    if kind == "illegal_move":
        legal = set(pos.legal_moves())
        return any(c and o not in legal for o, c in enumerate(pos.pits))
    return kind == "disturbed"


def _late_wrong_capture(pos: Position, move: int) -> list[int] | None:
    """After a move that captures nothing: the last two pits it sowed on the other side,
    taken as a player who misreads a 4 for a 3 would (one pit alone looks like a lift)."""
    out = pos.outcome(move)
    after = out.position.pits
    theirs = [
        s
        for s in dict.fromkeys(reversed([s for s in out.sown if s >= 0]))
        if after[s] and pos.ruleset.owner(s) != out.player
    ]
    return theirs[:2] if len(theirs) >= 2 else None


def render_game(
    start: Position,
    moves: Sequence[int],
    beliefs: BeliefModel,
    pace: Pace,
    rng: random.Random,
    *,
    mistake: tuple[int, str] | None = None,
) -> Playthrough:
    """Render ``moves`` from ``start`` at ``pace``; ``mistake``: (move index, kind)."""
    cam = _Camera(pace, beliefs, rng)
    player = _Player(cam, rng)
    play = Playthrough(start)
    pos = start
    player.still(pos.pits, 1.0)
    for index, pit in enumerate(moves):
        kind = mistake[1] if mistake is not None and mistake[0] == index else None
        if kind is not None and kind not in ("missed_capture", "wrong_capture"):
            exp = _mistake_before(player, pos, pit, kind, len(play.moves))
            if exp is not None:
                play.expected.append(exp)
        out = pos.outcome(pit)
        board = player.sow(pos.pits, pit, out.sown, out.relay_steps)
        if kind == "missed_capture" and out.captures:
            after = missed_capture_position(out)
            assert after is not None
            play.expected.append(
                Expected("missed_capture", frozenset(p for p, _ in out.captures), len(play.moves))
            )
            play.moves.append(pit)
            play.done_at.append(cam.t)
            pos = after
            continue  # the next player plays on at once, the capture still there
        if kind == "wrong_capture":
            exp = _wrong_capture(player, pos, out, board, len(play.moves))
            if exp is not None:
                play.expected.append(exp)
        board = player.take(board, [p for p, _ in out.captures])
        play.moves.append(pit)
        play.done_at.append(cam.t)
        pos = out.position
        if index + 1 < len(moves) and rng.random() < pace.rush:
            continue  # the next hand arrives before this board was ever still
        player.still(pos.pits)
    player.still(pos.pits, 3.0)
    play.timeline = cam.out
    play.games = [len(play.moves)]
    play.still_boards = cam.still_boards
    play.truth = cam.truth
    play.final = pos
    return play


def _mistake_before(
    player: _Player, pos: Position, pit: int, kind: str, index: int
) -> Expected | None:
    """Show a mistake before ``pit`` is played, leave it a moment, then put the board back."""
    rules = pos.ruleset
    board = pos.pits
    rng = player.rng
    if kind == "illegal_move":
        legal = set(pos.legal_moves())
        o = rng.choice([o for o, c in enumerate(board) if c and o not in legal])
        lifted = list(board)
        lifted[o] = 0
        player.cam.frames(board, player.pace.reach, o)
        player.cam.frames(lifted, player.pace.reach, o)
        player.still(lifted, 1.5)
        player.set_up(board, o)
        player.still(board, 1.0)
        return Expected("illegal_move", frozenset({o}), index)
    if kind == "disturbed":
        extra = list(board)
        target = rng.randrange(len(board))
        extra[target] += 2
        player.set_up(extra, target)
        player.still(extra, 1.5)
        player.set_up(board, target)
        player.still(board, 1.0)
        return Expected("board_disturbed", frozenset({target}), index)
    out = pos.outcome(pit)
    ring = rules.sowing_ring(pos.to_move, pit)
    size, n = len(ring), len(out.sown)
    if kind == "skip":
        nxt = (pos.to_move + 1) % rules.players
        choices = [
            i
            for i in range(n)
            if ring[i % size] >= 0
            and ring[(i + 1) % size] >= 0
            and not (
                i == n - 1 and board[ring[i % size]] == 0 and rules.owner(ring[i % size]) == nxt
            )
        ]
        if not choices:
            return None
        i = rng.choice(choices)
        path = mistaken_path("skip", ring, pit, n, i)
        pits = frozenset({ring[i % size], ring[(i + 1) % size]})
    elif kind == "double":
        choices = [i for i in range(1, n) if ring[(i - 1) % size] >= 0 and ring[i % size] >= 0]
        if not choices:
            return None
        i = rng.choice(choices)
        path = mistaken_path("double", ring, pit, n, i)
        pits = frozenset({ring[(i - 1) % size], ring[i % size]})
    elif kind == "clockwise":
        path = mistaken_path("clockwise", ring, pit, n)
        pits = frozenset({pit, ring[-1]})
    elif kind == "origin":
        path = mistaken_path("origin", ring, pit, n)
        pits = frozenset({pit})
    else:
        raise ValueError(f"unknown mistake {kind!r}")
    wrong = player.sow(board, pit, path)
    player.still(wrong, 1.5)  # the players look, and notice
    player.set_up(board, pit)
    player.still(board, 1.0)
    return Expected("illegal_sowing", pits, index)


def _wrong_capture(
    player: _Player, pos: Position, out: Any, board: tuple[int, ...], index: int
) -> Expected | None:
    """Take seeds that may not be taken, leave them off a moment, then put them back.

    With a capture due: the right pits and one of the mover's own. Without: the last two
    pits sown on the other side (:func:`_late_wrong_capture`)."""
    rules = pos.ruleset
    allowed = {p for p, _ in out.captures}
    if out.captures:
        own = [
            i
            for i in {s for s in out.sown if s >= 0}
            if board[i] and i not in allowed and rules.owner(i) == out.player
        ]
        if not own:
            return None
        wrong = {player.rng.choice(sorted(own))}
        taken = sorted(allowed | wrong)
        start = board
    else:
        late = _late_wrong_capture(pos, out.pit)
        if late is None:
            return None
        player.still(out.position.pits, 0.6)
        wrong, taken, start = set(late), sorted(late), out.position.pits
    after = player.take(start, taken)
    player.still(after, 1.5)
    player.set_up(start, min(wrong))
    player.still(start, 0.6)
    return Expected("wrong_capture", frozenset(wrong), index)


# -- whole sessions ----------------------------------------------------------------------------


def game_with_mistake(
    start: Position, kind: str, beliefs: BeliefModel, pace: Pace, rng: random.Random
) -> Playthrough | None:
    """A random full game with one mistake of ``kind`` at a random move where it fits (and
    the game goes on after it), or None if this game offers no such move."""
    moves = random_full_game(start, rng)
    positions = [start]
    for m in moves:
        positions.append(positions[-1].play(m))
    fits = [i for i in range(1, len(moves) - 2) if mistake_fits(positions[i], moves[i], kind)]
    if not fits:
        return None
    at = rng.choice(fits)
    if kind == "missed_capture":
        # After the missed capture the game goes on from the board as it physically is; the
        # next player does not lift a pit that was to be taken (that looks just like the
        # capture being taken).
        out = positions[at].outcome(moves[at])
        after = missed_capture_position(out)
        assert after is not None
        taken = {p for p, _ in out.captures}
        first = rng.choice([m for m in after.legal_moves() if m not in taken])
        moves = [*moves[: at + 1], first, *random_full_game(after.play(first), rng)]
    return render_game(start, moves, beliefs, pace, rng, mistake=(at, kind))


def seeded_game_with_mistake(
    start: Position, kind: str, beliefs: BeliefModel, pace: Pace, seed: int
) -> Playthrough | None:
    """The game with a mistake of ``kind`` that seed ``seed`` of the referee bench plays:
    the first of twenty tries (random generators ``seed * 1000 + try``) whose game offers
    a move where the mistake fits, or None."""
    for attempt in range(20):
        play = game_with_mistake(start, kind, beliefs, pace, random.Random(seed * 1000 + attempt))
        if play is not None and play.expected:
            return play
    return None


DESYNCS = ("new_game", "undo", "new_game_command", "set_position", "restart")


def desync_session(
    start: Position, kind: str, beliefs: BeliefModel, pace: Pace, rng: random.Random
) -> Playthrough:
    """A session that throws the referee off the game, and lets it find the game again.

    * ``new_game``: the first game is played to its end, then the players set up the
      start and play a second game;
    * ``restart``: the players start again in the middle of a game;
    * ``undo``: a person presses Undo after a move the board shows; the players put the
      board back as it was before that move and play on;
    * ``new_game_command``: a person presses New game while the players play on;
    * ``set_position``: a person sets a position the board does not show while the
      players play on (the board keeps the game the referee was following).
    """
    moves = random_full_game(start, rng)
    if kind == "new_game":
        second = random_full_game(start, rng)[: rng.randint(6, 20)]
        play = render_game(start, moves, beliefs, pace, rng)
        return _continue(play, start, second, beliefs, pace, rng, kind, new_game=True)
    cut = rng.randint(8, max(9, min(40, len(moves) - 12)))
    first = moves[:cut]
    pos = start
    for m in first:
        pos = pos.play(m)
    play = render_game(start, first, beliefs, pace, rng)
    if kind == "restart":
        second = random_full_game(start, rng)[: rng.randint(6, 20)]
        return _continue(play, start, second, beliefs, pace, rng, kind, new_game=True)
    rest = random_full_game(pos, rng)[: rng.randint(6, 20)]
    if kind == "undo":
        # Undo after the last move: the board still shows it; a moment later the players
        # put the board back as it was before it, and play the game on from there.
        before = start
        for m in first[:-1]:
            before = before.play(m)
        play.timeline.append(Command(play.timeline[-1].t + 0.2, {"command": "undo"}))
        rest = random_full_game(before, rng)[: rng.randint(6, 20)]
        play.moves.pop()
        play.done_at.pop()
        return _continue(play, before, rest, beliefs, pace, rng, kind, set_up=True)
    if kind == "new_game_command":
        command: dict[str, Any] = {"command": "new_game"}
    elif kind == "set_position":
        # One move on from the board's game, but not the move the players play next:
        # that one would put the position set on the board, and nothing be out of sync.
        others = [m for m in pos.legal_moves() if not rest or m != rest[0]]
        wrong = pos.play(others[0]) if others else start
        if wrong.is_over:
            wrong = start
        command = {"command": "set_position", "position": wrong.to_text()}
    else:
        raise ValueError(f"unknown desync {kind!r}")
    play.timeline.append(Command(play.timeline[-1].t + 0.2, command))
    return _continue(play, pos, rest, beliefs, pace, rng, kind)


def games_in_a_row(
    start: Position, games: int, beliefs: BeliefModel, pace: Pace, rng: random.Random
) -> Playthrough:
    """``games`` random full games in one session: after each, the players gather the
    seeds, lay out the start position and play the next."""
    play = render_game(start, random_full_game(start, rng), beliefs, pace, rng)
    play.games = [len(play.moves)]
    for _ in range(games - 1):
        play = _continue(
            play, start, random_full_game(start, rng), beliefs, pace, rng, "games", new_game=True
        )
    play.desync = None
    return play


def _continue(
    play: Playthrough,
    pos: Position,
    moves: Sequence[int],
    beliefs: BeliefModel,
    pace: Pace,
    rng: random.Random,
    kind: str,
    *,
    new_game: bool = False,
    set_up: bool = False,
) -> Playthrough:
    """Play ``moves`` from ``pos`` after ``play``, in the same session (time goes on)."""
    last_t = play.timeline[-1].t if play.timeline else 0.0
    more = render_game(pos, moves, beliefs, pace, rng)
    offset = last_t + (3.0 if new_game or set_up else 0.5)
    shifted: list[TimelineItem] = []
    if new_game or set_up:
        # Hands all over the board while it is set up: nothing readable until it is done.
        n = len(pos.pits)
        shifted.append(Observation(round(last_t + 1.0, 6), "camera", False, (None,) * n))
    for item in more.timeline:
        t = round(item.t + offset, 6)
        if isinstance(item, Observation):
            shifted.append(
                Observation(t, item.source, item.stable, item.pits, item.stores, item.lifted)
            )
        else:
            shifted.append(Command(t, item.command))
    play.timeline.extend(shifted)
    play.moves.extend(more.moves)
    play.done_at.extend(t + offset for t in more.done_at)
    if new_game:
        play.games = [*play.games, len(more.moves)]
    else:
        play.games = [len(play.moves)]
    first_still = next((t + offset for t in more.still_boards), offset)
    play.still_boards.extend(t + offset for t in more.still_boards)
    play.truth.extend((round(t + offset, 6), b) for t, b in more.truth)
    play.desync = (kind, first_still)
    play.final = more.final
    return play


def board_at(play: Playthrough, t: float) -> tuple[int, ...] | None:
    """The board as it physically stood at time ``t`` (None before the session began)."""
    i = bisect.bisect_right(play.truth, t, key=lambda change: change[0])
    return play.truth[i - 1][1] if i else None


def feed(referee: Referee, item: TimelineItem) -> list[Event]:
    """Give one timeline item to ``referee`` (a refused command gives no event)."""
    if isinstance(item, Command):
        from core.referee.commands import CommandError

        try:
            return referee.command(item.command, item.t)
        except CommandError:
            return []
    return referee.observe(item)
