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
from core.engine.proof import _PathSearch, _segment_at, _settle, prove_win, result_range
from core.engine.segment import _attractor
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
    assert north.proven and north.plies == 42, north
    assert not prove_win(p, 0, values, bounds, max_plies=10).proven


def test_without_the_nodes_to_finish_nothing_is_proven() -> None:
    values, bounds = retrograde.build(6), retrograde.game_bounds(6)
    p = Position.from_text(GAME_3_START)
    proof = prove_win(p, 1, values, bounds, max_nodes=50)
    assert not proof.proven and proof.nodes > 50
    assert np.isfinite(proof.plies)


def test_the_attractors_settle_a_node_as_when_built_whole_for_its_path() -> None:
    """The search grows each attractor from needs computed once per search and marks
    only the path's positions; built whole for the path at every node (as
    :func:`core.engine.segment._attractor` does), it must say the same. Random paths
    through game 3's segment (6 seeds, 2 to 3 thresholds, both players)."""
    values, bounds = retrograde.build(6), retrograde.game_bounds(6)
    p = Position.from_text(GAME_3_START)
    found = _segment_at(p, values, bounds)
    assert found is not None
    segment = found[0]
    total, side, edges, count, ends, first, preds = segment.graph
    rng = np.random.default_rng(7)
    settled = {1: 0, -1: 0, 0: 0}
    for threshold in range(1, segment.seeds + 1, 2):
        for player in (0, 1):
            search = _PathSearch(segment, player, threshold)
            mine, theirs = (
                (segment.low, segment.high) if player == 0 else (segment.high, segment.low)
            )
            for _walk in range(15):
                path, node = [0], 0
                on_path = np.zeros(total, dtype=np.bool_)
                on_path[0] = True
                for _ply in range(int(rng.integers(0, 30))):
                    moves = [
                        int(c) for c in edges[node, : count[node]] if c >= 0 and not on_path[c]
                    ]
                    if not moves:
                        break
                    node = moves[int(rng.integers(len(moves)))]
                    on_path[node] = True
                    path.append(node)
                if ends[node] >= 0:
                    continue
                got = _settle(
                    side,
                    segment.own,
                    first,
                    preds,
                    on_path,
                    np.array(path, dtype=np.int32),
                    node,
                    threshold,
                    player,
                    *search.needs[0],
                    *search.needs[1],
                )
                order = np.zeros(total, dtype=np.int32)
                whole = 0
                for who, fixed, result in ((player, mine, 1), (1 - player, theirs, -1)):
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
                        on_path,
                        segment.own,
                    )
                    if order[node] >= 0:
                        whole = result
                        break
                assert got == whole, (threshold, player, path)
                settled[got] += 1
    # the walks reach positions of each kind: settled either way, and open
    assert min(settled.values()) > 0, settled
