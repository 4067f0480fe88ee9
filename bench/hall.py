"""Hall benchmark (issue 30): N boards publishing to one Mosquitto, the ``hall``
command gathering them, and hall pages following the hall's live feed.

Starts a Mosquitto of its own (loopback, free port), the hall, and N boards. A
board is, by default, a recorded session log written again at its board's pace
and published by the real publisher (:mod:`bench.hall_board`): a hall board has a
computer of its own, and fifty full services on two cores would measure their
wait for a CPU. ``--per-process`` boards share a process and its publisher
thread, as the boards of one service do. ``--services`` runs full ``serve
--publish`` services on ``sim://`` instead, one process each. The log to replay
is recorded first by one service at 20 times a person's pace (or given with
``--template``). Once the hall shows every board, ``--spectators`` pages follow
``/api/hall/stream`` (as hall.js does) for ``--seconds``; then the boards stop
(each sends what its log holds) and the hall's archive is compared, board by
board, with the board's log. Prints one JSON object:

* ``delivered``: events the logs hold, events the hall took, and boards whose
  archive is not exactly their log's events (seq 0..n-1, same events): the goal is
  every event, once, in order;
* ``hall_delay_ms``: from the publisher reading an event in the log (it looks every
  50 ms) to the hall taking it, for events read while the pages watched;
* ``page_delay_ms``: from the board writing the event's line (replayed boards; the
  publisher reading it with ``--services``) to a page having it, over every
  (probe page, event) pair: median, p99, max. ``--probes`` of the pages (10) read
  and time every message; the others take the bytes and drop them (300 browsers
  parse on 300 devices, not in the benchmark's process beside the hall);
* ``hall_rss_mb``, ``broker_rss_mb``, ``hall_cpu_s``, ``broker_cpu_s`` at the end,
  the CPU seconds the boards used, and the load average.

    nice .venv/bin/python -m bench.hall [--boards 20] [--seconds 60] [--speed 1]
        [--spectators 300] [--probes 10] [--services] [--template LOG] [--per-process 10]
"""

from __future__ import annotations

import argparse
import contextlib
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


def _record_template(folder: Path, env: dict[str, str], board_seconds: float) -> Path:
    """A session log of ``board_seconds`` of play (board time), from one service on
    ``sim://`` at 20 times a person's pace."""
    port = free_port()
    data = folder / "template"
    sim = "sim://?speed=20&mistakes=0.1&seed=7"
    cmd = [
        sys.executable, "-m", "companion.commands.serve", "serve", "--source", sim,
        "--no-engine", "--fresh", "--port", str(port), "--data-dir", str(data),
    ]  # fmt: skip
    out = (folder / "template.out").open("ab")
    proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=out, cwd=ROOT)
    deadline = time.monotonic() + 30 + board_seconds / 5
    reached = 0.0
    try:
        while time.monotonic() < deadline and reached < board_seconds:
            time.sleep(2)
            for log in (data / "sessions").glob("*.jsonl"):
                tail = log.read_bytes()[-4000:].splitlines()
                with contextlib.suppress(ValueError, IndexError, KeyError):
                    reached = float(json.loads(tail[-2])["t"])
            print(f"recording the board to replay: {reached:.0f} / {board_seconds:.0f} s",
                  file=sys.stderr, end="\r")  # fmt: skip
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    print(file=sys.stderr)
    (log,) = (data / "sessions").glob("*.jsonl")
    return log


def _spectators(url: str, count: int, seconds: float, probes: int) -> dict[str, Any]:
    """``count`` pages following the hall's feed for ``seconds``, each on its own
    connection (plain asyncio streams: a client library would be what is measured).

    ``probes`` of them read every message and note, per board and session, when
    ``next_seq`` moved (every event below it is then on that page); the others take
    the bytes and drop them: 300 browsers parse on 300 devices, not in this process
    beside the hall. Returns the notes with the feed's figures."""
    if count == 0:
        time.sleep(seconds)
        return {"notes": []}
    import asyncio
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    request = f"GET {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\n\r\n".encode()
    notes: list[tuple[str, str, int, int, float]] = []  # board, session, from, to, when
    messages = 0
    taken = 0  # bytes every page took
    ended = 0

    async def probe(reader: asyncio.StreamReader, deadline: float) -> None:
        nonlocal messages, ended
        seen: dict[tuple[str, str], int] = {}
        buffer = b""
        while time.monotonic() < deadline:
            size = int((await reader.readuntil(b"\r\n")).strip(), 16)  # chunked
            if size == 0:
                ended += 1
                return
            buffer += (await reader.readexactly(size + 2))[:-2]
            now = time.time()
            *complete, buffer = buffer.split(b"\n\n")
            for raw in complete:
                data = next((x[6:] for x in raw.split(b"\n") if x.startswith(b"data: ")), None)
                if data is None:
                    continue
                messages += 1
                for b in json.loads(data)["boards"]:
                    key = (b["board"], b["session"])
                    was = seen.get(key)
                    if was is not None and b["next_seq"] > was:
                        notes.append((*key, was, b["next_seq"], now))
                    seen[key] = max(b["next_seq"], was or 0)

    async def page(i: int) -> None:
        nonlocal taken, ended
        start = i / count
        await asyncio.sleep(start)
        reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
        writer.write(request)
        await reader.readuntil(b"\r\n\r\n")
        deadline = time.monotonic() + seconds - start
        try:
            if i % max(1, count // probes) == 0 and i // max(1, count // probes) < probes:
                await probe(reader, deadline)
                return
            while time.monotonic() < deadline:
                got = await reader.read(1 << 16)
                if not got:
                    ended += 1
                    return
                taken += len(got)
        finally:
            writer.close()

    async def main() -> None:
        async def timed(i: int) -> None:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(page(i), seconds + 5)

        await asyncio.gather(*(timed(i) for i in range(count)))

    asyncio.run(main())
    return {
        "notes": notes,
        "spectators": count,
        "probes": probes,
        "probe_messages": messages,
        "others_mb": round(taken / 1e6, 1),
        "feeds_ended": ended,
    }


def _stats(values: list[float]) -> dict[str, float | None]:
    values = sorted(values)
    if not values:
        return {"median": None, "p99": None, "max": None, "n": 0}
    return {
        "median": round(statistics.median(values), 1),
        "p99": round(values[int(0.99 * (len(values) - 1))], 1),
        "max": round(values[-1], 1),
        "n": len(values),
    }


def run(
    boards: int,
    seconds: float,
    speed: float,
    spectators: int = 0,
    services: bool = False,
    template: Path | None = None,
    per_process: int = 10,
    probes: int = 10,
    folder: Path | None = None,
) -> dict[str, Any]:
    folder = folder or Path(tempfile.mkdtemp(prefix="bench-hall-"))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if not services and template is None:
        template = _record_template(folder, env, (seconds + 30) * speed)
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
    if services:
        for n in range(1, boards + 1):
            sim = f"sim://?speed={speed:g}&mistakes=0.1&seed={n}"
            cmd = board_command(url, n, free_port(), folder, sim)
            procs.append(subprocess.Popen(cmd, env=env, stdout=out, stderr=out, cwd=ROOT))
    for first in range(1, boards + 1, per_process) if not services else ():
        cmd = [
            sys.executable, "-m", "bench.hall_board", "--broker", url, "--first", str(first),
            "--count", str(min(per_process, boards - first + 1)), "--template", str(template),
            "--dir", str(folder), "--pace", f"{speed:g}",
        ]  # fmt: skip
        procs.append(subprocess.Popen(cmd, env=env, stdout=out, stderr=out, cwd=ROOT))
    _wait_for_hall(f"http://127.0.0.1:{hall_port}/api/hall", boards)
    window = time.time()
    stream = f"http://127.0.0.1:{hall_port}/api/hall/stream"
    feed = _spectators(stream, spectators, seconds, probes)
    window_end = time.time()
    board_cpu = sum(_proc(p.pid)[1] for p in procs)
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
    hall_delays: list[float] = []
    origin: dict[tuple[str, str, int], float] = {}  # when each event happened on its board
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
        hall_delays += [(g["got"] - g["at"]) * 1000 for g in got if window <= g["at"] <= window_end]
        written_file = folder / f"board{n}" / "written.json"
        written = json.loads(written_file.read_text()) if written_file.is_file() else []
        for g in got:
            at = written[g["seq"]] if g["seq"] < len(written) else g["at"]
            origin[(str(n), logs[0].name, g["seq"])] = at
    page_delays = [
        (when - origin[(board, session, seq)]) * 1000
        for board, session, first, last, when in feed.pop("notes")
        for seq in range(first, last)
        if (board, session, seq) in origin
    ]
    return {
        "boards": boards,
        "kind": "services" if services else f"replayed logs, {per_process} a process",
        "seconds": seconds,
        "speed": speed,
        "delivered": {"logged": logged, "taken": taken, "boards_not_exact": wrong},
        "hall_delay_ms": _stats(hall_delays),
        "page_delay_ms": _stats(page_delays),
        "feed": feed,
        "hall_rss_mb": round(hall_rss, 1),
        "hall_cpu_s": round(hall_cpu, 1),
        "broker_rss_mb": round(broker_rss, 1),
        "broker_cpu_s": round(broker_cpu, 2),
        "boards_cpu_s": round(board_cpu, 1),
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
        "--spectators", type=int, default=0, help="hall pages following the live feed"
    )
    parser.add_argument(
        "--services", action="store_true", help="full serve --publish services on sim://"
    )
    parser.add_argument("--template", type=Path, help="the session log the boards replay")
    parser.add_argument(
        "--per-process", type=int, default=10, help="replayed boards a process publishes"
    )
    parser.add_argument(
        "--probes", type=int, default=10, help="pages, of the spectators, that measure delay"
    )
    args = parser.parse_args()
    result = run(
        args.boards,
        args.seconds,
        args.speed,
        args.spectators,
        args.services,
        args.template,
        args.per_process,
        args.probes,
    )
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
