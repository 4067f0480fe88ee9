"""The real firmware, compiled with avr-gcc, running in simavr with 14 emulated HX711s.

The harness (hardware/simavr/harness.c) exposes the firmware's UART on a
pseudo-terminal; the host side is the product's own SerialLink and
SensorSource. These tests do not skip: the toolchain is installed by
scripts/setup.sh, so its absence is a broken setup and must fail loudly.
"""

from __future__ import annotations

import queue
import random
import struct
import threading
import time
from collections.abc import Iterator

import pytest

from core import Position
from core.observation import Observation, most_likely
from core.referee import ALERT_TYPES, Referee, presets
from firmware_bridge.link import SerialLink
from firmware_bridge.protocol import (
    CHANNELS,
    LEDS,
    AckStatus,
    Hello,
    MsgType,
    Reading,
    calibrate_payload,
    encode_frame,
    leds_payload,
    rate_payload,
    tare_payload,
)
from firmware_bridge.simavr_harness import HarnessError, SimavrBoard, build, missing_tools
from firmware_bridge.source import SensorSource
from firmware_bridge.weights import Calibration, learn_seed_weight

pytestmark = [pytest.mark.simavr, pytest.mark.timeout(120)]

SPEED = 2.0  # simulated seconds per wall second (the harness keeps the AVR clock in step)


@pytest.fixture(scope="module", autouse=True)
def built() -> None:
    if missing_tools():
        pytest.fail(
            f"firmware toolchain missing: {', '.join(missing_tools())}; run scripts/setup.sh"
        )
    try:
        build()
    except HarnessError as exc:
        pytest.fail(str(exc))


class Running:
    """A harness plus a SensorSource reading it in a worker thread."""

    def __init__(self, board: SimavrBoard, cal: Calibration | None = None) -> None:
        self.board = board
        self.source = SensorSource(SerialLink(board.port), cal)
        self.items: queue.Queue[object] = queue.Queue()
        self.seen: list[Observation] = []
        self.source.open()
        self._thread = threading.Thread(target=self._pump, daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        for item in self.source:
            self.items.put(item)

    @property
    def link(self) -> SerialLink:
        return self.source.link

    def wait_hello(self, timeout_s: float = 10.0) -> Hello:
        deadline = time.monotonic() + timeout_s
        while self.link.hello is None:
            assert time.monotonic() < deadline, "no HELLO from the firmware"
            time.sleep(0.05)
        return self.link.hello

    def observations(self) -> Iterator[Observation]:
        while True:
            try:
                item = self.items.get(timeout=0.05)
            except queue.Empty:
                return
            if isinstance(item, Observation):
                self.seen.append(item)
                yield item

    def wait_stable(self, counts: list[int], timeout_s: float = 10.0) -> Observation:
        """Wait for a stable observation whose most likely pit and store counts are ``counts``."""
        deadline = time.monotonic() + timeout_s
        last: list[int | None] = []
        while time.monotonic() < deadline:
            for o in self.observations():
                assert o.stores is not None
                last = [most_likely(r) for r in (*o.pits, *o.stores)]
                if o.stable and last == counts:
                    return o
        raise AssertionError(f"never observed {counts}; last seen {last}")

    def close(self) -> None:
        self.source.close()
        self._thread.join(timeout=5)


@pytest.fixture
def running() -> Iterator[Running]:
    board = SimavrBoard.start(speed=SPEED, seed=5)
    r = Running(board)
    try:
        yield r
    finally:
        r.close()
        summary = board.stop()
        assert board.sck_violations == 0, "SCK stayed high too long: the HX711s would power down"
        assert board.read_overlaps == 0, "a read spanned the next conversion: garbage on hardware"
        assert "firmware stopped" not in summary, summary


def test_hello_rate_and_leds(running: Running) -> None:
    hello = running.wait_hello()
    assert (hello.protocol, hello.pits, hello.stores) == (1, 12, 2)
    assert hello.firmware_version == "1.0.0"
    assert running.link.request(MsgType.SET_RATE, rate_payload(80)).status == AckStatus.OK
    running.board.wait_rate(80)  # raises if the RATE line never goes high
    assert running.link.request(MsgType.SET_RATE, b"\x37").status == AckStatus.BAD_ARGUMENT
    colors = [(i * 20, 255 - i * 20, i) for i in range(LEDS)]
    n = len(running.board.leds)
    assert running.link.request(MsgType.SET_LEDS, leds_payload(colors)).status == AckStatus.OK
    assert running.board.wait_leds(n + 1) == colors
    assert running.link.request(0xEE).status == AckStatus.UNKNOWN_COMMAND


def test_firmware_ignores_line_noise_and_bad_frames(running: Running) -> None:
    running.wait_hello()
    assert running.link.request(MsgType.SET_RATE, rate_payload(80)).status == AckStatus.OK
    rng = random.Random(9)
    noise = bytes(rng.randrange(256) for _ in range(300))
    bad_crc = bytearray(encode_frame(MsgType.SET_RATE, 77, rate_payload(10)))
    bad_crc[-1] ^= 0xFF
    running.link.write_raw(noise + bytes(bad_crc) + b"\xa5\x5a\xff")
    # The board still answers commands after the garbage …
    colors = [(1, 2, 3)] * LEDS
    n = len(running.board.leds)
    assert running.link.request(MsgType.SET_LEDS, leds_payload(colors)).status == AckStatus.OK
    # … and did not obey the corrupted SET_RATE: the RATE line stayed high. Waiting for
    # the LED report first means every report the garbage could have caused was read.
    assert running.board.wait_leds(n + 1) == colors
    assert running.board.rates[-1] == 80
    # Still 80 readings a second: 15 more arrive within 1 simulated second (at the
    # 10/s the garbage asked for they would take 1.5 s). Timed on the board's clock,
    # so a loaded host that runs the simulator slowly does not fail it.
    before = running.link.tracker.last_sample or 0
    start = running.board.sim_time()
    deadline = time.monotonic() + 10
    while (running.link.tracker.last_sample or 0) - before < 15:
        assert time.monotonic() < deadline, "readings stopped after the garbage"
        time.sleep(0.01)
    assert running.board.sim_time() - start < 1.0


def test_tare_and_calibrate_with_a_known_weight(running: Running) -> None:
    running.wait_hello()
    link = running.link
    assert link.request(MsgType.SET_RATE, rate_payload(80)).status == AckStatus.OK
    assert link.request(MsgType.TARE, tare_payload()).status == AckStatus.OK
    running.board.set_weight(3, 100.0)
    ack = link.request(MsgType.CALIBRATE, calibrate_payload(3, 100_000), timeout_s=10)
    assert ack.status == AckStatus.OK
    (scale,) = struct.unpack("<f", ack.data)
    assert scale == pytest.approx(running.board.cells[3].gain, rel=0.01)
    # Calibration on an empty pit is refused rather than storing nonsense.
    assert link.request(MsgType.CALIBRATE, calibrate_payload(5, 100_000), timeout_s=10).status == (
        AckStatus.FAILED
    )
    running.board.sleep_sim(0.5)
    grams = running.source.builder.latest_grams
    assert grams is not None
    assert grams[3] == pytest.approx(100.0, abs=0.2)
    assert abs(grams[0]) < 0.2  # tared and empty


def test_a_dead_cell_is_reported_unseen_not_invented(running: Running) -> None:
    running.wait_hello()
    assert running.link.request(MsgType.SET_RATE, rate_payload(80)).status == AckStatus.OK
    assert running.link.request(MsgType.TARE, tare_payload(), timeout_s=10).status == AckStatus.OK
    running.board.kill_cell(7)
    deadline = time.monotonic() + 10
    seen = None
    while seen is None and time.monotonic() < deadline:
        for o in running.observations():
            others = all(o.pits[i] is not None for i in range(12) if i != 7)
            if o.stable and o.pits[7] is None and others:
                seen = o
                break
    assert seen is not None, "pit b (dead cell) was never reported unseen on a stable board"
    # The live cells can still be tared with one dead.
    assert running.link.request(MsgType.TARE, tare_payload(), timeout_s=10).status == AckStatus.OK
    # Readings keep coming at the stuck-channel pace: the firmware has not hung.
    before = running.link.tracker.last_sample or 0
    running.board.sleep_sim(0.6)
    deadline = time.monotonic() + 5  # what the board sent, the host may still be reading
    while (running.link.tracker.last_sample or 0) <= before:
        assert time.monotonic() < deadline, "no reading since the cell died: firmware hung?"
        time.sleep(0.01)


def test_readings_are_clean_on_a_still_board(running: Running) -> None:
    """No glitches: every reading of a still board lies within noise of its median.

    (A firmware that let the UART delay its HX711 reads produced a garbage
    reading every 16th sample; this guards against that coming back.)
    """
    running.wait_hello()
    assert running.link.request(MsgType.SET_RATE, rate_payload(80)).status == AckStatus.OK
    running.board.set_weights([2.4 * (i % 5) for i in range(CHANNELS)])
    running.board.sleep_sim(0.3)
    grams = []
    end = running.board.sim_time() + 3.0  # 3 simulated seconds, 240 readings
    while running.board.sim_time() < end:
        for _ in range(25):
            g = running.source.builder.latest_grams  # updated by the pump thread per reading
            if g is not None:
                grams.append(g.copy())
            time.sleep(0.004)
    assert len(grams) > 50
    for ch in range(CHANNELS):
        values = sorted(float(g[ch]) for g in grams)
        median = values[len(values) // 2]
        assert all(abs(v - median) < 0.5 for v in values), f"channel {ch}: glitch in {values}"


def test_weights_laid_out_ahead_land_on_time_however_long_the_host_stalls(
    running: Running,
) -> None:
    """The harness applies scheduled weights at their simulated times: a host that
    stalls for longer than the whole schedule still sees each weight for exactly as
    long as scheduled, on the board's own sample clock."""
    running.wait_hello()
    link = running.link
    assert link.request(MsgType.SET_RATE, rate_payload(80)).status == AckStatus.OK
    assert link.request(MsgType.TARE, tare_payload(), timeout_s=10).status == AckStatus.OK
    running.board.sleep_sim(0.3)
    log: list[tuple[float, float]] = []  # (time on the board's sample counter, grams on pit D)
    builder = running.source.builder
    push = builder.push

    def logged(reading: Reading, t: float) -> Observation | None:
        out = push(reading, t)
        assert builder.latest_grams is not None
        log.append((reading.sample / 80, float(builder.latest_grams[3])))
        return out

    builder.push = logged  # type: ignore[method-assign]
    last = running.board.schedule([(0.0, 3, 100.0), (0.5, 3, 0.0), (1.0, 3, 100.0), (1.3, 3, 0.0)])
    time.sleep(2.0)  # longer than the schedule (1.8 simulated s at twice real time)
    running.board.sleep_until_sim(last + 0.3)
    time.sleep(0.2)  # what the board sent, the pump may still be reading
    heavy = [t for t, g in log if g > 50.0]
    # two stretches, split where the readings jump by more than a sample
    gaps = [i for i in range(1, len(heavy)) if heavy[i] - heavy[i - 1] > 0.05]
    assert len(gaps) == 1, f"expected two heavy stretches, got {len(gaps) + 1}"
    first, second = heavy[: gaps[0]], heavy[gaps[0] :]
    sample = 1 / 80
    assert first[-1] - first[0] + sample == pytest.approx(0.5, abs=2 * sample)
    assert second[-1] - second[0] + sample == pytest.approx(0.3, abs=2 * sample)
    assert second[0] - first[0] == pytest.approx(1.0, abs=2 * sample)


def lay_out(board: SimavrBoard, seeds: list[list[float]]) -> None:
    board.set_weights([sum(s) for s in seeds])


@pytest.mark.slow
def test_firmware_plays_a_game_seed_by_seed(running: Running) -> None:
    """Calibrate like a board maker, then play moves by moving simulated seeds."""
    rng = random.Random(3)
    board, link = running.board, running.link
    running.wait_hello()
    assert link.request(MsgType.SET_RATE, rate_payload(80)).status == AckStatus.OK
    # 1. Empty board: tare every channel.
    assert link.request(MsgType.TARE, tare_payload(), timeout_s=10).status == AckStatus.OK
    # 2. A 100 g weight on every cell in turn, one CALIBRATE each (here all at once).
    board.set_weights([100.0] * CHANNELS)
    for ch in range(CHANNELS):
        assert (
            link.request(MsgType.CALIBRATE, calibrate_payload(ch, 100_000), timeout_s=10).status
            == 0
        )
    board.set_weights([0.0] * CHANNELS)
    # 3. The start position: learn the seed weight on the host.
    position = Position.initial("abapa")
    seeds: list[list[float]] = [[rng.gauss(2.4, 0.12) for _ in range(n)] for n in position.pits]
    seeds += [[], []]
    lay_out(board, seeds)
    board.sleep_sim(1.0)
    grams = running.source.builder.latest_grams
    assert grams is not None
    mean, sd = learn_seed_weight(list(grams[:12]), 4, 0.05)
    assert mean == pytest.approx(2.4, abs=0.1)
    running.source.builder = type(running.source.builder)(
        Calibration(seed_mean_g=mean, seed_sd_g=sd, noise_g=0.05), 80, "sensor"
    )
    running.wait_stable([*position.pits, *position.stores])
    first = len(running.seen) - 1  # the referee watches from the start position on
    # 4. Play: lift with a pressing hand, sow seed by seed, take captures to the store.
    moves = ["C", "d", "F", "a", "B"]
    for move in moves:
        pit = "ABCDEFabcdef".index(move)
        out = position.outcome(pit)
        # The whole move is laid out ahead on the simulated clock: a hand presses,
        # never quite still, then lifts the seeds, sows one every 0.3 s and takes
        # the captures to the store (the harness applies each change at its time,
        # however the host is loaded).
        changes: list[tuple[float, int, float]] = [
            (0.1 * i, pit, sum(seeds[pit]) + press) for i, press in enumerate((150.0, 175.0, 140.0))
        ]
        t = 0.3
        hand = seeds[pit]
        seeds[pit] = []
        changes.append((t, pit, 0.0))
        for slot in out.sown:
            t += 0.3
            ch = slot if slot >= 0 else 12 + (-1 - slot)
            seeds[ch].append(hand.pop())
            changes.append((t, ch, sum(seeds[ch])))
        for cpit, _n in out.captures:
            t += 0.4
            seeds[12 + out.player] += seeds[cpit]
            seeds[cpit] = []
            changes += [(t, cpit, 0.0), (t, 12 + out.player, sum(seeds[12 + out.player]))]
        board.sleep_until_sim(board.schedule(changes))
        position = out.position
        running.wait_stable([*position.pits, *position.stores])
    # The board then rests as players do: a sensor's move is confirmed on two sure
    # readings in a row (its noise changes frame to frame), the stream goes on meanwhile.
    board.sleep_sim(3.0)
    for _ in running.observations():
        pass
    # 5. What the companion makes of it: the referee sees exactly these moves, no alert.
    referee = Referee(Position.initial("abapa"), **presets.SENSOR)
    events = [e for o in running.seen[first:] for e in referee.observe(o)]
    assert [e.to_json()["name"] for e in events if e.type == "move"] == moves
    assert not [e.to_json() for e in events if e.type in ALERT_TYPES]
    h = running.link.health()
    assert h["decoder"]["crc_errors"] == 0
    assert h["sequence"]["lost"] == 0 and h["sequence"]["resets"] == 0
