"""``oware-companion demo --hall N``: a hall of N virtual boards on one machine.

A Mosquitto broker of its own (:class:`companion.hall.mosquitto.LocalBroker`),
N ``serve --publish`` processes (one ``sim://`` board each, the next ports after
the hall's), and the hall page in this process.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from .broker import parse_broker_url
from .mosquitto import LocalBroker


def board_command(broker_url: str, number: int, port: int, data_dir: Path, sim: str) -> list[str]:
    """The ``serve`` command of virtual board ``number`` of a hall."""
    return [
        sys.executable,
        "-m",
        "companion.commands.serve",
        "serve",
        "--source",
        sim,
        "--no-engine",
        "--fresh",
        "--port",
        str(port),
        "--data-dir",
        str(data_dir / f"board{number}"),
        "--publish",
        broker_url,
        "--hall-board",
        str(number),
    ]


def run_demo_hall(
    boards: int, *, host: str, port: int, data_dir: Path, speed: float, mistakes: float
) -> int:
    if not 1 <= boards <= 50:
        raise ValueError("--hall takes 1 to 50 boards")
    from companion.commands.hall import run_hall

    broker = LocalBroker(Path(tempfile.mkdtemp(prefix="oware-hall-broker-")))
    broker.start()
    url = broker.url("demo")
    children: list[subprocess.Popen[bytes]] = []
    try:
        for n in range(1, boards + 1):
            sim = f"sim://?speed={speed:g}&mistakes={mistakes:g}&seed={n}"
            command = board_command(url, n, port + n, data_dir, sim)
            children.append(subprocess.Popen(command, stdout=subprocess.DEVNULL))
        print(f"oware-companion: {boards} boards publishing to {url}", flush=True)
        return run_hall(parse_broker_url(url), data_dir / "hall", host, port)
    finally:
        for child in children:
            child.terminate()
        for child in children:
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.kill()
        broker.stop()
