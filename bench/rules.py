"""Random-playout throughput of the rules core (issue 2).

Plays random games from the start position with ``Position.legal_moves`` and
``Position.play`` (the real API, history and end-of-game checks included) and
prints moves per CPU second (process time, so a busy machine does not count against
it), the median of several runs, for Abapa Oware and for
4-player universal mancala. Goal: at least 100,000 Abapa moves per second on
one core.

    python -m bench.rules [--seconds 2] [--runs 5]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

from core import Position


def playout_rate(rules: str, options: dict[str, Any], seconds: float, seed: int) -> float:
    """Moves per second of random playouts over about ``seconds``."""
    rng = random.Random(seed)
    choice = rng.choice
    moves = 0
    start = Position.initial(rules, **options)
    # CPU time of this process: the goal is per core, and the machine may be shared.
    t0 = time.process_time()
    deadline = t0 + seconds
    while time.process_time() < deadline:
        p = start
        while True:
            legal = p.legal_moves()
            if not legal:
                break
            p = p.play(choice(legal))
            moves += 1
    return moves / (time.process_time() - t0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.rules", description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=2.0, help="length of one run")
    ap.add_argument("--runs", type=int, default=5, help="runs per rule set (median reported)")
    args = ap.parse_args(argv)
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("abapa", {}, "Abapa Oware"),
        ("universal", {"players": 4}, "universal, 4 players"),
    ]
    for rules, options, label in cases:
        rates = [playout_rate(rules, options, args.seconds, seed) for seed in range(args.runs)]
        print(
            f"{label:24s} median {statistics.median(rates):10,.0f} moves/s "
            f"(runs: {', '.join(f'{r:,.0f}' for r in rates)})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
