"""The virtual sensor board behind ``sim://``: games played seed by seed, on a pseudo-terminal.

Three layers, each usable alone:

* :class:`BoardPhysics` — a load cell per pit and per store (14 for two
  players; 21 and 28 for the three- and four-player boards of universal
  mancala) with the seeds on them, each seed with its own weight; a hand can
  press on a channel, a seed dropping in makes a short impact spike; every
  reading has noise and a slow drift. It answers "what does channel k weigh
  at time t".
* :class:`VirtualPlayer` — plays games of any rule set of ``core.rules``
  (every preset and option: relay sowing, stores in the sowing ring, extra
  turns) on those physics with a person's timing: think, press on the pit and
  lift its seeds, drop them one by one, pick up a relay pit, take the captures
  to the store. Moves come from a script, at random, or from a callable (an
  engine). It can make the mistakes a real player makes (skip a pit, sow into
  the origin pit on a 12+ lap, sow the wrong way, leave a capture on the
  board, take a capture that is not one) and then, like a real player told by
  the referee, put the board right. When a game ends the players gather the
  seeds (hands over the pits for a few seconds) and lay out the next game.
* :class:`VirtualBoard` — the device: a thread that samples the physics at
  the HX711 rate and speaks the wire protocol (``firmware_bridge.protocol``)
  on a pseudo-terminal, exactly as the firmware does over USB (a three- or
  four-player board says so in its HELLO and sends READING_WIDE). It answers
  IDENTIFY, TARE, CALIBRATE, SET_LEDS and SET_RATE, and can inject link
  faults: garbage bytes, dropped frames, a device reset, an unplug.

Time: the device has its own clock (seconds of "physical" time). ``speed``
says how many device seconds pass per wall second (1 = real time, 10 = ten
times faster). ``speed=0`` runs as fast as the host reads (the pty's flow
control paces it), which is what the tests and the benchmark use. The pty
reports bytes in flight only once the kernel has passed them on, so at full
speed the device can run a second or two ahead of what the host has read; an
unplug at full speed therefore first lets the host read what a device in real
time would already have delivered, and after the replug the device streams
once the host has opened the port again (its IDENTIFY), so an unplug loses
about as much of the game as a real one, whatever the load on the machine.

The port's path is a symlink (like ``/dev/serial/by-id/…``), so an unplug and
replug gives a new ``/dev/pts/N`` behind the same name.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import logging
import math
import os
import random
import select
import signal
import struct
import sys
import tempfile
import termios
import threading
import time
import tty
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from typing import Literal

from core import Position
from core.notation import parse_move
from core.rules import RuleSet, parse_rules_spec
from firmware_bridge.protocol import (
    CHANNELS,
    LEDS,
    PROTOCOL_VERSION,
    SAMPLE_RATES,
    Ack,
    AckStatus,
    FrameDecoder,
    Hello,
    MsgType,
    Reading,
    ack_payload,
    encode_frame,
    hello_payload,
    reading_message,
)

log = logging.getLogger(__name__)

FIRMWARE_VERSION = (1, 0, 0)
Mistake = Literal["skip_pit", "origin_pit", "wrong_direction", "missed_capture", "wrong_capture"]
"""A player's mistake the virtual board can make."""
MISTAKES: tuple[Mistake, ...] = (
    "skip_pit",
    "origin_pit",
    "wrong_direction",
    "missed_capture",
    "wrong_capture",
)
Fault = Literal["garbage", "drop", "reset", "unplug"]
"""A fault of the device or its cable the virtual board can make."""
FAULTS: tuple[Fault, ...] = ("garbage", "drop", "reset", "unplug")
TruthKind = Literal["move", "mistake", "fixed", "game_over", "new_game"]
"""What a :class:`TruthEvent` records."""

#: At full speed, the most bytes the device lets pile up unread (about 15 frames).
MAX_BACKLOG = 1024

MoveChooser = Callable[[Position, random.Random], int]


# --- physics -------------------------------------------------------------------------------


@dataclass(slots=True)
class _Press:
    start: float
    end: float
    force_g: float


class BoardPhysics:
    """Seeds on ``channels`` load cells (pits, then stores), with hands, impacts, noise
    and drift."""

    def __init__(
        self,
        rng: random.Random,
        *,
        channels: int = CHANNELS,
        seed_mean_g: float = 2.4,
        seed_sd_g: float = 0.15,
        noise_g: float = 0.03,
        drift_g_per_min: float = 0.05,
    ) -> None:
        self.rng = rng
        self.seed_mean_g = seed_mean_g
        self.seed_sd_g = seed_sd_g
        self.noise_g = noise_g
        self.drift_rate = drift_g_per_min / 60.0
        self.channels = channels
        self.seeds: list[list[float]] = [[] for _ in range(channels)]
        self.hand: list[float] = []
        # The empty cups weigh something; the firmware's factory tare removes most of it.
        self.cup_g = [rng.uniform(20.0, 40.0) for _ in range(channels)]
        self.drift_g = [0.0] * channels
        self._presses: list[list[_Press]] = [[] for _ in range(channels)]
        self._impacts: list[list[tuple[float, float]]] = [[] for _ in range(channels)]
        self._last_t = 0.0

    def new_seed(self) -> float:
        return max(0.3 * self.seed_mean_g, self.rng.gauss(self.seed_mean_g, self.seed_sd_g))

    def set_counts(self, pits: Sequence[int], stores: Sequence[int]) -> None:
        """Lay out a position (fresh seeds, no hand, no transients)."""
        counts = [*pits, *stores]
        if len(counts) != self.channels:
            raise ValueError(
                f"{len(pits)} pits and {len(stores)} stores on a board of {self.channels} cells"
            )
        self.seeds = [[self.new_seed() for _ in range(n)] for n in counts]
        self.hand = []

    def counts(self) -> list[int]:
        return [len(s) for s in self.seeds]

    def press(self, ch: int, t: float, duration: float, force_g: float) -> None:
        """A hand rests on channel ``ch`` from ``t`` for ``duration`` seconds."""
        self._presses[ch].append(_Press(t, t + duration, force_g))

    def take_all(self, ch: int) -> int:
        """Lift every seed of a channel into the hand; return how many."""
        n = len(self.seeds[ch])
        self.hand += self.seeds[ch]
        self.seeds[ch] = []
        return n

    def take(self, ch: int, n: int) -> None:
        for _ in range(min(n, len(self.seeds[ch]))):
            self.hand.append(self.seeds[ch].pop())

    def drop(self, ch: int, t: float) -> None:
        """Drop one seed from the hand (or a fresh one if the hand is empty) onto ``ch``."""
        w = self.hand.pop() if self.hand else self.new_seed()
        self.seeds[ch].append(w)
        self._impacts[ch].append((t, w))

    def weight(self, ch: int, t: float) -> float:
        """True grams on channel ``ch`` at time ``t`` (cup included), noise included."""
        w = self.cup_g[ch] + self.drift_g[ch] + sum(self.seeds[ch])
        presses = self._presses[ch]
        if presses:
            presses[:] = [p for p in presses if p.end > t - 1.0]
            for p in presses:
                if p.start <= t < p.end:
                    # A hand is never still: the force wobbles by a few grams.
                    w += p.force_g * (1.0 + 0.1 * math.sin(37.0 * t)) + self.rng.gauss(0, 2.0)
        impacts = self._impacts[ch]
        if impacts:
            impacts[:] = [i for i in impacts if t - i[0] < 0.3]
            for t0, sw in impacts:
                dt = t - t0
                if dt >= 0:
                    # The seed hits (a spike of a few seed weights) and rolls, settling fast.
                    w += sw * 4.0 * math.exp(-dt / 0.015) + sw * 0.6 * math.exp(-dt / 0.06) * (
                        math.sin(90.0 * dt)
                    )
        return w + self.rng.gauss(0.0, self.noise_g)

    def advance(self, t: float) -> None:
        """Let the drift wander up to time ``t`` (a slow random walk per channel)."""
        dt = t - self._last_t
        if dt > 0:
            step = self.drift_rate * math.sqrt(dt * 60.0)
            self.drift_g = [d + self.rng.gauss(0.0, step) for d in self.drift_g]
            self._last_t = t


# --- the player ----------------------------------------------------------------------------


@dataclass(slots=True)
class TruthEvent:
    """What really happened on the virtual board (for tests and the benchmark)."""

    t: float
    kind: TruthKind
    pit: int | None = None
    detail: str = ""
    counts: tuple[int, ...] = ()


@dataclass
class PlayerOptions:
    rules: str | RuleSet = "abapa"
    """A rule set, or its spec ``NAME[:key=value,...]`` (``universal:players=3,variants=9``)."""
    moves: Sequence[int | str] | None = None
    chooser: MoveChooser | None = None
    mistakes: float = 0.0
    mistake_kinds: Sequence[Mistake] = MISTAKES
    think_s: tuple[float, float] = (1.5, 4.0)
    seed_interval_s: tuple[float, float] = (0.25, 0.5)
    fix_delay_s: float = 3.0
    max_moves: int | None = None
    loop: bool = True
    """Start the next game when one ends (the players gather the seeds and lay them out)."""
    setup_s: float = 6.0
    """How long gathering and laying out the seeds for the next game takes."""

    @property
    def ruleset(self) -> RuleSet:
        return parse_rules_spec(self.rules) if isinstance(self.rules, str) else self.rules


def channels_for(rules: RuleSet) -> int:
    """Load cells of the board a rule set is played on: a pit each, and a store per player.

    >>> channels_for(parse_rules_spec("abapa")), channels_for(parse_rules_spec("universal-4"))
    (14, 28)
    """
    return rules.num_pits + rules.players


class VirtualPlayer:
    """Plays games on :class:`BoardPhysics` with a person's timing.

    :meth:`script` is a generator of physical actions: it mutates the physics
    and yields the device time until which nothing else happens.
    """

    def __init__(self, physics: BoardPhysics, rng: random.Random, opts: PlayerOptions) -> None:
        self.physics = physics
        self.rng = rng
        self.opts = opts
        self.ruleset = opts.ruleset
        self.pits = self.ruleset.num_pits
        if physics.channels != channels_for(self.ruleset):
            raise ValueError(
                f"{self.ruleset.name} is played on {channels_for(self.ruleset)} cells, "
                f"not {physics.channels}"
            )
        self.position = Position.initial(self.ruleset)
        self.truth: list[TruthEvent] = []
        self.moves_played = 0
        self.games = 1
        self.finished = False
        physics.set_counts(self.position.pits, self.position.stores)

    def _note(self, t: float, kind: TruthKind, pit: int | None = None, detail: str = "") -> None:
        self.truth.append(TruthEvent(t, kind, pit, detail, tuple(self.physics.counts())))

    def _choose(self) -> int | None:
        legal = self.position.legal_moves()
        if not legal:
            return None
        o = self.opts
        if o.moves is not None:
            if self.moves_played >= len(o.moves):
                return None
            m = o.moves[self.moves_played]
            return parse_move(m, self.ruleset.players) if isinstance(m, str) else m
        if o.chooser is not None:
            return o.chooser(self.position, self.rng)
        return self.rng.choice(legal)

    def script(self, t0: float = 0.0) -> Generator[float, None, None]:
        t = t0
        ph, rng, o = self.physics, self.rng, self.opts
        while True:
            t += rng.uniform(*o.think_s)
            yield t
            if o.max_moves is not None and self.moves_played >= o.max_moves:
                break
            pit = None if self.position.is_over else self._choose()
            if pit is None:
                self._note(t, "game_over", detail=f"scores {self.position.scores}")
                if not o.loop or o.moves is not None:
                    break
                t = yield from self._next_game(t)
                continue
            outcome = self.position.outcome(pit)
            sown = list(outcome.sown)
            captures = list(outcome.captures)
            relays = dict(zip(outcome.relay_steps, outcome.relays, strict=True))
            mistake = None
            if o.mistakes > 0 and rng.random() < o.mistakes:
                mistake, sown, captures = self._mistake(pit, sown, captures)
                if mistake is not None:
                    relays = {}  # the mistakes change plain sowings only (see _mistake)
            # Lift: the hand presses on the pit, grabs the seeds, stays a moment.
            ph.press(pit, t, 0.35, rng.uniform(40.0, 250.0))
            t += 0.2
            yield t
            ph.take_all(pit)
            t += 0.25
            yield t
            for step, slot in enumerate(sown):
                if step in relays:
                    # Relay sowing: the last seed fell into a full pit; its seeds are lifted
                    # and the sowing goes on from there.
                    relay = relays[step]
                    t += rng.uniform(0.3, 0.6)
                    yield t
                    ph.press(relay, t, 0.3, rng.uniform(40.0, 200.0))
                    t += 0.2
                    yield t
                    ph.take_all(relay)
                t += rng.uniform(*o.seed_interval_s)
                yield t
                ph.drop(self._channel(slot), t)
            for cpit, n in captures:
                t += rng.uniform(0.4, 0.8)
                yield t
                ph.press(cpit, t, 0.3, rng.uniform(30.0, 150.0))
                t += 0.15
                yield t
                ph.take(cpit, n)
            if captures:
                store = self._channel(-1 - outcome.player)
                t += rng.uniform(0.4, 0.8)
                yield t
                ph.press(store, t, 0.3, rng.uniform(30.0, 150.0))
                while ph.hand:
                    ph.drop(store, t)
            ph.hand = []
            self.moves_played += 1
            self._note(t, "move", pit, mistake or "")
            self.position = outcome.position
            if mistake == "missed_capture":
                # Nobody noticed: the seeds stay, and the game goes on from the board
                # as it is (the referee records the move without its capture).
                counts = ph.counts()
                self.position = Position(
                    self.ruleset, counts[: self.pits], counts[self.pits :], outcome.position.to_move
                )
            elif mistake:
                # The referee complains; the player puts the board right.
                t += o.fix_delay_s
                yield t
                t = yield from self._fix(t)
                self._note(t, "fixed")
        self.finished = True

    def _channel(self, slot: int) -> int:
        """The load cell of a sowing slot: a pit (>= 0) or player q's store (-1 - q)."""
        return slot if slot >= 0 else self.pits + (-1 - slot)

    def _next_game(self, t: float) -> Generator[float, None, float]:
        """The players look at the final board, then gather every seed and lay out the start
        position again, hands over the pits (the cells are unsteady) while they do."""
        ph, rng = self.physics, self.rng
        t += rng.uniform(2.0, 4.0)
        yield t
        start = Position.initial(self.ruleset)
        cells = list(range(ph.channels))
        rng.shuffle(cells)
        step = self.opts.setup_s / len(cells)
        for ch in cells:
            ph.press(ch, t, 2.0 * step + 0.3, rng.uniform(30.0, 150.0))
            t += step
            yield t
            ph.take_all(ch)
        counts = [*start.pits, *start.stores]
        for ch in cells:
            for _ in range(counts[ch]):
                ph.drop(ch, t)
        ph.hand = []
        t += 0.5
        yield t
        self.position = start
        self.games += 1
        self._note(t, "new_game")
        return t

    def _fix(self, t: float) -> Generator[float, None, float]:
        ph = self.physics
        want = [*self.position.pits, *self.position.stores]
        have = ph.counts()
        channels = range(ph.channels)
        surplus = [(ch, have[ch] - want[ch]) for ch in channels if have[ch] > want[ch]]
        for ch, n in surplus:
            ph.press(ch, t, 0.3, 60.0)
            t += 0.3
            yield t
            ph.take(ch, n)
        for ch in channels:
            for _ in range(max(0, want[ch] - len(ph.seeds[ch]))):
                t += 0.3
                yield t
                ph.drop(ch, t)
        ph.hand = []
        return t

    def _mistake(
        self, pit: int, sown: list[int], captures: list[tuple[int, int]]
    ) -> tuple[str | None, list[int], list[tuple[int, int]]]:
        """Apply one applicable mistake to the planned sowing; (kind, sown, captures)."""
        kinds = list(self.opts.mistake_kinds)
        self.rng.shuffle(kinds)
        n = self.pits
        for kind in kinds:
            if kind == "skip_pit" and len(sown) >= 2:
                k = self.rng.randrange(1, len(sown))
                shifted = []
                for s in sown[k:]:
                    nxt = (s + 1) % n if s >= 0 else s
                    shifted.append(nxt if nxt != pit else (nxt + 1) % n)
                return kind, sown[:k] + shifted, []
            if kind == "origin_pit" and len(sown) >= n:
                for k in range(1, len(sown)):
                    if sown[k - 1] == (pit - 1) % n and sown[k] == (pit + 1) % n:
                        return kind, [*sown[:k], pit, *sown[k:-1]], []
            if kind == "wrong_direction" and len(sown) >= 2 and all(s >= 0 for s in sown):
                back = [(pit - j) % n for j in range(1, len(sown) + 1)]
                return kind, [s if s != pit else (s - 1) % n for s in back], []
            if kind == "missed_capture" and captures:
                return kind, sown, []
            if kind == "wrong_capture" and not captures and sown and sown[-1] >= 0:
                last = sown[-1]
                before = self.position.pits[last] + sum(1 for s in sown if s == last)
                if before > 0 and last // 6 != pit // 6:
                    return kind, sown, [(last, before)]
        return None, sown, captures


# --- the device ----------------------------------------------------------------------------


@dataclass
class DeviceOptions:
    seed: int | None = None
    speed: float = 1.0
    rate_hz: int = 80
    faults: float = 0.0
    """Random link faults per minute of device time (each one of :data:`FAULTS`)."""
    fault_kinds: Sequence[Fault] = FAULTS
    noise_g: float = 0.03
    drift_g_per_min: float = 0.05
    seed_mean_g: float = 2.4
    seed_sd_g: float = 0.15
    unplug_s: float = 1.0
    player: PlayerOptions = field(default_factory=PlayerOptions)


class VirtualBoard:
    """The virtual device: physics + player behind the wire protocol on a pty.

    >>> import os
    >>> with VirtualBoard(DeviceOptions(seed=1, speed=0)) as board:
    ...     os.path.exists(board.port)
    True
    """

    def __init__(self, opts: DeviceOptions | None = None, port: str | None = None) -> None:
        self.opts = opts or DeviceOptions()
        self.rng = random.Random(self.opts.seed)
        o = self.opts
        rules = o.player.ruleset
        self.pits = rules.num_pits
        self.stores = rules.players
        self.channels = channels_for(rules)
        self.physics = BoardPhysics(
            self.rng,
            channels=self.channels,
            seed_mean_g=o.seed_mean_g,
            seed_sd_g=o.seed_sd_g,
            noise_g=o.noise_g,
            drift_g_per_min=o.drift_g_per_min,
        )
        self.player = VirtualPlayer(self.physics, self.rng, o.player)
        if port is None:
            self._tmpdir: tempfile.TemporaryDirectory[str] | None = tempfile.TemporaryDirectory(
                prefix="oware-sim-"
            )
            port = os.path.join(self._tmpdir.name, "board")
        else:
            self._tmpdir = None
        self.port = port
        # The factory tare stored in the (virtual) EEPROM: close to the cup weights.
        self.fw_tare_g = [c + self.rng.gauss(0.0, 0.05) for c in self.physics.cup_g]
        self.fw_scale = [1.0] * self.channels
        self.rate_hz = o.rate_hz if o.rate_hz in SAMPLE_RATES else 80
        # one LED per pit (the two-player board's 12; a wide board's 18 or 24)
        self.leds: list[tuple[int, int, int]] = [(0, 0, 0)] * max(LEDS, self.pits)
        self.boot_count = self.rng.randrange(1, 1000)
        self.t = 0.0  # device clock, seconds
        self.frames_sent = 0
        self.injected: list[tuple[float, str]] = []
        self._seq = 0
        self._sample = 0
        self._master = -1
        self._slave = -1
        self._pending: list[tuple[float, str]] = []  # (device time due, fault)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._script = self.player.script()
        self._next_action = 0.0
        self._drop_frames = 0
        self.plugged_at = 0.0

    @property
    def samples(self) -> int:
        """Readings sent since the last boot (the number in the latest Reading's ``sample``)."""
        return self._sample

    # lifecycle

    def start(self) -> VirtualBoard:
        self._plug()
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="virtual-board", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5.0)
            self._thread = None
        self._unplug()
        if self._tmpdir is not None:
            self._tmpdir.cleanup()
            self._tmpdir = None

    def __enter__(self) -> VirtualBoard:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def inject(self, fault: str, at: float | None = None) -> None:
        """Schedule a link fault (one of :data:`FAULTS`) for the device's next sample.

        With ``at``, the fault comes at the first sample at or after that device
        time instead: the host reads a few frames behind the device, so a fault it
        injects "now" lands a varying moment later, and a test that must hit the
        same moment of the game every run names it in device time.
        """
        if fault not in FAULTS:
            raise ValueError(f"unknown fault {fault!r}; choose from {', '.join(FAULTS)}")
        with self._lock:
            self._pending.append((float("-inf") if at is None else at, fault))

    def set_weight_override(self, ch: int, grams: float) -> None:
        """Put ``grams`` of something that is not a seed on a channel (tests, calibration)."""
        self.physics.cup_g[ch] += grams

    # pty plumbing

    def _plug(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no line editing: a binary link from the first byte
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        tmp = self.port + ".tmp"
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        os.symlink(os.ttyname(slave), tmp)
        os.replace(tmp, self.port)
        self.plugged_at = time.monotonic()

    def _unplug(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.port)
        for fd in (self._master, self._slave):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._master = self._slave = -1

    def _backlog(self) -> int:
        """Bytes written but not yet read by the host (waiting on the slave side)."""
        try:
            buf = fcntl.ioctl(self._slave, termios.FIONREAD, b"\0\0\0\0")
            return int(struct.unpack("i", buf)[0])
        except OSError:
            return 0

    def _write(self, data: bytes) -> bool:
        """Write all of ``data``; False if it was dropped (no room and not flow-controlled)."""
        if self.opts.speed <= 0:
            # Full speed: stay only a few frames ahead of the host, as a real-time
            # device would be, so an unplug loses no more than a real one does.
            while self._backlog() > MAX_BACKLOG and not self._stop.is_set():
                self._stop.wait(0.001)
        view = memoryview(data)
        while view:
            try:
                n = os.write(self._master, view)
                view = view[n:]
            except BlockingIOError:
                if self.opts.speed > 0 and len(view) == len(data):
                    return False  # nobody reading: the bytes fall on the floor, like USB
                if self._stop.is_set():
                    return False
                select.select([], [self._master], [], 0.05)
            except OSError as exc:
                if exc.errno in (errno.EIO, errno.EBADF):
                    return False
                raise
        return True

    def _send(self, msg_type: int, payload: bytes) -> None:
        frame = encode_frame(msg_type, self._seq, payload)
        self._seq = (self._seq + 1) & 0xFF
        if self._drop_frames > 0:
            self._drop_frames -= 1
            return
        if self._write(frame):
            self.frames_sent += 1

    def _hello(self, cause: int) -> None:
        h = Hello(
            PROTOCOL_VERSION,
            FIRMWARE_VERSION,
            self.pits,
            self.stores,
            self.rate_hz,
            self.boot_count,
            cause,
        )
        self._send(MsgType.HELLO, hello_payload(h))

    # the device loop

    def _run(self) -> None:
        self._hello(1)  # power-on
        wall0 = time.monotonic()
        dev0 = self.t
        decoder = FrameDecoder()
        try:
            while not self._stop.is_set():
                period = 1.0 / self.rate_hz
                self.t += period
                if self.opts.speed > 0:
                    lag = dev0 + (time.monotonic() - wall0) * self.opts.speed - self.t
                    if lag < 0:
                        self._stop.wait(-lag / self.opts.speed)
                    elif lag > 1.0:  # fell far behind (a slow machine): do not try to catch up
                        wall0 += lag / self.opts.speed
                self._faults()
                if self._master < 0:
                    continue
                self._commands(decoder)
                while self._next_action <= self.t and not self.player.finished:
                    try:
                        self._next_action = next(self._script)
                    except StopIteration:
                        break
                self.physics.advance(self.t)
                self._sample += 1
                mg = []
                for ch in range(self.channels):
                    g = (self.physics.weight(ch, self.t) - self.fw_tare_g[ch]) * self.fw_scale[ch]
                    mg.append(max(-(2**31), min(2**31 - 1, round(g * 1000.0))))
                self._send(*reading_message(Reading(self._sample, 0, tuple(mg))))
        except Exception:  # a bug here must not hang the host: log it and unplug
            log.exception("virtual board crashed")
            self._unplug()

    def _faults(self) -> None:
        o = self.opts
        due: list[str] = []
        if o.faults > 0 and self.rng.random() < o.faults / 60.0 / self.rate_hz:
            due.append(self.rng.choice(list(o.fault_kinds)))
        with self._lock:
            due += [fault for at, fault in self._pending if at <= self.t]
            self._pending = [(at, fault) for at, fault in self._pending if at > self.t]
        for fault in due:
            self.injected.append((self.t, fault))
            log.info("virtual board: injecting %s at t=%.2f", fault, self.t)
            if fault == "garbage":
                junk = bytes(self.rng.randrange(256) for _ in range(self.rng.randrange(20, 300)))
                if self._master >= 0:
                    self._write(junk)
            elif fault == "drop":
                self._drop_frames += self.rng.randrange(1, 20)
            elif fault == "reset":
                # The MCU restarts: counters back to zero, a new boot, a HELLO; the seeds stay.
                self.boot_count += 1
                self._seq = 0
                self._sample = 0
                self.t += 0.5  # the bootloader's wait
                if self._master >= 0:
                    self._hello(8)
            elif fault == "unplug":
                if self.opts.speed <= 0:
                    self._drain()
                self._unplug()
                self._stop.wait(self.opts.unplug_s)
                self.t += self.opts.unplug_s
                if not self._stop.is_set():
                    self.boot_count += 1  # USB power is cut: the board reboots on replug
                    self._seq = 0
                    self._sample = 0
                    self._plug()
                    self._hello(1)
                    if self.opts.speed <= 0:
                        self._await_host()

    def _drain(self, timeout_s: float = 10.0) -> None:
        """Wait (at full speed) until the host has read every byte sent, or ``timeout_s``.

        The backlog must read empty five times, 10 ms apart: bytes just written reach
        the count only when the kernel passes them on, later on a loaded machine. A
        host stalled for seconds (a test beside a training run) is waited for: at full
        speed the wait costs nothing when the host keeps up, and an unplug should lose
        what a real one loses, not the still board before it (CI once lost one).
        """
        deadline = time.monotonic() + timeout_s
        empty = 0
        while empty < 5 and time.monotonic() < deadline and not self._stop.is_set():
            empty = empty + 1 if self._backlog() == 0 else 0
            self._stop.wait(0.01)

    def _await_host(self, timeout_s: float = 5.0) -> None:
        """Wait (at full speed) for the host's first command on a new port, or ``timeout_s``.

        Our host sends IDENTIFY as soon as it has opened the port; streaming
        before that would only fill a buffer it throws away on opening.
        """
        decoder = FrameDecoder()
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and not self._stop.is_set():
            select.select([self._master], [], [], 0.05)
            if self._commands(decoder):
                return

    def _commands(self, decoder: FrameDecoder) -> bool:
        """Answer the host's commands waiting on the port; whether there were any."""
        try:
            data = os.read(self._master, 4096)
        except OSError:  # nothing waiting (BlockingIOError), or no reader yet (EIO)
            return False
        frames = decoder.feed(data)
        for f in frames:
            self._command(f.type, f.seq, f.payload)
        return bool(frames)

    def _command(self, cmd: int, seq: int, p: bytes) -> None:
        status = AckStatus.OK
        data = b""
        if cmd == MsgType.IDENTIFY:
            self._hello(0)
            return
        wide = self.channels > 16  # a 32-bit TARE mask (PROTOCOL.md, READING_WIDE)
        if cmd == MsgType.TARE and len(p) == (4 if wide else 2):
            mask = int.from_bytes(p, "little")
            for ch in range(self.channels):
                if mask >> ch & 1:
                    self.fw_tare_g[ch] = self._average(ch)
        elif cmd == MsgType.CALIBRATE and len(p) == 5:
            ch, mg = struct.unpack("<BI", p)
            raw = self._average(ch) - self.fw_tare_g[ch] if ch < self.channels else 0.0
            if ch >= self.channels or mg == 0:
                status = AckStatus.BAD_ARGUMENT
            elif raw <= 0.1:  # nothing on the cell (or a reversed one): refuse, keep the scale
                status = AckStatus.FAILED
            else:
                self.fw_scale[ch] = mg / 1000.0 / raw
                data = struct.pack("<f", self.fw_scale[ch])
        elif cmd == MsgType.SET_LEDS and len(p) == 3 * len(self.leds):
            self.leds = [(p[3 * i], p[3 * i + 1], p[3 * i + 2]) for i in range(len(self.leds))]
        elif cmd == MsgType.SET_RATE and len(p) == 1:
            if p[0] in SAMPLE_RATES:
                self.rate_hz = p[0]
            else:
                status = AckStatus.BAD_ARGUMENT
        elif cmd in (MsgType.TARE, MsgType.CALIBRATE, MsgType.SET_LEDS, MsgType.SET_RATE):
            status = AckStatus.BAD_ARGUMENT
        else:
            status = AckStatus.UNKNOWN_COMMAND
        self._send(MsgType.ACK, ack_payload(Ack(cmd, seq, status, data)))

    def _average(self, ch: int, n: int = 16) -> float:
        """Mean raw grams over ``n`` samples, as the firmware averages before taring."""
        return sum(self.physics.weight(ch, self.t) for _ in range(n)) / n


class CalibrationHelper:
    """The person at the virtual board during ``oware-companion calibrate --source sim://``:
    answers each step of the calibration (:mod:`firmware_bridge.calibration_wizard`) by
    doing on the board what it asks: take every seed off, put the known weight on each
    cell in turn (``known_weight_g``; None skips that optional step), lay out 4 seeds a pit.

    The board's own player must be still meanwhile (``PlayerOptions(max_moves=0)``).
    """

    def __init__(self, board: VirtualBoard, known_weight_g: float | None = None) -> None:
        self.board = board
        self.known = known_weight_g
        self.done: list[str] = []
        self._on: int | None = None
        self._next_cell = 0

    def ask(self, prompt: str) -> str:
        """Do what ``prompt`` asks; the answer the wizard expects ("" for Enter)."""
        ph = self.board.physics
        if self._on is not None and self.known is not None:  # the weight off its last cell
            ph.cup_g[self._on] -= self.known
            self._on = None
        pits, stores = self.board.pits, self.board.stores
        answer = ""
        if prompt.startswith("Step 1/3"):
            ph.set_counts([0] * pits, [0] * stores)
            self.done.append("took every seed off the board")
        elif prompt.startswith("Step 2/3"):
            answer = "" if self.known is None else f"{self.known:g}"
        elif "Put the" in prompt and self.known is not None:
            self._on = self._next_cell
            self._next_cell += 1
            ph.cup_g[self._on] += self.known
            self.done.append(f"put {self.known:g} g on cell {self._on}")
        elif prompt.startswith("Step 3/3"):
            ph.set_counts([4] * pits, [0] * stores)
            self.done.append(f"put 4 seeds in each of the {pits} pits")
        return answer


def main(argv: Sequence[str] | None = None) -> int:
    """Run a virtual board on its own and print its port (for ``serial://`` tests by hand).

    ``python -m firmware_bridge.virtual_board --seed 1 --speed 1`` then, in
    another terminal, ``oware-companion … --source serial:///tmp/…/board``.
    """
    import argparse

    ap = argparse.ArgumentParser(description="a virtual Oware sensor board on a pty")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--speed", type=float, default=1.0)
    ap.add_argument("--rate", type=int, default=80, choices=SAMPLE_RATES)
    ap.add_argument("--mistakes", type=float, default=0.0)
    ap.add_argument("--faults", type=float, default=0.0, help="link faults per minute")
    ap.add_argument("--port", default=None, help="symlink path to create (default: a temp dir)")
    args = ap.parse_args(argv)
    # SIGTERM (from a supervisor or a benchmark) should still remove the port symlink.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    opts = DeviceOptions(
        seed=args.seed,
        speed=args.speed,
        rate_hz=args.rate,
        faults=args.faults,
        player=PlayerOptions(mistakes=args.mistakes),
    )
    with VirtualBoard(opts, args.port) as board:
        print(board.port, flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
