"""Candidate explanations of the board, generated from the confirmed position.

From a confirmed position the referee expects a small set of boards: the
position itself; each legal move being sown (the origin lifted, then one seed
more at a time); each move sown with its capture pending, partly taken or
taken; and the mistakes players make, each as the board it would leave (a
skipped pit, a second seed in one pit, a seed into the origin pit on a lap of
12+, sowing clockwise, a pit that may not be played). The referee scores all
of them against each observation (see :mod:`core.referee.likelihood`); the
rules prior does the heavy lifting because at most a few hundred boards are
plausible.

Boards hold pits only: seeds in stores are not compared (a player may drop
captured seeds beside the board).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import combinations
from typing import Any

from core.position import MoveOutcome, Position
from core.rules.base import RuleSet

#: Log prior of a mistake relative to correct play: a referee assumes good play first.
MISTAKE_PRIOR = -5.0
#: Log prior of an in-progress state (origin lifted, seeds partly sown or taken).
PROGRESS_PRIOR = -0.5
#: Extra log prior of a board one move ahead (a move ended unseen, the next has begun).
AHEAD_PRIOR = -1.5

CORRECT_KINDS = frozenset({"idle", "sowing", "sown", "capturing", "complete", "after"})


class Alert:
    """The alert a mistake hypothesis would raise. Its words are written only if it is
    raised: hundreds of hypotheses are built per move, few ever become alerts."""

    __slots__ = ("_data", "_make", "key")

    def __init__(self, key: Any, make: Callable[[], dict[str, Any]]) -> None:
        self.key = key
        self._make = make
        self._data: dict[str, Any] | None = None

    @classmethod
    def of(cls, data: dict[str, Any]) -> Alert:
        return cls(data.get("key"), lambda: data)

    def data(self) -> dict[str, Any]:
        if self._data is None:
            self._data = {**self._make(), "key": self.key}
        return self._data


@dataclass(frozen=True, slots=True)
class Hyp:
    """One candidate explanation of the board."""

    kind: str
    """idle | sowing | sown | capturing | complete | after | illegal_move | illegal_sowing |
    wrong_capture | missed_capture. ``after``: ``origin`` was completed and the next
    move is under way (a board one move ahead)."""
    board: tuple[int, ...]
    prior: float = 0.0
    origin: int | None = None
    step: int = 0
    """Seeds sown so far (sowing states)."""
    alert: Alert | None = field(default=None, compare=False)
    """For mistakes: the event to emit (``{"type", "key", "pits", "text", ...}``)."""

    @property
    def is_mistake(self) -> bool:
        return self.kind not in CORRECT_KINDS


def sowing_boards(
    before: tuple[int, ...], origin: int, path: Sequence[int], relay_steps: Sequence[int] = ()
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


def stores_without_capture(out: MoveOutcome) -> list[int]:
    """The stores after ``out`` as if its capture had not been taken (a missed capture)."""
    stores = list(out.position.stores)
    stores[out.player] -= out.captured
    return stores


def _pit_list(slots: Sequence[int]) -> list[int]:
    return [s for s in slots if s >= 0]


def correct_hypotheses(pos: Position) -> Iterator[Hyp]:
    """The board unchanged, and every legal move from lift to captures taken."""
    yield Hyp("idle", pos.pits)
    for o in pos.legal_moves():
        out = pos.outcome(o)
        n = len(out.sown)
        boards = list(sowing_boards(pos.pits, o, out.sown, out.relay_steps))
        sown_board = boards[-1][1]
        final = out.position.pits
        for k, board in boards[:-1]:
            # Seeds still to go into a store leave the board as it will end: such a board
            # means the move is over, not "one seed still in hand".
            if board != sown_board and board != final:
                yield Hyp("sowing", board, PROGRESS_PRIOR, o, k)
        if out.captures and sown_board != final:
            yield Hyp("sown", sown_board, 0.0, o, n)
            taken = [p for p, _ in out.captures if p != o]
            for size in range(1, len(taken)):
                for subset in combinations(taken, size):
                    partial = list(sown_board)
                    for p in subset:
                        partial[p] = 0
                    if tuple(partial) != final:
                        yield Hyp("capturing", tuple(partial), PROGRESS_PRIOR, o, n)
        yield Hyp("complete", out.position.pits, 0.0, o, n)


def mistake_hypotheses(pos: Position) -> Iterator[Hyp]:
    """Boards left by the sowing mistakes of each legal move, and by illegal lifts."""
    rules = pos.ruleset
    legal = set(pos.legal_moves())
    for o in sorted(legal):
        yield from _sowing_mistakes(pos, pos.outcome(o))
    if pos.is_over:
        return
    for o, seeds in enumerate(pos.pits):
        if seeds == 0 or o in legal:
            continue
        owner = rules.owner(o)
        alert = Alert(("illegal_move", o), partial(_illegal_move_alert, pos, o))
        ring = rules.sowing_ring(owner, o)
        path = [ring[k % len(ring)] for k in range(seeds)]
        boards = list(sowing_boards(pos.pits, o, path))
        yield Hyp("illegal_move", boards[0][1], MISTAKE_PRIOR, o, 0, alert)
        yield Hyp("illegal_move", boards[-1][1], MISTAKE_PRIOR, o, seeds, alert)


def _illegal_move_alert(pos: Position, o: int) -> dict[str, Any]:
    rules = pos.ruleset
    reason = pos.illegal_reason(o) or f"pit {rules.pit_name(o)} may not be played now"
    return {
        "type": "illegal_move",
        "pits": [o],
        "text": f"pit {rules.pit_name(o)} was lifted: {reason}",
        "expected": _expected_moves_text(pos),
        "seen": f"pit {rules.pit_name(o)} lifted",
    }


def _expected_moves_text(pos: Position) -> str:
    rules = pos.ruleset
    who = rules.player_name(pos.to_move)
    moves = ", ".join(rules.pit_name(m) for m in pos.legal_moves())
    return f"{who} to play one of {moves}" if moves else "no move: the game is over"


def mistaken_path(kind: str, ring: Sequence[int], origin: int, n: int, i: int = 0) -> list[int]:
    """The slots a sowing of ``n`` seeds from ``origin`` visits when it goes wrong.

    ``ring`` is the correct lap (:meth:`RuleSet.sowing_ring`); ``i`` the seed that goes
    wrong: ``skip`` (seed i lands one slot on), ``double`` (seed i lands again in the slot
    of seed i-1), ``origin`` (the seed after a full lap drops into the origin pit),
    ``clockwise`` (every seed the wrong way round).
    """
    size = len(ring)
    if kind == "skip":
        return [ring[k % size] for k in range(n + 1) if k != i]
    if kind == "double":
        return (
            [ring[k % size] for k in range(i)]
            + [ring[(i - 1) % size]]
            + [ring[k % size] for k in range(i, n - 1)]
        )
    if kind == "origin":
        return (
            [ring[k % size] for k in range(size)]
            + [origin]
            + [ring[k % size] for k in range(size, n - 1)]
        )
    if kind == "clockwise":
        backwards = list(reversed(ring))
        return [backwards[k % size] for k in range(n)]
    raise ValueError(f"unknown sowing mistake {kind!r}")


def _sowing_mistakes(pos: Position, out: MoveOutcome) -> Iterator[Hyp]:
    rules = pos.ruleset
    o, n = out.pit, len(out.sown)
    ring = rules.sowing_ring(out.player, o)
    size = len(ring)
    limit = min(n, out.relay_steps[0] if out.relay_steps else n)
    name = rules.pit_name

    def variants() -> Iterator[
        tuple[list[int], int, tuple[Any, ...], list[int], Callable[[], str]]
    ]:
        # (wrong path, index of the wrong seed, key, pits, its words)
        for i in range(limit):
            meant, got = ring[i % size], ring[(i + 1) % size]
            if meant < 0 or got < 0:
                continue
            path = mistaken_path("skip", ring, o, n, i)
            text = partial(
                "pit {0} was skipped: the seed meant for {0} went into {1}; each pit gets "
                "one seed per lap".format,
                name(meant),
                name(got),
            )
            yield path, i, ("skip", o, meant), [meant, got], text
        for i in range(1, limit):
            twice, meant = ring[(i - 1) % size], ring[i % size]
            if twice < 0 or meant < 0:
                continue
            path = mistaken_path("double", ring, o, n, i)
            text = partial(
                "pit {0} received 2 seeds; each pit gets one per lap: the next seed "
                "belonged in {1}".format,
                name(twice),
                name(meant),
            )
            yield path, i, ("double", o, twice), [twice, meant], text
        if n > size:
            path = mistaken_path("origin", ring, o, n)
            text = partial(
                "a seed was sown into the origin pit {0}; with 12 or more seeds the origin "
                "pit is skipped on every lap".format,
                name(o),
            )
            yield path, size, ("origin", o), [o], text
        backwards = tuple(reversed(ring))
        if backwards[0] >= 0 and ring[0] >= 0:
            path = mistaken_path("clockwise", ring, o, n)
            text = partial(
                "seeds were sown clockwise (into {0} after {1}); sowing goes "
                "counter-clockwise: the first seed belongs in {2}".format,
                name(backwards[0]),
                name(o),
                name(ring[0]),
            )
            yield path, 0, ("clockwise", o), [o, backwards[0]], text

    for path, wrong_index, key, pits, text in variants():
        boards = dict(sowing_boards(pos.pits, o, path))
        alert = Alert(key, partial(_sowing_alert, rules, out, path, wrong_index, pits, text))
        yield Hyp(
            "illegal_sowing", boards[wrong_index + 1], MISTAKE_PRIOR, o, wrong_index + 1, alert
        )
        if len(path) != wrong_index + 1:
            yield Hyp("illegal_sowing", boards[len(path)], MISTAKE_PRIOR, o, len(path), alert)


def _sowing_alert(
    rules: RuleSet,
    out: MoveOutcome,
    path: list[int],
    wrong_index: int,
    pits: list[int],
    text: Callable[[], str],
) -> dict[str, Any]:
    name = rules.pit_name
    return {
        "type": "illegal_sowing",
        "pits": pits,
        "move": out.pit,
        "text": text(),
        "expected": f"move {name(out.pit)} sows " + " ".join(name(s) for s in _pit_list(out.sown)),
        "seen": "seeds in " + " ".join(name(s) for s in _pit_list(path[: wrong_index + 1])),
    }


def wrong_capture_hypothesis(
    pos: Position,
    out: MoveOutcome,
    sown_board: tuple[int, ...],
    seen: Sequence[int | None],
    prior: float = MISTAKE_PRIOR,
    own_side_penalty: float = 0.0,
) -> Hyp | None:
    """A capture taken wrongly, derived from the board seen: pits of the sown board that
    are now empty although the move may not take them.

    ``own_side_penalty`` is added when a wrongly taken pit is the mover's own: after a
    move is confirmed, an emptied own pit is more likely the next player's illegal lift.
    """
    removed = [
        i
        for i, (s, b) in enumerate(zip(sown_board, seen, strict=True))
        if b is not None and b != s and b == 0 and s > 0
    ]
    # Players take seeds from the capture's pits or pits the move sowed into; other
    # emptied pits are lifts.
    if not set(removed) <= set(out.sown) | {p for p, _ in out.captures}:
        return None
    if not removed or any(
        b is not None and b != s and not (b == 0 and s > 0)
        for s, b in zip(sown_board, seen, strict=True)
    ):
        return None
    allowed = {p for p, _ in out.captures}
    wrong = [p for p in removed if p not in allowed]
    if not wrong:
        return None
    rules = pos.ruleset
    if any(rules.owner(p) == out.player for p in wrong):
        prior += own_side_penalty
    reasons = [_why_not_capturable(pos, out, sown_board, p) for p in wrong]
    board = list(sown_board)
    for p in removed:
        board[p] = 0
    expected = (
        "capture " + ", ".join(f"{rules.pit_name(p)} ({c})" for p, c in out.captures)
        if out.captures
        else "no capture"
    )
    alert = Alert.of(
        {
            "type": "wrong_capture",
            "key": ("wrong_capture", out.pit, tuple(removed)),
            "pits": wrong,
            "move": out.pit,
            "text": "; ".join(reasons),
            "expected": expected,
            "seen": "seeds taken from " + ", ".join(rules.pit_name(p) for p in removed),
        }
    )
    return Hyp("wrong_capture", tuple(board), prior, out.pit, len(out.sown), alert)


def _why_not_capturable(pos: Position, out: MoveOutcome, board: Sequence[int], pit: int) -> str:
    rules = pos.ruleset
    name = rules.pit_name(pit)
    if rules.family != "oware":
        return f"pit {name} may not be taken by move {rules.pit_name(out.pit)}"
    if out.grand_slam:
        return (
            f"move {rules.pit_name(out.pit)} is a grand slam (it would take every seed "
            f"of {rules.player_name(1 - out.player)}), so it captures nothing"
        )
    if rules.owner(pit) == out.player:
        return f"pit {name} is on the mover's own side and may not be taken"
    if board[pit] not in (2, 3):
        return f"pit {name} holds {board[pit]}; only pits holding 2 or 3 may be taken"
    return (
        f"pit {name} is not joined to the last seed's pit {rules.pit_name(out.sown[-1])} "
        "by pits holding 2 or 3: the chain was broken"
    )


def successor_hypotheses(pos: Position) -> list[Hyp]:
    """Boards one move ahead: each legal move completed and the next move started.

    A noisy reading of the last seed can leave the referee unsure whether a move
    has ended until the next player is already sowing; these let it catch up.
    """
    out: list[Hyp] = []
    for o in pos.legal_moves():
        nxt = pos.outcome(o).position
        if nxt.is_over:
            continue
        for h in correct_hypotheses(nxt):
            if h.kind in ("sowing", "complete", "sown"):
                out.append(Hyp("after", h.board, h.prior + AHEAD_PRIOR, o, h.step))
    return out


def lines_ahead(pos: Position, depth: int) -> Iterator[tuple[tuple[int, ...], Position]]:
    """Every sequence of 1 … ``depth`` legal moves from ``pos`` and where it leads."""
    frontier: list[tuple[tuple[int, ...], Position]] = [((), pos)]
    for _ in range(depth):
        nxt: list[tuple[tuple[int, ...], Position]] = []
        for line, p in frontier:
            if p.is_over:
                continue
            for m in p.legal_moves():
                q = p.play(m)
                nxt.append(((*line, m), q))
                yield (*line, m), q
        frontier = nxt


def all_hypotheses(pos: Position) -> list[Hyp]:
    """Correct play first (so that identical boards keep their correct meaning)."""
    return [*correct_hypotheses(pos), *mistake_hypotheses(pos)]
