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
