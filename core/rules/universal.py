""" "Universal" mancala for 2, 3 and 4 players, with its ten optional variants.

Source: the Polish shop's rules (``shared/rules/002_*.txt``). As implemented
(readings of ambiguous sentences are marked *reading*; ``docs/RULES.md`` has
the same list with the original sentences):

* Each player has 6 pits and a store on their right; 4 seeds per pit.
  Player p owns pits 6p … 6p+5; turn order follows sowing order (0, 1, 2, …).
* Sowing runs counter-clockwise from the mover's pit through their own pits,
  their own store and the opponents' pits, skipping the opponents' stores and
  the origin pit.
* A player with no seeds is skipped.
* A last seed in the mover's own store gives another turn.
* A last seed in one of the mover's own pits that was empty captures the seeds
  in the opposite pits together with the capturing seed, into the mover's
  store. Opposite: with 2 players the facing pit (pit i faces 11 - i); with 3
  and 4 players the pit in the same position on every opponent's row
  (6q + k for pit 6p + k). If the opposite pits are empty nothing is captured.
* The game ends when every seed has been played into the stores; the player
  with the most seeds in their store wins (a shared first place is a draw).
* *Reading*: the documents do not say how an endless game ends (possible when
  stores are skipped, variant 5). As in Oware, the game ends at the first
  repetition of a position since a store last changed, and every player adds
  the seeds in their own pits to their store.

Variants (options; ``variants=[…]`` takes their numbers):

1. ``touch_move``: the first pit a player touches is their move (the referee enforces it).
2. ``seeds_per_pit=3``.
3. ``capturing_seed_stays``: the capturing seed stays on the board; only
   opponents' seeds are taken.
4. ``first_empty_ends``: *reading*: the game ends as soon as any player's pits
   are all empty after a move; seeds still in pits count for nobody.
5. ``skip_stores``: stores are skipped while sowing (so there are no extra
   turns); capturing is the only way to collect seeds.
6. ``single_opponent_capture`` (4 players only): *reading*: the capture takes
   only from the player sitting opposite (two seats on), at the same position.
7. ``feeding``: if the next player's pits are all empty, the mover must make a
   move that puts a seed in them; if none does, the game ends and all
   remaining seeds go to the stores of the players whose pits hold them.
8. ``capture_lone_seed``: a capture facing only empty pits takes the
   capturing seed alone into the store.
9. ``relay_sowing``: a last seed landing in an occupied pit picks up that pit's
   seeds and sowing continues from there, until a last seed lands in an empty
   pit (or in the mover's store). *Reading*: the move's origin pit stays
   skipped for the whole move; a relay that would go on forever (the board
   and hand repeating) stops where it is.
10. ``capture_on_four``: a capture is made not by an own empty pit but by any
    pit (own pits included) that the last seed brings to exactly four seeds;
    only those four seeds are captured.

Variants 3, 6 and 8 change the empty-pit capture and so do not combine with
10; 3 and 8 contradict each other; 9 and 10 contradict each other (a relay
only ends in an empty pit, which then holds one seed, never four).

>>> from core import Position
>>> p = Position.initial("universal", players=3)
>>> len(p.pits), p.stores, p.to_move
(18, (0, 0, 0), 0)
>>> q = p.play(2)          # 4 seeds from C: D, E, F and the store -> another turn
>>> q.stores, q.to_move
((1, 0, 0), 0)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from core.errors import UnknownRulesError
from core.notation import PITS_PER_PLAYER, join_names
from core.rules.base import Ending, OptionInfo, RuleSet, Sowing, store_slot

if TYPE_CHECKING:
    from core.position import Position

#: Variant number -> option name (``seeds_per_pit`` is variant 2, set to 3).
VARIANT_OPTIONS: dict[int, str] = {
    1: "touch_move",
    3: "capturing_seed_stays",
    4: "first_empty_ends",
    5: "skip_stores",
    6: "single_opponent_capture",
    7: "feeding",
    8: "capture_lone_seed",
    9: "relay_sowing",
    10: "capture_on_four",
}

_FLAG_TEXT = {
    "touch_move": "the first pit a player touches must be played (variant 1)",
    "capturing_seed_stays": "the capturing seed stays on the board; only opponents' seeds "
    "are taken (variant 3)",
    "first_empty_ends": "the first player to empty all their own pits ends the game; seeds "
    "left in pits count for nobody (variant 4)",
    "skip_stores": "stores are skipped while sowing; capturing is the only way to collect "
    "seeds (variant 5)",
    "single_opponent_capture": "with 4 players a capture takes from the opposite player's pit "
    "only (variant 6)",
    "feeding": "a player whose next opponent has no seeds must give them one; if impossible "
    "the game ends (variant 7)",
    "capture_lone_seed": "a capture facing only empty pits takes the capturing seed alone "
    "(variant 8)",
    "relay_sowing": "a last seed landing in an occupied pit picks up its seeds and sowing "
    "continues (variant 9)",
    "capture_on_four": "a last seed that makes any pit exactly four captures those four, "
    "instead of the empty-pit capture (variant 10)",
}

_INCOMPATIBLE = (
    ("capturing_seed_stays", "capture_lone_seed"),
    ("capture_on_four", "capturing_seed_stays"),
    ("capture_on_four", "single_opponent_capture"),
    ("capture_on_four", "capture_lone_seed"),
    ("capture_on_four", "relay_sowing"),
)

#: Longest relay a move may make before it is declared endless (see variant 9).
MAX_RELAYS = 10_000


class UniversalRules(RuleSet):
    """Universal mancala for 2–4 players. See the module docstring."""

    family = "universal"

    def __init__(
        self,
        name: str = "universal",
        options: Mapping[str, Any] | None = None,
    ):
        opts: dict[str, Any] = {"players": 2, "seeds_per_pit": 4}
        opts.update({flag: False for flag in _FLAG_TEXT})
        given = dict(options or {})
        variants: Iterable[int] = given.pop("variants", ())
        for v in variants:
            if v == 2:
                opts["seeds_per_pit"] = 3
            elif v in VARIANT_OPTIONS:
                opts[VARIANT_OPTIONS[v]] = True
            else:
                raise UnknownRulesError(f"universal mancala has variants 1 to 10 (got {v!r})")
        for key, value in given.items():
            if key not in opts:
                known = ", ".join(sorted(opts))
                raise UnknownRulesError(
                    f"universal mancala has no option {key!r} (options: {known}, variants)"
                )
            opts[key] = value
        players = opts["players"]
        if players not in (2, 3, 4):
            raise UnknownRulesError(f"universal mancala is for 2, 3 or 4 players (got {players})")
        if opts["seeds_per_pit"] not in (3, 4):
            raise UnknownRulesError("seeds_per_pit must be 4, or 3 (variant 2)")
        for flag in _FLAG_TEXT:
            if not isinstance(opts[flag], bool):
                raise UnknownRulesError(f"{flag} must be true or false")
        for a, b in _INCOMPATIBLE:
            if opts[a] and opts[b]:
                raise UnknownRulesError(f"the variants {a} and {b} do not combine")
        if opts["single_opponent_capture"] and players != 4:
            raise UnknownRulesError("single_opponent_capture (variant 6) needs 4 players")
        super().__init__(name, players=players, seeds_per_pit=opts["seeds_per_pit"], options=opts)
        self.stays = bool(opts["capturing_seed_stays"])
        self.first_empty_ends = bool(opts["first_empty_ends"])
        self.skip_stores = bool(opts["skip_stores"])
        self.single = bool(opts["single_opponent_capture"])
        self.feeding = bool(opts["feeding"])
        self.lone = bool(opts["capture_lone_seed"])
        self.relay = bool(opts["relay_sowing"])
        self.on_four = bool(opts["capture_on_four"])

    # -- geometry -----------------------------------------------------------------
    @cache  # noqa: B019 - rule sets are few and live for the program
    def _ring(self, mover: int, after: int, origin: int) -> tuple[int, ...]:
        """Slots ``mover`` sows into, starting after pit ``after``, skipping ``origin``."""
        cycle: list[int] = []
        for q in range(self.players):
            cycle.extend(range(PITS_PER_PLAYER * q, PITS_PER_PLAYER * (q + 1)))
            cycle.append(store_slot(q))
        start = cycle.index(after)
        ordered = cycle[start + 1 :] + cycle[: start + 1]
        own_store = store_slot(mover)
        return tuple(
            s
            for s in ordered
            if s != origin and (s >= 0 or (s == own_store and not self.skip_stores))
        )

    def sowing_ring(self, mover: int, origin: int) -> tuple[int, ...]:
        return self._ring(mover, origin, origin)

    def opposite_pits(self, mover: int, pit: int) -> tuple[int, ...]:
        """The pits a capture from ``pit`` takes from (see the module docstring)."""
        if self.players == 2:
            return (self.num_pits - 1 - pit,)
        k = pit - PITS_PER_PLAYER * mover
        if self.single:
            return (PITS_PER_PLAYER * ((mover + 2) % 4) + k,)
        return tuple(PITS_PER_PLAYER * q + k for q in range(self.players) if q != mover)

    def _has_seeds(self, pits: tuple[int, ...] | list[int], player: int) -> bool:
        lo = PITS_PER_PLAYER * player
        return any(pits[lo : lo + PITS_PER_PLAYER])

    # -- sowing ---------------------------------------------------------------------
    def apply(self, pos: Position, pit: int) -> Sowing:
        mover = pos.to_move
        board = list(pos.pits)
        stores = list(pos.stores)
        hand = board[pit]
        board[pit] = 0
        path: list[int] = []
        relays: list[int] = []
        relay_steps: list[int] = []
        current = pit
        seen: set[tuple[tuple[int, ...], int]] = set()
        while True:
            ring = self._ring(mover, current, pit)
            size = len(ring)
            for k in range(hand):
                s = ring[k % size]
                if s >= 0:
                    board[s] += 1
                else:
                    stores[-1 - s] += 1
                path.append(s)
            last = path[-1]
            if not (self.relay and last >= 0 and board[last] > 1):
                break
            state = (tuple(board), last)
            if state in seen or len(relays) >= MAX_RELAYS:
                break  # an endless relay: stop where it is (see variant 9)
            seen.add(state)
            hand = board[last]
            board[last] = 0
            relays.append(last)
            relay_steps.append(len(path))
            current = last
        captures: list[tuple[int, int]] = []
        last = path[-1]
        extra = last == store_slot(mover)
        if last >= 0:
            if self.on_four:
                if board[last] == 4:
                    captures.append((last, 4))
            elif self.owner(last) == mover and board[last] == 1:
                taken = [(o, board[o]) for o in self.opposite_pits(mover, last) if board[o]]
                if taken:
                    captures.extend(taken)
                    if not self.stays:
                        captures.append((last, 1))
                elif self.lone:
                    captures.append((last, 1))
        for i, c in captures:
            board[i] = 0
            stores[mover] += c
        nxt = self._next_player(board, mover, extra)
        return Sowing(
            tuple(board),
            tuple(stores),
            nxt,
            tuple(path),
            tuple(captures),
            extra,
            False,
            tuple(relays),
            tuple(relay_steps),
        )

    def _next_player(self, board: list[int], mover: int, extra: bool) -> int:
        if extra and self._has_seeds(board, mover):
            return mover
        for k in range(1, self.players + 1):
            q = (mover + k) % self.players
            if self._has_seeds(board, q):
                return q
        return (mover + 1) % self.players

    # -- legality ---------------------------------------------------------------------
    def playable(self, pos: Position) -> list[int]:
        mover = pos.to_move
        moves = [i for i in self.own_pits(mover) if pos.pits[i]]
        nxt = (mover + 1) % self.players
        if self.feeding and nxt != mover and not self._has_seeds(pos.pits, nxt):
            return [m for m in moves if self._has_seeds(self.apply(pos, m).pits, nxt)]
        return moves

    def illegal_reason(self, pos: Position, pit: int) -> str:
        if pos.is_over:
            return "the game is over"
        if not 0 <= pit < self.num_pits:
            return f"there is no pit {pit}"
        mover = pos.to_move
        name = self.pit_name(pit)
        if self.owner(pit) != mover:
            return (
                f"pit {name} belongs to {self.player_name(self.owner(pit))}; "
                f"{self.player_name(mover)} is to move"
            )
        if pos.pits[pit] == 0:
            return f"pit {name} is empty"
        legal = pos.legal_moves()
        if pit in legal:
            return ""
        nxt = self.player_name((mover + 1) % self.players)
        names = join_names([self.pit_name(m) for m in legal])
        return f"{nxt} has no seeds: you must feed them; {names} would"

    # -- end of game ----------------------------------------------------------------------
    def ending(self, pos: Position) -> Ending | None:
        if not any(pos.pits):
            return Ending("all_sown", pos.stores, "every seed has been played")
        if self.first_empty_ends:
            for q in range(self.players):
                if not self._has_seeds(pos.pits, q):
                    return Ending(
                        "emptied",
                        pos.stores,
                        f"{self.player_name(q)} has emptied all their pits; "
                        "seeds left in pits count for nobody",
                    )
        if pos.prev is not None and pos.repetitions() >= 1:
            return Ending(
                "repetition",
                self.own_side_scores(pos),
                "the position repeated; every player adds the seeds in their pits",
            )
        if not pos.playable_moves():
            mover = pos.to_move
            if not self._has_seeds(pos.pits, mover):
                return Ending(
                    "no_seeds",
                    self.own_side_scores(pos),
                    f"{self.player_name(mover)} has no seeds to sow",
                )
            return Ending(
                "no_feed",
                self.own_side_scores(pos),
                f"{self.player_name((mover + 1) % self.players)} has no seeds and "
                f"{self.player_name(mover)} cannot feed them; remaining seeds go to "
                "the players whose pits hold them",
            )
        return None

    # -- documentation ------------------------------------------------------------------------
    @classmethod
    def option_info(cls) -> tuple[OptionInfo, ...]:
        return (
            OptionInfo("players", 2, (2, 3, 4), "number of players (6 pits and a store each)"),
            OptionInfo("seeds_per_pit", 4, (4, 3), "seeds per pit at the start (3 is variant 2)"),
            *(OptionInfo(flag, False, (False, True), text) for flag, text in _FLAG_TEXT.items()),
        )

    def describe(self) -> str:
        parts = [
            f"Universal mancala, {self.players} players, {self.seeds_per_pit} seeds per pit "
            f"({self.total_seeds} seeds), stores, extra turn in own store, capture from an own "
            "empty pit"
        ]
        parts += [_FLAG_TEXT[f] for f in _FLAG_TEXT if self.options[f]]
        return "; ".join(parts) + "."
