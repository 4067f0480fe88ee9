"""The session recorder: one JSONL log per board session, written before anything is shown.

Every observation, command and event goes to the log as one line (the format
of :mod:`core.referee.session`) and is handed to the operating system with
``os.write`` before the service broadcasts it; lines that carry events are
also ``fsync``-ed, so a power cut or ``kill -9`` can lose at most an
observation that nobody has seen the consequences of yet.

There is no buffer in the process: a write that fails (a full disk, an I/O
error) is cut back from the file (``ftruncate`` to the end of the last whole
line) and raises :class:`LogWriteError`, so nothing half-written or left in a
buffer can reach the file later. The log only ever holds what the caller was
told was written.

:func:`read_log` reads a log back for crash resume, from the start or from a
byte offset (a checkpoint's). A process killed in the middle of ``write`` can
leave a torn last line; it is dropped (and cut from the file by
:meth:`SessionLog.open_existing`) because nothing was broadcast from it. A
damaged line elsewhere (not JSON, not an object) is an error by default; given
a ``damaged`` list, the reader skips it and reports it there
(:class:`DamagedLine`: its number and what it held).
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Characters of a damaged line kept in its report.
HELD_CHARS = 120


class LogError(ValueError):
    """A session log that cannot be read; the message says which line and why."""


class LogWriteError(OSError):
    """A line could not be written (the disk is full...); the file is as it was before."""


@dataclass(frozen=True)
class DamagedLine:
    """A line of a log that is not a JSON object: skipped on reading, reported."""

    number: int
    """Its line number in the file (1 is the header)."""
    why: str
    held: str
    """The start of what it held (at most :data:`HELD_CHARS` characters)."""

    def to_json(self) -> dict[str, Any]:
        return {"line": self.number, "why": self.why, "held": self.held}

    def __str__(self) -> str:
        return f"line {self.number}: {self.why}: {self.held!r}"


def read_log(
    path: Path,
    damaged: list[DamagedLine] | None = None,
    *,
    start: int = 0,
    first_line: int = 1,
) -> tuple[list[dict[str, Any]], int]:
    """The complete lines of a session log and the byte offset where they end.

    ``start``: read from this byte offset (the start of a line, numbered
    ``first_line``). A last line without its newline (a torn write) is left
    out. A line that is not a JSON object raises :class:`LogError`, unless
    ``damaged`` is given: then it is skipped and reported there.
    """
    with path.open("rb") as fh:
        fh.seek(start)
        data = fh.read()
    end = data.rfind(b"\n") + 1
    lines: list[dict[str, Any]] = []
    for number, raw in enumerate(data[:end].split(b"\n")[:-1], start=first_line):
        if not raw.strip():
            continue
        why = ""
        try:
            line = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            why = f"not JSON ({getattr(exc, 'msg', 'not UTF-8')})"
        except RecursionError:
            why = "not JSON (nested too deep)"
        else:
            if not isinstance(line, dict):
                why = "not a JSON object"
        if why:
            if damaged is None:
                raise LogError(f"{path.name} line {number}: {why}")
            held = raw[:HELD_CHARS].decode("utf-8", errors="replace")
            damaged.append(DamagedLine(number, why, held))
            continue
        lines.append(line)
    return lines, start + end


def encode_lines(lines: Sequence[Mapping[str, Any]]) -> bytes:
    """The bytes of ``lines`` as the log holds them (compact JSON, one per line)."""
    return b"".join(
        json.dumps(line, separators=(",", ":"), allow_nan=False).encode() + b"\n" for line in lines
    )


class SessionLog:
    """Appends lines to one session log. Safe to call from one thread at a time per log."""

    def __init__(self, path: Path, fd: int, size: int, lines: int = 0) -> None:
        self.path = path
        self._fd: int | None = fd
        self._lock = threading.Lock()
        self.size = size
        """Bytes in the file: every line written, whole."""
        self.lines = lines
        """Lines in the file (the header included)."""
        self.lines_written = 0

    @classmethod
    def create(cls, path: Path, header: Mapping[str, Any]) -> SessionLog:
        """A new log starting with ``header``; refuses to overwrite an existing file."""
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        log = cls(path, fd, 0)
        try:
            log.append(header, sync=True)
        except LogWriteError:
            log.close()
            path.unlink(missing_ok=True)
            raise
        return log

    @classmethod
    def open_existing(cls, path: Path, valid_bytes: int, lines: int = 0) -> SessionLog:
        """Continue a log after a crash, cutting a torn last line first."""
        fd = os.open(path, os.O_WRONLY)
        os.ftruncate(fd, valid_bytes)
        os.lseek(fd, valid_bytes, os.SEEK_SET)
        return cls(path, fd, valid_bytes, lines)

    def append(self, line: Mapping[str, Any], *, sync: bool = False) -> None:
        """Write one line; ``sync`` also forces it to the disk."""
        self.append_many([line], sync=sync)

    def append_many(self, lines: Sequence[Mapping[str, Any]], *, sync: bool = False) -> None:
        """Write ``lines`` whole, or not at all (:class:`LogWriteError`)."""
        if not lines:
            return
        # One write per batch: a crash tears at most the last line, never interleaves.
        blob = memoryview(encode_lines(lines))
        with self._lock:
            if self._fd is None:
                raise LogWriteError(f"{self.path.name} is closed")
            fd = self._fd
            try:
                done = 0
                while done < len(blob):
                    done += os.write(fd, blob[done:])
                if sync:
                    os.fsync(fd)
            except OSError as exc:
                # nothing of this batch may stay: cut the file back to its last whole line
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, self.size)
                    os.lseek(fd, self.size, os.SEEK_SET)
                raise LogWriteError(exc.errno, f"cannot write {self.path}: {exc.strerror}") from exc
            self.size += len(blob)
            self.lines += len(lines)
            self.lines_written += len(lines)

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                with contextlib.suppress(OSError):  # its lines were synced as written
                    os.fsync(self._fd)
                os.close(self._fd)
                self._fd = None
