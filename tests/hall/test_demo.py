"""``demo --hall N``: a broker, N board services and the hall, from one command."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx

from companion.hall.demo import next_free_port
from companion.hall.mosquitto import free_port
from tests.hall.conftest import ROOT, env, wait_for


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat[1]) == pid:
                found.append(int(entry.name))
    return found


def test_demo_hall_starts_a_broker_boards_and_the_hall_then_stops_them(tmp_path: Path) -> None:
    port = free_port()
    cmd = [
        sys.executable, "-m", "companion.commands.serve", "demo", "--hall", "2",
        "--port", str(port), "--data-dir", str(tmp_path), "--speed", "6",
    ]  # fmt: skip
    out = (tmp_path / "demo.out").open("wb")
    temporary = tmp_path / "tmp"  # the demo's own temporary folder, to see it left empty
    temporary.mkdir()
    demo_env = {**env(), "TMPDIR": str(temporary)}
    demo = subprocess.Popen(cmd, env=demo_env, stdout=out, stderr=out, cwd=ROOT)
    try:

        def two_boards_playing() -> bool:
            try:
                boards = httpx.get(f"http://127.0.0.1:{port}/api/hall", timeout=2).json()["boards"]
            except (httpx.HTTPError, ValueError):
                return False
            return [b["board"] for b in boards] == ["1", "2"] and all(
                b["summary"].get("moves", 0) >= 1 for b in boards
            )

        wait_for(two_boards_playing, 90, "two boards playing in the demo hall")
        children = _children(demo.pid)
        assert len(children) == 3  # mosquitto and two services
        printed = (tmp_path / "demo.out").read_text()
        addresses = re.findall(r"board (\d+) on (http://\S+)/", printed)
        assert [n for n, _ in addresses] == ["1", "2"], printed
        board = httpx.get(f"{addresses[0][1]}/health", timeout=5)
        assert board.status_code == 200
    finally:
        demo.send_signal(signal.SIGINT)
        # uvicorn hands the SIGINT back once it has stopped: the exit of a Ctrl-C
        assert demo.wait(timeout=60) in (0, 130, -signal.SIGINT)
    for pid in children:  # nothing left behind
        assert not os.path.exists(f"/proc/{pid}") or "Z" in Path(f"/proc/{pid}/stat").read_text()
    # nor in the temporary folder: the broker's folder, the boards' virtual serial ports
    assert list(temporary.iterdir()) == []


def test_a_board_port_another_program_holds_is_passed_over() -> None:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        chosen = next_free_port("127.0.0.1", port - 1, set())
        assert chosen > port
        assert next_free_port("127.0.0.1", port - 1, {chosen}) not in (port, chosen)
