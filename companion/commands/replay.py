"""`oware-companion replay SESSION.jsonl`: replay a recorded session through the referee.

Prints the events as JSON lines (default), a readable game record
(``--format text``) or the game in OGN (``--ogn``). Replaying gives exactly the
events the live run gave (see :mod:`core.referee.session`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

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
        referee = referee_from_header(next(lines))
    except StopIteration:
        raise ValueError(f"{path} is empty") from None
    out = sys.stdout
    for line in lines:
        for event in feed_line(referee, line):
            if args.format == "json" and not args.ogn:
                out.write(json.dumps(event.to_json(), ensure_ascii=False) + "\n")
    if args.ogn or args.format == "text":
        record = referee.record()
        out.write(record.to_ogn() if args.ogn else record.to_text() + "\n")
    return 0
