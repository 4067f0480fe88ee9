"""Proofs of a forced win under the cycle rule (:mod:`core.engine.proof`).

The brute force of ``history_game.py`` (every path of the game tree, the rules core
ending each repetition) is the arbiter on small boards.
"""

from __future__ import annotations

import numpy as np
import pytest

from core import Position
from core.engine import retrograde
from core.engine.kernel import to_relative
from core.engine.proof import (
    _grow_whole,
    _PathSearch,
    _segment_at,
    prove_share,
    prove_win,
    result_range,
)
from core.engine.segment import Segment, _attractor
from tests.engine.history_game import solved_boards
from tests.engine.test_segment import GAME_3_START


@pytest.mark.parametrize("seeds", [2, 3])
def test_a_proof_is_given_exactly_where_the_brute_force_finds_the_win(seeds: int) -> None:
    """And the range of results searched is the brute force's result; the attractors
    alone (no search) give a range that holds it."""
    values, bounds = retrograde.build(seeds), retrograde.game_bounds(seeds)
    compared = drawn = opened = 0
    for board, south in solved_boards(seeds):
        p = Position("abapa", board, (0, 0), 0, check_total=False)
        proofs = [prove_win(p, side, values, bounds).proven for side in (0, 1)]
        assert proofs == [2 * south > seeds, 2 * south < seeds], (board, south)
        result = 1.0 if 2 * south > seeds else 0.5 if 2 * south == seeds else 0.0
        assert result_range(p, 0, values, bounds, 80) == (result, result), (board, south)
        assert result_range(p, 1, values, bounds, 80) == (1 - result, 1 - result)
        low, high = result_range(p, 0, values, bounds)
        assert low <= result <= high, (board, south, low, high)
        compared += 1
        drawn += 2 * south == seeds
        opened += (low, high) != (result, result)
    assert compared >= 50, compared
    print(f"{compared} boards of {seeds} seeds, {drawn} drawn, {opened} open unsearched")


def test_the_board_north_reached_in_games_3_6_and_46_it_wins_under_the_rule() -> None:
    """Game 3's segment (``test_segment.py``): the databases' values rate the six seeds
    North's capture left a draw (24-24), their game bounds leave all six open; under the
    rule North forces its win from there, whatever South does (it won all three games
    25-23, South on our side)."""
    values, bounds = retrograde.build(6), retrograde.game_bounds(6)
    p = Position.from_text(GAME_3_START)
    assert retrograde.lookup(values, to_relative(p.pits, 1)) == 2  # 22 + 2 = 20 + 4
    north = prove_win(p, 1, values, bounds)
    assert north.proven, north
    # the search deepened two plies at a time finds it at 42 plies, with several times
    # the nodes of the proof-number search
    found = _segment_at(p, values, bounds)
    assert found is not None
    segment, win_from, _ = found  # (North to move: its win from win_from seeds up)
    deepened = prove_share(segment, 0, win_from, deepening=True)
    assert deepened.proven and deepened.plies == 42, deepened
    assert 3 * north.nodes < deepened.nodes, (north, deepened)
    assert not prove_win(p, 0, values, bounds, max_plies=10).proven


def test_without_the_nodes_to_finish_nothing_is_proven() -> None:
    values, bounds = retrograde.build(6), retrograde.game_bounds(6)
    p = Position.from_text(GAME_3_START)
    proof = prove_win(p, 1, values, bounds, max_nodes=50)
    assert not proof.proven and proof.nodes > 50
    assert np.isfinite(proof.plies)


def test_the_attractors_grown_on_along_a_path_are_those_built_whole_for_it() -> None:
    """The search grows a child's attractors on from its parent's, seeing the child
    alone (or grows them again where the child now ends the game against the side),
    from needs computed once per search; built whole for the path at every node (as
    :func:`core.engine.segment._attractor` does), they must hold the same positions;
    the journal of what each step changed, written back, must give every parent's
    exactly. Random paths through game 3's segment (6 seeds, 2 to 3 thresholds, both
    players), checked at every step there and back."""
    values, bounds = retrograde.build(6), retrograde.game_bounds(6)
    p = Position.from_text(GAME_3_START)
    found = _segment_at(p, values, bounds)
    assert found is not None
    segment = found[0]
    total, side, edges, count, ends, first, preds = segment.graph
    rng = np.random.default_rng(7)
    settled = {1: 0, -1: 0, 0: 0}
    into = 0  # steps into a position one of the parent's attractors held
    rewound = 0  # steps undone that had changed something
    for threshold in range(1, segment.seeds + 1, 2):
        for player in (0, 1):
            search = _PathSearch(segment, player, threshold)
            mine, theirs = (
                (segment.low, segment.high) if player == 0 else (segment.high, segment.low)
            )
            for _walk in range(15):
                search.on_path[:] = False
                search.on_path[0] = True
                search.path[0], search.length = 0, 1
                search.root_grown = False
                node = 0
                states = []  # per depth: the attractors, and where their journals were
                for depth in range(int(rng.integers(0, 30))):
                    marks = (int(search.fill[0, 0]), int(search.fill[1, 0]))
                    got = search._grow_at(node, depth)
                    states.append((search.need.copy(), search.order.copy(), marks))
                    for who, fixed in ((player, mine), (1 - player, theirs)):
                        order = np.zeros(total, dtype=np.int32)
                        _attractor(
                            total,
                            side,
                            edges,
                            fixed,
                            count,
                            ends,
                            first,
                            preds,
                            threshold,
                            who,
                            order,
                            search.on_path,
                            segment.own,
                        )
                        mine_or_theirs = 0 if who == player else 1
                        need = search.need[mine_or_theirs]
                        entered = search.order[mine_or_theirs]
                        assert ((need <= 0) == (order >= 0)).all(), (threshold, player, depth)
                        assert ((entered >= 0) == (order >= 0)).all(), (threshold, player, depth)
                        # built whole, what every position still needs is counted alike
                        base, zero = search.needs[mine_or_theirs]
                        whole, whole_order = np.empty_like(need), np.empty_like(need)
                        path = search.path[: search.length]
                        _grow_whole(
                            whole, whole_order, base, zero, side, segment.own, first, preds,
                            search.on_path, path, threshold, who, search.queue,
                        )  # fmt: skip
                        assert (need == whole).all()
                        # and every position entered on moves into positions that had
                        # entered before it (which the attractor's shrinking relies on)
                        assert _entered_in_order(segment, search, who, base, entered)
                    settled[got] += 1
                    moves = [
                        int(c)
                        for c in edges[node, : count[node]]
                        if c >= 0 and not search.on_path[c] and ends[c] < 0
                    ]
                    if not moves:
                        break
                    node = moves[int(rng.integers(len(moves)))]
                    into += bool(search.need[:, node].min() <= 0)
                    search.on_path[node] = True
                    search.path[search.length] = node
                    search.length += 1
                # back up the path: each step's journal written back gives its parent's
                # attractors, entry numbers included
                for depth in range(len(states) - 1, 0, -1):
                    before = search.need.copy()
                    search._rewind_to(states[depth][2])
                    rewound += bool((before != search.need).any())
                    assert (search.need == states[depth - 1][0]).all(), (threshold, depth)
                    assert (search.order == states[depth - 1][1]).all(), (threshold, depth)
    assert into > 0 and rewound > 0, (into, rewound)
    # the walks reach positions of each kind: settled either way, and open
    assert min(settled.values()) > 0, settled


def _entered_in_order(
    segment: Segment, search: _PathSearch, who: int, base: np.ndarray, entered: np.ndarray
) -> bool:
    """Whether every position of ``who``'s attractor (numbered ``entered``) is in it by
    its moves into positions numbered before it, or into seen positions ending the game
    as ``who`` wants, beside what its moves leaving the segment give (``base``)."""
    total, side, edges, count, _, _, _ = segment.graph
    moves = edges[:total]
    real = (np.arange(6)[None, :] < count[:total, None]) & (moves >= 0)
    to = np.where(real, moves, 0)
    own = segment.own[:total]
    wanted = (own >= search.threshold) if who == 0 else (own < search.threshold)
    seen = search.on_path[:total]
    earlier = (entered[to] >= 0) & (entered[to] < entered[:total, None])
    credit = real & ((seen[to] & wanted[to]) | (~seen[to] & earlier))
    justified = np.where(
        side[:total] == who, (base <= 0) | credit.any(axis=1), credit.sum(axis=1) >= base
    )
    inside = entered >= 0
    return bool(justified[inside].all())
