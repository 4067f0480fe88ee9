"""The position: an immutable game state and the one entry point to the rules.

>>> from core import Position
>>> p = Position.initial()              # Abapa Oware, South to move
>>> p.legal_moves()
[0, 1, 2, 3, 4, 5]
>>> q = p.play(5)                       # South plays F
>>> q.pits, q.to_move
((4, 4, 4, 4, 4, 0, 5, 5, 5, 5, 4, 4), 1)
>>> print(q)
     f  e  d  c  b  a  <- North   0
     4  4  5  5  5  5
     4  4  4  4  4  0
     A  B  C  D  E  F  <- South   0   (North to move)
>>> Position.from_text("1-4-2-1-4-4-6-0-3-0-6-4-7-6-N").outcome(11).captures
((3, 2), (2, 3))
>>> q.play(3)
Traceback (most recent call last):
...
core.errors.IllegalMoveError: pit D belongs to South; North is to move

Positions remember the positions since the last capture (for the cycle
rules), but compare equal on the board alone: rule set, pits, stores and the
player to move.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.errors import IllegalMoveError, InvalidPositionError
from core.notation import PITS_PER_PLAYER, move_name, parse_move, side_letter
from core.rules import RuleSet, get_rules, non_default_options
from core.rules.base import Ending


@dataclass(frozen=True, slots=True)
class MoveOutcome:
    """Everything a move did, in the order a person at the board would see it."""

    player: int
    pit: int
    seeds: int
    """Seeds lifted from ``pit``."""
    sown: tuple[int, ...]
    """Slots that received a seed, in order; pits are >= 0, player q's store is -1-q."""
    captures: tuple[tuple[int, int], ...]
    """(pit, seeds) taken into the mover's store, in the order they are taken."""
    extra_turn: bool
    grand_slam: bool
    """The capture would have taken every seed of the opponent (Oware)."""
    relays: tuple[int, ...]
    """Pits picked up again by relay sowing (universal variant 9)."""
    relay_steps: tuple[int, ...]
    """For each relay, how many seeds of ``sown`` had been sown when it was picked up."""
    before: Position
    position: Position
    """The position after the move."""

    @property
    def captured(self) -> int:
        """Total seeds captured."""
        return sum(c for _, c in self.captures)

    @property
    def name(self) -> str:
        """The move's name: ``F``, ``b``, ``2C``…"""
        return move_name(self.pit, self.before.players)

    @property
    def notation(self) -> str:
        """The move as written in a game record: ``F``, or ``f+2`` when it captures."""
        return f"{self.name}+{self.captured}" if self.captured else self.name


class Position:
    """An immutable game position. Build with :meth:`initial`, :meth:`from_text`,
    :meth:`from_json` or the constructor (which validates)."""

    __slots__ = (
        "_ending",
        "_ending_known",
        "_moves",
        "pits",
        "prev",
        "ruleset",
        "stores",
        "to_move",
    )

    ruleset: RuleSet
    pits: tuple[int, ...]
    stores: tuple[int, ...]
    to_move: int
    prev: Position | None
    """The previous position if no store changed on the last move (the cycle chain)."""

    def __init__(
        self,
        ruleset: RuleSet | str,
        pits: tuple[int, ...] | list[int],
        stores: tuple[int, ...] | list[int] | None = None,
        to_move: int = 0,
        *,
        check_total: bool = True,
    ) -> None:
        rules = get_rules(ruleset) if isinstance(ruleset, str) else ruleset
        pits_t = tuple(pits)
        stores_t = tuple(stores) if stores is not None else (0,) * rules.players
        _validate(rules, pits_t, stores_t, to_move, check_total)
        self._init(rules, pits_t, stores_t, to_move, None)

    def _init(
        self,
        rules: RuleSet,
        pits: tuple[int, ...],
        stores: tuple[int, ...],
        to_move: int,
        prev: Position | None,
    ) -> None:
        self.ruleset = rules
        self.pits = pits
        self.stores = stores
        self.to_move = to_move
        self.prev = prev
        self._moves: list[int] | None = None
        self._ending: Ending | None = None
        self._ending_known = False

    @classmethod
    def _make(
        cls,
        rules: RuleSet,
        pits: tuple[int, ...],
        stores: tuple[int, ...],
        to_move: int,
        prev: Position | None,
    ) -> Position:
        """Build without validation (the rules produced it)."""
        pos = cls.__new__(cls)
        pos._init(rules, pits, stores, to_move, prev)
        return pos

    # -- construction ---------------------------------------------------------------
    @classmethod
    def initial(
        cls, rules: str | RuleSet = "abapa", *, to_move: int = 0, **options: Any
    ) -> Position:
        """The start position of a rule set (by name, with options), ``to_move`` starting.

        >>> Position.initial("universal", players=4, variants=[2]).pits[:6]
        (3, 3, 3, 3, 3, 3)
        """
        ruleset = get_rules(rules, **options) if isinstance(rules, str) else rules
        if not 0 <= to_move < ruleset.players:
            raise InvalidPositionError(
                f"player {to_move} does not exist in a {ruleset.players}-player game"
            )
        return cls._make(ruleset, ruleset.initial_pits(), (0,) * ruleset.players, to_move, None)

    @classmethod
    def from_text(cls, text: str, rules: str | RuleSet = "abapa", **options: Any) -> Position:
        """Parse the text form: pits, then stores, then the side to move, joined by ``-``.

        Two players: 12 pits, 2 stores, ``S`` or ``N``. Three or four players:
        6n pits, n stores, the player's number 1…n.

        >>> Position.from_text("4-4-4-4-4-4-4-4-4-4-4-4-0-0-S") == Position.initial()
        True
        """
        ruleset = get_rules(rules, **options) if isinstance(rules, str) else rules
        parts = text.strip().split("-")
        n = ruleset.num_pits + ruleset.players + 1
        if len(parts) != n:
            raise InvalidPositionError(
                f"a {ruleset.players}-player position has {n} fields "
                f"({ruleset.num_pits} pits, {ruleset.players} stores, side to move); "
                f"got {len(parts)} in {text!r}"
            )
        try:
            numbers = [int(x) for x in parts[:-1]]
        except ValueError:
            raise InvalidPositionError(
                f"pits and stores must be whole numbers in {text!r}"
            ) from None
        sides = [side_letter(p, ruleset.players) for p in range(ruleset.players)]
        side = parts[-1].strip().upper()
        if side not in sides:
            raise InvalidPositionError(
                f"the side to move must be one of {', '.join(sides)} (got {parts[-1]!r})"
            )
        pits, stores = numbers[: ruleset.num_pits], numbers[ruleset.num_pits :]
        return cls(ruleset, pits, stores, sides.index(side))

    def to_text(self) -> str:
        """The text form (see :meth:`from_text`)."""
        fields = [*self.pits, *self.stores]
        return "-".join(map(str, fields)) + "-" + side_letter(self.to_move, self.players)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Position:
        """Parse the JSON form (see :meth:`to_json`)."""
        if not isinstance(data, Mapping):
            raise InvalidPositionError("a position must be a JSON object")
        try:
            rules = data.get("rules", "abapa")
            options = data.get("options") or {}
            if not isinstance(rules, str) or not isinstance(options, Mapping):
                raise InvalidPositionError("'rules' must be a name and 'options' an object")
            ruleset = get_rules(rules, **options)
            return cls(
                ruleset,
                list(data["pits"]),
                list(data.get("stores") or [0] * ruleset.players),
                data.get("to_move", 0),
            )
        except KeyError as exc:
            raise InvalidPositionError(f"missing field {exc.args[0]!r}") from None
        except TypeError as exc:
            raise InvalidPositionError(f"malformed position: {exc}") from None

    def to_json(self) -> dict[str, Any]:
        """The JSON form; ``options`` appears only when they differ from the rule set's name."""
        out: dict[str, Any] = {"rules": self.ruleset.name}
        extra = non_default_options(self.ruleset)
        if extra:
            out["options"] = extra
        out.update(pits=list(self.pits), stores=list(self.stores), to_move=self.to_move)
        return out

    # -- basic facts ----------------------------------------------------------------------
    @property
    def rules(self) -> str:
        """The rule set's name (``abapa``, ``universal``…); see :attr:`ruleset` for options."""
        return self.ruleset.name

    @property
    def players(self) -> int:
        return self.ruleset.players

    def seeds_of(self, player: int) -> int:
        """Seeds in ``player``'s pits."""
        lo = PITS_PER_PLAYER * player
        return sum(self.pits[lo : lo + PITS_PER_PLAYER])

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Position)
            and self.pits == other.pits
            and self.stores == other.stores
            and self.to_move == other.to_move
            and self.ruleset == other.ruleset
        )

    def __hash__(self) -> int:
        return hash((self.pits, self.stores, self.to_move, self.ruleset))

    def __repr__(self) -> str:
        return f"Position.from_text({self.to_text()!r}, rules={self.rules!r})"

    def __str__(self) -> str:
        if self.players != 2:
            rows = []
            for p in range(self.players):
                lo = PITS_PER_PLAYER * p
                cells = " ".join(f"{c:2d}" for c in self.pits[lo : lo + PITS_PER_PLAYER])
                mark = "  <- to move" if p == self.to_move else ""
                rows.append(f"player {p + 1}: {cells} | store {self.stores[p]}{mark}")
            return "\n".join(rows)
        north = " ".join(f"{c:2d}" for c in reversed(self.pits[6:]))
        south = " ".join(f"{c:2d}" for c in self.pits[:6])
        who = "South" if self.to_move == 0 else "North"
        return (
            f"     f  e  d  c  b  a  <- North {self.stores[1]:3d}\n"
            f"    {north}\n"
            f"    {south}\n"
            f"     A  B  C  D  E  F  <- South {self.stores[0]:3d}   ({who} to move)"
        )

    # -- rules ------------------------------------------------------------------------------
    def playable_moves(self) -> list[int]:
        """Moves the rules allow, ignoring whether the game has ended (rule sets use it)."""
        if self._moves is None:
            self._moves = self.ruleset.playable(self)
        return self._moves

    def legal_moves(self) -> list[int]:
        """The pits the player to move may play, as absolute indices (empty when over)."""
        if self.is_over:
            return []
        return list(self.playable_moves())

    def is_legal(self, pit: int) -> bool:
        return not self.is_over and pit in self.playable_moves()

    def illegal_reason(self, pit: int) -> str:
        """Why ``pit`` may not be played, in words ("" if it may)."""
        return self.ruleset.illegal_reason(self, pit)

    def play(self, pit: int) -> Position:
        """The position after playing ``pit``; raises :class:`IllegalMoveError` if illegal."""
        if self.ending is not None or pit not in self.playable_moves():
            raise IllegalMoveError(self.illegal_reason(pit))
        return self._after(self.ruleset.apply(self, pit))

    def _after(self, sowing: Any) -> Position:
        chained = self if sowing.stores == self.stores else None
        return Position._make(self.ruleset, sowing.pits, sowing.stores, sowing.next_player, chained)

    def outcome(self, pit: int) -> MoveOutcome:
        """Play ``pit`` and describe everything the move did (see :class:`MoveOutcome`)."""
        if self.ending is not None or pit not in self.playable_moves():
            raise IllegalMoveError(self.illegal_reason(pit))
        s = self.ruleset.apply(self, pit)
        return MoveOutcome(
            self.to_move,
            pit,
            self.pits[pit],
            s.sown,
            s.captures,
            s.extra_turn,
            s.grand_slam,
            s.relays,
            s.relay_steps,
            self,
            self._after(s),
        )

    def play_name(self, name: str) -> Position:
        """Play a move given by name (``"F"``, ``"b"``, ``"2C"``)."""
        return self.play(parse_move(name, self.players))

    def repetitions(self) -> int:
        """How many earlier positions since the last store change equal this one."""
        count = 0
        node = self.prev
        pits, to_move = self.pits, self.to_move
        while node is not None:
            if node.pits == pits and node.to_move == to_move:
                count += 1
            node = node.prev
        return count

    # -- end of game -------------------------------------------------------------------------
    @property
    def ending(self) -> Ending | None:
        """How the game ended here, or None while it goes on."""
        if not self._ending_known:
            self._ending = self.ruleset.ending(self)
            self._ending_known = True
        return self._ending

    @property
    def is_over(self) -> bool:
        return self.ending is not None

    @property
    def scores(self) -> tuple[int, ...]:
        """Final scores once the game is over, else the seeds captured so far."""
        end = self.ending
        return end.scores if end is not None else self.stores

    @property
    def winner(self) -> int | None:
        """The winner's index once over; None for a draw or while the game goes on."""
        end = self.ending
        return end.winner if end is not None else None

    def declare_cycle_end(self) -> Position:
        """This position, ended by declaring an endless cycle (each side takes its own seeds)."""
        if self.is_over:
            raise IllegalMoveError("the game is over")
        pos = Position._make(self.ruleset, self.pits, self.stores, self.to_move, self.prev)
        pos._ending = self.ruleset.declared_ending(self)
        pos._ending_known = True
        return pos


def _validate(
    rules: RuleSet, pits: tuple[int, ...], stores: tuple[int, ...], to_move: int, check_total: bool
) -> None:
    if len(pits) != rules.num_pits:
        raise InvalidPositionError(f"{rules.name} has {rules.num_pits} pits (got {len(pits)})")
    if len(stores) != rules.players:
        raise InvalidPositionError(f"{rules.name} has {rules.players} stores (got {len(stores)})")
    for where, values in (("pit", pits), ("store", stores)):
        for i, v in enumerate(values):
            if isinstance(v, bool) or not isinstance(v, int):
                raise InvalidPositionError(f"{where} {i} must hold a whole number (got {v!r})")
            if v < 0:
                label = move_name(i, rules.players) if where == "pit" else str(i)
                raise InvalidPositionError(f"{where} {label} cannot hold {v} seeds")
    if (
        isinstance(to_move, bool)
        or not isinstance(to_move, int)
        or not 0 <= to_move < rules.players
    ):
        raise InvalidPositionError(
            f"player {to_move!r} does not exist in a {rules.players}-player game"
        )
    total = sum(pits) + sum(stores)
    if check_total and total != rules.total_seeds:
        raise InvalidPositionError(
            f"the board and stores hold {total} seeds; this game is played with {rules.total_seeds}"
        )
