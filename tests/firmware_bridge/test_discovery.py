"""`serial://auto`: finding the board among ports by asking each to identify itself."""

from __future__ import annotations

import os
import threading
import time
import tty
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.sources import open_source
from firmware_bridge import discovery
from firmware_bridge.virtual_board import DeviceOptions, PlayerOptions, VirtualBoard

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def decoy(tmp_path: Path) -> Iterator[str]:
    """A serial port that exists but never answers (some other USB gadget)."""
    master, slave = os.openpty()
    tty.setraw(slave)
    link = tmp_path / "decoy"
    link.symlink_to(os.ttyname(slave))
    yield str(link)
    os.close(master)
    os.close(slave)


def idle_board() -> VirtualBoard:
    return VirtualBoard(DeviceOptions(seed=1, speed=1.0, player=PlayerOptions(max_moves=0)))


def test_probe_tells_the_board_from_a_silent_port(decoy: str) -> None:
    with idle_board() as board:
        hello = discovery.probe(board.port, timeout_s=2.0)
        assert hello is not None and hello.protocol == 1
        t0 = time.monotonic()
        assert discovery.probe(decoy, timeout_s=0.5) is None
        assert time.monotonic() - t0 < 2.0
        assert discovery.probe("/nonexistent/port", timeout_s=0.5) is None


def test_find_board_from_the_environment(monkeypatch: pytest.MonkeyPatch, decoy: str) -> None:
    with idle_board() as board:
        pattern = os.pathsep.join([decoy, str(Path(board.port).parent / "b*")])
        monkeypatch.setenv(discovery.ENV_VAR, pattern)
        ports = discovery.candidate_ports()
        assert ports[:2] == [decoy, board.port]
        assert discovery.BoardFinder(timeout_s=0.5)() == board.port


def test_serial_auto_source_connects(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    with idle_board() as board:
        monkeypatch.setenv(discovery.ENV_VAR, board.port)
        src = open_source(f"serial://auto?calibration={_calibration(tmp_path)}")
        src.open()
        got: list[object] = []

        def pump() -> None:
            for item in src:
                got.append(item)
                if not isinstance(item, dict):
                    break  # the first observation: the whole chain works

        th = threading.Thread(target=pump, daemon=True)
        th.start()
        th.join(timeout=10)
        src.close()
        assert src.link.port == board.port
        assert src.health()["firmware"] == "1.0.0"
        assert any(not isinstance(g, dict) for g in got), "no observation came through"


def _calibration(tmp_path: Path) -> Path:
    from firmware_bridge.weights import Calibration

    path = tmp_path / "cal.json"
    Calibration().save(path)
    return path


def test_serial_auto_names_a_port_it_could_not_open_instead_of_saying_plug_it_in(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A board the user may not open looks, to a search, like no board at all: the line
    names the port that refused and what to do (here a path that is no serial port)."""
    from firmware_bridge.link import SerialLink

    monkeypatch.setenv(discovery.ENV_VAR, "")
    monkeypatch.setattr(discovery.list_ports, "comports", lambda: [])
    with pytest.raises(LookupError, match=r"^no sensor board found on any serial port"):
        discovery.look_for_board()
    not_a_port = tmp_path / "ttyUSB9"
    not_a_port.write_text("")
    monkeypatch.setenv(discovery.ENV_VAR, str(not_a_port))
    link = SerialLink(discovery.look_for_board, max_backoff_s=0.2)
    first = next(iter(link))
    link.close()
    assert first["detail"] == (
        f"no sensor board answered; {not_a_port}: not a serial port: "
        "name the board's port (serial://auto finds it)"
    )


def test_serial_auto_says_which_port_is_silent_and_which_speaks_another_protocol(
    monkeypatch: pytest.MonkeyPatch, decoy: str
) -> None:
    """Plugged in but not answering (no firmware on it), or answering in another version
    of the protocol: each port is named with what to do, not "plug it in"."""
    monkeypatch.setattr(discovery.list_ports, "comports", lambda: [])
    monkeypatch.setenv(discovery.ENV_VAR, decoy)
    with pytest.raises(LookupError) as silent:
        discovery.look_for_board()
    assert str(silent.value) == (
        f"no sensor board answered; {decoy}: no answer"
        " (is the sensor board's firmware on it? hardware/README.md)"
    )
    with idle_board() as board:
        monkeypatch.setenv(discovery.ENV_VAR, board.port)
        monkeypatch.setattr(discovery, "PROTOCOL_VERSION", 2)  # a companion newer than it
        with pytest.raises(LookupError) as other:
            discovery.look_for_board()
    assert str(other.value) == (
        f"no sensor board answered; {board.port}: speaks protocol 1, this companion 2:"
        " update the firmware or the companion"
    )


def test_a_device_that_does_not_answer_is_left_alone_between_looks_and_asked_when_replugged(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``serial://auto`` looks about every second while no board is there. Another device
    (an Arduino running something else) is opened, so reset, only once per ``ask_again_s``
    (the questions it got counted on the far end of its pseudo-terminal), and said to be
    silent in between; unplugged and plugged in again, it is asked at once."""
    from firmware_bridge.protocol import FrameDecoder, MsgType

    master, slave = os.openpty()
    tty.setraw(slave)
    os.set_blocking(master, False)
    gadget = tmp_path / "gadget"
    gadget.symlink_to(os.ttyname(slave))
    monkeypatch.setattr(discovery.list_ports, "comports", lambda: [])
    monkeypatch.setenv(discovery.ENV_VAR, str(gadget))
    now = [0.0]
    finder = discovery.BoardFinder(ask_again_s=30.0, timeout_s=0.3, clock=lambda: now[0])
    decoder = FrameDecoder()

    def questions() -> int:
        """IDENTIFY frames the device got since the last call."""
        got = b""
        while True:
            try:
                got += os.read(master, 4096)
            except BlockingIOError:
                break
        return sum(f.type == MsgType.IDENTIFY for f in decoder.feed(got))

    silent = f"no sensor board answered; {gadget}: {discovery.SILENT}"
    try:
        for second in range(5):
            now[0] = float(second)
            with pytest.raises(LookupError) as looked:
                finder()
            assert str(looked.value) == silent
        assert questions() == 1
        now[0] = 31.0  # its time is up: asked again
        with pytest.raises(LookupError):
            finder()
        assert questions() == 1
        gadget.unlink()  # unplugged: no port at all
        now[0] = 32.0
        with pytest.raises(LookupError, match=r"^no sensor board found on any serial port"):
            finder()
        gadget.symlink_to(os.ttyname(slave))  # plugged in again: asked at once
        now[0] = 33.0
        with pytest.raises(LookupError):
            finder()
        assert questions() == 1
        # a one-off look (no link) always asks
        with pytest.raises(LookupError):
            discovery.look_for_board()
        assert questions() == 1
    finally:
        os.close(master)
        os.close(slave)
