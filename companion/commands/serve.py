"""``oware-companion serve`` and ``oware-companion demo``: from board to browser in one command.

``serve`` starts, in one process, every source given with ``--source``
(board 1, 2, … in that order), a referee and a session recorder per board,
the engine worker, and the web service (``dashboard.app``). ``demo`` does
the same on the virtual sensor board (``sim://``) playing a lively game with
an occasional player mistake, so a newcomer sees alerts, captures and
suggestions with no hardware::

    oware-companion demo                      # then open the printed URL
    oware-companion serve --source serial://auto --rules abapa
    oware-companion serve --source sim:// --source camera://0 --config venue.toml
    oware-companion serve --source camera://0 --calibration board2.json
    oware-companion serve --source camera://0 --source camera://1 \\
        --calibration table1.json --calibration table2.json
    oware-companion serve --source serial://auto --engine "/opt/aalina/service"

A camera needs a calibration (``oware-companion calibrate --source
camera://0``); ``serve`` reads the one that command saved unless
``--calibration`` or the config names another. Several cameras, one per
board, each need their own: save each with ``calibrate --out FILE`` and give
them in the order of the camera sources, or name them in the venue config's
``[camera.per_source]`` table (``"camera://1" = "table2.json"``).

``--engine CMD`` (or the venue config's ``[engine] command``) takes the
suggestions of two-player Oware boards from an outside engine program that
speaks the engine protocol (:mod:`companion.service.outside_engine`); it is
started once before anything else, and one that cannot be started stops
``serve`` with a one-line error.

Listening on anything but loopback makes every command need a token
(printed at start unless the config sets one). SIGINT or SIGTERM stop the
service cleanly; after a crash, starting it again resumes the game from its
session log (``--fresh`` starts a new one instead).

For tests and for running without the console script, ``python -m
companion.commands.serve serve …`` works the same way.
"""

from __future__ import annotations

import argparse
import logging
import secrets
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from companion import __version__
from companion.commands.numbers import seconds
from companion.commands.rules import rules_spec
from companion.hall.broker import parse_broker_url
from companion.service.config import ServiceConfig, check_token, load_config
from companion.service.preflight import StartError, preflight
from companion.service.service import Service, is_loopback
from companion.sources import is_camera_url
from core.rules import RuleSet
from dashboard.views import links_text

log = logging.getLogger(__name__)

#: The demo board: ~2.5 times a person's pace, a mistake in about one move of eight; it
#: plays the demo's --rules (every rule set: 2, 3 and 4 players), game after game.
DEMO_SPEED = 2.5
DEMO_MISTAKES = 0.12


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``serve`` and ``demo`` subcommands."""
    serve = subparsers.add_parser(
        "serve",
        help="watch one or more boards and serve the live page",
        description="Start sources, referee, recorder, engine and the web service.",
    )
    serve.add_argument(
        "--source",
        action="append",
        metavar="URL",
        help="sim://, serial:///dev/ttyUSB0, serial://auto, camera://0, video://FILE, "
        "replay://FILE (repeat for several boards; default sim://)",
    )
    serve.add_argument(
        "--calibration",
        type=Path,
        action="append",
        metavar="FILE",
        help="camera calibration for the camera:// and video:// sources: once for all of "
        "them, or once per camera in the order of their --source (default: the config's "
        "[camera.per_source] or [camera] calibration, else the one `oware-companion "
        "calibrate` saved)",
    )
    _common(serve)
    serve.add_argument("--fresh", action="store_true", help="start new games, do not resume")
    serve.add_argument(
        "--publish",
        metavar="mqtt://HOST[:PORT]/HALL",
        default=None,
        help="publish every board's events to a hall's MQTT broker (see docs/VENUE.md)",
    )
    serve.add_argument(
        "--hall-board",
        type=int,
        default=None,
        metavar="N",
        help="the hall's number of this service's first board (the next ones follow; "
        "default: the config's [hall] board, else 1)",
    )
    serve.set_defaults(func=serve_command)

    demo = subparsers.add_parser(
        "demo",
        help="serve a lively game on the virtual board, with mistakes",
        description="The whole product on the virtual sensor board (sim://): no hardware.",
    )
    demo.add_argument("--seed", type=int, default=None, help="random seed of the virtual game")
    demo.add_argument(
        "--speed",
        type=float,
        default=DEMO_SPEED,
        help=f"board seconds per real second (default {DEMO_SPEED}: a lively pace; "
        "0: as fast as the referee reads)",
    )
    demo.add_argument(
        "--mistakes",
        type=float,
        default=DEMO_MISTAKES,
        help=f"probability that a move is a player's mistake (default {DEMO_MISTAKES})",
    )
    demo.add_argument(
        "--hall",
        type=int,
        default=None,
        metavar="N",
        help="a hall of N virtual boards, each its own service publishing to a Mosquitto "
        "broker started for it, and the hall page on --port",
    )
    _common(demo)
    demo.set_defaults(func=demo_command)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--rules",
        type=rules_spec,
        default=None,
        help="rule set NAME[:key=value,...] (default abapa; universal-3 and universal-4 are "
        "the three- and four-player games; see `oware-companion rules`)",
    )
    p.add_argument("--host", default=None, help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="port (default 8000)")
    p.add_argument("--config", type=Path, default=None, help="venue settings (TOML)")
    p.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="session logs, games database, cameras' pit photos",
    )
    p.add_argument("--token", default=None, help="token for commands (default: from the config)")
    p.add_argument(
        "--fair-play",
        action="store_true",
        default=None,
        help="hide suggestions from the players' screens",
    )
    p.add_argument("--no-engine", action="store_true", help="no suggestions (saves the CPU)")
    p.add_argument("--engine-seconds", type=seconds, default=None, help="thinking time per move")
    p.add_argument(
        "--engine",
        dest="engine_command",
        metavar="CMD",
        default=None,
        help="suggestions from an outside engine program that speaks the engine protocol, "
        'e.g. "oware-companion engine" or Aalina\'s (two-player Oware boards; '
        "default: the built-in search)",
    )
    p.add_argument(
        "--silent-after",
        type=float,
        default=None,
        metavar="SECONDS",
        help="a connected board that sends no frame this long is reported silent "
        "(default 2; 0: never)",
    )


def build_config(args: argparse.Namespace) -> ServiceConfig:
    """The venue config with the command line's overrides."""
    config = load_config(args.config) if args.config else ServiceConfig()
    check_token(args.token)  # the config file's own was checked as it was read
    if args.silent_after is not None and not 0 <= args.silent_after <= 3600:
        raise ValueError("--silent-after must be between 0 (never) and 3600 seconds")
    if args.engine_command is not None:
        if not args.engine_command.strip():
            raise ValueError("--engine needs a command (leave it out to use the built-in search)")
        if args.no_engine:
            raise ValueError("--engine and --no-engine contradict each other: give one")
    return config.with_overrides(
        rules=args.rules,
        host=args.host,
        port=args.port,
        data_dir=args.data_dir.resolve() if args.data_dir else None,
        token=args.token,
        fair_play=args.fair_play,
        engine=False if args.no_engine else None,
        engine_seconds=args.engine_seconds,
        engine_command=args.engine_command,
        silent_after=args.silent_after,
    )


def with_calibrations(
    config: ServiceConfig, sources: Sequence[str], files: Sequence[Path]
) -> ServiceConfig:
    """``config`` with the ``--calibration`` files given: one file is every camera's;
    several go to the camera sources in the order they were given."""
    if not files:
        return config
    cameras = [url for url in sources if is_camera_url(url)]
    paths = [Path(f).resolve() for f in files]
    if len(paths) == 1:  # every camera, whatever the config's [camera.per_source] said
        return replace(config, camera_calibration=paths[0], camera_calibrations=())
    if len(paths) != len(cameras):
        raise ValueError(
            f"{len(paths)} --calibration files for {len(cameras)} camera sources: "
            "give one for all of them, or one per camera in the order of their --source"
        )
    # the command line wins over the config's [camera.per_source] for the cameras it names
    given = dict(zip(cameras, paths, strict=True))
    kept = tuple((url, path) for url, path in config.camera_calibrations if url not in given)
    return config.with_overrides(camera_calibrations=kept + tuple(given.items()))


def run(
    sources: list[str],
    config: ServiceConfig,
    *,
    resume: bool = True,
    publish: str | None = None,
    hall_board: int | None = None,
) -> int:
    """Serve until SIGINT/SIGTERM. Prints the URL (and the token, when one was made)."""
    import uvicorn

    from dashboard.app import create_app

    if not is_loopback(config.host) and config.token is None:
        config = config.with_overrides(token=secrets.token_urlsafe(18))
        print(f"commands need this token: {config.token}", flush=True)
    hall = dict(config.hall)  # the venue file's [hall]: broker, board, credentials, CA
    publish = publish or hall.get("broker")
    address = parse_broker_url(publish) if publish else None  # refused before anything starts
    first_board = hall_board if hall_board is not None else int(hall.get("board", 1))
    if first_board < 1:
        raise ValueError("the hall's board numbers start at 1")
    service = Service(sources, config, resume=resume)  # checks every source first
    if service.engine_enabled and config.engine_command is not None:
        check_outside_engine(config.engine_command, service.board_rules)
    # the data directory, the index, the port: refused now, before anything is recorded
    sock = preflight(service.data_dir, config.host, config.port)
    conflicts = service.resume_conflicts()
    if conflicts:
        sock.close()
        raise StartError(
            "; ".join(conflicts) + ": start with --fresh to begin new games (the old "
            "session stays in the history), or give the same --source and --rules to resume it"
        )
    app = create_app(service, version=__version__)
    shown = "127.0.0.1" if config.host in ("0.0.0.0", "::") else config.host
    base = f"http://{shown}:{config.port}"
    boards = [
        (str(number), url, rules.name)
        for number, (url, rules) in enumerate(zip(sources, service.board_rules, strict=True), 1)
    ]
    # every board's views, with who each is for: the home page lists the same
    print(links_text(base, boards), flush=True)
    print(f"oware-companion: open {base}/ (every board and view)", flush=True)
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            host=config.host,
            port=config.port,
            log_config=None,  # keep the CLI's logging setup (levels, format)
            ws_max_size=config.max_body_bytes,
            ws_ping_interval=20.0,
            # No permessage-deflate: the messages are small JSON on a LAN, and compressing
            # each one again for every page was half the cost of a send (a fifth of the
            # event loop's time with 200 spectators, profiled under python -m bench.service)
            ws_per_message_deflate=False,
            timeout_graceful_shutdown=3,
        )
    )
    publisher = None
    if address is not None:
        from companion.hall.publisher import service_publisher

        credentials = {k: hall[k] for k in ("username", "password", "ca_file") if k in hall}
        publisher = service_publisher(address, service, base, first_board, **credentials)
        publisher.start()
    try:
        server.run(sockets=[sock])
    finally:
        if publisher is not None:
            publisher.stop()
    return 0 if server.started else 1  # (a start that failed has said why)


def check_outside_engine(command: str, board_rules: Sequence[RuleSet]) -> None:
    """Start the outside engine once (StartError, one line, if it cannot be) and say
    which boards it serves."""
    from companion.service.outside_engine import check_engine

    name = check_engine(command)
    oware = [str(n) for n, rules in enumerate(board_rules, 1) if rules.family == "oware"]
    if oware:
        log.info("suggestions from the outside engine %s (boards %s)", name, ", ".join(oware))
    else:
        log.warning(
            "--engine: no board plays two-player Oware, so the outside engine %s is not "
            "used (universal mancala boards get the built-in search)",
            name,
        )


def serve_command(args: argparse.Namespace) -> int:
    sources = args.source or ["sim://"]
    config = with_calibrations(build_config(args), sources, args.calibration or [])
    cameras = [url for url in sources if is_camera_url(url)]
    if len(cameras) > 1 and len({config.calibration_for(url) for url in cameras}) == 1:
        log.warning(
            "%d cameras read the same calibration: give each its own with --calibration "
            "(in the order of their --source) unless they really see the same board",
            len(cameras),
        )
    return run(
        sources, config, resume=not args.fresh, publish=args.publish, hall_board=args.hall_board
    )


def demo_command(args: argparse.Namespace) -> int:
    config = build_config(args)
    if args.data_dir is None and args.config is None:
        # demo games do not belong in the club's history
        config = config.with_overrides(data_dir=config.data_dir / "demo")
    if args.speed < 0 or not 0 <= args.mistakes <= 1:
        raise ValueError("--speed must be 0 or more and --mistakes between 0 and 1")
    if args.hall is not None:
        from companion.hall.demo import run_demo_hall

        return run_demo_hall(
            args.hall,
            host=config.host,
            port=config.port,
            data_dir=config.data_dir,
            speed=args.speed,
            mistakes=args.mistakes,
        )
    url = f"sim://?speed={args.speed:g}&mistakes={args.mistakes:g}"
    url += f"&seed={args.seed}" if args.seed is not None else ""
    return run([url], config, resume=False)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m companion.commands.serve serve|demo …`` (the same as the CLI's)."""
    from companion.commands.module_main import module_main

    return module_main(register, argv)


if __name__ == "__main__":
    raise SystemExit(main())
