"""Running one command module on its own (``python -m companion.commands.NAME …``), as the
CLI runs it but without importing every other command (the engine's compile among them)."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable, Sequence
from typing import Any


def module_main(register: Callable[[Any], None], argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` with the subcommands ``register`` adds, set up logging, run one."""
    parser = argparse.ArgumentParser(prog="oware-companion")
    parser.add_argument("--log-level", default="INFO")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=getattr(logging, str(args.log_level).upper(), logging.INFO),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        return int(args.func(args))
    except (ValueError, OSError) as exc:
        print(f"oware-companion: error: {exc}", file=sys.stderr)
        return 1
