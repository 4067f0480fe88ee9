"""Readings count only after the board has said who it is (its HELLO).

A board that was already running when the companion opened the port streams
readings straight away; until a HELLO names a protocol this companion speaks,
those bytes cannot be trusted to mean weights. Here a hand-written "board" on
a real pseudo-terminal streams readings, ignores the first IDENTIFY (as if
line noise ate it) and answers the next one.
"""

from __future__ import annotations

import os
import select
import threading
import tty
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from core.observation import Observation, most_likely
from firmware_bridge.link import SerialLink
from firmware_bridge.protocol import (
    CHANNELS,
    PITS,
    PROTOCOL_VERSION,
    FrameDecoder,
    Hello,
    MsgType,
    Reading,
    encode_frame,
    hello_payload,
    reading_payload,
)
from firmware_bridge.source import SensorSource

pytestmark = pytest.mark.timeout(60)

SEED_G = 2.4  # the default calibration's seed weight
BEFORE_HELLO_MG = 100_000  # 100 g in every pit: 40-odd seeds, if anyone believed it
AFTER_HELLO_MG = int(4 * SEED_G * 1000)  # four seeds in every pit


@dataclass
class LateBoard:
    """Streams readings at about 200 a second; says HELLO only on the second IDENTIFY."""

    master: int
    protocol: int = PROTOCOL_VERSION
    identifies: int = 0
    hello_sent_at_sample: int | None = None
    _stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        decoder = FrameDecoder()
        seq, sample = 0, 0
        while not self._stop.is_set():
            ready, _, _ = select.select([self.master], [], [], 0.005)
            if ready:
                try:
                    data = os.read(self.master, 4096)
                except OSError:
                    return
                for frame in decoder.feed(data):
                    if frame.type == MsgType.IDENTIFY:
                        self.identifies += 1
                        if self.identifies == 2:
                            hello = Hello(self.protocol, (1, 0, 0), PITS, 2, 80, 7, 1)
                            os.write(
                                self.master, encode_frame(MsgType.HELLO, seq, hello_payload(hello))
                            )
                            seq = (seq + 1) & 0xFF
                            self.hello_sent_at_sample = sample
            mg = AFTER_HELLO_MG if self.hello_sent_at_sample is not None else BEFORE_HELLO_MG
            weights = (mg,) * PITS + (0,) * (CHANNELS - PITS)
            reading = reading_payload(Reading(sample, 0, weights))
            os.write(self.master, encode_frame(MsgType.READING, seq, reading))
            seq, sample = (seq + 1) & 0xFF, sample + 1

    def stop(self) -> None:
        self._stop.set()


@pytest.fixture
def port(tmp_path: Path) -> Iterator[tuple[str, int]]:
    master, slave = os.openpty()
    tty.setraw(slave)
    link = tmp_path / "board"
    link.symlink_to(os.ttyname(slave))
    yield str(link), master
    os.close(master)
    os.close(slave)


def read_source(
    port: str, board: LateBoard, wall_s: float = 20
) -> tuple[SensorSource, list[Observation], list[dict[str, object]]]:
    thread = threading.Thread(target=board.run, daemon=True)
    thread.start()
    source = SensorSource(SerialLink(port))
    source.open()
    observations: list[Observation] = []
    statuses: list[dict[str, object]] = []
    # Dropped readings yield nothing, so the loop may wait: close the source on time.
    timer = threading.Timer(wall_s, source.close)
    timer.start()
    try:
        for item in source:
            if isinstance(item, Observation):
                observations.append(item)
            else:
                statuses.append(item)
            if isinstance(item, Observation) and item.stable:
                break
    finally:
        timer.cancel()
        source.close()
        board.stop()
        thread.join(timeout=5)
    return source, observations, statuses


def test_readings_before_the_hello_are_not_used(port: tuple[str, int]) -> None:
    path, master = port
    board = LateBoard(master)
    source, observations, _ = read_source(path, board)
    # The lost IDENTIFY was asked again, and the board answered the second time.
    assert board.identifies >= 2 and board.hello_sent_at_sample is not None
    assert source.health()["readings_before_hello"] >= 40
    # Every observation comes from after the HELLO: four seeds a pit (or unseen while
    # the readings settle), never the 40-odd seeds of the 100 g before it.
    assert observations and observations[-1].stable
    assert [most_likely(r) for r in observations[-1].pits] == [4] * PITS
    for o in observations:
        assert {most_likely(r) for r in o.pits} <= {4, None}


def test_a_board_of_another_protocol_never_gives_an_observation(port: tuple[str, int]) -> None:
    path, master = port
    board = LateBoard(master, protocol=PROTOCOL_VERSION + 1)
    _, observations, statuses = read_source(path, board, wall_s=3)
    assert board.hello_sent_at_sample is not None
    assert not observations
    refusals = [s for s in statuses if "protocol" in str(s.get("detail"))]
    assert refusals and refusals[0]["state"] == "disconnected"
