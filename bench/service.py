"""Live-service benchmark (issue 7): many spectators while the virtual board plays flat out.

Starts a real ``serve`` (subprocess, loopback, ``sim://?speed=0``: the
virtual board plays as fast as the service reads it), connects N spectators
by WebSocket (default 200) and listens for ``--seconds``. Prints, as medians
over ``--runs`` runs:

* events per second the service produced, and deliveries per second (events
  x spectators);
* whether every spectator received every event (same sequence numbers, none
  missing, none out of order): the goal;
* latency from broadcast (the message's ``server_time``) to the spectator
  reading it: median and 99th percentile (goal: p99 under 100 ms);
* memory: the server's resident set size at the end (and its growth);
* the load average at the end: on a loaded machine (and under ``nice``) much
  of the latency is waiting for a CPU, so a figure means little without it.

The virtual board at full speed keeps the server busy whatever the number of
spectators (it plays as fast as it is read), so a cheaper broadcast shows as
more events per second at a lower latency, not as less CPU.

    nice .venv/bin/python -m bench.service [--spectators 200] [--seconds 10] [--runs 3]
    nice .venv/bin/python -m bench.service --restart 1,10,100

``--restart 1,10,100`` measures instead how long a restart after ``SIGKILL``
takes against the length of the session log (MB), the goal being under 2 s
whatever the day's length. It records a real session on the virtual board,
then lengthens its log to each size with readings of the board standing still
(1.2 kB each, as the sensor board logs them), and for each size prints
(after the time a fresh start takes, the floor on a loaded machine):

* ``full replay``: the start with no checkpoint (the whole log replayed, as
  every restart did before checkpoints) until ``/health`` answers 200;
* after the service has run on that log and been killed with ``SIGKILL``:
  the time until ``/health`` first answers (503 ``resuming`` or 200), until
  it answers 200 (the board plays: checkpoint loaded, tail replayed), the
  lines replayed, and the server's memory then.

Both ends share the machine's clock, so ``time.time()`` differences are
honest latencies; the spectators run in one asyncio process, so the figure
includes their own scheduling delay (a pessimistic measure).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from itertools import pairwise
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect

ROOT = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _start(
    data: Path,
    port: int,
    *,
    wait: bool = True,
    out: Any = subprocess.DEVNULL,
    level: str = "WARNING",
) -> subprocess.Popen[bytes]:
    cmd = [
        sys.executable,
        "-m",
        "companion.commands.serve",
        "--log-level",
        level,
        "serve",
        "--source",
        "sim://?speed=0&seed=5&mistakes=0.1",
        "--no-engine",
        "--port",
        str(port),
        "--data-dir",
        str(data),
    ]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    while wait and time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.1)
    if not wait:
        return proc
    proc.kill()
    raise SystemExit("the server did not start")


async def _spectator(
    url: str, stop: asyncio.Event, out: list[tuple[list[int], list[float]]]
) -> None:
    seqs: list[int] = []
    lat: list[float] = []
    async with connect(url, max_queue=None) as ws:
        first = json.loads(await ws.recv())
        assert first["type"] == "state"
        while not stop.is_set():
            try:
                text = await asyncio.wait_for(ws.recv(), 0.2)
            except TimeoutError:
                continue
            now = time.time()
            msg = json.loads(text)
            if "seq" in msg:
                seqs.append(int(msg["seq"]))
                lat.append(now - float(msg["server_time"]))
    out.append((seqs, lat))


async def _run_clients(port: int, n: int, seconds: float) -> list[tuple[list[int], list[float]]]:
    stop = asyncio.Event()
    out: list[tuple[list[int], list[float]]] = []
    url = f"ws://127.0.0.1:{port}/ws/board/1?role=spectator"
    tasks = [asyncio.create_task(_spectator(url, stop, out)) for _ in range(n)]
    await asyncio.sleep(seconds)
    stop.set()
    await asyncio.gather(*tasks)
    return out


def _by_game(seqs: list[int]) -> list[tuple[int, int]]:
    """``seqs`` as (game, seq): a seq no higher than the last one begins the next game."""
    out: list[tuple[int, int]] = []
    game = 0
    for q in seqs:
        if out and q <= out[-1][1]:
            game += 1
        out.append((game, q))
    return out


def _contiguous(events: list[tuple[int, int]]) -> bool:
    """No event missing within a game (each seq one more than the last)."""
    return all(b[0] != a[0] or b[1] == a[1] + 1 for a, b in pairwise(events))


def one_run(spectators: int, seconds: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        port = _free_port()
        proc = _start(Path(tmp) / "data", port)
        try:
            rss_before = _rss_mb(proc.pid)
            results = asyncio.run(_run_clients(port, spectators, seconds))
            rss_after = _rss_mb(proc.pid)
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(20)
    # every spectator joined at a slightly different moment: compare the events all saw.
    # A game's end starts a new log and a new referee, whose events count from 1 again:
    # an event is (game, seq), the game counted from the spectator's first.
    streams = [_by_game(seqs) for seqs, _ in results if seqs]
    common_start = max(s[0] for s in streams)
    common_end = min(s[-1] for s in streams)
    windows = [[e for e in s if common_start <= e <= common_end] for s in streams]
    complete = all(w == windows[0] for w in windows) and _contiguous(windows[0])
    events = len(windows[0])
    latencies = sorted(x for _, lat in results for x in lat)
    p99 = latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))]
    deliveries = sum(len(s) for s, _ in results)
    return {
        "events_per_s": events / seconds,
        "deliveries_per_s": deliveries / seconds,
        "complete": complete and len(results) == spectators,
        "median_ms": statistics.median(latencies) * 1000,
        "p99_ms": p99 * 1000,
        "rss_mb": rss_after,
        "rss_growth_mb": rss_after - rss_before,
    }


# -- restart time against log length ---------------------------------------------------------


def _health_times(port: int, proc: subprocess.Popen[bytes], limit: float) -> tuple[float, float]:
    """Seconds from now until /health first answers, and until it answers 200."""
    began = time.monotonic()
    first = float("nan")
    while time.monotonic() - began < limit:
        if proc.poll() is not None:
            raise SystemExit("the server stopped")
        try:
            answer = httpx.get(f"http://127.0.0.1:{port}/health", timeout=1)
        except httpx.HTTPError:
            time.sleep(0.01)
            continue
        if first != first:  # nan: the first answer
            first = time.monotonic() - began
        if answer.status_code == 200:
            return first, time.monotonic() - began
        time.sleep(0.01)
    raise SystemExit(f"the server did not play within {limit:g} s")


def _pad(log: Path, megabytes: float) -> int:
    """Lengthen ``log`` to ``megabytes`` with still readings after its last one; lines added."""
    lines = [json.loads(x) for x in log.read_bytes().splitlines() if x.strip()]
    still = [ln for ln in lines if ln.get("stable") is True and "type" not in ln][-1]
    t = max(float(ln["t"]) for ln in lines[1:] if "t" in ln and "type" not in ln)
    head, tail = json.dumps({**still, "t": 0.5}, separators=(",", ":")).split('"t":0.5', 1)
    target = int(megabytes * 1e6)
    added = 0
    with log.open("ab") as fh:
        size = fh.tell()
        while size < target:
            t += 0.0125  # 80 readings a second
            line = f'{head}"t":{t:.4f}{tail}\n'.encode()
            fh.write(line)
            size += len(line)
            added += 1
    return added


def _last_replayed(text: str) -> tuple[str, float]:
    """The server's own account of its last resume: lines replayed, seconds it took."""
    import re

    found = re.findall(r"\d+ lines replayed(?: after its checkpoint)?", text)
    took = re.findall(r"resumed in ([0-9.]+) s", text)
    return (found[-1] if found else "?"), (float(took[-1]) if took else float("nan"))


def restart_run(sizes: list[float], record_seconds: float) -> None:
    import shutil

    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        port = _free_port()
        began = time.monotonic()
        proc = _start(base, port)
        fresh = time.monotonic() - began
        time.sleep(record_seconds)  # a real session: games, mistakes, alerts
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
        print(
            f"restart after SIGKILL against the session log's length "
            f"(sim:// session of {record_seconds:g} s, lengthened with still readings)"
        )
        print(f"  a fresh start (empty data directory) answers 200 after {fresh:.2f} s")
        print(
            f"  {'log MB':>7} {'full replay s':>14} {'first answer s':>15} {'plays s':>8} "
            f"{'RSS MB':>7}  replayed"
        )
        for mb in sizes:
            data = Path(tmp) / f"d{mb:g}"
            shutil.copytree(base, data)
            log = next((data / "sessions").glob("board1-*.jsonl"))
            for extra in (".checkpoint", ".events"):
                log.with_name(log.name + extra).unlink(missing_ok=True)
            _pad(log, mb)
            size = log.stat().st_size / 1e6
            port = _free_port()
            out = (Path(tmp) / f"full{mb:g}.out").open("wb")
            proc = _start(data, port, wait=False, out=out, level="INFO")
            _, full = _health_times(port, proc, 1200)
            time.sleep(2.0)  # it plays on; its checkpoints follow
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
            out = (Path(tmp) / f"again{mb:g}.out").open("wb")
            proc = _start(data, port, wait=False, out=out, level="INFO")
            first, plays = _health_times(port, proc, 600)
            rss = _rss_mb(proc.pid)
            proc.send_signal(signal.SIGTERM)
            proc.wait(30)
            replayed, resumed = _last_replayed((Path(tmp) / f"again{mb:g}.out").read_text())
            if os.environ.get("BENCH_KEEP"):
                shutil.copytree(tmp, os.environ["BENCH_KEEP"], dirs_exist_ok=True)
            print(
                f"  {size:7.1f} {full:14.2f} {first:15.2f} {plays:8.2f} {resumed:9.2f} "
                f"{rss:7.0f}  {replayed}"
            )
        print("  goal: plays (200 from /health) under 2 s after SIGKILL at any length")
        print("  (resume s: the server's own time from the start of its resume to playing;")
        print("  the rest of 'plays' is the Python process starting, as a fresh start)")
        print(f"  load average {Path('/proc/loadavg').read_text().strip()}")


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.service", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--restart",
        default=None,
        metavar="MB,MB,...",
        help="measure restart time against these log lengths instead (e.g. 1,10,100)",
    )
    parser.add_argument("--record-seconds", type=float, default=15.0)
    parser.add_argument("--spectators", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if args.restart:
        restart_run([float(x) for x in args.restart.split(",")], args.record_seconds)
        return
    runs = [one_run(args.spectators, args.seconds) for _ in range(args.runs)]

    def med(key: str) -> float:
        return float(statistics.median(r[key] for r in runs))

    print(
        f"service: {args.spectators} spectators, sim:// at full speed, "
        f"{args.seconds:g} s x {args.runs} runs (medians), pid {os.getpid()}"
    )
    print(f"  events produced          {med('events_per_s'):8.1f} /s")
    print(f"  deliveries               {med('deliveries_per_s'):8.0f} /s")
    print(f"  every event to everyone  {all(r['complete'] for r in runs)}")
    print(f"  latency median           {med('median_ms'):8.2f} ms")
    print(f"  latency p99              {med('p99_ms'):8.2f} ms   (goal < 100 ms)")
    print(
        f"  server memory (RSS)      {med('rss_mb'):8.1f} MB "
        f"(growth during run {med('rss_growth_mb'):.1f} MB)"
    )
    print(f"  load average             {Path('/proc/loadavg').read_text().strip()}")


if __name__ == "__main__":
    main()
