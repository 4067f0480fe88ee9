"""``oware-companion hall``: the hall page of every board publishing to one broker.

::

    oware-companion hall --broker mqtt://broker.local/club --port 8080

serves, read-only, every board of the hall ``club`` (those started with
``serve --publish mqtt://broker.local/club``): a grid of boards, the arbiter's
list of open alerts, and the round's games as OGN at ``/round/R.ogn``.
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import Any

from companion.hall.broker import BrokerAddress, parse_broker_url
from companion.service.config import default_data_dir, load_config

log = logging.getLogger(__name__)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    hall = subparsers.add_parser(
        "hall",
        help="serve the hall page of every board publishing to a broker",
        description="Gather every board of a hall from its MQTT broker and serve the hall page.",
    )
    hall.add_argument(
        "--broker",
        default=None,
        metavar="mqtt://HOST[:PORT]/HALL",
        help="the hall's broker (default: the config's [hall] broker)",
    )
    hall.add_argument(
        "--config",
        type=Path,
        default=None,
        help="venue file: its [hall] broker, username, password, ca_file",
    )
    hall.add_argument("--host", default="127.0.0.1", help="address to listen on")
    hall.add_argument("--port", type=int, default=8080, help="port (default 8080)")
    hall.add_argument("--round", type=int, default=1, help="the round being played (default 1)")
    hall.add_argument(
        "--data-dir", type=Path, default=None, help="where the hall keeps what it gathered"
    )
    hall.add_argument("--ca-file", default=None, help="CA certificate for mqtts://")
    hall.set_defaults(func=hall_command)


def hall_command(args: argparse.Namespace) -> int:
    hall = dict(load_config(args.config).hall) if args.config else {}
    broker = args.broker or hall.get("broker")
    if not broker:
        raise ValueError("give the hall's broker: --broker mqtt://HOST[:PORT]/HALL")
    address = parse_broker_url(broker)
    data_dir = (args.data_dir or default_data_dir() / "hall" / address.hall).resolve()
    options = {k: hall[k] for k in ("username", "password", "ca_file") if k in hall}
    if args.ca_file:
        options["ca_file"] = args.ca_file
    return run_hall(address, data_dir, args.host, args.port, args.round, **options)


def run_hall(
    address: BrokerAddress,
    data_dir: Path,
    host: str,
    port: int,
    round_number: int = 1,
    **client_options: Any,
) -> int:
    import uvicorn

    from companion.hall.app import create_hall_app
    from companion.hall.gatherer import Gatherer

    gatherer = Gatherer(address, data_dir, round_number=round_number, **client_options)
    gatherer.start()
    print(f"oware-companion: hall {address.shown}: open http://{host}:{port}/", flush=True)
    server = uvicorn.Server(
        uvicorn.Config(
            create_hall_app(gatherer),
            host=host,
            port=port,
            log_config=None,
            # open pages keep their feed open: without this Ctrl+C would wait for them
            timeout_graceful_shutdown=3,
        )
    )
    try:
        server.run()
    finally:
        gatherer.stop()
    return 0 if server.started else 1


def main(argv: list[str] | None = None) -> int:
    """``python -m companion.commands.hall hall …`` (the same as the CLI's)."""
    from companion.commands.module_main import module_main

    return module_main(register, argv)


if __name__ == "__main__":
    raise SystemExit(main())
