"""The publisher on a real Mosquitto, on a session log written by the test."""

from __future__ import annotations

import json
from pathlib import Path

from companion.hall.broker import parse_broker_url
from companion.hall.mosquitto import LocalBroker
from companion.hall.publisher import Publisher
from core.position import Position
from core.referee.session import session_header
from tests.hall.conftest import wait_for


def _event(seq: int) -> dict[str, object]:
    return {"type": "board_disturbed", "seq": seq, "t": float(seq), "alert_id": seq, "text": "x"}


def test_stop_sends_what_the_log_got_after_the_last_look(
    tmp_path: Path, broker: LocalBroker
) -> None:
    """A service's last events are written as it stops: the publisher's stop reads the
    log once more and sends them before it disconnects."""
    log = tmp_path / "board1-x.jsonl"
    header = session_header(Position.initial())
    log.write_text(json.dumps(header) + "\n" + json.dumps(_event(0)) + "\n")
    publisher = Publisher(
        parse_broker_url(broker.url("test")),
        lambda: [("1", log)],
        urls=lambda board: f"http://127.0.0.1:1/board/{board}",
    )
    publisher.start()
    wait_for(
        lambda: "1" in publisher.publishers and publisher.publishers["1"].acked == 0, 30, "ack"
    )
    with log.open("a") as fh:  # the service's last words, then at once its stop
        fh.write(json.dumps(_event(1)) + "\n" + json.dumps(_event(2)) + "\n")
    publisher.stop()
    pub = publisher.publishers["1"]
    assert (len(pub.events), pub.acked) == (3, 2)
    # its place is kept next to the log: a restart sends nothing twice
    assert json.loads((tmp_path / "board1-x.jsonl.hall").read_text()) == {
        "hall": "test",
        "acked": 2,
    }


def test_why_a_board_is_not_heard_is_sent_as_soon_as_it_changes(
    tmp_path: Path, broker: LocalBroker
) -> None:
    """The log of an unplugged board is as quiet as a thinking player's: the reason the
    service gives goes with the summary the moment it changes, not at the next summary
    five seconds on."""
    import paho.mqtt.client as mqtt

    log = tmp_path / "board1-x.jsonl"
    log.write_text(json.dumps(session_header(Position.initial())) + "\n")
    problem: list[str | None] = ["link reconnecting: /dev/ttyUSB0: no such port: plug it in"]
    states: list[dict[str, object]] = []
    watcher = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    watcher.on_message = lambda c, u, msg: states.append(json.loads(msg.payload))
    address = parse_broker_url(broker.url("test"))
    watcher.connect(address.host, address.port)
    watcher.subscribe("test/board/1/state", qos=1)
    watcher.loop_start()
    publisher = Publisher(
        address,
        lambda: [("1", log)],
        urls=lambda board: f"http://127.0.0.1:1/board/{board}",
        problems=lambda board: problem[0],
    )
    publisher.start()
    try:
        wait_for(lambda: states and states[-1]["problem"] == problem[0], 30, "the reason")
        problem[0] = None  # the board is heard: said at once, not with the summary 5 s on
        wait_for(lambda: states[-1]["problem"] is None, 3, "the reason gone within 3 s")
    finally:
        publisher.stop()
        watcher.loop_stop()
        watcher.disconnect()
