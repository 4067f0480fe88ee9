"""The `oware-companion` command line.

Each concern registers its own subcommands (see ``companion/commands/``);
this module only builds the parser and dispatches. Run ``oware-companion
--help`` for the list.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from companion import __version__
from companion.commands import (
    book,
    bridge,
    calibrate,
    count,
    engine,
    hall,
    replay,
    serve,
    train_counter,
)
from companion.commands import rules as rules_cmd
from companion.commands.module_main import run_command


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="oware-companion",
        description="A companion for a real Oware / mancala board: it watches the board "
        "(camera or sensor board), referees the game and shows it on a local web page.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument(
        "--log-level",
        default="INFO",
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        help="logging level (default INFO)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in _command_modules():
        module.register(sub)
    return parser


def _command_modules() -> list[Any]:
    """Every module that registers subcommands (in the order --help lists them)."""
    return [serve, hall, rules_cmd, replay, calibrate, train_counter, count, engine, book, bridge]


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 2
    return run_command(args)


if __name__ == "__main__":
    raise SystemExit(main())
