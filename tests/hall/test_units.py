"""The hall's parts without a broker: addresses, summaries, the gatherer's order."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from companion.hall.broker import parse_broker_url
from companion.hall.gatherer import STALE_AFTER, Gatherer
from companion.hall.stream import HallStream
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


def test_summary_keeps_what_a_page_needs_to_say_an_alert_and_a_result_in_its_language() -> None:
    """The hall's page names the pits and the winner in its own language, as a board's page
    does: the summary keeps an alert's pits and moves, and the game's result."""
    s = BoardSummary(START)
    s.add({"type": "wrong_capture", "alert_id": 1, "pits": [9, 10], "text": "pit j"}, 10.0)
    s.add({"type": "ambiguous", "alert_id": 2, "moves": [1, 4], "pits": [], "text": "?"}, 11.0)
    alerts = s.to_json()["alerts"]
    assert [a.get("pits") for a in alerts] == [[9, 10], []]
    assert [a.get("moves") for a in alerts] == [None, [1, 4]]
    assert s.to_json()["result"] is None
    s.add({"type": "game_over", "winner": 1, "scores": [23, 25], "text": "North wins"}, 13.0)
    assert s.to_json()["result"] == {"winner": 1, "scores": [23, 25]}
    assert s.to_json()["game_over"] == "North wins"
    s.add({"type": "new_game", "position": START}, 14.0)
    assert s.to_json()["result"] is None and s.to_json()["game_over"] is None


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


def test_a_hall_killed_mid_write_takes_the_torn_event_again_whole(tmp_path: Path) -> None:
    """A hall killed while writing leaves a torn last line; the restarted hall takes that
    event again on a line of its own, so the archive reads whole afterwards."""
    g = Gatherer(parse_broker_url("mqtt://127.0.0.1:1/test"), tmp_path)
    for seq in (0, 1):
        g._on_message(None, None, _Msg("test/board/1/events", _message(seq)))
    archive = tmp_path / "board-1" / "board1-x.jsonl"
    with archive.open("a") as fh:
        fh.write('{"seq":2,"at":1.0,"got"')  # the kill came mid-line
    again = Gatherer(parse_broker_url("mqtt://127.0.0.1:1/test"), tmp_path)
    assert again.boards["1"].expected == 2
    again._on_message(None, None, _Msg("test/board/1/events", _message(2)))
    again._on_message(None, None, _Msg("test/board/1/events", _message(3)))
    seqs = [json.loads(raw)["seq"] for raw in archive.read_text().splitlines()]
    assert seqs == [0, 1, 2, 3]
    assert Gatherer(parse_broker_url("mqtt://127.0.0.1:1/test"), tmp_path).boards["1"].expected == 4


class _Msg:
    def __init__(self, topic: str, payload: dict[str, Any]) -> None:
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


def test_changes_give_each_changed_board_once_and_a_board_going_stale(tmp_path: Path) -> None:
    """The page's feed sends only what changed: each board that heard something since the
    last look, once, and a board whose silence just made it stale."""
    g = Gatherer(parse_broker_url("mqtt://127.0.0.1:1/test"), tmp_path)
    g._on_message(None, None, _Msg("test/board/1/events", _message(0)))
    g._on_message(None, None, _Msg("test/board/2/events", _message(0)))
    g._on_message(None, None, _Msg("test/board/1/events", _message(1)))
    assert [(b["board"], b["next_seq"]) for b in g.changes()] == [("1", 2), ("2", 1)]
    assert g.changes() == []
    g.boards["2"].heard -= STALE_AFTER + 1  # nothing from board 2 for too long
    stale = g.changes()
    assert [b["board"] for b in stale] == ["2"] and stale[0]["stale_since"] is not None
    assert g.changes() == []  # said once, not at every look


def test_stream_sends_the_whole_hall_then_only_what_changed(tmp_path: Path) -> None:
    import asyncio
    import json

    g = Gatherer(parse_broker_url("mqtt://127.0.0.1:1/test"), tmp_path)
    g._on_message(None, None, _Msg("test/board/1/events", _message(0)))
    g._on_message(None, None, _Msg("test/board/2/events", _message(0)))

    def data(raw: bytes | None) -> dict[str, Any]:
        assert raw is not None
        return json.loads(raw.split(b"data: ", 1)[1])  # type: ignore[no-any-return]

    async def run() -> None:
        stream = HallStream(g, tick=0.01)
        page = stream.subscribe()
        first = data(page.get_nowait())
        assert first["full"] and [b["board"] for b in first["boards"]] == ["1", "2"]
        g._on_message(None, None, _Msg("test/board/2/events", _message(1)))
        message = data(await asyncio.wait_for(page.get(), 5))
        # (the first look also holds board 1, which changed before the page came: harmless)
        assert not message["full"] and message["boards"][-1]["next_seq"] == 2
        g._on_message(None, None, _Msg("test/board/1/events", _message(1)))
        message = data(await asyncio.wait_for(page.get(), 5))
        assert [(b["board"], b["next_seq"]) for b in message["boards"]] == [("1", 2)]
        await stream.close()
        assert await asyncio.wait_for(page.get(), 1) is None  # the page's feed ends

    _in_own_loop(run())


def test_a_page_that_falls_behind_is_dropped_not_buffered(tmp_path: Path) -> None:
    import asyncio

    from companion.hall import stream as stream_module

    g = Gatherer(parse_broker_url("mqtt://127.0.0.1:1/test"), tmp_path)

    async def run() -> None:
        stream = HallStream(g, tick=0.001)
        page = stream.subscribe()  # and never read
        for seq in range(stream_module.MAX_BEHIND + 5):
            g._on_message(None, None, _Msg("test/board/1/events", _message(seq)))
            await asyncio.sleep(0.005)
            if stream.dropped:
                break
        assert stream.dropped == 1 and stream.pages == 0
        assert page.get_nowait() is None  # its feed ends; the browser reconnects
        await stream.close()

    _in_own_loop(run())


def _in_own_loop(coro: Any) -> None:
    """Run ``coro`` in a new event loop on its own thread (a Chromium test in this
    worker leaves Playwright's loop running on the main thread)."""
    import asyncio
    import threading

    failed: list[BaseException] = []

    def main() -> None:
        try:
            asyncio.run(coro)
        except BaseException as exc:  # the test's assertion, raised again below
            failed.append(exc)

    thread = threading.Thread(target=main)
    thread.start()
    thread.join(30)
    assert not thread.is_alive(), "the stream test did not end"
    if failed:
        raise failed[0]


def test_summary_record_follows_moves_not_other_events() -> None:
    """The record is made once per move and kept across the events that do not change
    it, and is the same as one made afresh from the game's events."""
    from core.records import records_from_events

    s = BoardSummary(START)
    pos = Position.initial()
    s.add(_move(pos, 2), 1.0)
    first = s.record()
    s.add({"type": "move_provisional", "pit": 8}, 2.0)
    s.add({"type": "illegal_sowing", "alert_id": 5, "text": "sown wrong"}, 3.0)
    assert s.record() is first  # not made again
    s.add(_move(pos.play(2), 8), 4.0)
    again = s.record()
    assert [m["pit"] for m in again["moves"]] == [2, 8]
    assert again == records_from_events(s.game_start, s.game_events)[-1].to_json()


def test_round_ogn_is_made_again_when_a_boards_game_changes(tmp_path: Path) -> None:
    g = Gatherer(parse_broker_url("mqtt://127.0.0.1:1/test"), tmp_path)
    s = BoardSummary(START)
    s.add(_move(Position.initial(), 2), 1.0)

    def state() -> None:
        message = {"session": "board1-x.jsonl", "summary": s.to_json(), "record": s.record()}
        g._on_message(None, None, _Msg("test/board/1/state", message))

    state()
    one = g.round_ogn()
    assert '[Board "1"]' in one and one == g.round_ogn()
    s.add(_move(Position.initial().play(2), 8), 2.0)
    state()
    two = g.round_ogn()
    assert two != one and two.startswith(one.split("\n\n")[0])  # same tags, one move more
