"""Checkpoints of a board's session, so that a restart replays only the log's tail.

Replaying a session log through the referee costs about what judging it live
cost, so a restart after a day of play would take as long as the day's
judging. The board therefore saves, from time to time (at every game's end,
and whenever the referee has been busy for :data:`CHECKPOINT_BUSY` seconds
since the last one), next to the log ``board1-….jsonl``:

* ``board1-….jsonl.events``: the session's events as JSON lines (what
  ``/api/board/{b}/events`` serves), appended at each checkpoint;
* ``board1-….jsonl.checkpoint``: the pickled referee and the board's game
  state, with the byte offset and line count of the log and the length of
  the events file it stands for (written to a temporary file, synced, then
  renamed over the last one: a crash leaves the old one or the new one).

A restart loads the checkpoint and replays only the lines after its offset
(:func:`load`). The log stays the truth: a checkpoint that does not fit it
(another log, a shorter file, a different version of the referee's code, an
unreadable file) is ignored with one log line and the whole log is replayed,
as before checkpoints. Checkpoints are pickles, so they are only ever read from
the service's own data directory, which only the service writes.

Saving runs on a thread of the board's own (:class:`Checkpointer`), in order;
a checkpoint that cannot be written (a full disk) is skipped with one log
line: the next restart replays more.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import hashlib
import json
import logging
import os
import pickle
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import core

from .recorder import encode_lines

log = logging.getLogger(__name__)

FORMAT = "oware-checkpoint"
VERSION = 1

#: Seconds the referee may work (judging observations) between two checkpoints: about
#: the longest a restart spends replaying the log's tail.
CHECKPOINT_BUSY = 0.5

#: Bytes at the end of the covered part of the log whose hash the checkpoint keeps.
TAIL_CHECK = 512

_fingerprint: str | None = None


def code_fingerprint() -> str:
    """A hash of the rules core's source: a pickled referee is only loaded by the same code."""
    global _fingerprint
    if _fingerprint is None:
        digest = hashlib.sha256()
        root = Path(core.__file__).parent
        for path in sorted(root.rglob("*.py")):
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
        _fingerprint = digest.hexdigest()[:16]
    return _fingerprint


def checkpoint_path(log_path: Path) -> Path:
    return log_path.with_name(log_path.name + ".checkpoint")


def events_path(log_path: Path) -> Path:
    return log_path.with_name(log_path.name + ".events")


def _tail_hash(log_path: Path, offset: int) -> str:
    with log_path.open("rb") as fh:
        fh.seek(max(0, offset - TAIL_CHECK))
        return hashlib.sha256(fh.read(min(offset, TAIL_CHECK))).hexdigest()


@dataclass
class Checkpoint:
    """What a restart needs that the log's tail does not tell."""

    offset: int
    """Bytes of the log it stands for (whole lines)."""
    lines: int
    """Lines in those bytes (the header included)."""
    events: list[dict[str, Any]]
    """The session's events up to ``offset``."""
    events_bytes: int
    state: dict[str, Any]
    """The board's state: ``referee`` and what :class:`~.board.BoardRuntime` keeps."""


def load(log_path: Path) -> Checkpoint | None:
    """The log's checkpoint if it fits the log (else None, said in one log line)."""
    path = checkpoint_path(log_path)
    if not path.is_file():
        return None
    try:
        data = pickle.loads(path.read_bytes())  # (our own file: see the module docstring)
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError("not a checkpoint")
        if data.get("version") != VERSION or data.get("code") != code_fingerprint():
            raise ValueError("written by another version")
        if data["log"] != log_path.name:
            raise ValueError(f"it is of {data['log']}")
        offset = int(data["offset"])
        if log_path.stat().st_size < offset or _tail_hash(log_path, offset) != data["tail"]:
            raise ValueError("the log does not hold what it stood for")
        size = int(data["events_bytes"])
        with events_path(log_path).open("rb") as fh:
            blob = fh.read(size)
        if len(blob) != size:
            raise ValueError("its events file is short")
        events = [_event(raw) for raw in blob.splitlines()]
        if len(events) != int(data["events"]):
            raise ValueError("its events file does not hold its events")
        state = pickle.loads(data["state"])
        return Checkpoint(offset, int(data["lines"]), events, size, dict(state))
    except Exception as exc:  # whatever is wrong with it, the log is replayed in full
        log.warning("%s: checkpoint not used (%s); replaying the whole log", log_path.name, exc)
        return None


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _event(raw: bytes) -> dict[str, Any]:
    event = json.loads(raw)
    if not isinstance(event, dict):
        raise ValueError("an event is not an object")
    return event


class Checkpointer:
    """Saves one log's checkpoints on a thread of its own, in the order they are made."""

    def __init__(self, log_path: Path, events_bytes: int, events: int) -> None:
        self.log_path = log_path
        self.events_bytes = events_bytes
        """Bytes of the events file once every queued checkpoint is saved."""
        self.events = events
        self.saved = 0
        self._failing = False
        self._lost = threading.Event()
        self._pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="checkpoint")

    def save(
        self, state: dict[str, Any], *, offset: int, lines: int, events: list[dict[str, Any]]
    ) -> None:
        """Queue a checkpoint of ``state`` (pickled now, on the caller's thread) standing for
        the log's first ``offset`` bytes (``lines`` lines) and the session's ``events``."""
        if self._lost.is_set():  # a save failed: write the events file again from its start
            self._lost.clear()
            self.events_bytes = self.events = 0
        blob = encode_lines(events[self.events :])
        start = self.events_bytes
        self.events_bytes += len(blob)
        self.events = len(events)
        meta = {
            "format": FORMAT,
            "version": VERSION,
            "code": code_fingerprint(),
            "log": self.log_path.name,
            "offset": offset,
            "lines": lines,
            "events": self.events,
            "events_bytes": self.events_bytes,
            "state": pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL),
        }
        self._pool.submit(self._write, meta, start, blob)

    def _write(self, meta: dict[str, Any], start: int, blob: bytes) -> None:
        target = checkpoint_path(self.log_path)
        tmp = target.with_name(target.name + ".tmp")
        try:
            fd = os.open(events_path(self.log_path), os.O_WRONLY | os.O_CREAT, 0o644)
            try:
                os.ftruncate(fd, start)  # whatever a crash left after the last checkpoint
                os.lseek(fd, start, os.SEEK_SET)
                _write_all(fd, blob)
                os.fsync(fd)
            finally:
                os.close(fd)
            # the hash is taken here, off the event loop: the log's first `offset` bytes
            # never change once written
            meta["tail"] = _tail_hash(self.log_path, int(meta["offset"]))
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            try:
                _write_all(fd, pickle.dumps(meta, protocol=pickle.HIGHEST_PROTOCOL))
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, target)
            self.saved += 1
            if self._failing:
                log.info("%s: checkpoints are saved again", self.log_path.name)
                self._failing = False
        except OSError as exc:
            self._lost.set()
            if not self._failing:
                log.warning(
                    "%s: checkpoint not saved (%s); a restart replays more of the log",
                    self.log_path.name,
                    exc,
                )
            self._failing = True
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)

    def close(self) -> None:
        """Wait for the queued checkpoints."""
        self._pool.shutdown(wait=True)
