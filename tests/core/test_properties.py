"""Property-based tests of the rules core (hypothesis): conservation, sowing, captures,
must-feed, determinism and round trips, over random games of every rule-set family."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from core import Position, get_rules
from core.records import GameRecord

RULESETS: list[tuple[str, dict[str, Any]]] = [
    ("abapa", {}),
    ("mankala-pl", {}),
    ("grand-slam-all", {}),
    ("abapa-declared", {}),
    ("universal", {}),
    ("universal", {"players": 3}),
    ("universal", {"players": 4, "variants": [6, 7]}),
    ("universal", {"players": 3, "variants": [3, 5, 9]}),
    ("universal", {"variants": [4, 8, 2]}),
    ("universal", {"players": 4, "variants": [10]}),
]

rulesets = st.sampled_from(RULESETS)


@st.composite
def games(draw: st.DrawFn, max_moves: int = 80) -> tuple[Position, list[int]]:
    """A rule set's start position and a random legal move sequence from it."""
    name, options = draw(rulesets)
    start = Position.initial(name, **options)
    moves: list[int] = []
    p = start
    for _ in range(draw(st.integers(0, max_moves))):
        legal = p.legal_moves()
        if not legal:
            break
        m = draw(st.sampled_from(legal))
        moves.append(m)
        p = p.play(m)
    return start, moves


def replay(start: Position, moves: list[int]) -> list[Position]:
    out = [start]
    for m in moves:
        out.append(out[-1].play(m))
    return out


@settings(max_examples=150, deadline=None)
@given(games())
def test_seed_conservation_and_no_seed_into_origin(game: tuple[Position, list[int]]) -> None:
    start, moves = game
    total = start.ruleset.total_seeds
    p = start
    for m in moves:
        out = p.outcome(m)
        assert m not in out.sown, "a seed was sown into the origin pit"
        assert sum(out.position.pits) + sum(out.position.stores) == total
        assert out.position.pits[m] == 0, "the origin pit must be left empty"
        assert all(c >= 0 for c in out.position.pits)
        p = out.position


@settings(max_examples=150, deadline=None)
@given(games())
def test_captures_only_as_the_rules_allow(game: tuple[Position, list[int]]) -> None:
    start, moves = game
    rules = start.ruleset
    p = start
    for m in moves:
        out = p.outcome(m)
        gained = out.position.stores[out.player] - p.stores[out.player]
        if rules.family == "oware":
            # Captured pits are the opponent's, held 2 or 3, form a chain ending at the last seed.
            assert gained == out.captured
            if out.captures:
                assert out.captures[0][0] == out.sown[-1]
                for (a, _), (b, _) in zip(out.captures, out.captures[1:], strict=False):
                    assert b == a - 1
                for pit, c in out.captures:
                    assert rules.owner(pit) != out.player and c in (2, 3)
            if out.grand_slam and rules.options["grand_slam"] == "no_capture":
                assert out.captures == ()
        else:
            into_store = sum(1 for s in out.sown if s == -1 - out.player)
            assert gained == out.captured + into_store
            for pit, c in out.captures:
                assert c > 0
                if rules.options["capture_on_four"]:
                    assert c == 4 and pit == out.sown[-1]
        # Nobody else's store changes, except by seeds sown into their own store (never).
        for q in range(rules.players):
            if q != out.player:
                assert out.position.stores[q] == p.stores[q]
        p = out.position


@settings(max_examples=150, deadline=None)
@given(games())
def test_must_feed_respected(game: tuple[Position, list[int]]) -> None:
    start, moves = game
    if start.ruleset.family != "oware":
        return
    p = start
    for m in moves:
        opponent = 1 - p.to_move
        starving = p.seeds_of(opponent) == 0
        after = p.play(m)
        if starving:
            assert after.seeds_of(opponent) > 0
        p = after


@settings(max_examples=80, deadline=None)
@given(games())
def test_determinism(game: tuple[Position, list[int]]) -> None:
    start, moves = game
    assert replay(start, moves) == replay(start, moves)


@settings(max_examples=120, deadline=None)
@given(games())
def test_text_and_json_round_trip(game: tuple[Position, list[int]]) -> None:
    start, moves = game
    for p in replay(start, moves):
        assert Position.from_text(p.to_text(), p.ruleset) == p
        assert Position.from_json(p.to_json()) == p


@settings(max_examples=80, deadline=None)
@given(games(max_moves=200))
def test_ogn_and_json_records_round_trip(game: tuple[Position, list[int]]) -> None:
    start, moves = game
    record = GameRecord(start, moves, {"Event": 'Club "night"', "South": "Ama"})
    again = GameRecord.from_ogn(record.to_ogn())
    assert again == record
    assert again.final() == record.final()
    assert GameRecord.from_json(record.to_json()) == record


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(RULESETS), st.data())
def test_move_names_round_trip(ruleset: tuple[str, dict[str, Any]], data: st.DataObject) -> None:
    from core.notation import move_name, parse_move

    rules = get_rules(ruleset[0], **ruleset[1])
    pit = data.draw(st.integers(0, rules.num_pits - 1))
    assert parse_move(move_name(pit, rules.players), rules.players) == pit


@settings(max_examples=100, deadline=None)
@given(games(max_moves=300))
def test_game_over_means_no_moves_and_final_scores_sum(game: tuple[Position, list[int]]) -> None:
    start, moves = game
    p = replay(start, moves)[-1]
    if p.is_over:
        assert p.legal_moves() == []
        assert sum(p.scores) <= start.ruleset.total_seeds
        assert all(s >= c for s, c in zip(p.scores, p.stores, strict=True))
    else:
        assert p.legal_moves()
