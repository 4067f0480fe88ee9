"""Boards of the hall benchmark without their sensors and referees: a recorded session
log written again, for each board, at the pace it was played, and published by the
real publisher.

In a hall every board has a computer of its own (a camera board counts on a core);
fifty full services on the benchmark's two cores would measure their wait for a
CPU, not the hall. This process keeps what the hall sees of its boards: each
board's session log growing line by line at the board's times (``t``, divided by
``--pace``; not ``fsync``-ed, as the service's recorder does with events: that
is the board computer's own time, and the publisher reads the page cache), and
the service's publisher (:class:`companion.hall.publisher.Publisher`, one thread
for every board of the process, each board on an MQTT client of its own) tailing
the logs to the broker, as a service with several boards does.

    python -m bench.hall_board --broker URL --first N [--count K] --template LOG --dir D
        [--pace 1] [--stagger 0.37]

Board ``N + i`` starts ``(i * stagger) mod 5`` seconds late, so boards do not move
in step. On SIGINT or SIGTERM the process stops writing (if the template has not
ended), sends what the logs hold, and writes ``D/boardN/written.json`` for each
board: the time (``time.time()``) each event's line was written, by ``seq``.
"""

from __future__ import annotations

import argparse
import faulthandler
import heapq
import json
import os
import signal
import threading
import time
from pathlib import Path

from companion.hall.broker import parse_broker_url
from companion.hall.publisher import Publisher
from core.referee.session import line_kind

Plan = list[tuple[float, int, bytes, bool]]


def schedule(template: Path, pace: float, delays: list[float]) -> Plan:
    """Every line of every board in the order it is due: (seconds after the start,
    board index, line, whether it is an event). Headers come first."""
    raw = template.read_bytes().splitlines()
    lines = [json.loads(r) for r in raw[1:]]
    t0 = next((float(line["t"]) for line in lines if "t" in line), 0.0)
    own = [
        ((float(line.get("t", t0)) - t0) / pace, data, line_kind(line) == "event")
        for data, line in zip(raw[1:], lines, strict=True)
    ]
    boards = [
        [(delay + at, i, data, event) for at, data, event in own] for i, delay in enumerate(delays)
    ]
    return [(0.0, i, raw[0], False) for i in range(len(delays))] + list(heapq.merge(*boards))


def replay(plan: Plan, logs: list[Path], stop: threading.Event) -> list[list[float]]:
    """Write the lines of ``plan`` to the boards' ``logs`` when due; the write time of
    each event, per board."""
    fds = [os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644) for log in logs]
    written: list[list[float]] = [[] for _ in logs]
    start = time.monotonic()
    try:
        for due, board, data, event in plan:
            wait = start + due - time.monotonic()
            if (wait > 0 and stop.wait(wait)) or stop.is_set():
                break
            os.write(fds[board], data + b"\n")
            if event:
                written[board].append(time.time())
    finally:
        for fd in fds:
            os.close(fd)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.hall_board", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--broker", required=True)
    parser.add_argument("--first", type=int, required=True, help="the first board's number")
    parser.add_argument("--count", type=int, default=1, help="boards in this process")
    parser.add_argument("--template", type=Path, required=True)
    parser.add_argument("--dir", type=Path, required=True)
    parser.add_argument("--pace", type=float, default=1.0)
    parser.add_argument("--stagger", type=float, default=0.37)
    args = parser.parse_args()
    faulthandler.register(signal.SIGUSR1)  # kill -USR1: where a stuck process stands
    numbers = [str(args.first + i) for i in range(args.count)]
    logs: list[Path] = []
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for number in numbers:
        folder = args.dir / f"board{number}" / "sessions"
        folder.mkdir(parents=True, exist_ok=True)
        logs.append(folder / f"board{number}-{stamp}.jsonl")
        logs[-1].touch()
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    delays = [(int(n) * args.stagger) % 5 for n in numbers]
    plan = schedule(args.template, args.pace, delays)
    publisher = Publisher(
        parse_broker_url(args.broker),
        lambda: list(zip(numbers, logs, strict=True)),
        urls=lambda board: f"http://127.0.0.1/board/{board}",
    )
    publisher.start()
    written = replay(plan, logs, stop)
    stop.wait()  # the bench says when the round is over
    publisher.stop()
    for number, times in zip(numbers, written, strict=True):
        (args.dir / f"board{number}" / "written.json").write_text(json.dumps(times))


if __name__ == "__main__":
    main()
