"""Oware rules from concrete positions: the worked examples of the rule documents and one
position per rule and option (pits listed South A-F, then North a-f)."""

from __future__ import annotations

import pytest

from core import IllegalMoveError, InvalidPositionError, Position, get_rules


def pos(pits: list[int], to_move: int = 0, rules: str = "abapa", **options: object) -> Position:
    """A position with the stores making up the 48 seeds (split evenly, rest to South)."""
    rest = 48 - sum(pits)
    return Position(get_rules(rules, **options), pits, [rest - rest // 2, rest // 2], to_move)


# -- worked examples of the Czech federation's rules (issue 2) ---------------------------


def test_czech_example_north_a_captures_two() -> None:
    p = pos([1, 4, 2, 1, 4, 4, 6, 0, 3, 0, 6, 4], to_move=1)
    out = p.outcome(6)
    assert out.sown[-1] == 0
    assert out.captures == ((0, 2),)


def test_czech_example_north_f_captures_d_and_c() -> None:
    p = pos([1, 4, 2, 1, 4, 4, 6, 0, 3, 0, 6, 4], to_move=1)
    out = p.outcome(11)
    assert out.sown == (0, 1, 2, 3)
    assert out.captures == ((3, 2), (2, 3))
    assert out.captured == 5
    assert out.position.stores[1] == p.stores[1] + 5


def test_czech_example_e_captures_five_pits() -> None:
    p = pos([1, 1, 2, 2, 1, 1, 4, 0, 3, 0, 6, 0], to_move=1)
    out = p.outcome(10)
    assert out.sown[-1] == 4
    assert sorted(pit for pit, _ in out.captures) == [0, 1, 2, 3, 4]
    assert out.captured == 12
    assert not out.grand_slam


@pytest.mark.parametrize(
    "pits",
    [
        [1, 1, 2, 2, 1, 1, 4, 0, 3, 0, 7, 0],  # 7 seeds in e: reaches F too
        [1, 1, 2, 2, 1, 0, 4, 0, 3, 0, 6, 0],  # F empty
    ],
)
def test_czech_example_grand_slam_captures_nothing(pits: list[int]) -> None:
    p = pos(pits, to_move=1)
    out = p.outcome(10)
    assert out.grand_slam
    assert out.captures == ()
    assert out.position.stores == p.stores
    assert out.position.seeds_of(0) > 0


def test_czech_example_fifteen_seeds_skip_origin() -> None:
    p = pos([0, 0, 2, 15, 1, 1, 0, 0, 1, 0, 1, 0], to_move=0)
    out = p.outcome(3)
    assert 3 not in out.sown
    assert len(out.sown) == 15
    assert out.sown[-1] == 7
    assert out.captures == ((7, 2), (6, 2))
    assert out.position.pits[3] == 0


# -- one position per rule ------------------------------------------------------------


def test_initial_position() -> None:
    p = Position.initial()
    assert p.pits == (4,) * 12 and p.stores == (0, 0) and p.to_move == 0
    assert Position.initial(to_move=1).to_move == 1
    assert p.rules == "abapa"


def test_sowing_counter_clockwise_from_next_pit() -> None:
    out = Position.initial().outcome(4)
    assert out.sown == (5, 6, 7, 8)
    assert out.position.pits == (4, 4, 4, 4, 0, 5, 5, 5, 5, 4, 4, 4)


def test_sowing_wraps_from_north_to_south() -> None:
    p = pos([4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4], to_move=1)
    assert p.outcome(10).sown == (11, 0, 1, 2)


def test_twelve_seeds_skip_origin_once() -> None:
    p = pos([12, 1, 1, 1, 1, 1, 5, 5, 5, 5, 5, 1], to_move=0)
    out = p.outcome(0)
    assert out.sown == (*range(1, 12), 1)
    assert out.position.pits[0] == 0
    assert out.position.pits[1] == 3


def test_capture_only_on_opponent_side() -> None:
    # South's last seed lands in its own pit F making 2: no capture.
    p = pos([0, 0, 0, 0, 1, 1, 4, 4, 4, 4, 4, 4])
    assert p.outcome(4).captures == ()


def test_capture_makes_two_or_three_only() -> None:
    p = pos([0, 0, 0, 0, 0, 1, 3, 4, 4, 4, 4, 4])  # F -> a makes 4: nothing
    assert p.outcome(5).captures == ()
    p = pos([0, 0, 0, 0, 0, 1, 2, 4, 4, 4, 4, 4])  # F -> a makes 3
    assert p.outcome(5).captures == ((6, 3),)


def test_chain_stops_at_a_pit_not_holding_two_or_three() -> None:
    # South E (3 seeds) sows F, a, b: b->2, a->4 breaks the chain.
    p = pos([0, 0, 0, 0, 3, 0, 3, 1, 1, 4, 4, 4])
    assert p.outcome(4).captures == ((7, 2),)


def test_chain_stops_at_end_of_opponent_row() -> None:
    # South F sows a, b; chain b, a then would reach F (own side): stops.
    p = pos([0, 0, 0, 0, 2, 2, 1, 1, 4, 4, 4, 4])
    out = p.outcome(5)
    assert out.captures == ((7, 2), (6, 2))


def test_must_feed_filters_moves_and_explains() -> None:
    p = pos([1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0], to_move=0)
    assert p.legal_moves() == [4]
    with pytest.raises(IllegalMoveError, match="North has no seeds: you must feed them; E would"):
        p.play(0)


def test_cannot_feed_ends_game_and_mover_takes_all() -> None:
    p = pos([1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], to_move=0)
    assert p.is_over
    assert p.legal_moves() == []
    assert p.ending is not None and p.ending.reason == "no_feed"
    assert p.scores == (p.stores[0] + 2, p.stores[1])


def test_illegal_move_messages() -> None:
    p = Position.initial()
    with pytest.raises(IllegalMoveError, match="pit a belongs to North; South is to move"):
        p.play(6)
    q = p.play(2)
    with pytest.raises(IllegalMoveError, match="pit C belongs to South; North is to move"):
        q.play(2)
    r = q.play(6)
    with pytest.raises(IllegalMoveError, match="pit C is empty"):
        r.play(2)


def test_win_at_25_and_draw_at_24() -> None:
    p = Position(get_rules("abapa"), [0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 1], [24, 20], 0)
    after = p.play(5)
    assert after.stores == (27, 20)
    assert after.is_over and after.winner == 0
    draw = Position(get_rules("abapa"), [0] * 12, [24, 24], 0)
    assert draw.is_over and draw.winner is None


def test_repetition_ends_game_with_own_side_split() -> None:
    # One seed each: they chase round the board; the first repeat ends the game.
    p = Position(get_rules("abapa"), [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1], [23, 23], 0)
    seen = [p]
    while not p.is_over:
        p = p.play(p.legal_moves()[0])
        seen.append(p)
    assert p.ending is not None
    assert p.ending.reason in {"repetition", "no_feed"}
    if p.ending.reason == "repetition":
        assert seen.count(p) == 2
        assert sum(p.scores) == 48


def test_repetition_on_a_cycle() -> None:
    # South A..F pits with 1 seed and North 1 seed: constructed cycle of plays.
    start = Position(get_rules("abapa"), [1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0], [23, 23], 0)
    p = start
    for _ in range(100):
        if p.is_over:
            break
        p = p.play(p.legal_moves()[0])
    assert p.is_over


def test_repetition_detected_exactly_at_first_repeat() -> None:
    rules = get_rules("abapa")
    # A position pair that alternates: South plays E->F, North plays e->f ... build a loop by
    # hand: moves that return the board to the same state need the seeds to go round; use
    # the chain API directly instead.
    a = Position(rules, [0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 2, 0], [22, 22], 0)
    b = a.play(4)
    assert b.repetitions() == 0
    assert b.prev is a


def test_declared_cycle_end_splits_by_side() -> None:
    p = Position(get_rules("abapa-declared"), [0, 0, 0, 0, 2, 1, 1, 0, 0, 0, 0, 0], [22, 22], 0)
    assert not p.is_over
    ended = p.declare_cycle_end()
    assert ended.is_over and ended.ending is not None and ended.ending.reason == "declared"
    assert ended.scores == (25, 23)
    assert ended.winner == 0
    with pytest.raises(IllegalMoveError, match="the game is over"):
        ended.play(4)


# -- regional options -------------------------------------------------------------------


def test_grand_slam_forbidden_removes_the_move() -> None:
    pits = [1, 1, 2, 2, 1, 0, 4, 0, 3, 0, 6, 0]  # e would capture every South seed
    abapa = pos(pits, to_move=1)
    assert 10 in abapa.legal_moves()
    pl = pos(pits, to_move=1, rules="mankala-pl")
    assert 10 not in pl.legal_moves()
    with pytest.raises(IllegalMoveError, match="would leave South with no seeds"):
        pl.play(10)


def test_grand_slam_forbidden_every_move_ends_game() -> None:
    # North's only move e captures every South seed: the game ends, each keeps their side.
    pits = [1, 1, 2, 2, 1, 0, 0, 0, 0, 0, 6, 0]
    pl = pos(pits, to_move=1, rules="mankala-pl")
    assert pl.is_over and pl.ending is not None and pl.ending.reason == "no_safe_move"
    assert pl.scores == (pl.stores[0] + 7, pl.stores[1] + 6)


def test_grand_slam_captures_everything_option() -> None:
    pits = [1, 1, 2, 2, 1, 0, 4, 0, 3, 0, 6, 0]
    p = Position(get_rules("grand-slam-all"), pits, [20, 8], 1)
    out = p.outcome(10)
    assert out.grand_slam and out.captured == 12
    after = out.position
    # South now has no seeds at their turn: the game ends, North takes their own side.
    assert after.is_over and after.ending is not None and after.ending.reason == "no_seeds"
    assert after.scores[1] == after.stores[1] + after.seeds_of(1)


def test_two_rounds_needs_a_third_occurrence() -> None:
    rules_rep = get_rules("abapa")
    rules_two = get_rules("abapa", cycle="two_rounds")
    rules_decl = get_rules("abapa-declared")
    # Seeds circling: South F (1) and North f (1) alternate forever without captures.
    start = [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1]

    def run(rules: object) -> Position:
        assert not isinstance(rules, str)
        p = Position(rules, start, [23, 23], 0)  # type: ignore[arg-type]
        for _ in range(200):
            if p.is_over:
                break
            p = p.play(p.legal_moves()[0])
        return p

    rep, two, decl = run(rules_rep), run(rules_two), run(rules_decl)
    assert rep.ending is not None and rep.ending.reason == "repetition"
    assert rep.repetitions() == 1
    assert two.ending is not None and two.ending.reason == "two_rounds"
    assert two.repetitions() == 2
    assert not decl.is_over  # only a declaration ends it


def test_unknown_rules_and_options_are_explained() -> None:
    from core import UnknownRulesError

    with pytest.raises(UnknownRulesError, match="unknown rule set 'kalah'"):
        get_rules("kalah")
    with pytest.raises(UnknownRulesError, match="Oware has no option 'players'"):
        get_rules("abapa", players=3)
    with pytest.raises(UnknownRulesError, match="grand_slam must be one of"):
        get_rules("abapa", grand_slam="maybe")


def test_bad_positions_are_explained() -> None:
    with pytest.raises(InvalidPositionError, match="hold 47 seeds"):
        Position("abapa", [4] * 11 + [3], [0, 0])
    with pytest.raises(InvalidPositionError, match="cannot hold -1 seeds"):
        Position("abapa", [-1] + [4] * 11, [1, 0])
    with pytest.raises(InvalidPositionError, match="has 12 pits"):
        Position("abapa", [4] * 11, [4, 0])
    with pytest.raises(InvalidPositionError, match="player 2 does not exist"):
        Position("abapa", [4] * 12, [0, 0], 2)
