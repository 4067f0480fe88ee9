"""Analyse a :class:`core.Position`: every legal move with its value and the best line.

This is the engine's front door for the rest of the product (the
``analyze`` command, the live worker, the teaching view). It translates
between the core's absolute pits and the engine's mover-relative boards and
picks the search that fits the rule set:

* Oware rule sets (Abapa and its grand-slam variants): the compiled
  alpha-beta of :mod:`core.engine.search`, with the endgame database when
  the rule set is Abapa's and one is given;
* universal mancala (2, 3 or 4 players): the paranoid search of
  :mod:`core.engine.multiplayer`.

Scores are from the side to move's point of view, in centi-seeds (100 = one
seed); see :mod:`core.engine.evaluation`.

>>> from core import Position
>>> a = analyze(Position.from_text("0-0-0-0-0-1-1-1-0-0-0-0-24-21-S"), seconds=0.5)
>>> a.best_name, a.moves[0].result
('F', 'win')
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from core.engine.evaluation import WIN
from core.engine.kernel import GRAND_SLAM_MODES, flip_into, play_into, to_relative
from core.engine.ranking import layer_offset
from core.engine.retrograde import lookup
from core.engine.search import Searcher, SearchResult, describe_score, history_hashes
from core.engine.segment import (
    MAX_NODES,
    MAX_SEEDS,
    NODES_PER_SECOND,
    SegmentOutlook,
    SegmentPlan,
    segment_outlook,
)
from core.notation import move_name
from core.position import Position


@dataclass(frozen=True)
class MoveValue:
    """One legal move and what the engine thinks of it."""

    pit: int
    name: str
    score: int
    """Centi-seeds for the side to move (a known result is beyond ±WIN)."""
    exact: bool
    """The value is the game's value, not a search estimate."""
    bound: bool = False
    """Only proven no better than ``score`` (fast search mode)."""
    final: tuple[int, int] | None = None
    """Expected final score (side to move, opponent) with best play to the last
    seed, when the endgame database covers the position."""

    @property
    def result(self) -> str | None:
        """``win``/``draw``/``loss`` when known, else None."""
        if self.score >= WIN:
            return "win"
        if self.score <= -WIN:
            return "loss"
        if self.final is not None and self.score == 0 and self.final[0] == self.final[1]:
            return "draw"  # the database's draw, which the search did not contradict
        if self.exact:
            return "draw" if self.score == 0 else ("win" if self.score > 0 else "loss")
        return None

    @property
    def margin(self) -> int | None:
        """Final margin in seeds for the side to move, when the result is known."""
        if self.result is None:
            return None
        if self.score >= WIN:
            return (self.score - WIN) // 100
        if self.score <= -WIN:
            return -((-self.score - WIN) // 100)
        return self.score // 100

    @property
    def text(self) -> str:
        """The value in words."""
        if self.result == "draw":
            return "draw"
        if self.final is not None and self.result is not None:
            return f"{self.result} {self.final[0]}-{self.final[1]}"
        if self.result is not None and self.margin is not None:
            return f"{self.result} by {abs(self.margin)}"
        return ("at most " if self.bound else "") + describe_score(self.score)

    def to_json(self) -> dict[str, Any]:
        return {
            "pit": self.pit,
            "name": self.name,
            "score": self.score,
            "exact": self.exact,
            "bound": self.bound,
            "result": self.result,
            "margin": self.margin,
            "final": list(self.final) if self.final else None,
            "text": self.text,
        }


@dataclass
class Analysis:
    """The result of :func:`analyze`: moves best first, the best line, search figures."""

    position: Position
    moves: list[MoveValue]
    pv: list[int]
    depth: int
    nodes: int
    seconds: float
    solved: bool
    engine: str
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def best(self) -> int:
        return self.moves[0].pit

    @property
    def best_name(self) -> str:
        return self.moves[0].name

    @property
    def pv_names(self) -> list[str]:
        return [move_name(p, self.position.players) for p in self.pv]

    def to_json(self) -> dict[str, Any]:
        return {
            "position": self.position.to_json(),
            "text": self.position.to_text(),
            "best": self.best,
            "best_name": self.best_name,
            "moves": [m.to_json() for m in self.moves],
            "pv": self.pv,
            "pv_names": self.pv_names,
            "depth": self.depth,
            "nodes": self.nodes,
            "seconds": round(self.seconds, 3),
            "solved": self.solved,
            "engine": self.engine,
        }


def oware_mode(position: Position) -> int | None:
    """The kernel's grand-slam mode for an Oware position, None for other families."""
    rules = position.ruleset
    if rules.family != "oware":
        return None
    return GRAND_SLAM_MODES[str(rules.options.get("grand_slam", "no_capture"))]


def database_applies(position: Position) -> bool:
    """Whether the Abapa endgame databases hold this rule set's values.

    They assume a grand slam captures nothing and a repetition ends the game
    (their cycle convention); other Oware options are searched without them.
    """
    rules = position.ruleset
    return (
        rules.family == "oware"
        and rules.options.get("grand_slam") == "no_capture"
        and rules.options.get("cycle") == "repetition"
    )


def _absolute_line(relative: list[int], first_player: int) -> list[int]:
    """Mover-relative pits of alternating players to absolute pit indices."""
    return [pit + 6 * ((first_player + i) % 2) for i, pit in enumerate(relative)]


def from_search(position: Position, found: SearchResult) -> Analysis:
    """Turn a mover-relative :class:`SearchResult` into an :class:`Analysis`."""
    mover = position.to_move
    best_score = found.scores[found.best]
    moves = []
    for rel, score in found.scores.items():
        pit = rel + 6 * mover
        bound = not found.exact_all and rel != found.best and score <= best_score
        moves.append(MoveValue(pit, move_name(pit), score, found.solved and not bound, bound))
    best_pit = found.best + 6 * mover
    # ties: the search's own choice first, so that the line starts with the best move
    moves.sort(key=lambda m: (-m.score, m.pit != best_pit, m.bound, m.pit))
    return Analysis(
        position,
        moves,
        _absolute_line(found.pv, mover),
        found.depth,
        found.nodes,
        found.seconds,
        found.solved,
        "alpha-beta",
        {"db_hits": found.db_hits},
    )


#: Earlier occurrences of a position that end an Oware game, by the ``cycle`` option.
CYCLE_NEEDED = {"repetition": 1, "two_rounds": 2, "declaration": 0}


def make_searcher(
    position: Position,
    database: npt.NDArray[np.uint8] | None = None,
    db_max: int = -1,
    bounds: tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]] | None = None,
) -> Searcher:
    """A :class:`Searcher` for an Oware position's rule set (grand slam and cycle rule);
    ``bounds``: the database's stored game bounds, if any (see :class:`Searcher`)."""
    mode = oware_mode(position)
    if mode is None:
        raise ValueError(f"the alpha-beta engine plays Oware, not {position.rules}")
    needed = CYCLE_NEEDED[str(position.ruleset.options.get("cycle", "repetition"))]
    return Searcher(
        database if database_applies(position) else None,
        db_max,
        mode=mode,
        cycle_needed=needed,
        bounds=bounds,
    )


def history_since_capture(
    position: Position, zob: npt.NDArray[np.uint64]
) -> npt.NDArray[np.uint64]:
    """Hashes of the positions before ``position`` since the last capture, oldest first.

    They come from the position's own chain (:attr:`core.Position.prev`),
    so a position built from its moves carries its history into the search.
    """
    earlier = [
        (to_relative(p.pits, p.to_move), p.stores[p.to_move], p.stores[1 - p.to_move])
        for p in since_capture(position)
    ]
    return history_hashes(earlier, zob)


def since_capture(position: Position) -> list[Position]:
    """The positions before ``position`` since the last capture, oldest first (its chain
    of :attr:`core.Position.prev`)."""
    earlier = []
    node = position.prev
    while node is not None:
        earlier.append(node)
        node = node.prev
    return earlier[::-1]


def segment_plan(
    position: Position,
    values: npt.NDArray[np.uint8],
    bounds: tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]] | None = None,
    *,
    guess: bool = False,
    max_nodes: int = MAX_NODES,
) -> SegmentPlan | None:
    """:func:`core.engine.segment.solve_segment` for an Abapa ``position`` with its
    history, ``values`` the endgame databases, ``bounds`` their layers' game bounds;
    ``guess``: the plan on the values where the bounds settle nothing; ``max_nodes``:
    the segment's size beyond which it is not played out."""
    outlook = outlook_at(position, values, bounds, guess=guess, max_nodes=max_nodes)
    return None if outlook is None else outlook.plan


def outlook_at(
    position: Position,
    values: npt.NDArray[np.uint8],
    bounds: tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]] | None = None,
    *,
    guess: bool = False,
    max_nodes: int = MAX_NODES,
) -> SegmentOutlook | None:
    """:func:`segment_plan` with the moves that hold off a loss the bounds prove
    (:func:`core.engine.segment.segment_outlook`)."""
    mover = position.to_move
    earlier = [
        (to_relative(p.pits, p.to_move), p.to_move == mover) for p in since_capture(position)
    ]
    board = to_relative(position.pits, mover)
    return segment_outlook(
        board,
        earlier,
        position.stores[mover],
        position.stores[1 - mover],
        values,
        max_nodes=max_nodes,
        bounds=bounds,
        guess=guess,
    )


def analyze(
    position: Position,
    *,
    seconds: float | None = 1.0,
    nodes: int | None = None,
    database: npt.NDArray[np.uint8] | None = None,
    db_max: int = -1,
    bounds: tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]] | None = None,
    searcher: Searcher | None = None,
    exact_all: bool = True,
    on_iteration: Callable[[Analysis], None] | None = None,
    max_depth: int = 60,
) -> Analysis:
    """Analyse ``position`` for ``seconds`` (or ``nodes``); moves come back best first.

    ``database``/``db_max``: an Abapa endgame database (used only for Abapa);
    ``bounds``: its stored game bounds, where built (see :class:`Searcher`).
    ``searcher`` may be passed to keep its table between calls and to stop it
    from another thread. ``on_iteration`` sees the analysis after every depth;
    ``max_depth`` bounds the iterative deepening (plies).
    """
    if position.is_over:
        raise ValueError("the game is over: there is nothing to analyse")
    if oware_mode(position) is None:
        from core.engine.multiplayer import analyze_paranoid

        return analyze_paranoid(
            position, seconds=seconds if seconds else 1.0, on_iteration=on_iteration
        )
    engine = searcher if searcher is not None else make_searcher(position, database, db_max, bounds)
    mover = position.to_move
    board = to_relative(position.pits, mover)
    mine, theirs = position.stores[mover], position.stores[1 - mover]

    def relay(found: SearchResult) -> None:
        if on_iteration is not None:
            on_iteration(from_search(position, found))

    started = time.perf_counter()
    outlook = _segment_outlook(position, engine, seconds)
    plan, holds = (None, None) if outlook is None else (outlook.plan, outlook.holds)
    if seconds is not None:
        # the play-out's time is the move's: the search (whose first depth always
        # completes) gets what is left
        seconds = max(seconds - (time.perf_counter() - started), 0.001)
    found = engine.search(
        board,
        mine,
        theirs,
        seconds=seconds,
        nodes=nodes,
        max_depth=max_depth,
        exact_all=exact_all,
        on_iteration=relay,
        history=history_since_capture(position, engine.zob),
    )
    result = from_search(position, found)
    if 0 <= int(board.sum()) <= engine.db_max:
        result.moves = [
            replace(m, final=_final_split(engine, board, m.pit - 6 * mover, mine, theirs))
            for m in result.moves
        ]
    if plan is not None and plan.win_open:
        _keep_the_draw(result, plan, mover)
    elif (
        plan is not None
        and (plan.proven or _guess_may_lead(result, plan, mover))
        and (holds is None or plan.move in holds)
    ):
        _follow_plan(result, plan, mover, plan.move)
    elif holds is not None:
        _hold(result, holds, mover)
    return result


def _segment_outlook(
    position: Position, engine: Searcher, seconds: float | None
) -> SegmentOutlook | None:
    """The play-out of the position's capture-free segment (:mod:`core.engine.segment`),
    where it settles the result: Abapa's cycle rule, databases under a small board. A
    move given ``seconds`` may explore a larger segment than :data:`MAX_NODES`."""
    board = to_relative(position.pits, position.to_move)
    # (the segment's exits need every layer under the board's, not the board's own)
    n = int(board.sum())
    if engine.cycle_needed != 1 or not 0 < n <= min(MAX_SEEDS, engine.db_max + 1):
        return None
    # captures leaving the segment are scored by the game bounds where the searcher has
    # them (the values below 11 seeds may rest on the cycle convention)
    covered = engine.lows.shape[0] >= layer_offset(n)
    nodes = max(MAX_NODES, int(NODES_PER_SECOND * seconds)) if seconds else MAX_NODES
    if not covered:
        return outlook_at(position, engine.values, max_nodes=nodes)
    # where they settle nothing, the plan on the values is a better guess than the
    # search's horizon: it plays the segment's own repetitions out
    bounds = (engine.lows, engine.highs)
    return outlook_at(position, engine.values, bounds, guess=True, max_nodes=nodes)


def _guess_may_lead(result: Analysis, plan: SegmentPlan, mover: int) -> bool:
    """Whether a plan on the values (a guess) may replace the search's choice: not where
    the search proves a win, nor for a move it proves lost."""
    return result.moves[0].score < WIN and _not_proven_lost(result, plan.move + 6 * mover)


def _not_proven_lost(result: Analysis, pit: int) -> bool:
    """Whether ``pit`` is a move of the analysis that the search does not prove lost."""
    return any(m.pit == pit and m.score > -WIN for m in result.moves)


def _keep_the_draw(result: Analysis, plan: SegmentPlan, mover: int) -> None:
    """Where the segment forces a draw and a win may still be there, play the search's
    best move among those that keep the draw (the move of the databases' values' win
    where it is one of them), unless the search proves the win: playing
    for the win with any move loses the draw to a capture whose board the bounds leave
    open (game 13 of the 2 s match, ``docs/ENGINE.md``). A guess (a plan on the values)
    gives way to a move the search proves lost."""
    if result.moves[0].score >= WIN:
        return
    if plan.toward >= 0 and _not_proven_lost(result, plan.toward + 6 * mover):
        _follow_plan(result, plan, mover, plan.toward)  # the values' win, keeping the draw
        return
    for m in result.moves:
        if m.pit - 6 * mover in plan.keeps and (plan.proven or m.score > -WIN):
            _follow_plan(result, plan, mover, m.pit - 6 * mover)
            return


def _hold(result: Analysis, holds: tuple[int, ...], mover: int) -> None:
    """Where the mover forces no draw and some moves would hand the other side a win the
    game bounds prove, play the search's best move among the others (games 3, 6 and 46
    of the seed-3 match, ``docs/ENGINE.md``: a search that sees repetitions only to its
    horizon rated such a move as high as the rest)."""
    held = [m for m in result.moves if m.pit - 6 * mover in holds]
    if not held or result.moves[0] is held[0]:
        return
    pit = held[0].pit
    result.moves.sort(key=lambda m: m.pit != pit)
    result.pv = [pit]
    result.extra["segment"] = {"result": -1, "holds": [h + 6 * mover for h in holds]}


def _follow_plan(result: Analysis, plan: SegmentPlan, mover: int, move: int) -> None:
    """Put ``move`` (mover-relative), which keeps the segment's result, first: the
    search, which sees only to its horizon, may rate a move that goes round in circles
    as high."""
    pit = move + 6 * mover
    result.moves.sort(key=lambda m: m.pit != pit)
    if result.pv[:1] != [pit]:
        result.pv = [pit]
    result.extra["segment"] = {
        "result": plan.result,
        "seeds": plan.seeds,
        "positions": plan.positions,
        "proven": plan.proven,
        "win_open": plan.win_open,
    }


def _final_split(
    engine: Searcher, board: npt.NDArray[np.int8], pit: int, mine: int, theirs: int
) -> tuple[int, int] | None:
    """Final score after ``pit`` with best play to the last seed, from the database; None
    where the game bounds leave it open (the value may be the cycle convention)."""
    after = np.zeros(12, dtype=np.int8)
    child = np.zeros(12, dtype=np.int8)
    play_into(board, pit, after, engine.mode)  # captures are part of the mover's share
    flip_into(after, child)
    seeds = int(board.sum())
    if _bounds_open(engine, child):
        return None
    theirs_share = lookup(engine.values, child)  # the opponent moves next
    return mine + seeds - theirs_share, theirs + theirs_share


def _bounds_open(engine: Searcher, board: npt.NDArray[np.int8]) -> bool:
    """Whether the game bounds the engine holds leave ``board``'s value open."""
    held = layer_offset(int(board.sum()) + 1) <= engine.lows.shape[0]
    return held and lookup(engine.lows, board) < lookup(engine.highs, board)
