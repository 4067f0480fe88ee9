"""Engine subcommands: ``analyze`` a position, ``endgame build`` the databases,
``engine`` (the engine as a service speaking Aualé's UCI-like protocol).

Examples::

    oware-companion analyze 4-4-4-4-4-4-4-4-4-4-4-4-0-0-S --time 2
    oware-companion analyze 0-0-0-0-0-1-1-1-0-0-0-0-24-21-S --json
    oware-companion analyze 4-4-4-4-4-4-4-4-4-4-4-4-4-4-4-4-4-4-0-0-0-1 --rules universal-3
    oware-companion endgame build --max-seeds 16
    oware-companion engine            # then type: uci, position startpos moves Ab, go movetime 500

``analyze`` uses the endgame databases found in the cache directory
automatically (Abapa only); build them once with ``endgame build``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from functools import partial
from typing import Any

from companion import endgame_store
from companion.commands.numbers import seconds
from companion.commands.rules import rules_spec
from core.engine import tighten
from core.engine.analysis import Analysis, analyze, database_applies
from core.engine.explain import explain_move
from core.position import Position
from core.rules import parse_rules_spec


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``analyze`` and ``endgame`` to the command line."""
    p = subparsers.add_parser(
        "analyze",
        help="value every legal move of a position and show the best line",
        description="Value every legal move (win/draw/loss and final margin when known "
        "exactly, otherwise the search score and depth) and print the principal variation.",
    )
    p.add_argument("position", help="text form, e.g. 4-4-4-4-4-4-4-4-4-4-4-4-0-0-S")
    p.add_argument(
        "--rules",
        type=rules_spec,
        default="abapa",
        help="rule set NAME[:key=value,...] (default abapa; see `oware-companion rules`)",
    )
    p.add_argument(
        "--time",
        type=seconds,
        default=2.0,
        metavar="S",
        help="thinking time in seconds (default 2)",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument(
        "--explain", metavar="MOVE", default=None, help="also explain this move in words (e.g. F)"
    )
    p.add_argument("--no-endgame", action="store_true", help="do not use the endgame databases")
    p.add_argument(
        "--engine",
        metavar="CMD",
        default=None,
        help="ask an outside engine that speaks Aualé's protocol (e.g. '/path/aalina service') "
        "for its move, score and line instead",
    )
    p.set_defaults(func=run_analyze)

    e = subparsers.add_parser("endgame", help="endgame databases (Abapa)")
    esub = e.add_subparsers(dest="endgame_command", metavar="ACTION", required=True)
    b = esub.add_parser(
        "build",
        help="build the databases up to N seeds on the board (resumable)",
        description="Build endgame values by retrograde analysis, one layer per seed "
        "count, into the cache directory (where a cycle decides, a value is a convention: "
        "--bounds stores what each side can force). Interrupt at any time: the next run "
        "resumes.",
    )
    b.add_argument(
        "--max-seeds",
        type=int,
        required=True,
        metavar="N",
        help="largest number of seeds on the board (20: about 8 minutes, 3 GB RAM)",
    )
    b.add_argument(
        "--bounds",
        action="store_true",
        help="also store the game bounds (what each side can force under the real cycle "
        "rule; the engine keeps a result they prove, the match bench rates games by "
        "them): to 22 seeds about 13 minutes here, and twice the values' disk space",
    )
    b.add_argument(
        "--close-up-to",
        type=int,
        default=tighten.CLOSED_UP_TO,
        metavar="K",
        help="close the game bounds of the layers up to K seeds by proofs under the cycle "
        f"rule, their values with them (default {tighten.CLOSED_UP_TO}: seconds; 7: about "
        "35 minutes on two cores, 11 at --proof-nodes 5000; 8 at --proof-nodes 10000: 90 "
        "minutes more; at most 10). A store closed less than asked is built again from "
        "the first layer to close; one closed further is kept",
    )
    b.add_argument(
        "--proof-nodes",
        type=int,
        default=tighten.PROOF_NODES,
        metavar="N",
        help=f"the budget of each of those proofs (default {tighten.PROOF_NODES:,}; "
        "a board whose proofs run out of it stays open)",
    )
    b.add_argument("--quiet", action="store_true", help="no progress bar")
    b.set_defaults(func=run_endgame_build)
    s = esub.add_parser("status", help="which layers are built, and where")
    s.set_defaults(func=run_endgame_status)

    u = subparsers.add_parser(
        "engine",
        help="run the engine as a service speaking Aualé's UCI-like protocol on stdin/stdout",
        description="Read protocol commands (uci, isready, ucinewgame, position startpos|fen F "
        "moves ..., go movetime MS|depth N|infinite, stop, quit) on stdin and answer on stdout, "
        "as the Aualé program and the Aalina engine do; see docs/ENGINE.md.",
    )
    u.add_argument(
        "--rules",
        type=rules_spec,
        default="abapa",
        help="Oware rule set NAME[:key=value,...] (default abapa)",
    )
    u.add_argument("--no-endgame", action="store_true", help="do not use the endgame databases")
    u.set_defaults(func=run_engine_service)


def run_engine_service(args: argparse.Namespace) -> int:
    """Handler of ``engine``."""
    from companion.commands.engine_service import serve

    if parse_rules_spec(args.rules).family != "oware":
        raise ValueError(f"the protocol plays two-player Oware, not {args.rules}")
    return serve(args)


def _table(analysis: Analysis) -> str:
    lines = [str(analysis.position), ""]
    lines.append(f"{'move':<5} {'value':<18} {'score':>8}")
    for m in analysis.moves:
        lines.append(f"{m.name:<5} {m.text:<18} {m.score:>8}")
    how = "solved exactly" if analysis.solved else f"depth {analysis.depth}"
    lines.append("")
    lines.append(f"best {analysis.best_name}   line: {' '.join(analysis.pv_names)}")
    lines.append(f"{how}, {analysis.nodes} nodes in {analysis.seconds:.2f} s ({analysis.engine})")
    return "\n".join(lines)


def run_analyze(args: argparse.Namespace) -> int:
    """Handler of ``analyze``."""
    position = Position.from_text(args.position, rules=parse_rules_spec(args.rules))
    if position.is_over:
        print(
            f"the game is over: {position.ending.text if position.ending else ''}", file=sys.stderr
        )
        return 1
    if args.engine:
        return _analyze_outside(args, position)
    use_db = not args.no_endgame and database_applies(position)
    database = endgame_store.load() if use_db else None
    db_max = endgame_store.database_seeds(database) if database is not None else -1
    # the stored game bounds, where built, as the engine service and the live worker use
    bounds = endgame_store.load_bounds(db_max) if database is not None else None
    analysis = analyze(position, seconds=args.time, database=database, db_max=db_max, bounds=bounds)
    out: dict[str, Any] = analysis.to_json()
    out["endgame_database"] = db_max
    explanation = None
    if args.explain:
        from core.notation import parse_move

        pit = parse_move(args.explain, position.players)
        explanation = explain_move(
            position,
            pit,
            seconds=min(args.time, 1.0),
            analysis=analysis,
            database=database,
            db_max=db_max,
        )
        out["explanation"] = explanation.to_json()
    if args.json:
        print(json.dumps(out))
    else:
        print(_table(analysis))
        if db_max >= 0:
            print(f"endgame databases: up to {db_max} seeds")
        if explanation is not None:
            print()
            print(explanation.text)
    return 0


def _analyze_outside(args: argparse.Namespace, position: Position) -> int:
    """``analyze --engine CMD``: one search by an outside engine through the protocol."""
    from companion.commands.engine_client import EngineFault, ProtocolEngine

    if position.players != 2 or position.ruleset.family != "oware":
        raise ValueError("an outside engine plays two-player Oware only")
    try:
        engine = ProtocolEngine(args.engine, "engine")
    except (EngineFault, OSError) as exc:
        raise ValueError(f"cannot start the engine {args.engine!r}: {exc}") from None
    try:
        engine.send("setoption name OwnBook value false")  # a search, not a book move
        engine.new_game()
        report = engine.think([], max(round(args.time * 1000), 1), 10.0, fen=position.to_text())
    except EngineFault as exc:
        raise ValueError(str(exc)) from None
    finally:
        engine.close()
    if report.pit is None or not position.is_legal(report.pit):
        raise ValueError(f"the engine answered {report.pit!r}, not a legal move here")
    from core.notation import move_name

    out = {
        "engine": engine.title,
        "best": report.pit,
        "best_name": move_name(report.pit),
        "score_cp": report.score_cp,
        "mate": report.mate,
        "pv_names": list(report.pv),
        "depth": report.depth,
        "nodes": report.nodes,
        "seconds": round(report.seconds, 3),
    }
    if args.json:
        print(json.dumps(out))
        return 0
    if report.mate is not None:
        score = f"mate {report.mate}"
    elif report.score_cp is not None:
        score = f"{report.score_cp} cp"
    else:
        score = "not given"
    print(position)
    print()
    print(f"best {out['best_name']}   line: {' '.join(report.pv)}")
    print(f"score {score}, depth {report.depth}, {report.seconds:.2f} s ({engine.title})")
    return 0


def _print_layer(info: dict[str, int | float], *, bar_shown: bool) -> None:
    """Print a layer's line as soon as it is built (an hour's build shows its layers as
    they come), first wiping the progress bar's line on stderr, which the next update
    draws again below it."""
    if bar_shown:
        endgame_store.wipe_bar()
    if info.get("bounds"):
        line = (
            f"bounds {int(info['seeds']):2d}: {int(info['positions']):>10} positions, "
            f"{int(info['open']):>10} open, {info['seconds']:8.2f} s"
        )
    else:
        closing = (
            f", bounds {int(info['open'])} open ({int(info['closed'])} closed by proofs), "
            f"{int(info['clamped'])} values clamped"
            if "open" in info
            else ""
        )
        line = (
            f"layer {int(info['seeds']):2d}: {int(info['positions']):>10} positions, "
            f"{int(info['sweeps']):3d} sweeps{closing}, {info['seconds']:8.2f} s"
        )
    print(line, flush=True)


def run_endgame_build(args: argparse.Namespace) -> int:
    """Handler of ``endgame build``."""
    if not 0 <= args.max_seeds <= 22:
        raise ValueError(
            "--max-seeds must be between 0 and 22 (20 needs about 3 GB of RAM, "
            "each seed more about 1.7 times as much)"
        )
    if not 0 <= args.close_up_to <= tighten.CLAMPED_UP_TO:
        raise ValueError(f"--close-up-to must be between 0 and {tighten.CLAMPED_UP_TO}")
    if args.proof_nodes < 1:
        raise ValueError("--proof-nodes must be at least 1")
    started = time.monotonic()
    endgame_store.build(
        args.max_seeds,
        show_progress=not args.quiet,
        on_layer=partial(_print_layer, bar_shown=not args.quiet),
        bounds=args.bounds,
        close_up_to=args.close_up_to,
        proof_nodes=args.proof_nodes,
    )
    what = "endgame databases and game bounds" if args.bounds else "endgame databases"
    print(
        f"{what} up to {args.max_seeds} seeds in {endgame_store.store_dir()} "
        f"({time.monotonic() - started:.1f} s)"
    )
    return 0


def run_endgame_status(args: argparse.Namespace) -> int:
    """Handler of ``endgame status``."""
    layers = endgame_store.complete_layers()
    where = endgame_store.store_dir()
    if layers == 0:
        print(f"no endgame databases in {where}")
    else:
        print(f"endgame databases up to {layers - 1} seeds in {where}")
    bounds = endgame_store.complete_bound_layers()
    if bounds:
        print(f"game bounds up to {bounds - 1} seeds")
    return 0
