"""The virtual board's physics, player and mistakes (no pty), and its device commands (pty)."""

from __future__ import annotations

import random
import struct
import threading
import time

import pytest

from core import Position
from firmware_bridge.link import SerialLink
from firmware_bridge.protocol import (
    AckStatus,
    Hello,
    MsgType,
    Reading,
    leds_payload,
    rate_payload,
)
from firmware_bridge.virtual_board import (
    BoardPhysics,
    DeviceOptions,
    PlayerOptions,
    VirtualBoard,
    VirtualPlayer,
)

pytestmark = pytest.mark.timeout(60)


def run_player(opts: PlayerOptions, seed: int = 1, until: float = 600.0) -> VirtualPlayer:
    rng = random.Random(seed)
    player = VirtualPlayer(BoardPhysics(rng), rng, opts)
    for t in player.script():
        if t > until:
            break
    return player


def test_player_sows_seed_by_seed_like_the_rules() -> None:
    player = run_player(PlayerOptions(max_moves=12, loop=False))
    moves = [e for e in player.truth if e.kind == "move"]
    assert len(moves) == 12
    pos = Position.initial("abapa")
    for e in moves:
        assert e.pit is not None
        pos = pos.play(e.pit)
        assert e.counts == (*pos.pits, *pos.stores)
    assert all(sum(e.counts) == 48 for e in moves)


def test_scripted_moves_and_timing() -> None:
    player = run_player(PlayerOptions(moves=["C", "d"], loop=False))
    moves = [e for e in player.truth if e.kind == "move"]
    assert [e.pit for e in moves] == [2, 9]
    # A person's pace: think 1.5-4 s, then about 0.25-0.5 s per seed.
    assert 1.5 + 0.45 + 4 * 0.25 <= moves[0].t <= 4.0 + 0.45 + 4 * 0.5
    assert player.finished


def test_engine_callable_chooses_the_moves() -> None:
    def leftmost(pos: Position, rng: random.Random) -> int:
        return min(pos.legal_moves())

    player = run_player(PlayerOptions(chooser=leftmost, max_moves=4, loop=False))
    pos = Position.initial("abapa")
    for e in (e for e in player.truth if e.kind == "move"):
        assert e.pit == min(pos.legal_moves())
        assert e.pit is not None
        pos = pos.play(e.pit)


def mistake(
    kind: str, position: Position, pit: int
) -> tuple[str | None, list[int], list[tuple[int, int]]]:
    rng = random.Random(0)
    player = VirtualPlayer(BoardPhysics(rng), rng, PlayerOptions(mistake_kinds=[kind]))
    player.position = position
    out = position.outcome(pit)
    return player._mistake(pit, list(out.sown), list(out.captures))


def test_mistake_wrong_direction() -> None:
    kind, sown, caps = mistake("wrong_direction", Position.initial("abapa"), 2)
    assert kind == "wrong_direction" and sown == [1, 0, 11, 10] and caps == []


def test_mistake_skip_pit_shifts_the_rest() -> None:
    kind, sown, _ = mistake("skip_pit", Position.initial("abapa"), 2)
    assert kind == "skip_pit"
    assert sown != [3, 4, 5, 6] and len(sown) == 4 and sown[-1] == 7


def test_mistake_origin_pit_on_a_lap() -> None:
    pos = Position.from_json(
        {"rules": "abapa", "pits": [15, *([3] * 11)], "stores": [0, 0], "to_move": 0}
    )
    kind, sown, _ = mistake("origin_pit", pos, 0)
    assert kind == "origin_pit"
    assert sown.count(0) == 1 and len(sown) == 15  # one seed went back into the origin


def test_mistakes_that_do_not_apply_are_not_made() -> None:
    # No lap of 12 from the start position, no capture to miss.
    assert mistake("origin_pit", Position.initial("abapa"), 2)[0] is None
    assert mistake("missed_capture", Position.initial("abapa"), 2)[0] is None


def test_player_mistakes_are_recorded_then_fixed() -> None:
    opts = PlayerOptions(max_moves=6, loop=False, mistakes=1.0, mistake_kinds=["wrong_direction"])
    player = run_player(opts)
    made = [e for e in player.truth if e.kind == "move" and e.detail == "wrong_direction"]
    fixed = [e for e in player.truth if e.kind == "fixed"]
    assert made and len(fixed) == len(made)
    for e in fixed:  # after the fix, the board is the legal position again
        assert sum(e.counts) == 48


def test_physics_press_impact_noise_and_drift() -> None:
    rng = random.Random(3)
    ph = BoardPhysics(rng, noise_g=0.02, drift_g_per_min=0.05)
    ph.set_counts([4] * 12, [0, 0])
    base = ph.cup_g[0] + sum(ph.seeds[0])
    assert ph.weight(0, 0.0) == pytest.approx(base, abs=0.1)
    ph.press(0, 1.0, 0.3, 100.0)
    assert ph.weight(0, 1.1) > base + 80
    assert ph.weight(0, 1.5) == pytest.approx(base, abs=0.1)
    ph.take_all(1)
    ph.drop(1, 2.0)
    assert ph.weight(1, 2.001) > ph.cup_g[1] + 5  # the impact spike
    assert ph.weight(1, 2.3) == pytest.approx(ph.cup_g[1] + sum(ph.seeds[1]), abs=0.1)
    for t in range(1, 601):
        ph.advance(float(t))
    assert max(abs(d) for d in ph.drift_g) < 1.0  # ten minutes of creep stay well under a seed


def test_device_commands_over_the_pty() -> None:
    board = VirtualBoard(DeviceOptions(seed=1, speed=1.0, player=PlayerOptions(max_moves=0)))
    board.start()
    link = SerialLink(board.port)
    link.open()
    readings: list[Reading] = []
    hellos: list[Hello] = []

    def pump() -> None:
        for item in link:
            if isinstance(item, Reading):
                readings.append(item)
            elif isinstance(item, Hello):
                hellos.append(item)

    th = threading.Thread(target=pump, daemon=True)
    th.start()
    try:
        deadline = time.monotonic() + 5
        while not hellos and time.monotonic() < deadline:
            time.sleep(0.02)
        assert hellos and hellos[0].pits == 12 and hellos[0].rate_hz == 80
        colors = [(i, 2 * i, 3 * i) for i in range(12)]
        assert link.request(MsgType.SET_LEDS, leds_payload(colors)).status == AckStatus.OK
        assert board.leds == colors
        assert link.request(MsgType.SET_RATE, rate_payload(10)).status == AckStatus.OK
        # Ten readings a second of the board's own clock: on a loaded machine it falls
        # behind the wall clock and skips ahead, so wall-clock seconds would prove nothing.
        t0, s0 = board.t, board.samples
        deadline = time.monotonic() + 10
        while board.t < t0 + 2.0 and time.monotonic() < deadline:
            time.sleep(0.05)
        t1, s1 = board.t, board.samples
        assert t1 >= t0 + 2.0
        assert abs((s1 - s0) - 10 * (t1 - t0)) <= 1.5  # at 80 a second it would be 160
        while not any(r.sample >= s1 for r in readings) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert any(r.sample >= s1 for r in readings)  # and they reach the host
        assert link.request(MsgType.SET_RATE, b"\x21").status == AckStatus.BAD_ARGUMENT
        assert link.request(0x9F).status == AckStatus.UNKNOWN_COMMAND
        ack = link.request(MsgType.CALIBRATE, struct.pack("<BI", 3, 0))
        assert ack.status == AckStatus.BAD_ARGUMENT
    finally:
        link.close()
        th.join(timeout=3)
        board.stop()
