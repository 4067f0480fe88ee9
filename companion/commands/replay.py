"""`oware-companion replay SESSION.jsonl`: replay a recorded session through the referee.

Prints the events as JSON lines (default), a readable record of every game of
the session (``--format text``) or every game in OGN (``--ogn``, one after
another as in a PGN file), each with every move, a missed capture too.
Replaying gives exactly the events the live run gave (see
:mod:`core.referee.session`); the games are read back from those events
(:func:`core.records.records_from_events`).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from core.position import Position
from core.records import records_from_events
from core.referee.session import SessionError, feed_line, referee_from_header


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("replay", help="replay a recorded session and print its events")
    p.add_argument("session", type=Path, help="a session log (.jsonl)")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument(
        "--format",
        choices=["json", "text"],
        default="json",
        help="json: one event per line (default); text: a readable game record",
    )
    fmt.add_argument("--ogn", action="store_true", help="print the game in OGN")
    p.set_defaults(func=run)


def read_lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """The JSON objects of a session log with their line numbers; a torn last line (a crash
    mid-write) is skipped. A damaged line is a :class:`SessionError` naming it."""
    lines = path.read_bytes().split(b"\n")
    if lines and not lines[-1].strip():
        lines.pop()
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
        except UnicodeDecodeError:
            raise SessionError(f"line {number}: not UTF-8 text") from None
        except (json.JSONDecodeError, RecursionError, ValueError) as exc:
            if number == len(lines):
                return  # the process died while writing its last line
            why = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc) or "too deep"
            raise SessionError(f"line {number}: not valid JSON ({why})") from None
        if not isinstance(obj, dict):
            raise SessionError(f"line {number}: expected a JSON object")
        yield number, obj


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def run(args: argparse.Namespace) -> int:
    path: Path = args.session
    if not path.is_file():
        raise ValueError(f"no session log at {path}")
    lines = read_lines(path)
    try:
        _, header = next(lines)
    except StopIteration:
        raise ValueError(f"{path} is empty") from None
    try:
        referee = referee_from_header(header)
        start = Position.from_json(header["start"])
    except SessionError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise SessionError(f"line 1: a header this version cannot use ({exc})") from None
    out = sys.stdout
    events: list[dict[str, Any]] = []
    for number, line in lines:
        t = line.get("t", 0.0)
        if isinstance(t, bool) or not isinstance(t, int | float) or not math.isfinite(t):
            raise SessionError(f"line {number}: its time t must be a finite number, not {t!r}")
        try:
            produced = feed_line(referee, line)
            texts = [json.dumps(e.to_json(), ensure_ascii=False, allow_nan=False) for e in produced]
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise SessionError(f"line {number}: cannot be replayed ({exc})") from None
        for event, text in zip(produced, texts, strict=True):
            events.append(event.to_json())
            if args.format == "json" and not args.ogn:
                out.write(text + "\n")
    if args.ogn or args.format == "text":
        games = records_from_events(start, events)
        for number, record in enumerate(games, 1):
            if args.ogn:
                record.tags.setdefault("Round", str(number))
                out.write(("\n" if number > 1 else "") + record.to_ogn())
            else:
                title = f"Game {number} of {len(games)}" if len(games) > 1 else ""
                out.write(("\n" if number > 1 else "") + (title + "\n" if title else ""))
                out.write(record.to_text() + "\n")
    return 0
