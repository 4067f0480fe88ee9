"""Referee speed (issue 3).

* latency: time spent in ``Referee.observe`` on each observation that settles the
  board and yields an event (a move or an alert), median and 99th percentile;
* replay throughput: observations per second through ``core.referee.session.replay``
  (every observation: hand frames, unsettled and settled ones).

Sessions are random games rendered by :mod:`core.referee.scenarios` in both source
styles (camera snapshots, seed-by-seed sensor readings), with noise, hands and a few
injected mistakes. Goals: median under 5 ms, 99th percentile under 50 ms, replay at
least 20,000 observations per second, on one core.

    python -m bench.referee [--games 20] [--rules abapa]
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from core import Position
from core.referee import Referee
from core.referee.scenarios import Session, random_game, render_game
from core.referee.session import replay, session_header


def sessions(rules: str, options: dict[str, Any], games: int) -> list[Session]:
    out = []
    for seed in range(games):
        start = Position.initial(rules, **options)
        moves = random_game(start, 80, seed)
        style = "seed" if seed % 2 else "settled"
        mistakes = [(5, "skip"), (15, "disturbed")] if len(moves) > 20 else []
        out.append(
            render_game(
                start, moves, style=style, noise=0.2, hands=0.3, seed=seed, mistakes=mistakes
            )
        )
    return out


#: Frames per state when a dense session is replayed at a live source's rate.
REPEAT = 10


def at_frame_rate(log: list[dict[str, Any]], fps: float) -> list[dict[str, Any]]:
    """The same session as a live source sends it: each reading repeated, 1/fps apart."""
    out = [log[0]]
    t = 0.0
    for line in log[1:]:
        for _ in range(REPEAT):
            t += 1 / fps
            out.append({**line, "t": round(t, 4)})
    return out


def replay_rate(logs: list[list[dict[str, Any]]]) -> tuple[int, float]:
    """(observations, median observations per second over three replays)."""
    count = sum(len(x) - 1 for x in logs)
    rates = []
    for _ in range(3):
        t0 = time.process_time()  # CPU time: the goal is per core on a shared machine
        for log in logs:
            replay(log)
        rates.append(count / (time.process_time() - t0))
    return count, statistics.median(rates)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bench.referee", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--rules", default="abapa")
    ap.add_argument("--players", type=int, default=None)
    ap.add_argument(
        "--fps",
        type=float,
        default=30.0,
        help="live source rate for the second replay figure (default 30, a camera)",
    )
    args = ap.parse_args(argv)
    options: dict[str, Any] = {} if args.players is None else {"players": args.players}
    rendered = sessions(args.rules, options, args.games)

    latencies: list[float] = []
    for s in rendered:
        ref = Referee(s.start)
        for obs in s.observations:
            t0 = time.perf_counter()
            events = ref.observe(obs)
            dt = time.perf_counter() - t0
            if events:
                latencies.append(dt * 1000)

    dense = [[session_header(s.start), *(o.to_json() for o in s.observations)] for s in rendered]
    count, rate = replay_rate(dense)
    live, live_rate = replay_rate([at_frame_rate(log, args.fps) for log in dense])

    print(
        f"rules {args.rules} {options or ''}: {len(rendered)} sessions, {count} observations, "
        f"{len(latencies)} settling observations with events"
    )
    print(
        f"settle -> event latency: median {statistics.median(latencies):.2f} ms, "
        f"p99 {percentile(latencies, 0.99):.2f} ms, max {max(latencies):.2f} ms"
    )
    print(
        f"replay throughput, dense sessions (every observation a new state): "
        f"median {rate:,.0f} observations/s"
    )
    print(
        f"replay throughput at a {args.fps:.0f} fps source rate ({live} observations, each "
        f"state held {1 / args.fps * REPEAT:.2f} s): median {live_rate:,.0f} observations/s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
