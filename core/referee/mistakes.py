"""The mistakes players make, each as the boards it leaves and the alert it raises.

Every kind of mistake the referee knows is a set of *stages* of play (see
:mod:`core.referee.stages`) with an :class:`Mistake` attached:

* ``illegal_move``: a pit that may not be played is lifted (and perhaps sown);
* ``illegal_sowing``: seeds sown the wrong way (:func:`mistaken_path`): a pit
  skipped, a pit given two seeds, a seed into the origin pit on a lap of 12 or
  more, the whole sowing clockwise;
* ``wrong_capture``: seeds taken from pits the move may not take (not holding 2
  or 3, out of the chain, on the mover's own side): these boards are proposed
  from what the reading shows (:func:`wrong_capture_removed`), since any set of
  pits could be taken;
* ``missed_capture``: the next player starts with the capture still on the
  board (a way out of the move, not a stage: see :class:`core.referee.stages.Exit`).

A board that no stage explains is ``board_disturbed`` (:mod:`core.referee.tracker`).

>>> mistaken_path("skip", (1, 2, 3, 4, 5, 6), 0, 3, 1)
[1, 3, 4]
>>> mistaken_path("clockwise", (1, 2, 3, 4, 5, 6), 0, 2)
[6, 5]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache, partial
from typing import Any

from core.position import MoveOutcome, Position
from core.referee import wording

#: The kinds of sowing mistake (:func:`mistaken_path`).
SOWING_KINDS = ("skip", "double", "origin", "clockwise")


# (not frozen, like core.referee.stages.Stage: hundreds are built per position)
@dataclass(slots=True)
class Mistake:
    """The alert a mistaken stage raises. Its words are written only when it is raised:
    hundreds of mistaken stages are built per position, few ever become alerts."""

    key: tuple[Any, ...]
    """Identifies the mistake (two stages of one wrong sowing raise one alert)."""
    make: Callable[[], dict[str, Any]] = field(compare=False, hash=False)

    @property
    def type(self) -> str:
        return str(self.key[0])

    def alert(self) -> dict[str, Any]:
        return self.make()


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


# (not frozen, like core.referee.stages.Stage: hundreds are built per position)
@dataclass(slots=True)
class SowingMistake:
    """One way a move's sowing goes wrong: the slots its seeds go to instead."""

    kind: str
    wrong_index: int
    """The first seed that goes wrong (0-based): seeds before it were sown right."""
    path: tuple[int, ...]
    mistake: Mistake
    first_adds: tuple[int, ...] = ()
    """Seeds each pit gets from the first ``wrong_index + 1`` seeds of ``path`` (the board
    after the wrong seed is the lifted board plus these)."""
    end_adds: tuple[int, ...] = ()
    """Seeds each pit gets from the whole of ``path``."""


@dataclass(frozen=True, slots=True)
class _Shape:
    """A wrong sowing as the board's geometry makes it, shared by every position."""

    kind: str
    wrong_index: int
    path: tuple[int, ...]
    pits: tuple[int, ...]
    words: tuple[int, int]
    key: tuple[Any, ...]
    first_adds: tuple[int, ...]
    end_adds: tuple[int, ...]


def _adds(path: Sequence[int], pits: int) -> tuple[int, ...]:
    counts = [0] * pits
    for slot in path:
        if slot >= 0:
            counts[slot] += 1
    return tuple(counts)


@lru_cache(maxsize=8192)
def _shapes(ring: tuple[int, ...], o: int, n: int, limit: int, pits: int) -> tuple[_Shape, ...]:
    """The wrong sowings of ``n`` seeds from ``o`` round ``ring`` on a board of ``pits``,
    varied before seed ``limit``: they depend on the board's geometry only, so every
    position shares them (the referee builds them for hundreds of positions a second)."""
    size = len(ring)
    out: list[_Shape] = []

    def made(kind: str, i: int, named: tuple[int, ...], a: int, b: int, key: Any) -> None:
        path = tuple(mistaken_path(kind, ring, o, n, i))
        out.append(
            _Shape(
                kind,
                i,
                path,
                named,
                (a, b),
                ("illegal_sowing", *key),
                _adds(path[: i + 1], pits),
                _adds(path, pits),
            )
        )

    for i in range(limit):
        meant, got = ring[i % size], ring[(i + 1) % size]
        if meant >= 0 and got >= 0:
            made("skip", i, (meant, got), meant, got, ("skip", o, meant))
    for i in range(1, limit):
        twice, meant = ring[(i - 1) % size], ring[i % size]
        if twice >= 0 and meant >= 0:
            made("double", i, (twice, meant), twice, meant, ("double", o, twice))
    if n > size:
        made("origin", size, (o,), o, o, ("origin", o))
    backwards = tuple(reversed(ring))
    if backwards[0] >= 0 and ring[0] >= 0:
        made("clockwise", 0, (o, backwards[0]), backwards[0], ring[0], ("clockwise", o))
    return tuple(out)


def sowing_mistakes(out: MoveOutcome) -> Iterator[SowingMistake]:
    """Every wrong sowing of ``out`` the referee recognises.

    Only seeds before the first relay pick-up (universal variant 9) are varied: after it
    the sowing depends on the board, so a wrong seed there is not a simple variant.
    """
    rules = out.before.ruleset
    o, n = out.pit, len(out.sown)
    ring = tuple(rules.sowing_ring(out.player, o))
    limit = min(n, out.relay_steps[0] if out.relay_steps else n)
    for sh in _shapes(ring, o, n, limit, rules.num_pits):
        # a partial, not a closure: a referee (holding its mistakes) can be pickled; the
        # words are written only if the alert is raised
        alert = partial(
            _sowing_alert, out, list(sh.pits), (sh.kind, o, *sh.words), sh.path, sh.wrong_index
        )
        yield SowingMistake(
            sh.kind,
            sh.wrong_index,
            sh.path,
            Mistake(sh.key, alert),
            sh.first_adds,
            sh.end_adds,
        )


def _sowing_alert(
    out: MoveOutcome,
    pits: list[int],
    words: tuple[str, int, int, int],
    path: tuple[int, ...],
    wrong_index: int,
) -> dict[str, Any]:
    text = wording.sowing_mistake_words(out.before.ruleset, *words)
    return wording.sowing_alert(out, pits, text, path, wrong_index)


def illegal_lift(pos: Position, pit: int) -> Mistake:
    """Lifting ``pit``, which may not be played now."""
    return Mistake(("illegal_move", pit), partial(wording.illegal_move_alert, pos, pit))


def illegal_lift_path(pos: Position, pit: int) -> list[int]:
    """Where the seeds of an illegally lifted ``pit`` go when they are sown anyway."""
    rules = pos.ruleset
    ring = rules.sowing_ring(rules.owner(pit), pit)
    return [ring[k % len(ring)] for k in range(pos.pits[pit])]


def wrong_capture_removed(
    out: MoveOutcome, sown_board: Sequence[int], seen: Sequence[int | None]
) -> tuple[int, ...] | None:
    """The pits a reading shows taken that the capture of ``out`` may not take, with the
    right ones taken alongside (all sorted), or None if the reading shows no such thing.

    Players take seeds from the pits a move sowed into or captures: other emptied pits
    are lifts. Every other pit must read as the sown board left it.
    """
    removed: list[int] = []
    for i, (s, b) in enumerate(zip(sown_board, seen, strict=True)):
        if b is None or b == s:
            continue
        if b == 0 and s > 0:
            removed.append(i)
        else:
            return None
    allowed = {p for p, _ in out.captures}
    if not removed or not set(removed) <= {s for s in out.sown if s >= 0} | allowed:
        return None
    if set(removed) <= allowed:
        return None
    return tuple(removed)


def wrong_capture(out: MoveOutcome, sown_board: tuple[int, ...], removed: Sequence[int]) -> Mistake:
    """Taking ``removed`` (right pits included) after ``out``."""
    removed = tuple(removed)
    return Mistake(
        ("wrong_capture", out.pit, removed),
        partial(wording.wrong_capture_alert, out, sown_board, removed),
    )


def sown_board(out: MoveOutcome) -> tuple[int, ...]:
    """The board ``out`` leaves before its capture is taken."""
    board = list(out.position.pits)
    for p, c in out.captures:
        board[p] += c
    return tuple(board)
