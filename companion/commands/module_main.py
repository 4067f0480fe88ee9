"""Running a parsed command, the one way the CLI and ``python -m companion.commands.NAME …``
both do: logging set up, the handler run, a person's error said in one line.

:func:`module_main` runs one command module on its own, as the CLI runs it but without
importing every other command (the engine's compile among them).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable, Sequence
from typing import Any


def run_command(args: argparse.Namespace) -> int:
    """Set up logging at ``args.log_level`` and run ``args.func``: its exit code, 130 on
    Ctrl-C, 1 with one line on stderr for an error meant for people (no traceback)."""
    logging.basicConfig(
        level=getattr(logging, str(args.log_level).upper(), logging.INFO),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        return 130
    except (ValueError, OSError) as exc:  # errors meant for people: say it, no traceback
        print(f"oware-companion: error: {exc}", file=sys.stderr)
        return 1


def module_main(register: Callable[[Any], None], argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` with the subcommands ``register`` adds and run the one named."""
    parser = argparse.ArgumentParser(prog="oware-companion")
    parser.add_argument("--log-level", default="INFO")
    register(parser.add_subparsers(dest="command", required=True))
    return run_command(parser.parse_args(argv))
