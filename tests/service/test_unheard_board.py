"""A board the service cannot hear is a problem in ``/health``, not ``ok``.

``serve --source serial:///dev/ttyUSB0`` with the sensor board not plugged in starts (the
link keeps trying, so the board may be plugged in later), but until the board is heard
``/health`` says ``degraded`` and names the port and why, and the server's log says it
once. A virtual sensor board then appears at that path, over a real pseudo-terminal, and
the service is ``ok`` again by itself.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Any

from tests.service.conftest import start_server, virtual_board


def _wait(predicate: Any, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out after {seconds} s")


def test_a_sensor_board_not_plugged_in_is_a_problem_until_it_is_heard(tmp_path: Path) -> None:
    link = tmp_path / "board"
    server = start_server(tmp_path / "data", "--source", f"serial://{link}", "--no-engine")
    board = None
    try:
        _wait(lambda: server.get("/health").json()["status"] == "degraded", 10)
        health = server.get("/health").json()
        assert health["boards"]["1"]["link_state"] == "reconnecting"
        # no scale calibration saved (the tests' own config folder): said once at start
        said = server.log_text()
        assert said.count("no scale calibration") == 1, said
        assert f"oware-companion calibrate --source serial://{link}` once" in said
        [problem] = health["problems"]
        assert problem.startswith("board 1: link reconnecting: ") and str(link) in problem
        assert "no such port: is the sensor board plugged in?" in problem
        board = virtual_board(link)
        _wait(lambda: server.get("/health").json()["status"] == "ok", 20)
        health = server.get("/health").json()
        assert health["problems"] == [] and health["boards"]["1"]["link_state"] == "connected"
    finally:
        server.stop()
        if board is not None:
            board.send_signal(signal.SIGTERM)
            board.wait(20)
    # said once, however many times the link tried again
    assert server.log_text().count("board 1: link reconnecting") == 1
