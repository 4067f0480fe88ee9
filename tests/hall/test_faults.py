"""A real hall: boards in their own processes, a real Mosquitto, the hall command.

The broker is stopped (SIGTERM) or killed (SIGKILL) and started again mid-game,
then the hall too; at the end
the hall holds, for every board, exactly the events of the board's session log:
each once, in order, none missing.
"""

from __future__ import annotations

import socket
import time

import httpx
import pytest

from companion.hall.mosquitto import free_port
from tests.hall import conftest
from tests.hall.conftest import Cable, Hall, wait_for

BOARDS = (1, 2, 3)


def _moves(hall: Hall, number: int) -> int:
    b = hall.board(number)
    return int(b["summary"].get("moves", 0)) if b else 0


@pytest.mark.parametrize("hard", [False, True], ids=["broker-stopped", "broker-killed"])
def test_broker_and_hall_restarted_mid_game_nothing_lost_nothing_doubled(
    hall: Hall, hard: bool
) -> None:
    hall.start_hall()
    for n in BOARDS:
        hall.start_board(n)
    wait_for(lambda: all(_moves(hall, n) >= 2 for n in BOARDS), 90, "two moves on every board")

    # the broker goes away mid-game: the boards play on, their logs grow
    hall.broker.stop(hard=hard)  # SIGTERM, or SIGKILL: no time to save anything
    before = {n: len(hall.log_events(n)) for n in BOARDS}
    wait_for(
        lambda: all(len(hall.log_events(n)) >= before[n] + 2 for n in BOARDS),
        60,
        "two events on every board while the broker is down",
    )
    hall.broker.start()
    wait_for(
        lambda: all(
            (b := hall.board(n)) and b["taken"] >= before[n] + 2 and b["online"] for n in BOARDS
        ),
        60,
        "the hall to catch up after the broker came back",
    )

    # the hall goes away: its persistent session keeps what comes meanwhile
    hall.stop_hall()
    time.sleep(2)
    hall.start_hall()

    for n in BOARDS:  # the games end here; each service sends what its log holds, then stops
        hall.stop_board(n)
    logs = hall.assert_all_gathered(BOARDS)
    for n in BOARDS:
        board = hall.board(n)
        assert board is not None and board["gap"] is None
        assert board["summary"]["seq"] == len(logs[n]) - 1  # its last summary is the log's end
    # the round's games: one per board, as OGN, each with its board's number
    text = httpx.get(hall.page + "round/1.ogn", timeout=5).text
    assert [line for line in text.splitlines() if line.startswith("[Board ")] == [
        f'[Board "{n}"]' for n in BOARDS
    ]


def test_one_boards_network_cut_then_back_stale_meanwhile_nothing_lost(hall: Hall) -> None:
    cable = Cable(hall.broker.port)
    try:
        hall.start_hall()
        hall.start_board(1, broker_url=f"mqtt://127.0.0.1:{cable.port}/test")
        hall.start_board(2)
        wait_for(lambda: all(_moves(hall, n) >= 2 for n in (1, 2)), 90, "two moves on each board")

        cable.cut()  # board 1's service plays on, its network is gone
        cut_at = time.time()
        before = len(hall.log_events(1))
        stale = wait_for(lambda: (b := hall.board(1)) and b["stale_since"], 30, "board 1 stale")
        assert cut_at - 1 <= stale <= time.time()
        assert (hall.board(2) or {}).get("stale_since") is None  # the other board is not
        wait_for(lambda: len(hall.log_events(1)) >= before + 2, 60, "board 1 playing on")

        cable.mend()
        wait_for(
            lambda: (b := hall.board(1)) and b["stale_since"] is None and b["taken"] >= before + 2,
            60,
            "board 1 back at the hall with what it played meanwhile",
        )
        for n in (1, 2):
            hall.stop_board(n)
        hall.assert_all_gathered((1, 2))
    finally:
        cable.close()


def test_the_hall_stops_on_ctrl_c_with_a_page_following_its_feed(hall: Hall) -> None:
    """An open page keeps its feed open for ever: Ctrl+C must not wait for it."""
    import signal
    import socket

    hall.start_hall()
    page = socket.create_connection(("127.0.0.1", hall.hall_port), timeout=5)
    page.sendall(b"GET /api/hall/stream HTTP/1.1\r\nHost: hall\r\n\r\n")
    assert page.recv(4096).startswith(b"HTTP/1.1 200")  # the feed is open
    assert hall.hall is not None
    started = time.monotonic()
    hall.hall.send_signal(signal.SIGINT)
    hall.hall.wait(timeout=20)
    assert time.monotonic() - started < 10
    page.close()


def test_a_board_whose_port_was_taken_is_started_again_on_another(
    hall: Hall, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The harness's own guard (the twenty-board test leans on it): a port found free and
    taken before the board binds it stops that board with its one-line error; the board is
    started again elsewhere and publishes."""
    taken = socket.create_server(("127.0.0.1", 0))
    held = taken.getsockname()[1]
    ports = iter([held])
    monkeypatch.setattr(conftest, "free_port", lambda: next(ports, None) or free_port())
    hall.start_hall()
    hall.start_board(1)
    assert hall.board_ports[1] == held
    hall.boards[1].wait(timeout=60)
    assert "already in use" in hall.log_tail(1)
    assert hall.restart_port_clashes() == [1]
    assert hall.board_ports[1] != held
    wait_for(lambda: _moves(hall, 1) >= 1, 90, "a move of the board started again")
    assert hall.restart_port_clashes() == []
    taken.close()
