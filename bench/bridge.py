"""Sensor-board bridge benchmark (issue 4): decoding speed, CPU at 80 Hz, latency, reconnect.

Prints medians of several runs:

1. **decode** — frames per second through :class:`FrameDecoder` and
   :class:`SequenceTracker` on a recorded-like stream of READING frames with
   a little garbage mixed in (goal: at least 50,000 frames/s);
2. **cpu** — CPU time of the host side (pyserial link, decoder, weight model,
   observation builder) per second of 80 Hz streaming from a virtual board
   running in *another process* (goal: under 2 % of one core);
3. **latency** — from a weight step on a load cell to the first Observation
   that shows it, and to the stable Observation with the new count: the real
   firmware in simavr if the toolchain is there, else the virtual board;
4. **reconnect** — from the port coming back (virtual board replugged) to the
   link reporting "connected" again (goal: under 2 s).

    nice python -m bench.bridge [--runs 5] [--seconds 5]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

from core.observation import Observation, most_likely
from firmware_bridge.link import SerialLink
from firmware_bridge.observer import ObservationBuilder
from firmware_bridge.protocol import (
    FrameDecoder,
    MsgType,
    Reading,
    SequenceTracker,
    encode_frame,
    rate_payload,
    reading_payload,
    tare_payload,
)
from firmware_bridge.simavr_harness import SimavrBoard, missing_tools
from firmware_bridge.source import SensorSource
from firmware_bridge.virtual_board import DeviceOptions, PlayerOptions, VirtualBoard
from firmware_bridge.weights import Calibration


def decode_rate(frames: int, seed: int) -> float:
    """Frames per second decoded and sequence-checked, fed in 4 KiB chunks."""
    rng = random.Random(seed)
    parts = []
    for i in range(frames):
        w = tuple(rng.randrange(-1000, 60000) for _ in range(14))
        parts.append(encode_frame(MsgType.READING, i, reading_payload(Reading(i + 1, 0, w))))
        if i % 1000 == 999:
            parts.append(bytes(rng.randrange(256) for _ in range(50)))  # some line noise
    wire = b"".join(parts)
    chunks = [wire[i : i + 4096] for i in range(0, len(wire), 4096)]
    dec, tracker = FrameDecoder(), SequenceTracker()
    t0 = time.perf_counter()
    n = 0
    for c in chunks:
        for f in dec.feed(c):
            if tracker.accept(f) is not None:
                n += 1
    return n / (time.perf_counter() - t0)


def start_device_process(extra: list[str]) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "firmware_bridge.virtual_board", *extra],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )
    assert proc.stdout is not None
    port = proc.stdout.readline().strip()
    return proc, port


def host_cpu_share(seconds: float, seed: int) -> tuple[float, float]:
    """(CPU share of one core, readings per second) of the host side at 80 Hz."""
    proc, port = start_device_process(["--seed", str(seed), "--speed", "1", "--rate", "80"])
    try:
        src = SensorSource(SerialLink(port))
        src.open()
        readings = 0
        done = threading.Event()

        def consume() -> None:
            for _ in src:
                if done.is_set():
                    break

        th = threading.Thread(target=consume, daemon=True)
        th.start()
        time.sleep(1.0)  # connect and settle
        s0 = src.link.tracker.last_sample or 0
        c0, w0 = time.process_time(), time.perf_counter()
        time.sleep(seconds)
        c1, w1 = time.process_time(), time.perf_counter()
        readings = (src.link.tracker.last_sample or 0) - s0
        done.set()
        src.close()
        th.join(timeout=3)
        return (c1 - c0) / (w1 - w0), readings / (w1 - w0)
    finally:
        proc.terminate()
        proc.wait(timeout=5)


def latency_simavr(steps: int) -> tuple[list[float], list[float], list[float]]:
    """Weight steps (one seed on/off pit C) on the real firmware in simavr.

    Measured on the board's own sample clock, so a loaded machine that makes
    the simulator lag or catch up does not distort it: from the first reading
    that contains the step to (a) the first observation showing the new count
    and (b) the stable observation with it. Also returns the host's wall-clock
    processing time per reading. Device-side delays (waiting for the HX711's
    next conversion, sending the frame) are added by :func:`device_delay_s`.
    """
    first: list[float] = []
    stable: list[float] = []
    host_us: list[float] = []
    board = SimavrBoard.start(speed=1.0, seed=2)
    link = SerialLink(board.port)
    builder = ObservationBuilder(Calibration(seed_mean_g=2.4, seed_sd_g=0.1), 80, "bench")
    state: dict[str, int] = {}
    events: list[tuple[int, Observation]] = []
    readings: list[tuple[int, float]] = []
    lock = threading.Lock()

    def consume() -> None:
        for item in link:
            if isinstance(item, Reading):
                t0 = time.perf_counter()
                obs = builder.push(item, item.sample / 80)
                host_us.append((time.perf_counter() - t0) * 1e6)
                with lock:
                    assert builder.latest_grams is not None
                    readings.append((item.sample, float(builder.latest_grams[2])))
                    if obs is not None:
                        events.append((item.sample, obs))

    try:
        link.open()
        th = threading.Thread(target=consume, daemon=True)
        th.start()
        while link.hello is None:
            time.sleep(0.05)
        link.request(MsgType.SET_RATE, rate_payload(80))
        link.request(MsgType.TARE, tare_payload(), timeout_s=10)
        time.sleep(0.5)
        for i in range(steps):
            count = 4 + (i % 2)  # 4 -> 5 -> 4 ...: one seed more or less on pit C
            with lock:
                readings.clear()
                events.clear()
            board.set_weight(2, 2.4 * count)
            # Wait (wall clock) until the stable observation arrives: under load the
            # simulator may lag, which the sample clock below does not see.
            deadline = time.monotonic() + 10.0
            s0 = s1 = s2 = None
            while time.monotonic() < deadline and s2 is None:
                time.sleep(0.05)
                with lock:
                    rs, ev = list(readings), list(events)
                s0 = next((s for s, g in rs if abs(g - 2.4 * count) < 1.2), None)
                if s0 is None:
                    continue
                seen = [(s, o) for s, o in ev if s >= s0 and o.pits[2] is not None]
                s1 = next((s for s, o in seen if most_likely(o.pits[2]) == count), None)
                s2 = next(
                    (s for s, o in seen if o.stable and most_likely(o.pits[2]) == count), None
                )
            if s0 is not None and s1 is not None:
                first.append((s1 - s0) / 80)
            if s0 is not None and s2 is not None:
                stable.append((s2 - s0) / 80)
            time.sleep(0.3)
        state["ok"] = 1
        link.close()
        th.join(timeout=3)
    finally:
        board.stop()
    return first, stable, host_us


def device_delay_s(rate_hz: int = 80, payload: int = 64) -> tuple[float, float]:
    """(mean, worst) seconds from a weight change to its READING frame reaching the host.

    The HX711 needs up to one conversion to start a new one and one to finish
    it (the change lands at a random point of a period: 1.5 periods on
    average, 2 at worst); then the frame travels at 115200 baud, 10 bits a byte.
    """
    period = 1.0 / rate_hz
    frame_s = (payload + 7) * 10 / 115200
    return 1.5 * period + frame_s, 2 * period + frame_s


def reconnect_times(runs: int) -> list[float]:
    """Seconds from the virtual board's replug to the link saying "connected"."""
    out = []
    opts = DeviceOptions(seed=1, speed=1.0, unplug_s=1.0, player=PlayerOptions(max_moves=0))
    with VirtualBoard(opts) as board:
        link = SerialLink(board.port)
        link.open()
        events: list[tuple[float, str]] = []

        def consume() -> None:
            for item in link:
                if isinstance(item, dict):
                    events.append((time.monotonic(), item["state"]))

        th = threading.Thread(target=consume, daemon=True)
        th.start()
        time.sleep(0.5)
        for _ in range(runs):
            n = len(events)
            board.inject("unplug")
            deadline = time.monotonic() + 6
            while time.monotonic() < deadline:
                time.sleep(0.01)
                later = events[n:]
                states = [s for _, s in later]
                if "disconnected" in states and states[-1] == "connected":
                    break
            back = [t for t, s in events[n:] if s == "connected"]
            if back:
                out.append(back[-1] - board.plugged_at)
            time.sleep(0.3)
        link.close()
        th.join(timeout=3)
    return out


def fmt(values: list[float], scale: float = 1.0, unit: str = "") -> str:
    if not values:
        return "n/a"
    med = statistics.median(values) * scale
    lo, hi = min(values) * scale, max(values) * scale
    return f"median {med:,.1f}{unit} (min {lo:,.1f}, max {hi:,.1f}, n={len(values)})"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bench.bridge", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("--runs", type=int, default=5, help="runs per measurement (median reported)")
    ap.add_argument("--seconds", type=float, default=5.0, help="length of one CPU run")
    ap.add_argument("--frames", type=int, default=100_000, help="frames per decode run")
    args = ap.parse_args(argv)

    rates = [decode_rate(args.frames, seed) for seed in range(args.runs)]
    print(f"decode:    frames/s {fmt(rates)}   goal >= 50,000")

    shares, per_s = [], []
    for seed in range(min(args.runs, 3)):
        share, rps = host_cpu_share(args.seconds, seed)
        shares.append(share)
        per_s.append(rps)
    print(f"cpu:       host CPU at 80 Hz, % of one core: {fmt(shares, 100, '%')}   goal < 2%")
    print(f"           readings/s received: {fmt(per_s)}")

    if missing_tools():
        print(f"latency:   skipped, firmware toolchain missing: {', '.join(missing_tools())}")
    else:
        first, stable, host_us = latency_simavr(max(args.runs, 10))
        mean_dev, worst_dev = device_delay_s()
        print(
            f"latency:   device side (HX711 conversion + frame at 115200 baud): "
            f"mean {mean_dev * 1000:.1f} ms, worst {worst_dev * 1000:.1f} ms"
        )
        print(
            f"           host processing per reading: {fmt([u / 1000 for u in host_us], 1, ' ms')}"
        )
        print(
            f"           reading with the step -> first observation with the new count: "
            f"{fmt(first, 1000, ' ms')}"
        )
        print(
            f"           reading with the step -> stable observation with it:           "
            f"{fmt(stable, 1000, ' ms')}"
        )
        print(
            "           (board sample clock, real firmware in simavr at 80 Hz; the stable "
            "observation waits for a 0.25 s quiet window by design)"
        )

    rec = reconnect_times(args.runs)
    print(f"reconnect: port back -> link connected: {fmt(rec, 1000, ' ms')}   goal < 2000 ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
