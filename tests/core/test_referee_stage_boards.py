"""The stages the referee builds show the boards the rules and the mistakes make.

The boards of wrong sowings are built from seed counts shared by every position
(core.referee.mistakes); these tests rebuild each one seed by seed from its path,
over random positions of every family of rule sets, relays included.
"""

from __future__ import annotations

import random

import pytest

from core.position import Position
from core.referee.playthrough import random_full_game
from core.referee.stages import MISTAKE, OTHER_SIDE, MoveGraph, board_after, sowing_boards

RULES = [
    ("abapa", {}),
    ("universal", {"players": 2}),
    ("universal", {"players": 3, "variants": [9]}),
    ("universal", {"players": 4, "variants": [2]}),
]


def positions(rules: str, options: dict[str, object], seed: int) -> list[Position]:
    start = Position.initial(rules, **options)
    out: list[Position] = []
    pos = start
    for m in random_full_game(start, random.Random(seed), limit=60):
        out.append(pos)
        pos = pos.play(m)
    return out


@pytest.mark.parametrize(("rules", "options"), RULES, ids=[f"{r}-{o}" for r, o in RULES])
def test_every_stage_board_is_the_board_its_seeds_make(
    rules: str, options: dict[str, object]
) -> None:
    checked = 0
    for pos in positions(rules, options, seed=3):
        g = MoveGraph(pos)
        g.reach(("idle",))  # builds every move's stages and wrong sowings
        for m in g.moves:
            out = g.outcome(m)
            path = out.sown
            boards = dict(sowing_boards(pos.pits, m, path, out.relay_steps))
            for k, key in g._moves[m].sowing:
                assert g.stage(key).board == boards[k]
                assert g.stage(key).in_hand
            for v in g._move_mistakes(m):
                first = v.wrong_index + 1
                end = len(v.path)
                stage = g.stage(("bad", m, v.kind, v.wrong_index, first))
                assert stage.board == board_after(pos.pits, m, v.path, first), (pos, m, v)
                assert stage.in_hand == any(s >= 0 for s in v.path[first:])
                assert stage.mistake is v.mistake
                if end > first:
                    last = g.stage(("bad", m, v.kind, v.wrong_index, end))
                    assert last.board == board_after(pos.pits, m, v.path, end)
                    assert not last.in_hand
                checked += 1
    assert checked > 100


def test_a_wrong_sowing_that_ends_on_the_right_board_is_no_stage() -> None:
    """A lap sown the wrong way can leave the very board the move leaves: no board tells
    it apart, so no wrong sowing ends there."""
    for pos in positions("abapa", {}, seed=5):
        g = MoveGraph(pos)
        for m in g.moves:
            mv = g._moves[m]
            for v in g._move_mistakes(m):
                end_board = board_after(pos.pits, m, v.path, len(v.path))
                assert end_board not in (mv.sown, mv.out.position.pits)


@pytest.mark.parametrize(("rules", "options"), RULES[:3], ids=[r for r, _ in RULES[:3]])
def test_a_reach_with_the_next_move_begun_is_the_plain_reach_with_each_block_inserted(
    rules: str, options: dict[str, object]
) -> None:
    """Each move done is followed, right after its position, by the next move begun (its
    block); everything else is the plain reach, in the same order."""
    from core.referee.tracker import Tracker

    checked = 0
    for pos in positions(rules, options, seed=7)[::4]:
        tracker = Tracker(pos)
        g = tracker.graph(())
        keys = [("idle",)] + [k for m in g.moves for _, k in g._moves[m].sowing][:6]
        for skey in keys:
            node = ((), skey)
            plain = tracker._node_reach(node, False)
            full = tracker._node_reach(node, True)
            exits = g.reach(skey)[1]
            # rebuild the full reach from the plain one and the blocks, as described
            rows: list[tuple[object, object, tuple[int, ...], float]] = []
            i = len(g.reach(skey)[0])
            rows += [
                (plain.suffixes[k], plain.stages[k], tuple(plain.boards[k]), plain.costs[k])
                for k in range(i)
            ]
            for e, c in exits:
                block = tracker._next_move((), e.record)
                n = len(block.costs) if e.missed else 1
                rows += [
                    (plain.suffixes[k], plain.stages[k], tuple(plain.boards[k]), plain.costs[k])
                    for k in range(i, i + n)
                ]
                i += n
                if not e.missed:
                    rows += [
                        (
                            block.suffixes[k],
                            block.stages[k],
                            tuple(block.boards[k]),
                            block.costs[k] + c,
                        )
                        for k in range(len(block.costs))
                    ]
            assert i == len(plain.costs)
            got = [
                (full.suffixes[k], full.stages[k], tuple(full.boards[k]), full.costs[k])
                for k in range(len(full.costs))
            ]
            assert got == rows
            assert len(full.moved) == len(full.in_hand) == len(rows)
            checked += 1
    assert checked > 10


def _lift_costs(pos: Position) -> dict[int, float]:
    stages, _ = MoveGraph(pos).reach(("idle",))
    return {int(key[1]): cost for key, cost in stages if key[0] == "lift" and key[2] == 0}


def test_a_pit_of_the_other_side_lifted_costs_more_than_one_of_the_movers_own() -> None:
    # South must feed North: only F reaches it, so A (one seed) may not be played.
    feeding = Position.from_text("1-0-0-0-0-1-0-0-0-0-0-0-23-23-S", rules="abapa")
    assert feeding.legal_moves() == [5]
    assert _lift_costs(feeding) == {0: MISTAKE}
    # From the start, South's own pits are all legal: the pits that may not be lifted
    # are North's, and each costs the other side's price.
    assert _lift_costs(Position.initial()) == {p: MISTAKE + OTHER_SIDE for p in range(6, 12)}
    assert OTHER_SIDE < 0
