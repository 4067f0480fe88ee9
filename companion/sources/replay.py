"""``replay://session.jsonl``: a recorded session log, played again.

``?speed=0`` plays it as fast as it reads, ``?speed=N`` N times its original
pace (default 1). A replayed session also gives back the commands people gave
during it (``{"command": ...}`` dicts), and its header
(:attr:`ReplaySource.header`) says which start position and referee settings
to use, so that the live service gives exactly the events the recorded run gave.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from companion.service.recorder import read_log
from core.observation import Observation, ObservationError
from core.referee.session import FORMAT, line_kind
from core.source import SourceHealth, SourceItem, SourceURLError

from .options import OpenOptions


class ReplayHealth(SourceHealth):
    """A replay's ``health()``: how far it has played."""

    file: str
    lines: int
    played: int
    finished: bool


class ReplaySource:
    """Plays a recorded session log: observations with their timing, and commands."""

    def __init__(self, path: Path, speed: float = 1.0) -> None:
        if speed < 0:
            raise SourceURLError("replay speed must be 0 (as fast as possible) or more")
        lines, _ = read_log(path)
        if not lines or lines[0].get("format") != FORMAT:
            raise SourceURLError(f"{path} is not a session log (no {FORMAT!r} header)")
        self.path = path
        self.speed = speed
        self.header: dict[str, Any] = lines[0]
        self._lines = [ln for ln in lines[1:] if line_kind(ln) != "event"]
        self._closed = threading.Event()
        self.played = 0

    def open(self) -> None:
        self._closed.clear()

    def close(self) -> None:
        self._closed.set()

    def __iter__(self) -> Iterator[SourceItem]:
        yield {"type": "link", "state": "connected", "detail": f"replaying {self.path.name}"}
        previous: float | None = None
        for line in self._lines:
            if self._closed.is_set():
                return
            t = float(line.get("t", previous or 0.0))
            # wait() instead of sleep(): close() ends a long pause at once
            pause = (t - previous) / self.speed if self.speed > 0 and previous is not None else 0
            if pause > 0 and self._closed.wait(pause):
                return
            previous = t
            self.played += 1
            if line_kind(line) == "command":
                yield dict(line)
                continue
            try:
                yield Observation.from_json(line)
            except ObservationError:
                yield dict(line)  # the referee reports it as bad_observation, as it did live
        yield {
            "type": "link",
            "state": "disconnected",
            "detail": "end of the recorded session",
            "ended": True,  # the end of the file, not a fault: /health stays ok
        }

    def health(self) -> ReplayHealth:
        return {
            "source": "replay",
            "file": self.path.name,
            "lines": len(self._lines),
            "played": self.played,
            "finished": self.played >= len(self._lines),
        }


def open_replay(url: str, options: OpenOptions) -> ReplaySource:
    """The log ``url`` names, read (a missing file or a bad speed is refused here)."""
    parts = urlsplit(url)
    path = Path(unquote(parts.netloc + parts.path))
    if not path.is_file():
        raise SourceURLError(f"replay file not found: {path}")
    query = parse_qs(parts.query)
    try:
        speed = float(query.get("speed", ["1"])[-1])
    except ValueError:
        raise SourceURLError("replay speed must be a number") from None
    return ReplaySource(path, speed)


def check_replay(url: str, options: OpenOptions) -> None:
    """Refuse a missing file, a file that is not a session log, a bad speed."""
    open_replay(url, options)
