"""The session recorder: one JSONL log per board session, written before anything is shown.

Every observation, command and event goes to the log as one line (the format
of :mod:`core.referee.session`) and is flushed to the operating system before
the service broadcasts it; lines that carry events are also ``fsync``-ed, so a
power cut or ``kill -9`` can lose at most an observation that nobody has seen
the consequences of yet.

A write that fails (a full disk) leaves nothing behind: the file is unbuffered
and cut back to where the batch began, so a line either is in the log whole
and the caller goes on, or is not and the caller hears ``OSError``.

:func:`read_log` reads a log back for crash resume. A process killed in the
middle of ``write`` can leave a torn last line; it is dropped (and cut from
the file by :meth:`SessionLog.open_existing`) because nothing was broadcast
from it.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any


class LogError(ValueError):
    """A session log that cannot be read; the message says which line and why."""


def read_log(path: Path) -> tuple[list[dict[str, Any]], int]:
    """The complete lines of a session log and the byte length they occupy.

    A last line without its newline (a torn write) is left out.
    """
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1
    lines: list[dict[str, Any]] = []
    for number, raw in enumerate(data[:end].splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            line = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise LogError(f"{path.name} line {number}: not JSON ({exc.msg})") from None
        if not isinstance(line, dict):
            raise LogError(f"{path.name} line {number}: not a JSON object")
        lines.append(line)
    return lines, end


class SessionLog:
    """Appends lines to one session log. Safe to call from one thread at a time per log."""

    def __init__(self, path: Path, fh: IO[bytes]) -> None:
        self.path = path
        self._fh = fh
        self._lock = threading.Lock()
        self.lines_written = 0

    @classmethod
    def create(cls, path: Path, header: Mapping[str, Any]) -> SessionLog:
        """A new log starting with ``header``; refuses to overwrite an existing file."""
        path.parent.mkdir(parents=True, exist_ok=True)
        fh = path.open("xb", buffering=0)
        log = cls(path, fh)
        log.append(header, sync=True)
        return log

    @classmethod
    def open_existing(cls, path: Path, valid_bytes: int) -> SessionLog:
        """Continue a log after a crash, cutting a torn last line first."""
        fh = path.open("r+b", buffering=0)
        fh.truncate(valid_bytes)
        fh.seek(valid_bytes)
        return cls(path, fh)

    def append(self, line: Mapping[str, Any], *, sync: bool = False) -> None:
        """Write one line and flush it; ``sync`` also forces it to the disk."""
        self.append_many([line], sync=sync)

    def append_many(self, lines: Sequence[Mapping[str, Any]], *, sync: bool = False) -> None:
        if not lines:
            return
        # One write per batch: a crash tears at most the last line, never interleaves.
        blob = b"".join(
            json.dumps(line, separators=(",", ":"), allow_nan=False).encode() + b"\n"
            for line in lines
        )
        with self._lock:
            start = self._fh.tell()
            try:
                view = memoryview(blob)
                while view:  # an unbuffered write may be partial
                    written = self._fh.write(view)
                    if not written:
                        raise OSError(f"{self.path.name}: the write made no progress")
                    view = view[written:]
                if sync:
                    os.fsync(self._fh.fileno())
            except OSError:
                # nothing of a failed batch may stay: cut the file back to where it began
                with contextlib.suppress(OSError):
                    self._fh.truncate(start)
                    self._fh.seek(start)
                raise
            self.lines_written += len(lines)

    def close(self) -> None:
        with self._lock:
            if not self._fh.closed:
                os.fsync(self._fh.fileno())
                self._fh.close()
