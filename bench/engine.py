"""Engine benchmark: search speed, depth in one second, endgame build time, a match.

Usage (each part can be chosen; figures are medians)::

    nice .venv/bin/python -m bench.engine --search            # nodes/s, depth in 1 s
    .venv/bin/python -m bench.engine --search --depth 16      # nodes and time to depth 16
    .venv/bin/python -m bench.engine --iterations --positions 40 --time 2  # next depth?
    nice .venv/bin/python -m bench.engine --build 14          # build time per layer
    nice .venv/bin/python -m bench.engine --match --games 100 --time 1.0
    nice .venv/bin/python -m bench.engine --tune --games 40   # evaluation weights
    nice .venv/bin/python -m bench.engine --fit --samples 3000  # weights by regression
    .venv/bin/python -m bench.engine --load                   # opening the databases
    python -m bench.engine --match-engine "/work/aalina/aalina service" --games 20 --time 0.5
    python -m bench.engine --match-engine CMD --moves-log moves.jsonl  # each move's depth, score
    python -m bench.engine --prove-losses match.log          # lost from a wrong rating?
    python -m bench.engine --rate match.log                  # its games rated again
    python -m bench.engine --proofs 8 --proof-sample 40 --proof-nodes 20000  # the two proofs

``--match-engine CMD``: our engine (``python -m companion.cli engine``, or
``--our-engine CMD``) against any engine that speaks Aualé's protocol, both as
subprocesses, our rules core as the arbiter (see :mod:`companion.engine_match`):
per game and in total the points, seeds, Elo difference with its 95 %
interval, depth and nodes per second of each side.

The match: the engine (alpha-beta, endgame databases from the cache if built)
against a UCT Monte Carlo tree search player with random rollouts, both given
``--time`` seconds per move, colours alternated, each pair of games starting
from the same random 2-ply opening. Points: 1 per win, 1/2 per draw. It also
checks the databases' promise: once a game reaches a position the databases
cover, the engine must score at least the database value.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

from companion import endgame_store
from companion.engine_fit import fit, make_samples
from companion.engine_match import (
    OUR_ENGINE,
    Bounds,
    Database,
    GameResult,
    games_of_output,
    print_ratings,
    rate_game,
    read_openings,
    result_words,
    run_match,
)
from companion.loss_proofs import RatedBoard, lost_games, rated_boards
from companion.progress import Progress
from core import Position
from core.engine import retrograde, segment, tighten
from core.engine.analysis import analyze, make_searcher
from core.engine.evaluation import DEFAULT_WEIGHTS, MATERIAL_ONLY
from core.engine.fitting import FEATURES
from core.engine.kernel import to_relative
from core.engine.mcts import mcts_move
from core.engine.ranking import layer_offset
from core.engine.search import Searcher, SearchResult, warm_up


def middlegame_positions(count: int, seed: int = 11) -> list[Position]:
    """Positions 10-20 random plies into a game, still far from the end."""
    rng = np.random.default_rng(seed)
    found: list[Position] = []
    while len(found) < count:
        p = Position.initial()
        for _ in range(int(rng.integers(10, 21))):
            moves = p.legal_moves()
            if not moves:
                break
            p = p.play(int(rng.choice(moves)))
        if not p.is_over and sum(p.pits) >= 30:
            found.append(p)
    return found


def bench_search(count: int, seconds: float) -> None:
    warm_up()
    nps: list[float] = []
    depths: list[int] = []
    for p in middlegame_positions(count):
        searcher = Searcher()
        board = to_relative(p.pits, p.to_move)
        r = searcher.search(
            board, p.stores[p.to_move], p.stores[1 - p.to_move], seconds=seconds, exact_all=False
        )
        nps.append(r.nodes / max(r.seconds, 1e-9))
        depths.append(r.depth)
    print(f"search: {count} middlegame positions, {seconds} s each")
    print(
        f"  nodes per second: median {statistics.median(nps):,.0f} "
        f"(min {min(nps):,.0f}, max {max(nps):,.0f})"
    )
    print(
        f"  depth reached:    median {statistics.median(depths)} "
        f"(min {min(depths)}, max {max(depths)})"
    )


def bench_depth(count: int, depth: int, runs: int = 3) -> None:
    """Nodes and time to a fixed depth, with the endgame databases and game bounds the
    engine service maps: the same tree for any two versions of the search that differ in
    speed only (equal node counts say so), so their times compare directly."""
    warm_up()
    values, db_max, bounds = _service_databases()
    positions = middlegame_positions(count)
    times: list[float] = []
    nodes = 0
    for _ in range(runs):
        nodes = 0
        spent = 0.0
        for p in positions:
            searcher = make_searcher(p, values, db_max, bounds)
            board = to_relative(p.pits, p.to_move)
            started = time.perf_counter()
            r = searcher.search(
                board,
                p.stores[p.to_move],
                p.stores[1 - p.to_move],
                max_depth=depth,
                exact_all=False,
            )
            spent += time.perf_counter() - started
            nodes += r.nodes
        times.append(spent)
    seconds = statistics.median(times)
    print(f"search to depth {depth}: {count} middlegame positions, {databases_word()}")
    print(
        f"  nodes {nodes:,}, seconds median {seconds:.2f} of {runs} runs, "
        f"nodes per second {nodes / seconds:,.0f}"
    )


def _note_end(marks: list[float], result: SearchResult) -> None:
    marks.append(result.seconds)


def bench_iterations(count: int, seconds: float) -> None:
    """When to start the next depth under a time limit: each middlegame board searched
    for 2.5 times ``seconds`` (databases as the service), the end of each depth noted;
    then, for each rule "start the next depth only if it could finish taking ``g`` times
    as long as the last", the boards it leaves a depth short of what ``seconds`` finishes
    and the time it uses (:data:`core.engine.search.NEXT_ITERATION` is the rule kept)."""
    warm_up()
    values, db_max, bounds = _service_databases()
    ends: list[list[float]] = []
    growth: list[float] = []
    bar = Progress(count, sys.stderr, label="iterations", unit="boards")
    for p in middlegame_positions(count, seed=7):
        searcher = make_searcher(p, values, db_max, bounds)
        marks: list[float] = []
        searcher.search(
            to_relative(p.pits, p.to_move),
            p.stores[p.to_move],
            p.stores[1 - p.to_move],
            seconds=2.5 * seconds,
            exact_all=False,
            on_iteration=partial(_note_end, marks),
        )
        ends.append(marks)
        lengths = [b - a for a, b in itertools.pairwise([0.0, *marks])]
        growth += [b / a for a, b in itertools.pairwise(lengths) if a > 0.02]
        bar.step(f"depth {len(marks)}")
    bar.close()
    print(f"iterations: {count} middlegame boards, {seconds} s per move, {databases_word()}")
    print(
        f"  each depth against the one before: median {statistics.median(growth):.2f} times "
        f"as long, under 1.0 in {sum(g < 1.0 for g in growth)} of {len(growth)}"
    )
    for g in (0.0, 1.0, 1.5, 2.0):
        short = 0
        used: list[float] = []
        for marks in ends:
            full = sum(1 for t in marks if t <= seconds)  # depths finished in time, no rule
            depth, spent, last = 0, seconds, 0.0
            for t in marks:
                if t > seconds:
                    break
                depth += 1
                if g > 0 and t + g * (t - last) > seconds:
                    spent = t
                    break
                last = t
            short += depth < full
            used.append(spent)
        rule = "no rule (the whole time)" if g == 0 else f"next depth {g} times the last"
        print(
            f"  {rule:<30} boards a depth short {short:2d}, time used mean "
            f"{statistics.mean(used):.2f} s"
        )


def bench_build(max_seeds: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        layers: list[dict[str, int | float]] = []
        started = time.perf_counter()
        endgame_store.build(max_seeds, root=Path(tmp), show_progress=False, on_layer=layers.append)
        total = time.perf_counter() - started
    print(f"endgame build up to {max_seeds} seeds: {total:.1f} s")
    for info in layers:
        print(
            f"  layer {int(info['seeds']):2d}: {int(info['positions']):>11,} positions "
            f"{int(info['sweeps']):3d} sweeps {info['seconds']:8.2f} s"
        )


def _database() -> tuple[np.ndarray | None, int]:
    values = endgame_store.load()
    if values is None:
        return None, -1
    return values, endgame_store.database_seeds(values)


def _service_databases() -> tuple[np.ndarray | None, int, tuple[np.ndarray, np.ndarray] | None]:
    """The databases and game bounds the engine service maps (None where not built)."""
    values, db_max = _database()
    return values, db_max, endgame_store.load_bounds(db_max) if values is not None else None


def play_match(games: int, seconds: float, seed: int) -> None:
    values, db_max = _database()
    warm_up()
    rng = np.random.default_rng(seed)
    searcher = Searcher(values, db_max)
    points = 0.0
    wins = draws = losses = 0
    promise_broken = 0
    started = time.perf_counter()
    opening: list[int] = []
    played = 0
    try:
        for game in range(games):
            result, promised, line = _match_game(
                game, seconds, rng, searcher, values, db_max, opening
            )
            played += 1
            points += result
            wins += result == 1.0
            draws += result == 0.5
            losses += result == 0.0
            broken = promised is not None and result < promised
            promise_broken += broken
            note = (
                ""
                if promised is None
                else f" db-promise {promised} {'BROKEN' if broken else 'kept'}"
            )
            print(f"  game {game + 1:3d}: {line}{note}  total {points}/{played}", flush=True)
    except KeyboardInterrupt:  # stopped early: report the games played
        print("  (interrupted)")
    elapsed = time.perf_counter() - started
    print(
        f"match: engine vs MCTS (random rollouts), {played} games, {seconds} s per move, "
        f"databases up to {db_max} seeds"
    )
    print(
        f"  engine score: {points}/{played} = {100 * points / max(played, 1):.1f}% "
        f"(+{wins} ={draws} -{losses}); games with a database position lost below its "
        f"value: {promise_broken}; {elapsed:.0f} s"
    )


def _match_game(
    game: int,
    seconds: float,
    rng: np.random.Generator,
    searcher: Searcher,
    values: np.ndarray | None,
    db_max: int,
    opening: list[int],
) -> tuple[float, float | None, str]:
    """One game of the match; ``opening`` is shared by each pair of games (updated here)."""
    engine_side = game % 2
    if game % 2 == 0:  # a new random opening for each pair of games
        p = Position.initial()
        opening.clear()
        for _ in range(2):
            m = int(rng.choice(p.legal_moves()))
            opening.append(m)
            p = p.play(m)
    p = Position.initial()
    for m in opening:
        p = p.play(m)
    searcher.clear()
    promised: float | None = None
    while not p.is_over:
        mover = p.to_move
        board = to_relative(p.pits, mover)
        mine, theirs = p.stores[mover], p.stores[1 - mover]
        if mover == engine_side:
            if promised is None and 0 <= int(board.sum()) <= db_max and values is not None:
                v = retrograde.lookup(values, board)
                final = (mine + v) - (theirs + int(board.sum()) - v)
                promised = 1.0 if final > 0 else 0.5 if final == 0 else 0.0
            a = analyze(p, seconds=seconds, searcher=searcher, exact_all=False)
            pit = a.best
        else:
            pit = mcts_move(board, mine, theirs, seconds, seed=int(rng.integers(1 << 30)))
            pit += 6 * mover
        p = p.play(pit)
    scores = p.scores
    mine_final, theirs_final = scores[engine_side], scores[1 - engine_side]
    result = 1.0 if mine_final > theirs_final else 0.5 if mine_final == theirs_final else 0.0
    line = (
        f"engine {'South' if engine_side == 0 else 'North'} {mine_final}-{theirs_final} "
        f"({p.ending.reason if p.ending else '?'})"
    )
    return result, promised, line


def tune(games: int, nodes: int, seed: int, candidate: list[int] | None = None) -> None:
    """DEFAULT_WEIGHTS against ``candidate`` (default: the store difference alone)."""
    rng = np.random.default_rng(seed)
    other = np.array(candidate, dtype=np.int64) if candidate else MATERIAL_ONLY
    players = {"default": DEFAULT_WEIGHTS, "material": other}
    points = 0.0
    for game in range(games):
        default_side = game % 2
        if game % 2 == 0:
            p0 = Position.initial()
            for _ in range(4):
                p0 = p0.play(int(rng.choice(p0.legal_moves())))
        p = p0
        searchers = {
            default_side: Searcher(weights=players["default"]),
            1 - default_side: Searcher(weights=players["material"]),
        }
        while not p.is_over:
            mover = p.to_move
            board = to_relative(p.pits, mover)
            r = searchers[mover].search(
                board, p.stores[mover], p.stores[1 - mover], nodes=nodes, exact_all=False
            )
            p = p.play(r.best + 6 * mover)
        s = p.scores
        points += (
            1.0
            if s[default_side] > s[1 - default_side]
            else (0.5 if s[default_side] == s[1 - default_side] else 0.0)
        )
    print(
        f"tune: default weights {DEFAULT_WEIGHTS.tolist()} vs {other.tolist()}, "
        f"{games} games at {nodes} nodes/move: {points}/{games} "
        f"= {100 * points / games:.1f}%"
    )


def bench_load(seconds: float) -> None:
    """Time to open the cached endgame databases, and the process's peak memory after a
    search of ``seconds`` from the start position with them."""
    import resource

    started = time.perf_counter()
    values = endgame_store.load()
    opened = time.perf_counter() - started
    if values is None:
        print("load: no endgame databases in the cache (oware-companion endgame build)")
        return
    top = endgame_store.database_seeds(values)
    analyze(Position.initial(), seconds=seconds, database=values, db_max=top)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"load: databases up to {top} seeds ({values.nbytes / 1e6:.0f} MB) opened in "
        f"{opened:.3f} s; peak memory after a {seconds:g} s search: {peak:.0f} MB"
    )


def databases_word() -> str:
    """Which endgame databases the cache holds, in words."""
    layers = endgame_store.complete_layers()
    return f"endgame databases up to {layers - 1} seeds" if layers else "no endgame databases"


def main_fit(samples: int, label_nodes: int, seeds: list[int]) -> int:
    """``python -m bench.engine --fit``: fit the evaluation's weights (see
    :mod:`companion.engine_fit`) on ``samples`` positions of each seed's self-play; the
    samples are kept in the cache, so a second run with the same settings resumes, or
    only fits."""
    databases = databases_word()  # (what the searches load now, before a build adds more)
    made = []
    for seed in seeds:
        where = endgame_store.cache_root() / "fit" / f"samples-seed{seed}-nodes{label_nodes}.jsonl"
        made += make_samples(where, samples, label_nodes=label_nodes, seed=seed)[:samples]
        print(f"fit: {samples} positions from self-play (seed {seed}) in {where}")
    report = fit(made, DEFAULT_WEIGHTS)
    names = " ".join(FEATURES)
    print(
        f"fit: targets by searches of {label_nodes} nodes (mean depth {report.mean_depth:.1f}), "
        f"{databases} at the leaves"
    )
    print(f"fit: weights ({names}), fitted on {report.train}, measured on {report.held_out}")
    print(f"fit: current {DEFAULT_WEIGHTS.tolist()}: error {report.error_current:.2f} seeds (rms)")
    print(f"fit: fitted  {report.weights.tolist()}: error {report.error_fitted:.2f} seeds (rms)")
    print(f"fit: fitted on all {len(made)}: {report.every.tolist()} (what a default is made from)")
    return 0


def main_match(
    other: str,
    games: int,
    seconds: float,
    seed: int,
    jobs: int,
    ours: str | None = None,
    plies: int = 2,
    on_done: Callable[[list[GameResult]], None] | None = None,
    openings: Path | None = None,
    moves_log: Path | None = None,
) -> int:
    """``python -m bench.engine --match-engine`` (returns the exit status)."""
    first = ours if ours else OUR_ENGINE
    lines = None
    if openings is not None:
        try:
            lines = read_openings(openings)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    database, bounds = _rating_databases()
    if bounds is None and database is not None:
        print(
            "no game bounds stored (oware-companion endgame build --max-seeds N --bounds): "
            "no game is rated by what they prove"
        )
    try:
        log = moves_log.open("w", encoding="utf-8") if moves_log is not None else None
    except OSError as exc:
        print(f"error: cannot write --moves-log {moves_log}: {exc.strerror}", file=sys.stderr)
        return 2
    try:
        results = run_match(
            first,
            other,
            games,
            seconds,
            seed,
            jobs=jobs,
            plies=plies,
            database=database,
            bounds=bounds,
            openings=lines,
            moves_log=log,
        )
    finally:
        if log is not None:
            log.close()
    if on_done is not None:
        on_done(results)
    return 0


def _rating_databases() -> tuple[Database | None, Bounds | None]:
    """The cached values and game bounds as the match rates positions with them."""
    values = endgame_store.load()
    database = (values, endgame_store.database_seeds(values)) if values is not None else None
    stored = endgame_store.load_bounds()
    if stored is None:
        return database, None
    return database, (stored[0], stored[1], endgame_store.database_seeds(stored[0]))


def _show_board(board: RatedBoard) -> None:
    """One line of ``--prove-losses``: a rated board and what its proof found."""
    said = "won" if board.rated == 1.0 else "drawn"
    verdict = (
        f"lost under the rule (the other side forces its win; lines to {board.proof.plies} "
        "plies searched)"
        if board.proof.proven
        else f"no proof (lines to {board.proof.plies} plies searched)"
    )
    print(
        f"  ply {board.ply:3d} {board.text} rated {said}: {verdict}, {board.proof.nodes:,} nodes",
        flush=True,
    )


def bench_proofs(seeds: int, sample: int, nodes: int, seed: int) -> int:
    """``--proofs``: the two proof searches closing the same sample of the boards the
    stored layer of ``seeds`` seeds leaves open, one after the other (returns the exit
    status)."""
    values = endgame_store.load(seeds)
    stored = endgame_store.load_bounds(seeds)
    if values is None or stored is None or not 2 <= seeds <= segment.MAX_SEEDS:
        print(
            f"error: --proofs needs a layer of 2 to {segment.MAX_SEEDS} seeds in the store "
            f"with its bounds: run `oware-companion endgame build` first",
            file=sys.stderr,
        )
        return 2
    values = np.array(values)
    start, stop = layer_offset(seeds), layer_offset(seeds + 1)
    still_open = np.flatnonzero(stored[0][start:stop] < stored[1][start:stop])
    chosen = np.random.default_rng(seed).choice(
        still_open, size=min(sample, len(still_open)), replace=False
    )
    skip = np.ones(stop - start, dtype=np.bool_)
    skip[chosen] = False
    print(
        f"layer {seeds}: {len(still_open):,} boards open in the store, {len(chosen)} drawn "
        f"(seed {seed}), {nodes:,} nodes a proof",
        flush=True,
    )
    timed: dict[bool, float] = {}
    for deepening in (False, True):
        lows, highs = np.array(stored[0]), np.array(stored[1])
        started = time.perf_counter()
        report = tighten.tighten_layer(
            seeds, lows, highs, values, nodes, skip=skip, deepening=deepening
        )
        timed[deepening] = time.perf_counter() - started
        name = "deepened two plies at a time" if deepening else "proof-number search"
        print(
            f"  {name:29s} closed {report.closed:3d}, narrowed {report.narrowed:3d} of "
            f"{report.open_before}, {report.proofs} proofs, {timed[deepening]:6.1f} s "
            f"({timed[deepening] / max(report.open_before, 1):.2f} s a board)",
            flush=True,
        )
    return 0


def _match_output(path: Path) -> str | None:
    """The text of a match's output, or None with the error said on one line."""
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        print(f"error: cannot read the match output {path}: {exc.strerror}", file=sys.stderr)
        return None


def main_prove_losses(path: Path, max_nodes: int, max_seconds: float) -> int:
    """``python -m bench.engine --prove-losses FILE`` (returns the exit status)."""
    text = _match_output(path)
    if text is None:
        return 2
    database, bounds = _rating_databases()
    if database is None or bounds is None:
        print(
            "error: no endgame databases with game bounds: "
            "oware-companion endgame build --max-seeds 22 --bounds",
            file=sys.stderr,
        )
        return 2
    games = lost_games(text)
    if not games:
        print(f"no game of {path} was lost from a position the databases rate won or drawn")
        return 0
    wrong = 0
    for game in games:
        side = "South" if game.side == 0 else "North"
        print(f"game {game.number:3d} ours {side}:", flush=True)
        boards = rated_boards(game, database, bounds, max_nodes, _show_board, max_seconds)
        if not boards:
            print("  no position reached by a capture of at most 10 seeds is rated won or drawn")
        elif boards[0].proof.proven:
            wrong += 1
    print(
        f"{len(games)} games lost from a rating; in {wrong} of them the last position "
        "reached by a capture rated won or drawn is lost under the cycle rule (a proof "
        "for the other side): the rating there rests on the databases' convention"
    )
    return 0


def main_rate(path: Path) -> int:
    """``python -m bench.engine --rate FILE`` (returns the exit status): the games of a
    match's output rated again with the databases as they are now, each position with
    its history."""
    text = _match_output(path)
    if text is None:
        return 2
    database, bounds = _rating_databases()
    if database is None:
        print(
            "error: no endgame databases: oware-companion endgame build --max-seeds 22 --bounds",
            file=sys.stderr,
        )
        return 2
    games = games_of_output(text)
    if not games:
        print(f"error: no game line of a --match-engine output in {path}", file=sys.stderr)
        return 2
    names = ("ours", "other")
    bar = Progress(len(games), sys.stderr, label="rating", unit="games")
    for g in games:
        rate_game(g, "abapa", database, bounds)
        bar.step(f"game {g.number + 1}")
    bar.close()
    for g in games:
        if g.broken:
            side = ("South", "North")[g.first_side]
            print(f"game {g.number + 1:3d} ours {side}: {result_words(g)}")
    print(f"{len(games)} games of {path}:")
    print_ratings(games, names, sys.stdout.write)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.engine",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--search", action="store_true", help="nodes/s and depth in --time s")
    parser.add_argument(
        "--iterations",
        action="store_true",
        help="when to start the next depth within --time s (--positions boards)",
    )
    parser.add_argument(
        "--depth",
        type=int,
        default=None,
        help="--search: nodes and seconds to this depth instead (databases as the service)",
    )
    parser.add_argument("--positions", type=int, default=10, help="middlegame positions")
    parser.add_argument(
        "--build",
        type=int,
        default=None,
        metavar="N",
        help="time an endgame build up to N seeds (in a temporary directory)",
    )
    parser.add_argument("--match", action="store_true", help="engine vs MCTS match")
    parser.add_argument(
        "--match-engine",
        metavar="CMD",
        default=None,
        help="match our engine against the engine this command starts (protocol)",
    )
    parser.add_argument(
        "--our-engine",
        metavar="CMD",
        default=None,
        help="--match-engine: command of the first engine (default: ours, "
        "python -m companion.cli engine)",
    )
    parser.add_argument("--jobs", type=int, default=1, help="--match-engine: games at once")
    parser.add_argument(
        "--opening-plies", type=int, default=2, help="--match-engine: random plies to start"
    )
    parser.add_argument(
        "--openings",
        type=Path,
        metavar="FILE",
        help="--match-engine: start pair k from line k of FILE (cycling) instead: a line of "
        "moves, or a game line of this bench's output cut where play should resume",
    )
    parser.add_argument(
        "--moves-log",
        type=Path,
        metavar="FILE",
        help="--match-engine: write each game's moves with what each engine said of them "
        "(depth, score, line, time) to FILE, a JSON line per game",
    )
    parser.add_argument(
        "--prove-losses",
        type=Path,
        metavar="FILE",
        help="for each game of a --match-engine output in FILE lost from a database rating, "
        "whether the other side forces its win under the cycle rule where a capture left a "
        "board rated won or drawn",
    )
    parser.add_argument(
        "--rate",
        type=Path,
        metavar="FILE",
        help="rate the games of a --match-engine output in FILE again with the databases "
        "as they are now (a position with a history as far as it allows)",
    )
    parser.add_argument(
        "--proofs",
        type=int,
        metavar="SEEDS",
        help="close a sample of the boards the stored layer of SEEDS seeds leaves open, "
        "by the proof-number search and by the deepened one, side by side",
    )
    parser.add_argument(
        "--proof-sample", type=int, default=40, help="--proofs: boards in the sample"
    )
    parser.add_argument(
        "--proof-nodes",
        type=int,
        default=100_000,
        help="--prove-losses, --proofs: positions searched at most for each board (each "
        "threshold, for --proofs)",
    )
    parser.add_argument(
        "--proof-seconds",
        type=float,
        default=120.0,
        help="--prove-losses: seconds searched at most for each board",
    )
    parser.add_argument("--tune", action="store_true", help="evaluation weights self-play")
    parser.add_argument("--fit", action="store_true", help="evaluation weights by regression")
    parser.add_argument(
        "--load", action="store_true", help="time to open the cached endgame databases"
    )
    parser.add_argument("--samples", type=int, default=3000, help="--fit: positions")
    parser.add_argument(
        "--label-nodes", type=int, default=300_000, help="--fit: nodes of each deep search"
    )
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--time", type=float, default=1.0, help="seconds per move / search")
    parser.add_argument("--nodes", type=int, default=30_000, help="nodes per move for --tune")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--fit-seeds",
        type=int,
        nargs="+",
        default=None,
        metavar="S",
        help="--fit: --samples positions of each of these seeds' self-play (default: --seed)",
    )
    parser.add_argument(
        "--weights",
        type=int,
        nargs=len(FEATURES),
        default=None,
        metavar="W",
        help=f"--tune: candidate weights ({' '.join(FEATURES)})",
    )
    args = parser.parse_args()
    if args.rate is not None:
        return main_rate(args.rate)
    if args.proofs is not None:
        return bench_proofs(args.proofs, args.proof_sample, args.proof_nodes, args.seed)
    if args.prove_losses is not None:
        return main_prove_losses(args.prove_losses, args.proof_nodes, args.proof_seconds)
    if args.match_engine is not None:
        return main_match(
            args.match_engine,
            args.games,
            args.time,
            args.seed,
            args.jobs,
            ours=args.our_engine,
            plies=args.opening_plies,
            openings=args.openings,
            moves_log=args.moves_log,
        )
    if args.fit:
        return main_fit(args.samples, args.label_nodes, args.fit_seeds or [args.seed])
    if args.load:
        bench_load(args.time)
        return 0
    if args.iterations:
        bench_iterations(args.positions, args.time)
        return 0
    if not (args.search or args.build is not None or args.match or args.tune):
        args.search = True
        args.build = 12
    if args.search and args.depth is not None:
        bench_depth(args.positions, args.depth)
    elif args.search:
        bench_search(args.positions, args.time)
    if args.build is not None:
        bench_build(args.build)
    if args.tune:
        tune(args.games, args.nodes, args.seed, args.weights)
    if args.match:
        play_match(args.games, args.time, args.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
