"""Games a match lost from a database rating, looked at under the real cycle rule.

The match bench (:mod:`companion.engine_match`) marks a game the first engine lost
after a position the endgame databases rate won or drawn for it. Below 11 seeds, and
through captures above, those values may rest on the databases' cycle convention, which
the rule need not give. This module takes the game lines of a match's output and, for
each game so marked, gives every position of it reached by a capture (no history: the
ground the values are computed on) with such a rating and at most
:data:`core.engine.segment.MAX_SEEDS` seeds to :func:`core.engine.proof.prove_win` for
the other side: a proof says the rating there is wrong under the rule, and that the game
was lost from that position whatever the first engine played.

Used by ``python -m bench.engine --prove-losses FILE`` (see its ``--help``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from companion.engine_match import Bounds, Database, game_lines, rating
from core.engine.proof import Proof, prove_win
from core.engine.segment import MAX_SEEDS
from core.position import Position


@dataclass(frozen=True)
class LostGame:
    """A game the first engine lost after a position rated won or drawn for it."""

    number: int
    side: int
    """The first engine's side (0 South, 1 North)."""
    moves: list[int]


@dataclass(frozen=True)
class RatedBoard:
    """A position of a lost game reached by a capture and rated won or drawn."""

    ply: int
    text: str
    rated: float
    """1 won, 1/2 drawn for the first engine, by the databases' values."""
    proof: Proof
    """Whether the other side forces its win from there under the rule."""


def lost_games(text: str) -> list[LostGame]:
    """The games of a match's output that its first engine lost from a rating."""
    return [
        LostGame(number, side, moves)
        for number, side, said, moves in game_lines(text)
        if said.startswith("loss (from")
    ]


def rated_boards(
    game: LostGame,
    database: Database,
    bounds: Bounds,
    max_nodes: int,
    on_board: Callable[[RatedBoard], None] | None = None,
    max_seconds: float | None = None,
) -> list[RatedBoard]:
    """Each position of ``game`` reached by a capture, rated won or drawn for the first
    engine, of at most :data:`MAX_SEEDS` seeds, with the other side's proof there (the
    last first), each given ``max_nodes`` positions and ``max_seconds`` to search."""
    p = Position.initial()
    reached: list[tuple[int, Position, float]] = []
    for ply, pit in enumerate(game.moves):
        if p.prev is None and not p.is_over and 0 < sum(p.pits) <= MAX_SEEDS:
            rated = rating(p, game.side, database)
            if rated is not None and rated >= 0.5:
                reached.append((ply, p, rated))
        p = p.play(pit)
    values, _ = database
    lows, highs, _ = bounds
    other = 1 - game.side
    boards = []
    for ply, board, rated in reversed(reached):
        proof = prove_win(
            board, other, values, (lows, highs), max_nodes=max_nodes, max_seconds=max_seconds
        )
        boards.append(RatedBoard(ply, board.to_text(), rated, proof))
        if on_board is not None:
            on_board(boards[-1])
    return boards
