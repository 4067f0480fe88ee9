"""Endgame databases: ranking, and every value up to 8 seeds against a brute-force solver."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from core.engine import retrograde
from core.engine.ranking import CUMULATIVE, layer_offset, layer_size, next_board, rank, unrank_into
from tests.engine.brute_force import boards, solve

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("seeds", [0, 1, 2, 5])
def test_ranks_number_the_boards_in_order(seeds: int) -> None:
    expected = sorted(boards(seeds))
    assert len(expected) == layer_size(seeds)
    b = np.array(expected[0], dtype=np.int8)
    out = np.zeros(12, dtype=np.int8)
    for r, want in enumerate(expected):
        assert tuple(b.tolist()) == want
        assert rank(b, CUMULATIVE) == r
        unrank_into(r, seeds, CUMULATIVE, out)
        assert tuple(out.tolist()) == want
        more = next_board(b)
    assert not more


def test_layer_offsets_add_up() -> None:
    assert layer_offset(0) == 0
    assert layer_offset(21) == sum(layer_size(n) for n in range(21)) == 225_792_840


def _compare(max_seeds: int) -> int:
    expected = solve(max_seeds)
    values = retrograde.build(max_seeds)
    wrong = [
        b for b, v in expected.items() if retrograde.lookup(values, np.array(b, dtype=np.int8)) != v
    ]
    assert not wrong, f"{len(wrong)} wrong values, e.g. {wrong[:5]}"
    return len(expected)


def test_values_match_brute_force_up_to_5_seeds() -> None:
    assert _compare(5) == sum(layer_size(n) for n in range(6))


# (no_cover: pure computation that other tests cover; traced, it takes three times as long)
@pytest.mark.no_cover
@pytest.mark.slow
def test_values_match_brute_force_for_every_position_up_to_8_seeds() -> None:
    assert _compare(8) == 125_970


def test_known_values() -> None:
    values = retrograde.build(4)
    # an empty side to move gets nothing; a mover unable to feed takes everything
    assert retrograde.lookup(values, np.array([0] * 6 + [1, 0, 0, 0, 0, 1], np.int8)) == 0
    assert retrograde.lookup(values, np.array([1, 0, 0, 0, 1, 0] + [0] * 6, np.int8)) == 2
    # F's single seed makes 2 on a: captured (b keeps 1, so no grand slam); North
    # then cannot feed South and keeps b's seed: South ends with 2 of the 3
    assert retrograde.lookup(values, np.array([0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0], np.int8)) == 2


def test_pure_python_fallback_builds_the_same_values() -> None:
    """Without numba the same code runs as Python and must give identical bytes."""
    code = (
        "import hashlib; from core.engine import retrograde, _jit; "
        "assert not _jit.HAVE_NUMBA; "
        "print(hashlib.sha1(retrograde.build(4).tobytes()).hexdigest())"
    )
    env = dict(os.environ, OWARE_NO_NUMBA="1")
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert out.stdout.strip() == hashlib.sha1(retrograde.build(4).tobytes()).hexdigest()
