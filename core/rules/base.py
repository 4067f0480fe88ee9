"""What every rule set provides, and the small value types they share.

A :class:`RuleSet` is an immutable description of one game (Oware under some
options, or universal mancala for n players under some variants). It knows
how to sow, capture, decide legality and end the game; :class:`core.Position`
holds the state and delegates every rule question to its rule set. Adding a
game means writing one subclass and registering it in :mod:`core.rules`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from core.notation import PITS_PER_PLAYER, move_name, player_name

if TYPE_CHECKING:
    from core.position import Position


def store_slot(player: int) -> int:
    """The slot number of ``player``'s store in a sowing path (pits are >= 0).

    >>> store_slot(0), store_slot(1)
    (-1, -2)
    """
    return -1 - player


class Sowing(NamedTuple):
    """Raw result of applying a move: the next state and what happened on the way."""

    pits: tuple[int, ...]
    stores: tuple[int, ...]
    next_player: int
    sown: tuple[int, ...]
    captures: tuple[tuple[int, int], ...]
    extra_turn: bool
    grand_slam: bool
    relays: tuple[int, ...]
    relay_steps: tuple[int, ...] = ()
    """For each relay pickup, how many seeds had been sown when it happened."""


@dataclass(frozen=True, slots=True)
class Ending:
    """How and why a game ended, with the final score of every player."""

    reason: str
    """A short code: ``score``, ``repetition``, ``two_rounds``, ``declared``, ``no_feed``,
    ``no_seeds``, ``no_safe_move``, ``all_sown``, ``emptied``."""
    scores: tuple[int, ...]
    text: str
    """The reason in words, for people."""

    @property
    def winner(self) -> int | None:
        """The player with the highest score, or None for a draw."""
        best = max(self.scores)
        leaders = [p for p, s in enumerate(self.scores) if s == best]
        return leaders[0] if len(leaders) == 1 else None


@dataclass(frozen=True, slots=True)
class OptionInfo:
    """One option of a rule set, described for people (``oware-companion rules``)."""

    name: str
    default: Any
    choices: tuple[Any, ...]
    text: str


class RuleSet(ABC):
    """One game under fixed options. Immutable and hashable."""

    family: str = ""
    """``oware`` or ``universal``."""

    def __init__(self, name: str, players: int, seeds_per_pit: int, options: Mapping[str, Any]):
        self.name = name
        self.players = players
        self.seeds_per_pit = seeds_per_pit
        self.options: dict[str, Any] = dict(options)
        self.num_pits = PITS_PER_PLAYER * players
        self.total_seeds = self.num_pits * seeds_per_pit
        self._key = (type(self).__name__, tuple(sorted(self.options.items())))

    # -- identity -------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        return isinstance(other, RuleSet) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} {self.options}>"

    @property
    def touch_move(self) -> bool:
        """Whether the first pit a player lifts is their move (referee enforces it)."""
        return bool(self.options.get("touch_move", False))

    # -- board geometry ---------------------------------------------------------
    def owner(self, pit: int) -> int:
        """The player who owns ``pit``."""
        return pit // PITS_PER_PLAYER

    def own_pits(self, player: int) -> range:
        """The pits of ``player`` in sowing order."""
        return range(PITS_PER_PLAYER * player, PITS_PER_PLAYER * (player + 1))

    def pit_name(self, pit: int) -> str:
        return move_name(pit, self.players)

    def player_name(self, player: int) -> str:
        return player_name(player, self.players)

    def initial_pits(self) -> tuple[int, ...]:
        return (self.seeds_per_pit,) * self.num_pits

    # -- rules ----------------------------------------------------------------
    @abstractmethod
    def playable(self, pos: Position) -> list[int]:
        """Pits the player to move may play, ignoring whether the game has ended.

        :meth:`Position.legal_moves` caches this and returns nothing once the game is over.
        """

    @abstractmethod
    def illegal_reason(self, pos: Position, pit: int) -> str:
        """Why ``pit`` is not a legal move in ``pos``, in words ("" when it is legal)."""

    @abstractmethod
    def sowing_ring(self, mover: int, origin: int) -> tuple[int, ...]:
        """The slots a sowing from ``origin`` visits, in order, for one lap.

        Seed k of a plain sowing (no relay) lands in ``ring[k % len(ring)]``.
        """

    @abstractmethod
    def apply(self, pos: Position, pit: int) -> Sowing:
        """Sow ``pit`` (assumed legal) and return the raw result."""

    @abstractmethod
    def ending(self, pos: Position) -> Ending | None:
        """The end of the game reached in ``pos``, or None if play goes on."""

    def declared_ending(self, pos: Position) -> Ending:
        """End a cycle by declaration: every player takes the seeds on their own side."""
        scores = self.own_side_scores(pos)
        return Ending(
            "declared",
            scores,
            "the players declared an endless cycle; each takes the seeds on their own side",
        )

    def own_side_scores(self, pos: Position) -> tuple[int, ...]:
        """Stores plus the seeds still in each player's own pits."""
        return tuple(
            pos.stores[p] + sum(pos.pits[i] for i in self.own_pits(p)) for p in range(self.players)
        )

    @classmethod
    @abstractmethod
    def option_info(cls) -> tuple[OptionInfo, ...]:
        """Every option of this family, for documentation and validation."""

    @abstractmethod
    def describe(self) -> str:
        """The rule set in a few sentences, for people."""
