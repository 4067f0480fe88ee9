"""Oware (Awalé, Awari) for two players, under the international Abapa rules and the
regional differences our rule documents describe.

The rules, as implemented (documents in ``shared/rules``; see ``docs/RULES.md``):

1. 12 pits of 4 seeds. South (player 0) owns pits 0–5 (A–F), North pits 6–11 (a–f).
2. A move empties one non-empty pit of the mover and sows its seeds one by one
   counter-clockwise (pit i to pit i+1). With 12 or more seeds the origin pit
   is skipped on every lap, so it is left empty.
3. If the last seed lands on the opponent's side and makes that pit 2 or 3,
   those seeds are captured, and so are the seeds of the pits before it
   (clockwise) while they are on the opponent's side and hold 2 or 3.
4. A grand slam (a capture that would take every seed on the opponent's side)
   is, by option ``grand_slam``:

   * ``no_capture`` (Abapa, default): the move is legal and captures nothing;
   * ``forbidden``: a move that would leave the opponent with no seeds may not
     be played while another move exists; if every move would, the game ends
     and each player adds the seeds on their side to their captures;
   * ``capture_all``: the move captures everything.

5. Must feed: if the opponent has no seeds the mover must give them at least
   one. If no move does, the game ends and the mover takes every seed left.
   A player to move who has no seeds at all (possible only after a grand-slam
   capture) ends the game; the opponent takes the seeds on their side.
6. The game ends when a player has captured more than half the seeds (25) or
   both have exactly half (24–24).
7. Endless cycles, by option ``cycle``:

   * ``repetition`` (default): the game ends the first time a position (pits,
     scores, side to move) repeats since the last capture; each player takes
     the seeds on their own side;
   * ``two_rounds``: the seeds have gone round for more than two full rounds
     without a capture and without the arrangement changing. We read this as
     the same position occurring for the third time since the last capture
     (the cycle has been gone round twice); same division;
   * ``declaration``: only when the players or the referee declare it.

   Declaring the end of a cycle is always possible (:meth:`Position.declare_cycle_end`).

>>> from core import Position
>>> Position.initial("abapa").play(5).to_text()
'4-4-4-4-4-0-5-5-5-5-4-4-0-0-N'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from core.errors import UnknownRulesError
from core.notation import join_names
from core.rules.base import Ending, OptionInfo, RuleSet, Sowing

if TYPE_CHECKING:
    from core.position import Position

N = 12
HALF = 6

GRAND_SLAM_CHOICES = ("no_capture", "forbidden", "capture_all")
CYCLE_CHOICES = ("repetition", "two_rounds", "declaration")


def _build_paths() -> tuple[tuple[tuple[int, ...], ...], ...]:
    """PATHS[origin][n]: the pits that receive the n seeds of ``origin``, in order."""
    table = []
    for origin in range(N):
        ring = [(origin + k) % N for k in range(1, N)]  # 11 pits: the origin is skipped
        table.append(tuple(tuple(ring[k % 11] for k in range(n)) for n in range(200)))
    return tuple(table)


PATHS = _build_paths()


class OwareRules(RuleSet):
    """Two-player Oware. See the module docstring for the rules and options."""

    family = "oware"

    def __init__(self, name: str = "abapa", options: Mapping[str, Any] | None = None):
        opts = {"grand_slam": "no_capture", "cycle": "repetition", "touch_move": False}
        for key, value in (options or {}).items():
            if key not in opts:
                known = ", ".join(sorted(opts))
                raise UnknownRulesError(f"Oware has no option {key!r} (options: {known})")
            opts[key] = value
        if opts["grand_slam"] not in GRAND_SLAM_CHOICES:
            raise UnknownRulesError(
                f"grand_slam must be one of {', '.join(GRAND_SLAM_CHOICES)} "
                f"(got {opts['grand_slam']!r})"
            )
        if opts["cycle"] not in CYCLE_CHOICES:
            raise UnknownRulesError(
                f"cycle must be one of {', '.join(CYCLE_CHOICES)} (got {opts['cycle']!r})"
            )
        if not isinstance(opts["touch_move"], bool):
            raise UnknownRulesError("touch_move must be true or false")
        super().__init__(name, players=2, seeds_per_pit=4, options=opts)
        self.grand_slam: str = opts["grand_slam"]
        self.cycle: str = opts["cycle"]

    # -- sowing -----------------------------------------------------------------
    def _sow(
        self, pits: tuple[int, ...], pit: int, mover: int
    ) -> tuple[list[int], tuple[int, ...], list[tuple[int, int]], bool]:
        """Sow ``pit`` and find the capture, before the grand-slam rule is applied.

        Returns (board after sowing, path, capture chain, whether the chain
        would take every seed on the opponent's side).
        """
        board = list(pits)
        n = board[pit]
        board[pit] = 0
        path = PATHS[pit][n]
        for s in path:
            board[s] += 1
        last = path[-1]
        lo = HALF if mover == 0 else 0
        chain: list[tuple[int, int]] = []
        i = last
        while i >= lo and i < lo + HALF and 2 <= board[i] <= 3:
            chain.append((i, board[i]))
            i -= 1
        if not chain:
            return board, path, chain, False
        taken = sum(c for _, c in chain)
        whole = taken == sum(board[lo : lo + HALF])
        return board, path, chain, whole

    def sowing_ring(self, mover: int, origin: int) -> tuple[int, ...]:
        return PATHS[origin][11]

    def apply(self, pos: Position, pit: int) -> Sowing:
        mover = pos.to_move
        board, path, chain, whole = self._sow(pos.pits, pit, mover)
        grand_slam = whole
        stores = pos.stores
        if chain and not (whole and self.grand_slam == "no_capture"):
            for i, _ in chain:
                board[i] = 0
            taken = sum(c for _, c in chain)
            stores = (
                (stores[0] + taken, stores[1]) if mover == 0 else (stores[0], stores[1] + taken)
            )
        else:
            chain = []
        return Sowing(tuple(board), stores, 1 - mover, path, tuple(chain), False, grand_slam, ())

    def _leaves_opponent_seeds(self, pos: Position, pit: int) -> bool:
        """Whether the opponent still has a seed after ``pit`` is played (captures included)."""
        mover = pos.to_move
        board, _, chain, whole = self._sow(pos.pits, pit, mover)
        lo = HALF if mover == 0 else 0
        if chain and not (whole and self.grand_slam == "no_capture"):
            for i, _ in chain:
                board[i] = 0
        return any(board[lo : lo + HALF])

    # -- legality ---------------------------------------------------------------
    def _candidate_moves(self, pos: Position) -> list[int]:
        pits = pos.pits
        base = HALF * pos.to_move
        return [i for i in range(base, base + HALF) if pits[i]]

    def playable(self, pos: Position) -> list[int]:
        moves = self._candidate_moves(pos)
        opp_lo = HALF * (1 - pos.to_move)
        if self.grand_slam == "forbidden" or not any(pos.pits[opp_lo : opp_lo + HALF]):
            # Must feed (and, when grand slams are forbidden, never leave them bare).
            return [m for m in moves if self._leaves_opponent_seeds(pos, m)]
        return moves

    def illegal_reason(self, pos: Position, pit: int) -> str:
        if pos.is_over:
            return "the game is over"
        if not 0 <= pit < N:
            return f"there is no pit {pit}"
        mover = pos.to_move
        who = self.player_name(mover)
        name = self.pit_name(pit)
        if self.owner(pit) != mover:
            return f"pit {name} belongs to {self.player_name(1 - mover)}; {who} is to move"
        if pos.pits[pit] == 0:
            return f"pit {name} is empty"
        legal = pos.legal_moves()
        if pit in legal:
            return ""
        names = join_names([self.pit_name(m) for m in legal])
        opp = self.player_name(1 - mover)
        opp_lo = HALF * (1 - mover)
        if not any(pos.pits[opp_lo : opp_lo + HALF]):
            return f"{opp} has no seeds: you must feed them; {names} would"
        return f"{name} would leave {opp} with no seeds, which is forbidden here; play {names}"

    # -- end of game --------------------------------------------------------------
    def ending(self, pos: Position) -> Ending | None:
        s0, s1 = pos.stores
        half = self.total_seeds // 2
        if s0 > half or s1 > half or (s0 == half and s1 == half):
            return Ending(
                "score",
                pos.stores,
                "a player has captured more than half the seeds"
                if max(s0, s1) > half
                else "both players have captured half the seeds",
            )
        if self.cycle != "declaration" and pos.prev is not None:
            needed = 1 if self.cycle == "repetition" else 2
            if pos.repetitions() >= needed:
                if self.cycle == "repetition":
                    text = "the position repeated; each player takes the seeds on their side"
                    return Ending("repetition", self.own_side_scores(pos), text)
                text = (
                    "the seeds went round for two full rounds without a capture; "
                    "each player takes the seeds on their side"
                )
                return Ending("two_rounds", self.own_side_scores(pos), text)
        mover = pos.to_move
        pits = pos.pits
        if mover == 0:
            mine, theirs = sum(pits[:HALF]), sum(pits[HALF:])
        else:
            mine, theirs = sum(pits[HALF:]), sum(pits[:HALF])
        if mine and theirs and self.grand_slam != "forbidden":
            return None  # the common case: both sides have seeds, every non-empty pit plays
        if mine == 0:
            scores = list(pos.stores)
            scores[1 - mover] += theirs
            return Ending(
                "no_seeds",
                tuple(scores),
                f"{self.player_name(mover)} has no seeds to sow; "
                f"{self.player_name(1 - mover)} takes the seeds on their side",
            )
        if not pos.playable_moves():
            if theirs == 0:
                scores = list(pos.stores)
                scores[mover] += mine
                return Ending(
                    "no_feed",
                    tuple(scores),
                    f"{self.player_name(1 - mover)} has no seeds and "
                    f"{self.player_name(mover)} cannot feed them; "
                    f"{self.player_name(mover)} takes the seeds left",
                )
            return Ending(
                "no_safe_move",
                self.own_side_scores(pos),
                f"every move of {self.player_name(mover)} would leave "
                f"{self.player_name(1 - mover)} without seeds; each player "
                "adds the seeds on their side",
            )
        return None

    # -- documentation -------------------------------------------------------------
    @classmethod
    def option_info(cls) -> tuple[OptionInfo, ...]:
        return (
            OptionInfo(
                "grand_slam",
                "no_capture",
                GRAND_SLAM_CHOICES,
                "a move that would capture every seed on the opponent's side: legal "
                "but captures nothing (no_capture, Abapa); may not be played while "
                "another move exists (forbidden); captures everything (capture_all)",
            ),
            OptionInfo(
                "cycle",
                "repetition",
                CYCLE_CHOICES,
                "endless cycles end at the first repeated position since the last "
                "capture (repetition, Abapa); when a position occurs a third time, "
                "i.e. after two full rounds without change (two_rounds); or only when "
                "declared (declaration). Each player then takes the seeds on their side",
            ),
            OptionInfo(
                "touch_move", False, (False, True), "the first pit a player lifts is their move"
            ),
        )

    def describe(self) -> str:
        gs = {
            "no_capture": "a grand slam is legal and captures nothing",
            "forbidden": "a move leaving the opponent without seeds is forbidden",
            "capture_all": "a grand slam captures everything",
        }[self.grand_slam]
        cy = {
            "repetition": "a repeated position ends the game",
            "two_rounds": "two full rounds without change end the game",
            "declaration": "cycles end only by declaration",
        }[self.cycle]
        return f"Oware, 2 players, 48 seeds; {gs}; {cy}."
