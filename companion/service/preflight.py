"""Checks made before the service starts: what would fail later is said now, in one line.

``serve`` and ``demo`` call :func:`preflight` before anything is recorded:
the sources are checked when the :class:`~.service.Service` is built
(:func:`companion.sources.check_source`); here the data directory must be writable
and its games index readable, and the listening socket is bound (so a port
out of range or in use is refused before a session log or a game is
created, and nobody can take the port between the check and the start).
Every failure is a :class:`StartError` whose message names what is wrong
and what to do.
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import sqlite3
from pathlib import Path

from .index import GameIndex


class StartError(ValueError):
    """The service cannot start as asked; the message says why and what to do."""


def check_data_dir(data_dir: Path) -> None:
    """The data directory (made if missing) can be written, and its index opened."""
    where = Path(data_dir)
    probe = where / "sessions" / f".write-test-{os.getpid()}"
    try:
        probe.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            os.write(fd, b"x")
        finally:
            os.close(fd)
            with contextlib.suppress(OSError):
                probe.unlink()
    except OSError as exc:
        raise StartError(
            f"the data directory {where} cannot be written ({exc.strerror or exc}): give a "
            "writable one with --data-dir (or data_dir in the config file)"
        ) from None
    db = where / "games.sqlite"
    try:
        GameIndex(db, timeout=1.0).close()
    except sqlite3.Error as exc:
        raise StartError(
            f"the games index {db} cannot be opened ({exc}): move it aside and start again "
            "(the session logs keep every game)"
        ) from None


def bind_socket(host: str, port: int) -> socket.socket:
    """The listening socket for ``host``:``port``, bound (the server listens on it)."""
    if not 1 <= port <= 65535:
        raise StartError(f"port {port} is out of range: give --port a number from 1 to 65535")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise StartError(f"cannot listen on {host!r} ({exc.strerror}): check --host") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        sock.bind(address)
        # Listen now: with SO_REUSEADDR, Linux lets two sockets bind one port while
        # neither listens, so two services started at once both passed the bind and the
        # second failed later, in the server's startup, after its session log was made.
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise StartError(
                f"port {port} on {host} is already in use (another oware-companion?): stop "
                "that one, or choose another port with --port"
            ) from None
        if exc.errno == errno.EADDRNOTAVAIL:
            raise StartError(
                f"{host} is not an address of this machine: check --host (0.0.0.0 listens "
                "on every address)"
            ) from None
        if exc.errno == errno.EACCES:
            raise StartError(
                f"port {port} needs administrator rights here: choose one above 1023 with --port"
            ) from None
        raise StartError(f"cannot listen on {host} port {port}: {exc.strerror}") from None
    return sock


def preflight(data_dir: Path, host: str, port: int) -> socket.socket:
    """Every check above; the bound socket to serve on. The port first: a start refused
    for its port leaves no data directory or games index behind."""
    sock = bind_socket(host, port)
    try:
        check_data_dir(data_dir)
    except BaseException:
        sock.close()
        raise
    return sock
