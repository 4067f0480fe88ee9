"""``oware-companion demo --hall N``: a hall of N virtual boards on one machine.

A Mosquitto broker of its own (:class:`companion.hall.mosquitto.LocalBroker`),
N ``serve --publish`` processes (one ``sim://`` board each, on the next free
ports after the hall's), and the hall page in this process.
"""

from __future__ import annotations

import shutil
import socket
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


def next_free_port(host: str, after: int, taken: set[int]) -> int:
    """The first port above ``after`` that is not in ``taken`` and that nothing holds.

    The boards' ports are the hall's next ones when they are free; one held by
    another program (or by an outgoing connection: these lie in the range the
    system hands those out from) is passed over rather than failing that
    board's service.
    """
    for port in range(after + 1, 65536):
        if port in taken:
            continue
        with socket.socket() as probe:
            try:
                probe.bind((host, port))
            except OSError:
                continue
        return port
    raise ValueError(f"no free port above {after} on {host}: choose a lower one with --port")


def run_demo_hall(
    boards: int, *, host: str, port: int, data_dir: Path, speed: float, mistakes: float
) -> int:
    if not 1 <= boards <= 50:
        raise ValueError("--hall takes 1 to 50 boards")
    from companion.commands.hall import run_hall

    folder = Path(tempfile.mkdtemp(prefix="oware-hall-broker-"))
    broker = LocalBroker(folder)
    broker.start()  # a broker that does not start keeps its folder: the message names its log
    url = broker.url("demo")
    children: list[subprocess.Popen[bytes]] = []
    try:
        taken = {port}
        for n in range(1, boards + 1):
            sim = f"sim://?speed={speed:g}&mistakes={mistakes:g}&seed={n}"
            board_port = next_free_port("127.0.0.1", max(taken), taken)
            taken.add(board_port)
            command = board_command(url, n, board_port, data_dir, sim)
            children.append(subprocess.Popen(command, stdout=subprocess.DEVNULL))
            print(f"oware-companion: board {n} on http://127.0.0.1:{board_port}/", flush=True)
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
        shutil.rmtree(folder, ignore_errors=True)  # the demo's broker keeps nothing
