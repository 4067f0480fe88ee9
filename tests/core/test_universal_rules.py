"""Universal mancala (2-4 players) and its ten variants, one concrete position each."""

from __future__ import annotations

from typing import Any

import pytest

from core import IllegalMoveError, Position, UnknownRulesError, get_rules, store_slot


def uni(pits: list[int], to_move: int = 0, **options: Any) -> Position:
    """A universal position whose stores make up the seed total (spread evenly)."""
    rules = get_rules("universal", **options)
    rest = rules.total_seeds - sum(pits)
    n = rules.players
    stores = [rest // n + (1 if i < rest % n else 0) for i in range(n)]
    return Position(rules, pits, stores, to_move)


NORTH_FULL = [4, 4, 4, 4, 5, 4]


def test_initial_positions_for_two_three_four_players() -> None:
    for players, seeds in ((2, 48), (3, 72), (4, 96)):
        p = Position.initial("universal", players=players)
        assert len(p.pits) == 6 * players and sum(p.pits) == seeds
        assert p.stores == (0,) * players
    assert sum(Position.initial("universal", variants=[2]).pits) == 36


def test_last_seed_in_own_store_gives_another_turn() -> None:
    out = Position.initial("universal").outcome(2)
    assert out.sown == (3, 4, 5, store_slot(0))
    assert out.extra_turn and out.position.to_move == 0
    assert out.position.stores == (1, 0)


def test_sowing_skips_opponent_store_and_origin() -> None:
    p = uni([0, 0, 0, 0, 0, 13, 0, 0, 0, 0, 0, 0])
    out = p.outcome(5)
    # own store, North's six pits, (North's store skipped), A..E, (F skipped), own store...
    assert out.sown[:12] == (store_slot(0), 6, 7, 8, 9, 10, 11, 0, 1, 2, 3, 4)
    assert out.sown[12] == store_slot(0)
    assert store_slot(1) not in out.sown and 5 not in out.sown


def test_capture_from_own_empty_pit_takes_facing_pit_and_capturing_seed() -> None:
    p = uni([1, 0, 0, 0, 0, 0, *NORTH_FULL])
    out = p.outcome(0)
    assert out.captures == ((10, 5), (1, 1))
    assert out.position.stores[0] == p.stores[0] + 6
    assert out.position.pits[1] == 0 and out.position.pits[10] == 0


def test_capture_facing_empty_pit_takes_nothing() -> None:
    p = uni([1, 0, 0, 0, 0, 0, 4, 4, 4, 4, 0, 4])
    out = p.outcome(0)
    assert out.captures == ()
    assert out.position.pits[1] == 1


def test_three_players_capture_from_every_opponent_same_position() -> None:
    pits = [1, 0, 0, 0, 0, 0] + [2, 3, 0, 0, 0, 0] + [0, 5, 0, 0, 0, 0]
    p = uni(pits, players=3)
    out = p.outcome(0)
    assert out.captures == ((7, 3), (13, 5), (1, 1))


def test_player_with_no_seeds_is_skipped() -> None:
    pits = [1, 0, 0, 0, 0, 0] + [0] * 6 + [0, 0, 0, 0, 0, 3]
    p = uni(pits, players=3)
    after = p.play(0)
    assert after.to_move == 2  # player 2 (index 1) has nothing and is skipped


def test_game_ends_when_every_seed_is_in_the_stores() -> None:
    rules = get_rules("universal")
    p = Position(rules, [0] * 12, [30, 18], 0)
    assert p.is_over and p.ending is not None and p.ending.reason == "all_sown"
    assert p.winner == 0
    assert Position(rules, [0] * 12, [24, 24], 0).winner is None


def test_variant_1_touch_move_flag() -> None:
    assert get_rules("universal", variants=[1]).touch_move
    assert not get_rules("universal").touch_move


def test_variant_3_capturing_seed_stays() -> None:
    p = uni([1, 0, 0, 0, 0, 0, *NORTH_FULL], variants=[3])
    out = p.outcome(0)
    assert out.captures == ((10, 5),)
    assert out.position.pits[1] == 1


def test_variant_4_first_empty_ends_and_pits_do_not_count() -> None:
    p = uni([0, 0, 0, 0, 0, 1, *NORTH_FULL], variants=[4])
    after = p.play(5)
    assert after.is_over and after.ending is not None and after.ending.reason == "emptied"
    assert after.scores == after.stores


def test_variant_5_stores_skipped() -> None:
    p = uni([0, 0, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0], variants=[5])
    out = p.outcome(5)
    assert out.sown == (6, 7, 8, 9, 10, 11, 0, 1)
    assert not out.extra_turn


def test_variant_6_four_players_capture_from_opposite_player_only() -> None:
    pits = [1, 0, 0, 0, 0, 0] + [0, 2, 0, 0, 0, 0] + [0, 3, 0, 0, 0, 0] + [0, 4, 0, 0, 0, 0]
    p = uni(pits, players=4, variants=[6])
    assert p.outcome(0).captures == ((13, 3), (1, 1))
    everyone = uni(pits, players=4)
    assert everyone.outcome(0).captures == ((7, 2), (13, 3), (19, 4), (1, 1))


def test_variant_7_must_feed_next_player() -> None:
    p = uni([1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0], variants=[7])
    assert p.legal_moves() == [5]
    with pytest.raises(IllegalMoveError, match="North has no seeds: you must feed them; F would"):
        p.play(0)
    # Without the variant North is simply skipped.
    assert uni([1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0]).legal_moves() == [0, 5]


def test_variant_7_cannot_feed_ends_game_with_seeds_to_their_holders() -> None:
    p = uni([3, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0], variants=[7])
    assert p.is_over and p.ending is not None and p.ending.reason == "no_feed"
    assert p.scores == (p.stores[0] + 4, p.stores[1])


def test_variant_8_capture_lone_seed() -> None:
    p = uni([1, 0, 0, 0, 0, 0, 4, 4, 4, 4, 0, 4], variants=[8])
    out = p.outcome(0)
    assert out.captures == ((1, 1),)
    assert out.position.pits[1] == 0


def test_variant_9_relay_sowing() -> None:
    p = uni([0, 0, 0, 0, 1, 3, 4, 0, 0, 4, 4, 4], variants=[9])
    out = p.outcome(4)
    assert out.relays == (5,)
    assert out.sown == (5, store_slot(0), 6, 7, 8)
    assert out.position.pits[5] == 0 and out.position.pits[8] == 1


def test_variant_10_capture_on_four_own_and_opponent_pits() -> None:
    own = uni([1, 3, 0, 0, 0, 0, *NORTH_FULL], variants=[10])
    assert own.outcome(0).captures == ((1, 4),)
    theirs = uni([0, 0, 0, 0, 0, 2, 3, 4, 4, 4, 4, 4], variants=[10])
    assert theirs.outcome(5).captures == ((6, 4),)
    # The ordinary empty-pit capture no longer applies.
    assert uni([1, 0, 0, 0, 0, 0, *NORTH_FULL], variants=[10]).outcome(0).captures == ()


@pytest.mark.parametrize("variants", [[3, 8], [10, 3], [10, 8], [9, 10]])
def test_contradictory_variants_are_refused(variants: list[int]) -> None:
    with pytest.raises(UnknownRulesError, match="do not combine"):
        get_rules("universal", variants=variants)


def test_variant_6_needs_four_players() -> None:
    with pytest.raises(UnknownRulesError, match="needs 4 players"):
        get_rules("universal", players=3, variants=[6])


def test_variants_combine_in_a_full_random_game() -> None:
    import random

    rng = random.Random(7)
    for variants in ([1, 2, 3], [4, 5], [5, 7, 8], [9], [10], [6, 7]):
        p = Position.initial("universal", players=4, variants=variants)
        total = p.ruleset.total_seeds
        for _ in range(2000):
            if p.is_over:
                break
            p = p.play(rng.choice(p.legal_moves()))
            assert sum(p.pits) + sum(p.stores) == total
        assert p.is_over, variants
