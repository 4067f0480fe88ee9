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


def read_lines(path: Path) -> Iterator[dict[str, Any]]:
    """The JSON objects of a session log; a torn last line (a crash mid-write) is skipped."""
    with path.open(encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError:
            if number == len(lines):
                return  # the process died while writing its last line
            raise SessionError(f"line {number}: not valid JSON") from None
        if not isinstance(obj, dict):
            raise SessionError(f"line {number}: expected a JSON object")
        yield obj


def run(args: argparse.Namespace) -> int:
    path: Path = args.session
    if not path.is_file():
        raise ValueError(f"no session log at {path}")
    lines = read_lines(path)
    try:
        header = next(lines)
    except StopIteration:
        raise ValueError(f"{path} is empty") from None
    referee = referee_from_header(header)
    out = sys.stdout
    events: list[dict[str, Any]] = []
    for line in lines:
        for event in feed_line(referee, line):
            as_json = event.to_json()
            events.append(as_json)
            if args.format == "json" and not args.ogn:
                out.write(json.dumps(as_json, ensure_ascii=False) + "\n")
    if args.ogn or args.format == "text":
        games = records_from_events(Position.from_json(header["start"]), events)
        for number, record in enumerate(games, 1):
            if args.ogn:
                record.tags.setdefault("Round", str(number))
                out.write(("\n" if number > 1 else "") + record.to_ogn())
            else:
                title = f"Game {number} of {len(games)}" if len(games) > 1 else ""
                out.write(("\n" if number > 1 else "") + (title + "\n" if title else ""))
                out.write(record.to_text() + "\n")
    return 0
