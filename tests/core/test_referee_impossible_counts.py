"""A reading of more seeds than the game has is a bad observation, however it is given
(issue 26, defect 12): a sure count, or a belief whose likeliest count is too many."""

from __future__ import annotations

from typing import Any

import pytest

from core import Position
from core.referee.session import replay, session_header


def _events(pit0: Any) -> list[tuple[str, str]]:
    header = session_header(Position.initial())
    line = {"t": 1.0, "source": "sim", "stable": True, "pits": [pit0, *[4] * 11]}
    return [(e.type, str(e.get("text"))) for e in replay([header, line])]


@pytest.mark.parametrize(
    "reading",
    [49, 60, [0.0] * 49 + [1.0], [0.1] * 4 + [0.0] * 45 + [0.6]],
    ids=["49", "60", "belief-on-49", "likeliest-49"],
)
def test_more_than_every_seed_is_a_bad_observation(reading: Any) -> None:
    assert _events(reading) == [
        (
            "bad_observation",
            "a malformed observation was ignored: a pit cannot hold more than the 48 seeds",
        )
    ]


def test_a_belief_that_only_allows_many_seeds_stays_a_reading() -> None:
    # likeliest 4 (the board as laid out): no event at all, nothing bad
    belief = [0.0] * 4 + [0.9] + [0.0] * 44 + [0.1]
    assert _events(belief) == []
