"""Sensor-board commands: the serial half of `calibrate`, and `virtual-board`.

``calibrate_serial(args)`` is what ``oware-companion calibrate --source
serial://auto`` runs (the CLI dispatches ``calibrate`` by the URL's scheme):
it walks a person through tare, an optional known-weight scale and the seed
weight in the terminal, then saves the calibration JSON (``--out``, default
in the user's config directory, where ``serial://`` sources look for it).

``oware-companion virtual-board`` runs the virtual sensor board on its own
pseudo-terminal and prints the port, to try ``serial:///that/port`` by hand.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from companion.commands.numbers import probability, seconds, seconds_or_zero
from companion.commands.rules import rules_spec
from companion.commands.writable import check_can_write
from companion.sources import open_source
from firmware_bridge.calibration_wizard import CalibrationError, run_calibration
from firmware_bridge.source import SensorSource, SimSource, default_calibration_path
from firmware_bridge.virtual_board import (
    CalibrationHelper,
    DeviceOptions,
    PlayerOptions,
    VirtualBoard,
)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `virtual-board` subcommand."""
    p = subparsers.add_parser(
        "virtual-board",
        help="run the virtual sensor board on a pseudo-terminal and print its port",
        description="A pure-Python sensor board that plays a game seed by seed and speaks "
        "the board's serial protocol, for trying serial:// sources without hardware.",
    )
    p.add_argument("--seed", type=int, default=None, help="random seed (default: random)")
    p.add_argument(
        "--speed",
        type=seconds_or_zero,
        default=1.0,
        help="board seconds per real second (default 1; 0: as fast as it is read)",
    )
    p.add_argument(
        "--mistakes", type=probability, default=0.0, help="probability of a mistake per move"
    )
    p.add_argument("--faults", type=seconds_or_zero, default=0.0, help="link faults per minute")
    p.add_argument(
        "--rules",
        type=rules_spec,
        default="abapa",
        help="the game it plays: NAME[:key=value,...] (universal-3, universal-4: a wider board)",
    )
    p.add_argument("--seconds", type=seconds, default=None, help="stop after this long")
    p.add_argument(
        "--link",
        type=Path,
        default=None,
        metavar="PATH",
        help="the port's path (a symlink made there, removed at exit; a stale one is "
        "replaced), so that serve --source serial://PATH finds it again after a restart "
        "(default: a new temporary folder each time)",
    )
    p.set_defaults(func=virtual_board)


def virtual_board(args: argparse.Namespace) -> int:
    opts = DeviceOptions(
        seed=args.seed,
        speed=args.speed,
        faults=args.faults,
        player=PlayerOptions(rules=args.rules, mistakes=args.mistakes),
    )
    link: Path | None = args.link
    if link is not None:
        link = link.absolute()
        if (link.exists() or link.is_symlink()) and not link.is_symlink():
            raise ValueError(f"--link {link} exists and is not a link: give another path")
        if not link.parent.is_dir():
            raise ValueError(f"--link {link}: the folder {link.parent} does not exist")
    # SIGTERM (a supervisor, a test) stops it as Ctrl-C does: the link and folder go
    stop = threading.Event()
    previous = signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        board = VirtualBoard(opts, None if link is None else str(link))
        try:
            board.start()
        except OSError as exc:
            board.stop()
            raise ValueError(
                f"cannot make the port {link} ({exc.strerror or exc}): give --link a path in a"
                " folder you can write"
            ) from None
        try:
            print(f"virtual sensor board on serial://{board.port}", flush=True)
            stop.wait(args.seconds)
        finally:
            board.stop()  # unplugged, whatever ended the wait
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
    return 0


def calibrate_serial(args: argparse.Namespace) -> int:
    """`calibrate --source serial://…` (or sim://): tare, scale, seed weight → JSON.

    On ``sim://`` the virtual board's own person does each step (its players stay still
    meanwhile), so the calibration runs to its end with nobody at the keyboard. A real
    board needs a person: ``--yes`` cannot answer for them, and a closed input says so.
    """
    out = Path(args.out) if getattr(args, "out", None) else default_calibration_path()
    check_can_write(out, "the calibration")  # before the person's steps, not after
    url: str = args.source
    if url.startswith("sim://"):
        source = open_source(_still(url))
    else:
        if getattr(args, "yes", False):
            raise ValueError(
                "--yes cannot calibrate a sensor board: each step needs a person at the board "
                "(emptying it, laying out the seeds); leave --yes out (sim:// runs by itself)"
            )
        source = open_source(url)
    if not isinstance(source, SensorSource):
        print(f"oware-companion: error: {args.source} is not a sensor board")
        return 2
    ask = _keyboard
    if isinstance(source, SimSource):
        helper = CalibrationHelper(source.board)

        def ask(prompt: str) -> str:
            print(prompt.strip())
            before = len(helper.done)
            answer = helper.ask(prompt)
            did = helper.done[before:] or [f"answered {answer!r}" if answer else "pressed Enter"]
            print(f"  (at the virtual board: {'; '.join(did)})", flush=True)
            return answer

    try:
        with _link_lines_quiet():
            run_calibration(
                source, out, ask, print, connect_timeout_s=getattr(args, "connect_timeout", 15.0)
            )
    except CalibrationError as exc:
        print(f"calibration failed: {exc}")
        return 1
    return 0


@contextlib.contextmanager
def _link_lines_quiet() -> Iterator[None]:
    """The link's own log lines ("link reconnecting: ...") off while the wizard talks: it
    says the same to the person in words, once (``--log-level DEBUG`` keeps them)."""
    link_log = logging.getLogger("firmware_bridge.link")
    before = link_log.level
    if logging.getLogger().getEffectiveLevel() > logging.DEBUG:
        link_log.setLevel(logging.WARNING)
    try:
        yield
    finally:
        link_log.setLevel(before)


def _still(url: str) -> str:
    """The ``sim://`` URL with its players still (the calibration's person is at the board)."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "max_moves"]
    return urlunsplit(parts._replace(query=urlencode([*query, ("max_moves", "0")], safe=":,+")))


def _keyboard(prompt: str) -> str:
    try:
        return input(prompt)
    except EOFError:
        raise CalibrationError(
            "nobody at the keyboard to answer the step (the input is closed): run the "
            "calibration in a terminal, or on sim:// where the virtual board does each step"
        ) from None
