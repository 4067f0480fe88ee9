"""Repetition-aware search: the history since the last capture is part of the search state.

The positions come from games played under the rules core (:class:`core.Position`),
which ends an Abapa game at the first repetition, each side taking the seeds on its side.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from companion import endgame_store
from core import Position
from core.engine import retrograde
from core.engine.analysis import analyze, make_searcher
from core.engine.evaluation import WIN, final_score
from core.engine.kernel import to_relative
from core.engine.ranking import CUMULATIVE, layer_offset, rank
from core.engine.search import Searcher
from core.rules import get_rules

#: A game from a small endgame: after these moves South to move can play B, which
#: brings back a position seen before; the game ends and South keeps the one seed
#: on its side: 25-23. Without the history the same board is a draw at best.
START = "0-1-0-0-1-0-0-1-1-0-0-1-24-19-S"
MOVES = [1, 7, 2, 11, 0, 8, 1, 9, 4, 10, 3, 11, 5, 6, 4, 7, 5, 8, 2, 9, 3, 10, 4, 6, 5, 11, 0, 7]
HERE = "0-1-0-0-0-0-1-0-1-0-0-0-24-21-S"


def replay(rules: str = "abapa", **options: str) -> Position:
    p = Position.from_text(START, rules=get_rules(rules, **options))
    for pit in MOVES:
        p = p.play(pit)
    return p


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> np.ndarray:
    root: Path = tmp_path_factory.mktemp("db")
    return endgame_store.build(6, root=root, show_progress=False)


def test_the_rules_core_ends_this_game_by_repetition() -> None:
    p = replay()
    assert p.to_text() == HERE and not p.is_over
    after = p.play(1)
    assert after.ending is not None and after.ending.reason == "repetition"
    assert after.scores == (25, 23)


def test_search_sees_the_repetition_in_the_games_history() -> None:
    a = analyze(replay(), seconds=1.0)
    assert a.best_name == "B"
    assert a.moves[0].result == "win" and a.moves[0].margin == 2 and a.moves[0].exact


def test_without_the_history_the_same_board_is_no_win() -> None:
    a = analyze(Position.from_text(HERE), seconds=1.0)
    assert a.moves[0].result != "win"


def test_database_values_are_not_taken_where_the_history_changes_them(
    database: np.ndarray,
) -> None:
    p = replay()
    # the database values B's position (no history) as a draw for South...
    after = p.play(1)
    board = to_relative(after.pits, after.to_move)
    north = retrograde.lookup(database, board)
    assert 21 + north == 24  # North ends with 24: a draw
    # ...but here B ends the game at once, 25-23, and the search says so
    a = analyze(p, seconds=1.0, database=database, db_max=6)
    b = next(m for m in a.moves if m.name == "B")
    assert a.best_name == "B" and b.result == "win" and b.margin == 2


def test_two_rounds_needs_a_third_occurrence() -> None:
    # under the two-rounds cycle rule B brings the position back only a second time
    p = replay("abapa", cycle="two_rounds")
    assert not p.play(1).is_over
    a = analyze(p, seconds=1.0)
    b = next(m for m in a.moves if m.name == "B")
    assert not (b.exact and b.result == "win" and b.margin == 2)


def test_declared_cycles_never_end_the_game_in_the_search() -> None:
    p = replay("abapa", cycle="declaration")
    assert not p.play(1).is_over
    a = analyze(p, seconds=0.5)
    assert a.moves[0].result != "win" or a.moves[0].margin != 2


def test_a_database_value_resting_on_the_cycle_convention_is_not_taken_as_exact(
    tmp_path: Path,
) -> None:
    database = endgame_store.build(7, root=tmp_path, show_progress=False)
    # North to move with all 7 seeds, just after a capture: the databases say North
    # takes all 7 (25-23) by their cycle convention, but North can force only 3 of
    # them (lower bound 3, upper 7); in a real game North lost this 22-26
    p = Position.from_text("0-0-0-0-0-0-2-1-0-0-1-3-23-18-N")
    board = to_relative(p.pits, p.to_move)
    assert retrograde.lookup(database, board) == 7
    a = analyze(p, seconds=1.0, database=database, db_max=7)
    assert not (a.solved and a.moves[0].result == "win")


#: The first 86 plies of a game against Aalina (match bench, seed 1, game 5) that ended
#: 23-25 by repetition: 8 seeds on the board, North's last capture 27 plies back.
AALINA_GAME_5 = (
    "DfDcAfAeAfAaBbEfDcCcAeEdAfAaBdEbCdEcFfEeAfDaAdFaBcEaDdEbAfAeAdCeBcDdCeDfFbCcBdAeEaDcEb"
)


def test_an_endgame_searched_with_its_history_ignores_the_table_of_the_bare_board() -> None:
    """The table must not carry a score found under one history since the last capture
    to the same board under another: the cycle rule can end the game differently. A search
    of the bare board first (no history) left scores that a later search of the game's
    position took, and two moves' scores came out wrong (B -400 for -600 here)."""
    p = Position.initial()
    for letter in AALINA_GAME_5:
        p = p.play("ABCDEFabcdef".index(letter))
    assert p.prev is not None and sum(p.pits) == 8  # a history since the last capture
    bare = Position.from_text(p.to_text())
    shared = make_searcher(p, None, -1)
    analyze(bare, seconds=None, max_depth=18, searcher=shared)
    after_bare = analyze(p, seconds=None, max_depth=18, searcher=shared)
    alone = analyze(p, seconds=None, max_depth=18, searcher=make_searcher(p, None, -1))
    assert [(m.name, m.score) for m in after_bare.moves] == [(m.name, m.score) for m in alone.moves]


def test_a_database_value_the_bounds_leave_open_is_a_guess_not_a_result(
    tmp_path: Path,
) -> None:
    """Below 11 seeds a database value may be the cycle convention, which the cycle rule
    need not give. At the horizon the search scores a board whose game bounds meet, or
    already decide the result, as that result; any other as a guess (its value's margin
    in centi-seeds, short of a result's score), where before it took the convention, or
    the bound worst for the side it plays for, as a result. A horizon of one ply: every
    North move's score is the board it leaves, read so."""
    database = endgame_store.build(7, root=tmp_path, show_progress=False)
    low, high = retrograde.game_bounds(8)
    p = Position.from_text("0-0-0-0-0-0-2-1-0-0-1-3-23-18-N")
    board = to_relative(p.pits, p.to_move)
    mine, theirs = p.stores[1], p.stores[0]
    with_bounds = Searcher(database, 7).search(board, mine, theirs, max_depth=1)
    convention = Searcher(database, 7, cycle_bounds=False).search(board, mine, theirs, max_depth=1)
    guesses = 0
    for pit in p.legal_moves():
        child = p.play(pit)
        assert not child.is_over and child.prev is not None  # no capture: not exact
        rel = to_relative(child.pits, child.to_move)
        seeds = int(rel.sum())
        total = seeds + mine + theirs
        r = layer_offset(seeds) + rank(rel, CUMULATIVE)
        value, lo, hi = int(database[r]), int(low[r]), int(high[r])
        if lo == hi or 2 * (theirs + lo) > total:  # exact, or South's lower bound wins
            expect = final_score(mine + seeds - lo, theirs + lo)
        elif 2 * (theirs + hi) < total:  # South's upper bound cannot avoid a loss
            expect = final_score(mine + seeds - hi, theirs + hi)
        else:
            expect = -100 * (2 * (theirs + value) - total)
            guesses += 1
            assert abs(expect) < WIN
        assert with_bounds.scores[pit - 6] == expect
        guess = final_score(mine + seeds - value, theirs + value)
        assert convention.scores[pit - 6] == guess
    assert guesses > 0  # (the position was chosen for it: some boards it leaves are open)
