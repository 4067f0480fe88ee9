"""The capture-free segment played out with its history (:mod:`core.engine.segment`).

The rules core (:class:`core.Position`) is the arbiter: it ends an Abapa game at the
first repetition since the last capture, each side taking the seeds on its side.
"""

from __future__ import annotations

import numpy as np
import pytest

from core import Position
from core.engine import retrograde
from core.engine.analysis import analyze, outlook_at, segment_plan
from core.engine.kernel import to_relative
from core.engine.protocol import move_letter

LETTERS = {move_letter(p): p for p in range(12)}

#: Game 7 of a match against Aalina at 2 s a move: South captured two seeds at ply 54,
#: leaving nine on the board, a position the databases rate won for South (6 of the 9
#: seeds: 25-23). Both sides then went round without a capture; at ply 78, with 23
#: positions behind it, South played E and the game ended 24-24 by repetition.
SEGMENT_START = "1-0-1-0-5-0-0-0-0-2-0-0-19-20-N"
SEGMENT_MOVES = "dAeBfEaCcBdAbEfAeCdDcBe"


#: Game 23 of a match against Aalina at 0.5 s a move: North captured at ply 61, leaving
#: eight seeds that South could all take, and South went round for 20 plies; at ply 82
#: it played A, its plan when captures were scored by the databases' values, and at ply
#: 84 it took two seeds with F into a six-seed board whose value rests on the cycle
#: convention (the game bounds give South between 0 and 6 of them). It lost 23-25.
GAME_23_START = "1-0-0-2-3-0-0-0-0-0-2-0-21-19-S"
GAME_23_MOVES = "AeAfEaDbBdAcDdBeAfEa"


#: Game 43 of a match against Aalina at 0.5 s a move (seed 3): North captured, leaving
#: eight seeds whose value is a draw by the databases; South went round for 30 plies and
#: at ply 101 played E, after which no plan on the values held the draw, and lost 22-26
#: by repetition. Game 15 reached the same board and played the same E, and lost too.
GAME_43_START = "1-1-0-1-1-3-0-0-0-0-1-0-18-22-S"
GAME_43_MOVES = "AeBfFcEaDbAdCeBcDdCeDfFbCcBdAe"


@pytest.fixture(scope="module")
def database() -> np.ndarray:
    return retrograde.build(8)  # every layer under game seven's nine seeds


def game_seven() -> Position:
    p = Position.from_text(SEGMENT_START)
    for letter in SEGMENT_MOVES:
        p = p.play(LETTERS[letter])
    return p


def test_the_win_the_game_went_round_is_still_forced_at_ply_78(database: np.ndarray) -> None:
    p = game_seven()
    assert p.to_text() == "0-0-1-1-1-3-0-0-0-1-0-2-19-20-S"
    plan = segment_plan(p, database)
    assert plan is not None
    assert (plan.result, plan.seeds, move_letter(plan.move)) == (1, 6, "D")
    # D's win is kept against every reply of North's, to the segment's end, where the
    # captures are scored by the databases' values; the game bounds of those exits do
    # not prove it (some rest on the cycle convention)
    play_out(p, 0, 1, database, [3000])
    assert segment_plan(p, database, retrograde.game_bounds(9)) is None


def test_a_win_by_repetition_needs_the_history(database: np.ndarray) -> None:
    """The repetition example of ``test_repetition.py``: B brings back a position seen
    before, South keeps its one seed and wins 25-23; the bare board is no such win."""
    from tests.engine.test_repetition import HERE, replay

    plan = segment_plan(replay(), database)
    assert plan is not None and (plan.result, plan.move) == (1, 1)
    bare = segment_plan(Position.from_text(HERE), database)
    assert bare is None or bare.result < 1


def test_a_plan_on_the_game_bounds_keeps_out_of_the_convention(database: np.ndarray) -> None:
    """At ply 82 of game 23 both plans promise South the win; scored by the databases'
    values it is A (then F), which the game bounds do not prove; on the game bounds it is
    another move, whose promise holds against every reply."""
    p = Position.from_text(GAME_23_START)
    for letter in GAME_23_MOVES:
        p = p.play(LETTERS[letter])
    bounds = retrograde.game_bounds(8)
    on_values = segment_plan(p, database)
    on_bounds = segment_plan(p, database, bounds)
    assert on_values is not None and on_values.result == 1 and on_values.move == 0
    assert on_bounds is not None and on_bounds.result == 1 and on_bounds.move != 0
    after_a = p.play(0).play(LETTERS["b"])  # as played
    assert segment_plan(after_a, database, bounds) is None
    play_out(p, 0, 1, database, [3000], bounds=bounds)


def random_endgame(rng: np.random.Generator, moves: int) -> Position | None:
    """A random game played to 7 seeds or fewer, then up to ``moves`` - 1 random moves
    more (into the segment, with a history); None where it ended or the board emptied."""
    p = Position.initial()
    while not p.is_over and sum(p.pits) > 7:
        p = p.play(int(rng.choice(p.legal_moves())))
    for _ in range(int(rng.integers(0, moves))):
        if p.is_over:
            break
        p = p.play(int(rng.choice(p.legal_moves())))
    return None if p.is_over or sum(p.pits) == 0 else p


def outcome(mine: int, theirs: int) -> int:
    return (mine > theirs) - (mine < theirs)


Bounds = tuple[np.ndarray, np.ndarray]


def play_out(
    p: Position,
    hero: int,
    promised: int,
    values: np.ndarray,
    budget: list[int],
    ply: int = 0,
    bounds: Bounds | None = None,
    every_keep: bool = False,
) -> None:
    """Follow the plans of ``hero`` against every reply, to the end of the segment, and
    check the result promised there (the rules core ends repetitions; a capture leaves
    the segment at the databases' value, or with ``bounds`` at the bound worst for the
    hero). ``every_keep``: follow each move the plan says keeps the result, not only
    its own."""
    budget[0] -= 1
    if budget[0] < 0:
        return
    if p.is_over:
        assert outcome(p.scores[hero], p.scores[1 - hero]) >= promised
        return
    if ply > 0 and p.prev is None:  # a capture: the databases value the rest of the game
        mover = p.to_move
        board = to_relative(p.pits, mover)
        lows, highs = (values, values) if bounds is None else bounds
        share = 0
        if board.sum():
            share = retrograde.lookup(lows if mover == hero else highs, board)
        finals = [p.stores[0], p.stores[1]]
        finals[mover] += share
        finals[1 - mover] += int(board.sum()) - share
        assert outcome(finals[hero], finals[1 - hero]) >= promised
        return
    if p.to_move == hero:
        plan = segment_plan(p, values, bounds)
        assert plan is not None and plan.result >= promised and plan.move in plan.keeps
        if every_keep and len(plan.keeps) > 1:
            budget.append(0)  # (counts the positions where the hero had a choice)
        for move in plan.keeps if every_keep else (plan.move,):
            child = p.play(move + 6 * hero)
            play_out(child, hero, promised, values, budget, ply + 1, bounds, every_keep)
        return
    for pit in p.legal_moves():
        play_out(p.play(pit), hero, promised, values, budget, ply + 1, bounds, every_keep)


@pytest.mark.parametrize(
    ("scored_by", "every_keep"),
    [("values", False), ("game bounds", False), ("game bounds", True)],
    ids=["values", "game-bounds", "game-bounds-every-move-it-keeps"],
)
def test_the_plan_keeps_its_promise_against_every_reply(
    database: np.ndarray, scored_by: str, every_keep: bool
) -> None:
    """Its own move, or (``every_keep``) any of the moves it says keep the result, each
    time the hero is to move: the result holds whichever the search picks among them."""
    bounds = retrograde.game_bounds(8) if scored_by == "game bounds" else None
    rng = np.random.default_rng(5)
    checked = opened = chosen = 0
    for _ in range(120):
        p = Position.initial()
        while not p.is_over and sum(p.pits) > 7:
            p = p.play(int(rng.choice(p.legal_moves())))
        if p.is_over or sum(p.pits) == 0:
            continue
        for _ in range(int(rng.integers(0, 6))):  # into the segment, with a history
            if p.is_over:
                break
            p = p.play(int(rng.choice(p.legal_moves())))
        if p.is_over:
            continue
        plan = segment_plan(p, database, bounds)
        if plan is None:
            continue
        checked += 1
        opened += plan.win_open
        budget = [300]
        play_out(p, p.to_move, plan.result, database, budget, bounds=bounds, every_keep=every_keep)
        chosen += len(budget) - 1
    assert checked >= 10, checked
    assert chosen >= 10 or not every_keep, chosen
    print(f"{checked} plans, {opened} with a win open, {chosen} choices among moves kept")


def test_analysis_plays_the_forcing_move_first(database: np.ndarray) -> None:
    """The searcher's game bounds score the segment's exits (game 23, ply 82)."""
    p = Position.from_text(GAME_23_START)
    for letter in GAME_23_MOVES:
        p = p.play(LETTERS[letter])
    plan = segment_plan(p, database, retrograde.game_bounds(8))
    assert plan is not None
    a = analyze(p, seconds=0.2, database=database, db_max=8)
    assert a.pv[0] == plan.move and a.moves[0].pit == plan.move
    assert a.extra["segment"]["result"] == 1


def test_where_the_bounds_settle_nothing_the_plan_on_the_values_leads(
    database: np.ndarray,
) -> None:
    """Ply 101 of game 43: on the game bounds the segment settles nothing; on the
    databases' values South draws by B (a guess: the values of the boards its captures
    make may rest on the cycle convention), and the analysis plays it, not E."""
    p = Position.from_text(GAME_43_START)
    for letter in GAME_43_MOVES:
        p = p.play(LETTERS[letter])
    assert p.to_text() == "0-1-1-1-3-0-1-0-0-0-0-1-18-22-S"
    bounds = retrograde.game_bounds(8)
    assert segment_plan(p, database, bounds) is None
    guess = segment_plan(p, database, bounds, guess=True)
    assert guess is not None and not guess.proven
    assert (guess.result, guess.seeds, move_letter(guess.move)) == (0, 6, "B")
    play_out(p, 0, 0, database, [3000])  # the draw, against every reply, on the values
    a = analyze(p, seconds=0.3, database=database, db_max=8)
    assert a.moves[0].pit == guess.move and a.pv[0] == guess.move
    assert a.extra["segment"] == {"result": 0, "seeds": 6, "positions": guess.positions,
                                  "proven": False, "win_open": False}  # fmt: skip


#: Game 13 of a match against Aalina at 2 s a move (seed 4): North's capture at ply 116
#: left ten seeds of which the game bounds give South 6 to 8 (24 to 26 in all): a draw
#: proven, a win open. Its segment (646,556 positions) was past the solver's size, and
#: the search played C, then went on playing for the win; North's capture at ply 122
#: left eight seeds rated 20 to 26 for South, who lost 23-25 by repetition.
GAME_13_BOARD = "0-1-1-1-0-1-1-0-0-5-0-0-18-20-S"


def test_where_a_draw_is_proven_and_a_win_open_a_move_keeping_the_draw_is_played() -> None:
    p = Position.from_text(GAME_13_BOARD)
    values = retrograde.build(9)  # every layer under the board's ten seeds
    bounds = retrograde.game_bounds(11)
    board = to_relative(p.pits, 0)
    assert (retrograde.lookup(bounds[0], board), retrograde.lookup(bounds[1], board)) == (6, 8)
    assert segment_plan(p, values, bounds) is None  # past MAX_NODES: played out at 2 s
    plan = segment_plan(p, values, bounds, max_nodes=800_000)
    assert plan is not None and plan.proven and plan.win_open
    assert (plan.result, plan.seeds, plan.keeps) == (0, 6, (5,))
    # B, which keeps nothing, gives North a win it forces
    after_b = segment_plan(p.play(1), values, bounds, max_nodes=800_000)
    assert after_b is not None and after_b.result == 1
    # at 2 s a move the segment is played out, and the search (which proves no win)
    # plays the one move that keeps the draw
    a = analyze(p, seconds=2.0, database=values, db_max=9, bounds=bounds)
    assert a.extra["segment"]["win_open"] and a.moves[0].pit == 5 and a.pv[0] == 5


def test_where_a_win_is_open_the_values_win_is_aimed_at_only_by_a_move_keeping_the_draw(
    database: np.ndarray,
) -> None:
    """With ``guess``, a proven draw with a win open aims at the databases' values' win
    (``toward``) where its move keeps the draw, and only there."""
    bounds = retrograde.game_bounds(8)
    rng = np.random.default_rng(11)
    opened = aimed = 0
    for _ in range(400):
        p = random_endgame(rng, 6)
        if p is None:
            continue
        plan = segment_plan(p, database, bounds, guess=True)
        if plan is None or not plan.win_open:
            continue
        opened += 1
        on_values = segment_plan(p, database)
        wins = on_values is not None and on_values.result == 1
        if plan.toward >= 0:
            aimed += 1
            assert on_values is not None and wins and plan.toward == on_values.move
            assert plan.toward in plan.keeps
        else:
            assert not wins or (on_values is not None and on_values.move not in plan.keeps)
    assert opened >= 3, opened
    print(f"{opened} proven draws with a win open, {aimed} aiming at the values' win")


#: Game 3 of a match against Aalina at 0.5 s a move (seed 3): North's capture at ply 135
#: left six seeds, a draw by the databases' values (the game bounds leave all six open).
#: Both sides went round; at ply 156 South played B, after which North forces the win
#: under the cycle rule (it won 25-23 by repetition), where D kept it from doing so.
#: Games 6 and 46 reached the same board, colours swapped, and were lost the same way.
GAME_3_START = "0-0-2-1-0-1-1-0-0-0-0-1-20-22-N"
GAME_3_MOVES = "aDbEcCdEeDfFcEaBdAeCb"


def test_a_move_that_hands_the_other_side_a_proven_win_is_not_played(
    database: np.ndarray,
) -> None:
    p = Position.from_text(GAME_3_START)
    for letter in GAME_3_MOVES:
        p = p.play(LETTERS[letter])
    assert p.to_text() == "0-1-0-1-0-1-0-0-1-1-0-1-20-22-S"
    bounds = retrograde.game_bounds(8)
    outlook = outlook_at(p, database, bounds)
    assert outlook is not None and outlook.plan is None  # South forces no draw
    assert outlook.holds == (3,)  # D
    for pit in (1, 5):  # B and F: North then forces the win, with its history
        after = segment_plan(p.play(pit), database, bounds)
        assert after is not None and after.result == 1
    after_d = segment_plan(p.play(3), database, bounds)
    assert after_d is None or after_d.result < 1
    a = analyze(p, seconds=0.3, database=database, db_max=8, bounds=bounds)
    assert a.moves[0].pit == 3 and a.pv[0] == 3
    assert a.extra["segment"] == {"result": -1, "holds": [3]}


#: The same board played again against Aalina, South now keeping out of North's proven
#: wins: at ply 172 it played B, which hands North no such win by itself, but after
#: North's E each of South's moves does (it lost 23-25 by repetition at ply 239).
GAME_3_AGAIN = "DdEeBcCdDeEfFcCd"


def test_a_move_after_which_a_reply_corners_the_mover_is_not_played(
    database: np.ndarray,
) -> None:
    p = Position.from_text(GAME_3_START)
    for letter in GAME_3_MOVES + GAME_3_AGAIN:
        p = p.play(LETTERS[letter])
    assert p.to_text() == "1-1-0-1-0-0-1-1-0-0-1-0-20-22-S"
    bounds = retrograde.game_bounds(8)
    assert not handed_over(p, 1, database, bounds)  # B by itself hands North nothing
    after_e = p.play(1).play(LETTERS["e"])
    assert all(handed_over(after_e, x, database, bounds) for x in after_e.legal_moves())
    outlook = outlook_at(p, database, bounds)
    assert outlook is not None and outlook.holds == (3,)  # D
    a = analyze(p, seconds=0.3, database=database, db_max=8, bounds=bounds)
    assert a.moves[0].pit == 3


def handed_over(p: Position, pit: int, values: np.ndarray, bounds: Bounds) -> bool:
    """Whether ``pit`` gives the other side a win the bounds prove: the game ends in the
    mover's loss, a capture makes a board whose bound worst for the other side still
    loses for the mover, or the other side then forces the win in its segment."""
    me = p.to_move
    q = p.play(pit)
    if q.is_over:
        return q.scores[me] < q.scores[1 - me]
    if q.prev is None:  # a capture: the other side, to move, is sure of at least its low
        board = to_relative(q.pits, 1 - me)
        low = retrograde.lookup(bounds[0], board) if board.sum() else 0
        return q.stores[me] + int(board.sum()) - low < q.stores[1 - me] + low
    theirs = segment_plan(q, values, bounds)
    return theirs is not None and theirs.result == 1


def test_the_moves_that_hold_are_those_after_which_the_other_side_forces_no_win(
    database: np.ndarray,
) -> None:
    """In random endgames with a history: a move the outlook says holds off the loss
    leaves the other side (to move, with the history grown by it) no forced win; every
    other move leaves it one, or a reply after which each of the mover's moves does."""
    bounds = retrograde.game_bounds(8)
    rng = np.random.default_rng(17)
    checked = held = deeper = 0
    for _ in range(600):
        p = random_endgame(rng, 8)
        if p is None:
            continue
        outlook = outlook_at(p, database, bounds)
        if outlook is None or outlook.plan is not None:
            continue
        lost = {pit: handed_over(p, pit, database, bounds) for pit in p.legal_moves()}
        if outlook.holds is None:
            continue  # every move holds, or none does a reply further
        checked += 1
        held += len(outlook.holds)
        for pit, handed in lost.items():
            if pit - 6 * p.to_move in outlook.holds:
                assert not handed, (p.to_text(), pit, outlook.holds)
            elif not handed:  # a reply corners the mover
                q = p.play(pit)
                assert any(
                    all(
                        handed_over(q.play(r), x, database, bounds) for x in q.play(r).legal_moves()
                    )
                    for r in q.legal_moves()
                    if not q.play(r).is_over and q.play(r).prev is not None
                ), (p.to_text(), pit, outlook.holds)
                deeper += 1
    assert checked >= 5, checked
    print(
        f"{checked} positions where some move hands over a proven win, {held} moves held, "
        f"{deeper} moves left out a reply further"
    )
