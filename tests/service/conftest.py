"""A really started ``oware-companion serve`` on a free loopback port, for the service tests.

The server runs in a subprocess (``python -m companion.commands.serve``,
the same handler the console script dispatches to), so tests talk to it
over real HTTP and real WebSockets, and can kill it with SIGKILL.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    proc: subprocess.Popen[bytes]
    port: int
    data_dir: Path
    output: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def get(self, path: str, **kw: Any) -> httpx.Response:
        return httpx.get(self.url + path, timeout=10, **kw)

    def post(self, path: str, **kw: Any) -> httpx.Response:
        return httpx.post(self.url + path, timeout=10, **kw)

    def log_text(self) -> str:
        return self.output.read_text(errors="replace")

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        return int(self.proc.returncode)


def virtual_board(link: Path) -> subprocess.Popen[str]:
    """``oware-companion virtual-board`` serving a real pseudo-terminal linked at ``link``
    (stop it with SIGTERM: it removes the link)."""
    cmd = [sys.executable, "-m", "companion.cli", "virtual-board", "--link", str(link)]
    proc = subprocess.Popen(
        cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.startswith("virtual sensor board on serial://"), line
    return proc


def start_server(data_dir: Path, *args: str, port: int | None = None) -> Server:
    """Start ``serve`` with ``args`` and wait until /health answers."""
    port = port or free_port()
    cmd = [
        sys.executable,
        "-m",
        "companion.commands.serve",
        "serve",
        "--port",
        str(port),
        "--data-dir",
        str(data_dir),
        *args,
    ]
    return launch(cmd, port, data_dir)


def launch(cmd: list[str], port: int, data_dir: Path) -> Server:
    """Run ``cmd`` (a server on ``port`` keeping its data in ``data_dir``) until /health answers."""
    data_dir.mkdir(parents=True, exist_ok=True)
    output = data_dir.parent / f"server-{port}-{time.monotonic_ns()}.out"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with output.open("wb") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, env=env)
    server = Server(proc, port, data_dir, output)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited early:\n{server.log_text()}")
        try:
            if httpx.get(server.url + "/health", timeout=1).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    server.stop(signal.SIGKILL)
    raise RuntimeError(f"server did not start:\n{server.log_text()}")


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Any]:
    """``serve(*args, data_dir=None)`` starts a server; all are stopped after the test."""
    started: list[Server] = []

    def _start(*args: str, data_dir: Path | None = None, port: int | None = None) -> Server:
        server = start_server(data_dir or tmp_path / "data", *args, port=port)
        started.append(server)
        return server

    yield _start
    for server in started:
        server.stop()


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The complete lines of a log (a torn last line is left out, as the service does)."""
    data = path.read_bytes()
    data = data[: data.rfind(b"\n") + 1]
    return [json.loads(line) for line in data.splitlines() if line.strip()]


def session_log(data_dir: Path) -> Path:
    logs = sorted((data_dir / "sessions").glob("board1-*.jsonl"))
    assert len(logs) == 1, logs
    return logs[0]
