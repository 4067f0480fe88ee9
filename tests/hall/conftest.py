"""The hall's tests run a real Mosquitto (Debian's, installed by scripts/setup.sh) of their
own: a config file written by the test, loopback, a free port; never the system service.
Boards are real ``serve --publish`` processes on ``sim://``; the hall is the real
``hall`` command."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from companion.hall.demo import board_command
from companion.hall.mosquitto import LocalBroker, find_mosquitto, free_port
from companion.service.recorder import read_log
from core.referee.session import line_kind

ROOT = Path(__file__).resolve().parents[2]


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[LocalBroker]:
    if find_mosquitto() is None:
        pytest.fail("mosquitto is missing: run scripts/setup.sh (it installs Debian's mosquitto)")
    b = LocalBroker(tmp_path / "broker")
    b.start()
    yield b
    b.stop()


class Hall:
    """Boards and a hall, started and stopped as people do it."""

    def __init__(
        self, folder: Path, broker: LocalBroker, sim: str = "sim://?speed=6&mistakes=0.15"
    ):
        self.folder = folder
        self.broker = broker
        self.url = broker.url("test")
        self.sim = sim
        self.boards: dict[int, subprocess.Popen[bytes]] = {}
        self.board_ports: dict[int, int] = {}
        self._extra: dict[int, tuple[tuple[str, ...], str | None, str | None]] = {}
        self.hall: subprocess.Popen[bytes] | None = None
        self.hall_port = free_port()
        self.hall_config: Path | None = None

    def start_board(
        self, number: int, *extra: str, broker_url: str | None = None, source: str | None = None
    ) -> None:
        """Board ``number``'s service: the virtual board (``source``: another one)."""
        port = free_port()
        sim = source or f"{self.sim}&seed={number}"
        url = broker_url or self.url
        cmd = board_command(url, number, port, self.folder, sim) + list(extra)
        if extra:  # the venue file names the broker and the board's number
            at = cmd.index("--publish")
            del cmd[at : at + 4]
        log = (self.folder / f"board{number}.out").open("ab")
        self.boards[number] = subprocess.Popen(cmd, env=env(), stdout=log, stderr=log, cwd=ROOT)
        self.board_ports[number] = port
        self._extra[number] = (extra, broker_url, source)

    def restart_port_clashes(self) -> list[int]:
        """Start again, on another port, each board whose service found its port taken.

        ``free_port`` only finds a port free at that moment: the board binds it seconds
        later, by which time another test's server or an outgoing connection may hold it,
        and the service stops with its one-line error. A person picks a fixed port; the
        test picks again. The boards started again, by number."""
        clashed = [
            n
            for n, proc in self.boards.items()
            if proc.poll() is not None and "already in use" in self.log_tail(n)
        ]
        for n in clashed:
            extra, broker_url, source = self._extra[n]
            self.start_board(n, *extra, broker_url=broker_url, source=source)
        return clashed

    def log_tail(self, number: int, lines: int = 5) -> str:
        path = self.folder / f"board{number}.out"
        text = path.read_text(errors="replace") if path.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def diagnose(self, numbers: Iterable[int]) -> str:
        """How boards ``numbers`` stand, for a failure message: running or exited, and the
        end of their logs."""
        parts = []
        for n in numbers:
            code = self.boards[n].poll()
            state = "running" if code is None else f"exited {code}"
            parts.append(f"board {n} ({state}, port {self.board_ports[n]}): {self.log_tail(n)!r}")
        return "; ".join(parts)

    def stop_board(self, number: int) -> None:
        proc = self.boards[number]
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)

    def start_hall(self) -> None:
        log = (self.folder / "hall.out").open("ab")
        cmd = [
            sys.executable, "-m", "companion.commands.hall", "hall", "--broker", self.url,
            "--port", str(self.hall_port), "--data-dir", str(self.folder / "hall"),
        ]  # fmt: skip
        if self.hall_config is not None:
            cmd += ["--config", str(self.hall_config)]
        self.hall = subprocess.Popen(cmd, env=env(), stdout=log, stderr=log, cwd=ROOT)
        wait_for(lambda: self.api() is not None, 60, "the hall page")

    def stop_hall(self) -> None:
        if self.hall is not None and self.hall.poll() is None:
            self.hall.send_signal(signal.SIGINT)
            self.hall.wait(timeout=30)

    @property
    def page(self) -> str:
        return f"http://127.0.0.1:{self.hall_port}/"

    def api(self) -> dict[str, Any] | None:
        try:
            data: dict[str, Any] = httpx.get(self.page + "api/hall", timeout=2).json()
            return data
        except (httpx.HTTPError, ValueError):
            return None

    def board(self, number: int) -> dict[str, Any] | None:
        data = self.api() or {"boards": []}
        return next((b for b in data["boards"] if b["board"] == str(number)), None)

    def log_events(self, number: int) -> list[dict[str, Any]]:
        """Every event of board ``number``'s session log, in order."""
        (path,) = (self.folder / f"board{number}" / "sessions").glob("*.jsonl")
        # the board is still writing: read it as the product does, a torn last line left out
        lines, _ = read_log(path)
        return [line for line in lines[1:] if line_kind(line) == "event"]

    def gathered(self, number: int) -> list[tuple[int, dict[str, Any]]]:
        """What the hall took of board ``number`` (its archive): (seq, event) in order."""
        (path,) = (self.folder / "hall" / f"board-{number}").glob("*.jsonl")
        lines, _ = read_log(path)  # the hall may be writing its next line
        return [(line["seq"], line["event"]) for line in lines]

    def assert_all_gathered(self, numbers: Iterable[int]) -> dict[int, list[dict[str, Any]]]:
        """Wait until the hall took every event of the boards' logs, then check it took
        each exactly once, in order; the logs' events, by board."""
        logs = {n: self.log_events(n) for n in numbers}
        wait_for(
            lambda: all((b := self.board(n)) and b["taken"] >= len(logs[n]) for n in logs),
            60,
            "every event of every log at the hall",
        )
        for n, events in logs.items():
            gathered = self.gathered(n)
            assert [seq for seq, _ in gathered] == list(range(len(events))), f"board {n}"
            assert [event for _, event in gathered] == events, f"board {n}"
        return logs

    def close(self) -> None:
        for proc in [*self.boards.values(), self.hall]:
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()


def wait_for(check: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")


@pytest.fixture
def hall(tmp_path: Path, broker: LocalBroker) -> Iterator[Hall]:
    h = Hall(tmp_path, broker)
    yield h
    h.close()


class Cable:
    """A TCP link between a board and the broker that the test can cut and mend: the
    board's network, while its service plays on."""

    def __init__(self, target_port: int) -> None:
        self.target = target_port
        self.port = free_port()
        self.connected = threading.Event()
        self.connected.set()
        self._open: list[socket.socket] = []
        self._server = socket.create_server(("127.0.0.1", self.port))
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            if not self.connected.is_set():
                client.close()
                continue
            upstream = socket.create_connection(("127.0.0.1", self.target))
            self._open += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        self.connected.clear()
        for s in self._open:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()
        self._open.clear()

    def mend(self) -> None:
        self.connected.set()

    def close(self) -> None:
        self.cut()
        self._server.close()
