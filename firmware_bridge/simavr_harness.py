"""Drive the real firmware in simavr: build it, start the harness, set weights, read LEDs.

``hardware/simavr/harness`` runs ``hardware/firmware``'s ELF unchanged in the
AVR simulator, emulating the 14 HX711 load cells and exposing the UART on a
pseudo-terminal (see the comment at the top of ``harness.c``). This module is
the Python side of it, for the tests and the benchmark::

    with SimavrBoard.start() as board:
        link = SerialLink(board.port)     # exactly as for a real board
        board.set_weight(3, 9.6)          # four seeds on pit D

Building needs ``gcc-avr``, ``avr-libc``, ``libsimavr-dev``, ``libelf-dev``
and ``pkg-config`` (``scripts/setup.sh`` installs them); :func:`build` says
which one is missing instead of failing obscurely.
"""

from __future__ import annotations

import shutil
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

HARDWARE = Path(__file__).resolve().parent.parent / "hardware"
FIRMWARE_ELF = HARDWARE / "firmware" / "build" / "oware-board.elf"
HARNESS_BIN = HARDWARE / "simavr" / "build" / "harness"


class HarnessError(RuntimeError):
    """The toolchain is missing, the build failed, or the harness died."""


def missing_tools() -> list[str]:
    """What the firmware build and the simavr harness need but this machine lacks."""
    missing = [
        t for t in ("avr-gcc", "avr-objcopy", "make", "gcc", "pkg-config") if not shutil.which(t)
    ]
    if not Path("/usr/include/simavr/sim_avr.h").exists():
        missing.append("libsimavr-dev (/usr/include/simavr)")
    if not Path("/usr/lib/avr/include/avr/io.h").exists():
        missing.append("avr-libc (/usr/lib/avr/include)")
    return missing


def build() -> None:
    """``make -C hardware`` (firmware and harness); raise :class:`HarnessError` on failure."""
    missing = missing_tools()
    if missing:
        raise HarnessError(
            "cannot build the firmware / simavr harness, missing: "
            + ", ".join(missing)
            + " (scripts/setup.sh installs gcc-avr avr-libc simavr libsimavr-dev libelf-dev"
            " pkg-config)"
        )
    proc = subprocess.run(
        ["make", "-s", "-C", str(HARDWARE)], capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        raise HarnessError(f"make -C hardware failed:\n{proc.stdout}\n{proc.stderr}")


@dataclass
class Cell:
    """One emulated load cell: raw counts when empty, and counts per gram."""

    offset: int
    gain: float


@dataclass
class SimavrBoard:
    """A running harness process (use :meth:`start`)."""

    proc: subprocess.Popen[str]
    port: str
    cells: list[Cell]
    leds: list[list[tuple[int, int, int]]] = field(default_factory=list)
    rates: list[int] = field(default_factory=list)
    speed: float = 1.0
    clock_reports: list[float] = field(default_factory=list)
    sck_violations: int = 0
    read_overlaps: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _changed: threading.Condition = field(init=False)

    def __post_init__(self) -> None:
        self._changed = threading.Condition(self._lock)
        threading.Thread(target=self._read_reports, name="simavr-reports", daemon=True).start()

    @classmethod
    def start(cls, speed: float = 1.0, seed: int = 1) -> SimavrBoard:
        """Build if needed, start the harness, and wait for its pseudo-terminal."""
        build()
        proc = subprocess.Popen(
            [str(HARNESS_BIN), str(FIRMWARE_ELF), "--speed", str(speed), "--seed", str(seed)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        assert proc.stdout is not None
        cells: list[Cell] = []
        for line in proc.stdout:
            parts = line.split()
            if parts[:1] == ["cell"]:
                cells.append(Cell(int(parts[3]), float(parts[5])))
            elif parts[:1] == ["pty"]:
                return cls(proc, parts[1], cells, speed=speed)
            # other lines: simavr's own "Loaded ..." messages
        err = proc.stderr.read() if proc.stderr else ""
        raise HarnessError(f"the harness exited before opening its pty: {err}")

    def _read_reports(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            parts = line.split()
            with self._changed:
                if parts[:1] == ["leds"]:
                    v = [int(x) for x in parts[1:]]
                    self.leds.append([(v[i], v[i + 1], v[i + 2]) for i in range(0, len(v), 3)])
                elif parts[:1] == ["rate"]:
                    self.rates.append(int(parts[1]))
                elif parts[:1] == ["time"]:
                    self.clock_reports.append(float(parts[1]))
                elif parts[:1] == ["sck_high_too_long"]:
                    self.sck_violations = int(parts[1])
                elif parts[:1] == ["read_overlap"]:
                    self.read_overlaps = int(parts[1])
                self._changed.notify_all()

    def wait_leds(self, count: int, timeout_s: float = 5.0) -> list[tuple[int, int, int]]:
        """Wait until at least ``count`` LED frames were latched; return the last."""
        with self._changed:
            if not self._changed.wait_for(lambda: len(self.leds) >= count, timeout_s):
                raise HarnessError(f"no LED frame #{count} within {timeout_s} s")
            return self.leds[-1]

    def wait_rate(self, rate: int, timeout_s: float = 5.0) -> None:
        """Wait until the RATE line last reported ``rate``; raise HarnessError if it does not.

        The firmware sets the line before it acknowledges, but the harness
        reports it on stdout while the ACK travels over the pseudo-terminal:
        the host can read the ACK before the reader thread has seen the report.
        """
        with self._changed:
            if not self._changed.wait_for(lambda: self.rates[-1:] == [rate], timeout_s):
                raise HarnessError(f"the RATE line did not report {rate} Hz within {timeout_s} s")

    def sim_time(self, timeout_s: float = 5.0) -> float:
        """The board's simulated clock, in seconds since the firmware started."""
        with self._changed:
            asked = len(self.clock_reports)
        self._send("time")
        with self._changed:
            if not self._changed.wait_for(lambda: len(self.clock_reports) > asked, timeout_s):
                raise HarnessError(f"the harness did not report its clock within {timeout_s} s")
            return self.clock_reports[asked]

    def sleep_sim(self, seconds: float, timeout_s: float = 30.0) -> None:
        """Wait until ``seconds`` of simulated time have passed on the board.

        Not a wall-clock sleep: on a loaded machine the simulator runs slower
        than ``speed`` times real time, and a test that slept on the wall clock
        would see fewer readings than the firmware's rate promises.
        """
        self.sleep_until_sim(self.sim_time() + seconds, timeout_s)

    def sleep_until_sim(self, end: float, timeout_s: float = 30.0) -> None:
        """Wait until the board's simulated clock reads ``end`` seconds."""
        deadline = time.monotonic() + timeout_s
        while (now := self.sim_time()) < end:
            if time.monotonic() > deadline:
                raise HarnessError(f"the simulated clock stalled at {now:.3f} s")
            time.sleep(min(0.05, (end - now) / self.speed))

    def schedule(self, changes: Sequence[tuple[float, int, float]], lead_s: float = 0.5) -> float:
        """Put weights on channels at simulated times to come; return the last one's time.

        ``changes`` are ``(seconds from now, channel, grams)`` in time order. The
        harness applies each at exactly its simulated time (the first conversion
        at or after it), so a host that stalls between two of them cannot stretch
        the time between them, as waiting with :meth:`sleep_sim` between
        :meth:`set_weight` calls can. ``lead_s`` of simulated time lets the
        commands arrive before the first is due.
        """
        start = self.sim_time() + lead_s
        self._send("\n".join(f"at {start + dt:.6f} w {ch} {g:.4f}" for dt, ch, g in changes))
        return start + max((dt for dt, _ch, _g in changes), default=0.0)

    def _send(self, line: str) -> None:
        if self.proc.stdin is None or self.proc.poll() is not None:
            raise HarnessError("the harness is not running")
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def set_weight(self, channel: int, grams: float) -> None:
        """Put ``grams`` on a channel (0-11 pits, 12-13 stores)."""
        self._send(f"w {channel} {grams:.4f}")

    def set_weights(self, grams: list[float]) -> None:
        for ch, g in enumerate(grams):
            self.set_weight(ch, g)

    def kill_cell(self, channel: int, dead: bool = True) -> None:
        """A broken cell: its DOUT stays high (the firmware must flag a timeout)."""
        self._send(f"dead {channel} {int(dead)}")

    def stop(self) -> str:
        """Stop the harness; return what it wrote on stderr (its summary line)."""
        if self.proc.poll() is None:
            try:
                self._send("quit")
                self.proc.wait(timeout=5)
            except (HarnessError, BrokenPipeError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait(timeout=5)
        return self.proc.stderr.read() if self.proc.stderr else ""

    def __enter__(self) -> SimavrBoard:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
