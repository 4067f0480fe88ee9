"""A Mosquitto broker of our own on loopback: for ``demo --hall`` and the tests.

:class:`LocalBroker` writes a config file (one listener on ``127.0.0.1``, a free
port, anonymous clients, persistence in its folder, so a restart keeps the
sessions and the messages queued for them) and runs ``mosquitto -c`` on it; never
the system's service.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

INSTALL_HINT = "the hall needs Mosquitto: sudo apt-get install mosquitto"


def find_mosquitto() -> str | None:
    """The ``mosquitto`` program (Debian installs it in /usr/sbin, off many PATHs)."""
    return shutil.which("mosquitto") or shutil.which("mosquitto", path="/usr/sbin:/usr/local/sbin")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class LocalBroker:
    """``mosquitto -c FOLDER/mosquitto.conf`` on ``127.0.0.1:port``."""

    def __init__(self, folder: Path, port: int | None = None, *, secured: str = "") -> None:
        """``secured``: config lines replacing ``allow_anonymous true`` (a password
        file and an ACL file, say)."""
        program = find_mosquitto()
        if program is None:
            raise OSError(INSTALL_HINT)
        self.program = program
        self.folder = folder.resolve()
        self.port = port or free_port()
        self.folder.mkdir(parents=True, exist_ok=True)
        self.config = self.folder / "mosquitto.conf"
        access = secured.rstrip() + "\n" if secured else "allow_anonymous true\n"
        self.config.write_text(
            f"listener {self.port} 127.0.0.1\n"
            # started as root, mosquitto becomes this user: stay who we are (our files)
            f"user {pwd.getpwuid(os.getuid()).pw_name}\n" + access + "persistence true\n"
            f"persistence_location {self.folder}/\n"
            "autosave_interval 1\n"
            "max_queued_messages 100000\n"
            f"log_dest file {self.folder}/mosquitto.log\n"
        )
        self.process: subprocess.Popen[bytes] | None = None

    def url(self, hall: str) -> str:
        return f"mqtt://127.0.0.1:{self.port}/{hall}"

    def start(self, timeout: float = 10.0) -> None:
        self.process = subprocess.Popen(
            [self.program, "-c", str(self.config)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise OSError(f"mosquitto stopped at start (see {self.folder}/mosquitto.log)")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return
            except OSError:
                time.sleep(0.05)
        raise OSError(f"mosquitto did not listen on port {self.port} in {timeout:g} s")

    def stop(self, *, hard: bool = False) -> None:
        """SIGTERM (it saves its sessions) or, ``hard``, SIGKILL."""
        if self.process is None or self.process.poll() is not None:
            return
        os.kill(self.process.pid, signal.SIGKILL if hard else signal.SIGTERM)
        self.process.wait(timeout=10)

    def __enter__(self) -> LocalBroker:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
