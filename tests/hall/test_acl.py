"""The venue's [hall] settings and the documented Mosquitto ACL, on a real broker.

Each board logs in as its own user (its hall number) and may write only under
``HALL/board/<user>/``; the hall reads every board and writes only the round.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

from companion.hall.broker import make_client, parse_broker_url
from companion.hall.mosquitto import LocalBroker, find_mosquitto
from tests.hall.conftest import Hall, wait_for

ACL = """\
# every board writes under its own number only (its user name is that number)
pattern write test/board/%u/#
# the hall reads every board and writes the round's games
user hall
topic read test/board/#
topic readwrite test/round/#
"""


def _passwords(folder: Path, users: dict[str, str]) -> Path:
    path = folder / "passwords"
    path.write_text("")
    for user, password in users.items():
        subprocess.run(["mosquitto_passwd", "-b", str(path), user, password], check=True)
    return path


def test_a_board_writes_only_under_its_own_topic(tmp_path: Path) -> None:
    assert find_mosquitto() is not None, "mosquitto is missing: run scripts/setup.sh"
    folder = tmp_path / "broker"
    folder.mkdir()
    passwords = _passwords(folder, {"7": "board-7-secret", "hall": "hall-secret"})
    (folder / "acl").write_text(ACL)
    broker = LocalBroker(
        folder,
        secured=f"allow_anonymous false\npassword_file {passwords}\nacl_file {folder / 'acl'}",
    )
    broker.start()
    hall = Hall(tmp_path, broker)
    try:
        # the board's service reads broker, number and credentials from its venue file
        venue = tmp_path / "venue.toml"
        venue.write_text(
            f'[hall]\nbroker = "{hall.url}"\nboard = 7\n'
            'username = "7"\npassword = "board-7-secret"\n'
        )
        hall_venue = tmp_path / "hall.toml"
        hall_venue.write_text('[hall]\nusername = "hall"\npassword = "hall-secret"\n')
        hall.hall_config = hall_venue
        hall.start_hall()
        hall.start_board(1, "--config", str(venue))
        wait_for(lambda: (b := hall.board(7)) and b["taken"] >= 3, 90, "board 7 at the hall")

        # board 7's credentials cannot speak for board 8
        intruder = make_client(
            parse_broker_url(hall.url), "intruder", username="7", password="board-7-secret"
        )
        intruder.connect("127.0.0.1", broker.port)
        intruder.loop_start()
        fake = {"board": "8", "session": "x", "seq": 0, "at": 0, "event": {"type": "move"}}
        intruder.publish("test/board/8/events", json.dumps(fake), qos=1).wait_for_publish(5)
        intruder.publish("test/board/7/online", "1", qos=1).wait_for_publish(5)  # allowed
        time.sleep(1.5)
        intruder.disconnect()
        intruder.loop_stop()
        assert hall.board(8) is None
        assert [b["board"] for b in (hall.api() or {})["boards"]] == ["7"]
        hall.stop_board(1)
    finally:
        hall.close()
        broker.stop()
