"""Recorded sessions: the JSONL log format, and replaying it through a referee.

A session log is one JSON object per line:

1. a header ``{"format": "oware-observations", "version": 1, "rules": NAME,
   "options": {...}, "start": <position JSON>, "referee": {settings}}``;
2. then, in the order they happened:

   * observations (objects without ``type`` or ``command``: see
     :mod:`core.observation`);
   * commands from people ``{"command": "undo", "t": 12.5, ...}`` (see
     :meth:`core.referee.Referee.command`);
   * events the live run emitted (objects with ``type``); a replay ignores
     them and makes its own, which must be the same.

This module only turns parsed lines into events; reading and writing files is
the application's job (``companion``).

>>> from core import Position
>>> header = session_header(Position.initial())
>>> lines = [header, {"t": 1.0, "source": "sim", "stable": True,
...                   "pits": [4, 4, 4, 4, 4, 0, 5, 5, 5, 5, 4, 4]}]
>>> [e.type for e in replay(lines)]
['move']
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from core.position import Position
from core.referee.commands import CommandError
from core.referee.events import Event
from core.referee.referee import Referee

FORMAT = "oware-observations"
VERSION = 1


class SessionError(ValueError):
    """A session log that cannot be replayed; the message says which line and why."""


def session_header(start: Position, **referee_settings: float) -> dict[str, Any]:
    """The first line of a session log."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "rules": start.rules,
        "start": start.to_json(),
        "referee": dict(referee_settings),
    }


def referee_from_header(header: Mapping[str, Any]) -> Referee:
    """A fresh referee set up as the header says."""
    if not isinstance(header, Mapping) or header.get("format") != FORMAT:
        raise SessionError(f'line 1: not a session log (expected "format": "{FORMAT}")')
    if header.get("version") != VERSION:
        raise SessionError(f"line 1: unsupported session version {header.get('version')!r}")
    try:
        start = Position.from_json(header["start"])
    except (KeyError, ValueError) as exc:
        raise SessionError(f"line 1: bad start position: {exc}") from None
    settings = header.get("referee") or {}
    allowed = {
        "settle_time",
        "margin",
        "min_log_likelihood",
        "ambiguity_time",
        "stall_time",
        "commit",
        "commit_still",
        "alert",
        "provisional",
        "sees_hands",
        "independent_frames",
    }
    kept: dict[str, Any] = {
        k: v if isinstance(v, bool) else float(v) for k, v in settings.items() if k in allowed
    }
    return Referee(start, **kept)


def line_kind(line: Mapping[str, Any]) -> str:
    """``command``, ``event`` or ``observation``."""
    if "command" in line:
        return "command"
    if "type" in line:
        return "event"
    return "observation"


def feed_line(referee: Referee, line: Mapping[str, Any]) -> list[Event]:
    """Give one logged line to ``referee``; recorded events are skipped."""
    kind = line_kind(line)
    if kind == "event":
        return []
    if kind == "command":
        try:
            return referee.command(line, float(line.get("t", 0.0)))
        except CommandError:
            return []  # it was refused live too; a refused command leaves no event
    return referee.observe(line)


def replay(lines: Iterable[Mapping[str, Any]]) -> list[Event]:
    """Every event a referee gives for a whole session (header first)."""
    it = iter(lines)
    try:
        header = next(it)
    except StopIteration:
        raise SessionError("the session is empty") from None
    referee = referee_from_header(header)
    events: list[Event] = []
    for line in it:
        events.extend(feed_line(referee, line))
    return events
