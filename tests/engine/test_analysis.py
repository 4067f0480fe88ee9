"""Analysis of core positions, the teaching view, and the multi-player search."""

from __future__ import annotations

import pytest

from core import Position
from core.engine import retrograde
from core.engine.analysis import analyze
from core.engine.explain import describe_outcome, explain_move
from core.engine.multiplayer import ParanoidSearch, evaluate_for


def test_every_legal_move_gets_a_value_and_the_line_is_in_letters() -> None:
    p = Position.initial().play(5)  # North to move
    a = analyze(p, seconds=0.5)
    assert sorted(m.pit for m in a.moves) == p.legal_moves()
    assert [m.score for m in a.moves] == sorted((m.score for m in a.moves), reverse=True)
    assert a.pv[0] == a.best and all(n in "ABCDEFabcdef" for n in a.pv_names)
    assert a.pv_names[0] in "abcdef"  # North's move first
    data = a.to_json()
    assert data["best_name"] == a.best_name and len(data["moves"]) == len(p.legal_moves())


def test_exact_values_from_the_database_are_reported_as_results() -> None:
    database = retrograde.build(6)
    # 2 seeds on the board, 24-22: every line ends (by a capture, whose position
    # has no history and so an exact database value, or by the rules) within reach
    p = Position.from_text("0-0-0-0-0-2-0-0-0-0-0-0-24-22-S")
    a = analyze(p, seconds=1.0, database=database, db_max=6)
    assert a.solved
    assert all(m.exact and m.result in {"win", "draw", "loss"} for m in a.moves)
    assert a.moves[0].margin is not None


def test_database_values_after_a_quiet_move_are_not_claimed_exact() -> None:
    database = retrograde.build(6)
    # 5 seeds, 24-19: the database says a draw. A move without capture leaves this
    # position in the history, where a repetition could end the game otherwise
    # than the database (which assumes no history) says: not claimed solved,
    # but the value found is the database's and the final split is given
    p = Position.from_text("1-0-0-0-2-0-0-1-0-0-1-0-24-19-S")
    a = analyze(p, seconds=1.0, database=database, db_max=6)
    assert not a.solved
    assert a.moves[0].score == 0 and a.moves[0].final == (24, 24)


def test_a_lost_position_says_loss() -> None:
    # F (the only move) captures 2 on a: 23-24; North cannot feed South and keeps
    # b's seed: 23-25, South loses by 2
    p = Position.from_text("0-0-0-0-0-1-1-1-0-0-0-0-21-24-S")
    a = analyze(p, seconds=0.5)
    assert a.best_name == "F" and a.solved
    assert a.moves[0].result == "loss" and a.moves[0].margin == -2
    assert a.moves[0].text == "loss by 2"


def test_grand_slam_variants_use_their_own_rules() -> None:
    text = "0-0-0-0-0-2-1-1-0-0-0-0-20-24-S"
    abapa = analyze(Position.from_text(text), seconds=0.3)
    capture_all = analyze(Position.from_text(text, rules="grand-slam-all"), seconds=0.3)
    assert capture_all.moves[0].score != abapa.moves[0].score
    with pytest.raises(ValueError):
        analyze(Position.from_text("0-0-0-0-0-0-0-0-0-0-0-0-24-24-S"))


def test_describe_outcome_names_sowing_and_captures() -> None:
    p = Position.from_text("0-0-0-0-0-5-4-1-2-1-2-0-10-23-S")
    text = describe_outcome(p.outcome(5))
    assert text.startswith("South plays F: lifts 5 seeds and sows them into a, b, c, d and e.")
    assert "captures 10" in text and "20 in store" in text
    slam = Position.from_text("0-0-0-0-0-2-1-1-0-0-0-0-20-24-S")
    assert "grand slam" in describe_outcome(slam.outcome(5))


def test_explain_move_gives_the_best_reply_in_words() -> None:
    p = Position.initial()
    a = analyze(p, seconds=0.3)
    worst = a.moves[-1]
    e = explain_move(p, worst.pit, seconds=0.2, analysis=a)
    assert e.move == worst.name and e.reply is not None and e.reply in "abcdef"
    assert "Best reply: North plays" in e.text
    assert f"it prefers {a.best_name}" in e.text or a.best == worst.pit


@pytest.mark.parametrize("players", [3, 4])
def test_paranoid_search_for_more_players(players: int) -> None:
    p = Position.initial("universal", players=players)
    a = analyze(p, seconds=0.5)
    assert a.engine == "paranoid" and a.depth >= 2
    assert sorted(m.pit for m in a.moves) == p.legal_moves()
    assert a.best_name[0] == "1"  # player 1's pits: 1A-1F


def test_paranoid_value_is_the_coalition_minimum() -> None:
    """At depth 2, the paranoid value of a move is the worst the next player can do to us."""
    p = Position.initial("universal", players=3)
    search = ParanoidSearch(0, deadline=float("inf"))
    for m in p.legal_moves():
        child = p.play(m)
        value = search.value(child, 1, -(1 << 30), 1 << 30)
        if child.to_move == 0:  # extra turn: our own best follow-up
            expected = max(evaluate_for(child.play(r), 0) for r in child.legal_moves())
        else:
            expected = min(evaluate_for(child.play(r), 0) for r in child.legal_moves())
        assert value == expected


def test_databases_are_used_only_for_the_rules_they_were_built_for() -> None:
    from core.engine.analysis import database_applies, make_searcher

    database = retrograde.build(3)
    assert database_applies(Position.initial("abapa"))
    for rules in ("abapa-declared", "mankala-pl", "grand-slam-all"):
        p = Position.initial(rules)
        assert not database_applies(p)
        assert make_searcher(p, database, 3).db_max == -1
    assert make_searcher(Position.initial("abapa"), database, 3).db_max == 3


def test_final_scores_come_from_the_database_when_it_covers_the_position() -> None:
    database = retrograde.build(6)
    p = Position.from_text("1-0-0-0-2-0-0-1-0-0-1-0-24-19-S")
    a = analyze(p, seconds=0.5, database=database, db_max=6)
    for m in a.moves:
        assert m.final is not None and sum(m.final) == 48
        expected = "win" if m.final[0] > m.final[1] else "draw" if m.final[0] == 24 else "loss"
        assert m.result == expected
    assert a.moves[0].text.startswith(a.moves[0].result or "?")


def test_a_final_split_the_game_bounds_leave_open_is_not_given() -> None:
    """Game 11 of a match against Aalina, ply 52: South to move on 12 seeds, just after a
    capture. After C the databases' value says 24-24, but the game bounds leave North
    anything from 2 to 8 of the 12: with the bounds, no final split and no result."""
    p = Position.from_text("1-2-3-1-0-0-1-1-2-1-0-0-17-19-S")
    values = retrograde.build(12)
    bounds = retrograde.game_bounds(13)
    trusting = analyze(p, seconds=None, nodes=20_000, database=values, db_max=12)
    bounded = analyze(p, seconds=None, nodes=20_000, database=values, db_max=12, bounds=bounds)
    c = "ABCDEF".index("C")
    assert next(m for m in trusting.moves if m.pit == c).final == (24, 24)
    after_c = next(m for m in bounded.moves if m.pit == c)
    assert after_c.final is None and after_c.result is None
