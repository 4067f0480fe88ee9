"""Move names and the text form."""

from __future__ import annotations

import pytest

from core import IllegalMoveError, InvalidPositionError, Position
from core.notation import move_name, parse_move


def test_two_player_names() -> None:
    assert [move_name(i) for i in range(12)] == list("ABCDEFabcdef")
    assert parse_move("D") == 3 and parse_move("d") == 9


def test_four_player_names() -> None:
    assert move_name(0, 4) == "1A" and move_name(23, 4) == "4F"
    assert parse_move("3b", 4) == 13


@pytest.mark.parametrize("bad", ["G", "", "AA", "7"])
def test_bad_two_player_names(bad: str) -> None:
    with pytest.raises(IllegalMoveError, match="not a pit name"):
        parse_move(bad)


def test_bad_multi_player_name_mentions_the_scheme() -> None:
    with pytest.raises(IllegalMoveError, match="1A … 3F"):
        parse_move("4A", 3)


def test_text_form_examples() -> None:
    assert Position.initial().to_text() == "4-4-4-4-4-4-4-4-4-4-4-4-0-0-S"
    p = Position.initial("universal", players=3)
    assert p.to_text() == "-".join(["4"] * 18 + ["0"] * 3 + ["1"])
    assert Position.from_text(p.to_text(), "universal", players=3) == p


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("4-4-4", "has 15 fields"),
        ("4-4-4-4-4-4-4-4-4-4-4-x-0-0-S", "whole numbers"),
        ("4-4-4-4-4-4-4-4-4-4-4-4-0-0-W", "one of S, N"),
        ("4-4-4-4-4-4-4-4-4-4-4-4-1-0-S", "hold 49 seeds"),
    ],
)
def test_bad_text_forms(text: str, message: str) -> None:
    with pytest.raises(InvalidPositionError, match=message):
        Position.from_text(text)


def test_json_form_matches_architecture() -> None:
    assert Position.initial().to_json() == {
        "rules": "abapa",
        "pits": [4] * 12,
        "stores": [0, 0],
        "to_move": 0,
    }
    p = Position.initial("universal", players=4, variants=[9])
    data = p.to_json()
    assert data["rules"] == "universal" and data["options"] == {"players": 4, "relay_sowing": True}
    assert Position.from_json(data) == p
    with pytest.raises(InvalidPositionError, match="missing field 'pits'"):
        Position.from_json({"rules": "abapa"})
