"""Hall benchmark (issue 30): N virtual boards, each its own ``serve --publish`` process,
one Mosquitto, the ``hall`` command gathering them.

Starts a Mosquitto of its own (loopback, free port), N services on ``sim://`` at
``--speed`` (board seconds per real second: 1 is a person's pace), and the hall;
waits until the hall shows every board, lets them play ``--seconds`` more, stops
the boards (each sends what its log holds, then stops) and compares, board by
board, the hall's archive with the board's session log. Prints one JSON object:

* ``delivered``: events the logs hold, events the hall took, and boards whose
  archive is not exactly their log's events (seq 0..n-1, same events): the goal is
  every event, once, in order;
* ``delay_ms``: from the publisher reading an event in the log (it looks every
  50 ms, after the board wrote and synced it) to the hall taking it: median, p99, max;
* ``page_polls`` (``--spectators N``: N hall pages polling ``/api/hall`` once a
  second, as the page does, from one asyncio process): polls answered, failed,
  median and p99 answer time;
* ``hall_rss_mb``, ``broker_rss_mb``, ``hall_cpu_s``, ``broker_cpu_s`` at the end,
  and the load average (on a shared machine much of a delay is waiting for a CPU).

    nice .venv/bin/python -m bench.hall [--boards 20] [--seconds 60] [--speed 1] [--spectators 300]

The page's own delay (hall to browser, one poll a second) is not in these figures.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from companion.hall.demo import board_command
from companion.hall.mosquitto import LocalBroker, free_port
from core.referee.session import line_kind

ROOT = Path(__file__).resolve().parents[1]


def _proc(pid: int) -> tuple[float, float]:
    """(resident MB, CPU seconds) of a process, from /proc."""
    status = Path(f"/proc/{pid}/status").read_text()
    rss = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS"))
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return rss / 1024, (int(fields[11]) + int(fields[12])) / ticks


def _wait_for_hall(url: str, boards: int, timeout: float = 120) -> None:
    """Until the hall answers and shows every board (the boards have started)."""
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if len(httpx.get(url, timeout=2).json()["boards"]) == boards:
                return
        except (httpx.HTTPError, ValueError, KeyError):
            pass
        time.sleep(0.5)
    raise SystemExit(f"the hall did not show {boards} boards in {timeout:g} s")


def _spectators(url: str, count: int, seconds: float) -> dict[str, Any]:
    """``count`` pages polling ``url`` once a second for ``seconds`` (as hall.js does),
    each on its own kept-alive HTTP/1.1 connection (plain asyncio streams: a client
    library's pool would be what is measured)."""
    if count == 0:
        time.sleep(seconds)
        return {}
    import asyncio
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    request = f"GET {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\n\r\n".encode()
    times: list[float] = []
    failed = 0

    async def page(start: float) -> None:
        nonlocal failed
        await asyncio.sleep(start)
        reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
        deadline = time.monotonic() + seconds - start
        while time.monotonic() < deadline:
            t0 = time.monotonic()
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            length = next(
                int(line.split(b":")[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length")
            )
            await reader.readexactly(length)
            if not head.startswith(b"HTTP/1.1 200"):
                failed += 1
            else:
                times.append(time.monotonic() - t0)
            await asyncio.sleep(max(0.0, 1.0 - (time.monotonic() - t0)))
        writer.close()

    async def main() -> None:
        await asyncio.gather(*(page(i / count) for i in range(count)))

    asyncio.run(main())
    times.sort()
    return {
        "spectators": count,
        "polls": len(times),
        "failed": failed,
        "median_ms": round(statistics.median(times) * 1000, 1) if times else None,
        "p99_ms": round(times[int(0.99 * (len(times) - 1))] * 1000, 1) if times else None,
    }


def run(boards: int, seconds: float, speed: float, spectators: int = 0) -> dict[str, Any]:
    folder = Path(tempfile.mkdtemp(prefix="bench-hall-"))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    broker = LocalBroker(folder / "broker")
    broker.start()
    url = broker.url("bench")
    hall_port = free_port()
    out = (folder / "out.txt").open("ab")
    hall = subprocess.Popen(
        [sys.executable, "-m", "companion.commands.hall", "hall", "--broker", url,
         "--port", str(hall_port), "--data-dir", str(folder / "hall")],
        env=env, stdout=out, stderr=out, cwd=ROOT,
    )  # fmt: skip
    procs = []
    for n in range(1, boards + 1):
        sim = f"sim://?speed={speed:g}&mistakes=0.1&seed={n}"
        cmd = board_command(url, n, free_port(), folder, sim)
        procs.append(subprocess.Popen(cmd, env=env, stdout=out, stderr=out, cwd=ROOT))
    _wait_for_hall(f"http://127.0.0.1:{hall_port}/api/hall", boards)
    polls = _spectators(f"http://127.0.0.1:{hall_port}/api/hall", spectators, seconds)
    for p in procs:
        p.send_signal(signal.SIGINT)
    for p in procs:
        p.wait(timeout=60)
    time.sleep(3)  # the last messages to the hall
    hall_rss, hall_cpu = _proc(hall.pid)
    assert broker.process is not None
    broker_rss, broker_cpu = _proc(broker.process.pid)
    load = os.getloadavg()[0]
    hall.send_signal(signal.SIGINT)
    hall.wait(timeout=30)
    broker.stop()
    logged = taken = 0
    wrong: list[int] = []
    delays: list[float] = []
    for n in range(1, boards + 1):
        logs = list((folder / f"board{n}" / "sessions").glob("*.jsonl"))
        lines = [json.loads(raw) for raw in logs[0].read_text().splitlines()][1:]
        events = [line for line in lines if line_kind(line) == "event"]
        archive = list((folder / "hall" / f"board-{n}").glob("*.jsonl"))
        got = [json.loads(raw) for raw in archive[0].read_text().splitlines()] if archive else []
        logged += len(events)
        taken += len(got)
        if [g["seq"] for g in got] != list(range(len(events))) or [
            g["event"] for g in got
        ] != events:
            wrong.append(n)
        delays += [(g["got"] - g["at"]) * 1000 for g in got]
    delays.sort()
    return {
        "boards": boards,
        "seconds": seconds,
        "speed": speed,
        "delivered": {"logged": logged, "taken": taken, "boards_not_exact": wrong},
        "delay_ms": {
            "median": round(statistics.median(delays), 1) if delays else None,
            "p99": round(delays[int(0.99 * (len(delays) - 1))], 1) if delays else None,
            "max": round(delays[-1], 1) if delays else None,
        },
        "hall_rss_mb": round(hall_rss, 1),
        "hall_cpu_s": round(hall_cpu, 1),
        "broker_rss_mb": round(broker_rss, 1),
        "broker_cpu_s": round(broker_cpu, 2),
        "page_polls": polls,
        "load_average": round(load, 2),
        "folder": str(folder),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.hall", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--boards", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--speed", type=float, default=1.0)
    parser.add_argument(
        "--spectators", type=int, default=0, help="hall pages polling once a second"
    )
    args = parser.parse_args()
    print(json.dumps(run(args.boards, args.seconds, args.speed, args.spectators), indent=1))


if __name__ == "__main__":
    main()
