"""The hall's parts without a broker: addresses, summaries, the gatherer's order."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from companion.hall.broker import parse_broker_url
from companion.hall.gatherer import Gatherer
from companion.hall.summary import BoardSummary
from core.position import Position

START = Position.initial().to_json()


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://host/hall", "starts with mqtt://"),
        ("mqtt://host", "name the hall"),
        ("mqtt://host/a/b", "one topic level"),
        ("mqtt://host/a+", "one topic level"),
        ("mqtt://host:99999/hall", "Port out of range"),
    ],
)
def test_bad_broker_addresses_say_why(url: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        parse_broker_url(url)


def test_broker_address_with_tls_and_credentials() -> None:
    a = parse_broker_url("mqtts://board7:s%40cret@broker.local/club")
    assert (a.host, a.port, a.tls, a.username, a.password) == (
        "broker.local",
        8883,
        True,
        "board7",
        "s@cret",
    )
    assert a.board_topic("7", "events") == "club/board/7/events"


def _move(pos: Position, pit: int) -> dict[str, Any]:
    after = pos.play(pit)
    return {"type": "move", "pit": pit, "player": pos.to_move, "position": after.to_json()}


def test_summary_follows_the_referees_alert_rules() -> None:
    s = BoardSummary(START)
    s.add({"type": "illegal_sowing", "alert_id": 1, "text": "sown wrong"}, 10.0)
    s.add({"type": "board_disturbed", "alert_id": 2, "text": "disturbed"}, 11.0)
    assert [a["alert_id"] for a in s.alerts] == [1, 2]
    s.add(_move(Position.initial(), 2), 12.0)  # a new position: all but a disturbed board
    assert [a["alert_id"] for a in s.alerts] == [2]
    s.add({"type": "board_restored", "closes": 2}, 13.0)
    assert s.alerts == [] and s.moves == 1 and s.last_move_at == 12.0 and s.seq == 3
    assert s.to_json()["position"]["pits"][2] == 0
    assert [m["pit"] for m in s.record()["moves"]] == [2]


def _message(seq: int, session: str = "board1-x.jsonl") -> dict[str, Any]:
    return {
        "board": "1",
        "session": session,
        "seq": seq,
        "at": 1.0,
        "event": {"type": "t", "n": seq},
    }


def test_gatherer_drops_duplicates_and_holds_back_after_a_gap(tmp_path: Path) -> None:
    g = Gatherer(parse_broker_url("mqtt://127.0.0.1:1/test"), tmp_path)
    g._on_message(None, None, _Msg("test/board/1/events", _message(0)))
    g._on_message(None, None, _Msg("test/board/1/events", _message(0)))  # resent
    g._on_message(None, None, _Msg("test/board/1/events", _message(2)))  # 1 is missing
    view = g.boards["1"]
    assert (view.expected, view.duplicates, sorted(view.pending)) == (1, 1, [2])
    assert g.snapshot()["boards"][0]["gap"]["missing_from"] == 1
    g._on_message(None, None, _Msg("test/board/1/events", _message(1)))
    assert (view.expected, view.pending, view.gap_since) == (3, {}, None)
    archive = (tmp_path / "board-1" / "board1-x.jsonl").read_text().splitlines()
    assert len(archive) == 3
    # a restarted hall stands where it was: what it took is not taken again
    again = Gatherer(parse_broker_url("mqtt://127.0.0.1:1/test"), tmp_path)
    again._on_message(None, None, _Msg("test/board/1/events", _message(2)))
    assert (again.boards["1"].expected, again.boards["1"].duplicates) == (3, 1)


class _Msg:
    def __init__(self, topic: str, payload: dict[str, Any]) -> None:
        import json

        self.topic = topic
        self.payload = json.dumps(payload).encode()


def test_a_new_session_does_not_mix_with_a_late_copy_of_the_last(tmp_path: Path) -> None:
    """A service restarted with --fresh starts a new log (seq from 0 again); a copy of the
    old session's event that comes after it goes to the old session's archive."""
    g = Gatherer(parse_broker_url("mqtt://127.0.0.1:1/test"), tmp_path)

    def send(seq: int, session: str) -> None:
        g._on_message(None, None, _Msg("test/board/1/events", _message(seq, session)))

    send(0, "board1-a.jsonl")
    send(1, "board1-a.jsonl")
    send(0, "board1-b.jsonl")
    send(1, "board1-a.jsonl")  # a late copy: a duplicate
    send(2, "board1-a.jsonl")  # late, but new: the old session's
    send(1, "board1-b.jsonl")
    view = g.boards["1"]
    assert (view.session, view.expected, view.duplicates, view.past) == (
        "board1-b.jsonl",
        2,
        1,
        {"board1-a.jsonl": 3},
    )
    lines = {
        name: len((tmp_path / "board-1" / name).read_text().splitlines())
        for name in ("board1-a.jsonl", "board1-b.jsonl")
    }
    assert lines == {"board1-a.jsonl": 3, "board1-b.jsonl": 2}
    again = Gatherer(parse_broker_url("mqtt://127.0.0.1:1/test"), tmp_path)
    assert (again.boards["1"].session, again.boards["1"].expected) == ("board1-b.jsonl", 2)
    assert again.boards["1"].past == {"board1-a.jsonl": 3}
