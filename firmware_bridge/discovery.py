"""Finding the sensor board for ``serial://auto``.

Candidates are the serial ports pyserial lists (``serial.tools.list_ports``),
USB-serial bridges first (the Nano's CH340, an Uno's ATmega16U2, FTDI, CP210x).
Each candidate is opened and asked to IDENTIFY; the first that answers with a
HELLO of our protocol is the board. Opening an Arduino resets it (DTR), so a
probe also accepts the HELLO it sends when it boots.

Pseudo-terminals are not listed by pyserial, so extra candidates (the virtual
board, a ``socat`` link, a udev symlink) can be given as glob patterns in the
environment variable ``OWARE_SERIAL_PORTS`` (separated by ``os.pathsep``).

The link of ``serial://auto`` looks again about every second while no board is
there (:class:`BoardFinder`). A port that was opened and did not answer (some other
Arduino, a GPS, a printer) is not opened again for :data:`ASK_AGAIN_S`: every opening
resets such a device, and would cost each look the probe's seconds. A port that goes
from the list and comes back (plugged in again) is asked at once.
"""

from __future__ import annotations

import glob
import logging
import os
import time
from collections.abc import Callable

import serial
from serial.tools import list_ports

from firmware_bridge.link import BAUD
from firmware_bridge.port_errors import NO_PORT, why_not_opened
from firmware_bridge.protocol import (
    PROTOCOL_VERSION,
    FrameDecoder,
    Hello,
    MsgType,
    encode_frame,
    parse_message,
)

log = logging.getLogger(__name__)

ENV_VAR = "OWARE_SERIAL_PORTS"

SILENT = "no answer (is the sensor board's firmware on it? hardware/README.md)"

ASK_AGAIN_S = 30.0
"""Seconds before a port that was opened and did not answer as the board is opened again
(the time to put the firmware on a board that lacked it)."""

#: USB vendor:product ids of the serial bridges Arduino-class boards use.
KNOWN_USB_IDS = {
    (0x1A86, 0x7523),  # WCH CH340 (most Nano clones)
    (0x2341, 0x0043),  # Arduino Uno (ATmega16U2)
    (0x2341, 0x0001),  # Arduino Uno (8U2)
    (0x0403, 0x6001),  # FTDI FT232R (original Nano)
    (0x10C4, 0xEA60),  # Silicon Labs CP210x
}


def candidate_ports() -> list[str]:
    """Ports worth probing, most likely first."""
    extra: list[str] = []
    for pattern in os.environ.get(ENV_VAR, "").split(os.pathsep):
        if pattern:
            extra += sorted(glob.glob(pattern))
    known, other = [], []
    for p in list_ports.comports():
        if p.vid is not None and (p.vid, p.pid) in KNOWN_USB_IDS:
            known.append(p.device)
        elif p.vid is not None:  # some other USB serial device: worth a try
            other.append(p.device)
    return extra + known + other


def probe(port: str, timeout_s: float = 2.5) -> Hello | None:
    """Open ``port``, ask it to identify, and return its HELLO if it is our board."""
    return _ask(port, timeout_s)[0]


def _ask(port: str, timeout_s: float) -> tuple[Hello | None, str | None, bool]:
    """The board's HELLO on ``port``, else why it is not the board (it cannot be opened:
    a board the user may not open looks, to a search, like no board at all; it does not
    answer; it answers in another version of the protocol); and whether the port was
    opened (the device on it disturbed: an Arduino resets)."""
    try:
        ser = serial.Serial(port, BAUD, timeout=0.05)
    except (serial.SerialException, OSError, ValueError) as exc:
        log.debug("probe %s: %s", port, exc)
        return None, why_not_opened(port, exc), False
    try:
        ser.reset_input_buffer()
        ser.write(encode_frame(MsgType.IDENTIFY, 0))
        dec = FrameDecoder()
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            for f in dec.feed(ser.read(256)):
                if f.type == MsgType.HELLO:
                    try:
                        msg = parse_message(f)
                    except ValueError:
                        continue
                    if isinstance(msg, Hello) and msg.protocol == PROTOCOL_VERSION:
                        return msg, None, True
                    if isinstance(msg, Hello):
                        return (
                            None,
                            f"{port}: speaks protocol {msg.protocol}, this companion"
                            f" {PROTOCOL_VERSION}: update the firmware or the companion",
                            True,
                        )
        return None, f"{port}: {SILENT}", True
    except (serial.SerialException, OSError) as exc:
        log.debug("probe %s: %s", port, exc)
        return None, f"{port}: {exc}", True
    finally:
        ser.close()


def look_for_board() -> str:
    """The board's port, for one look; :class:`LookupError` saying why when none answers:
    each port tried and why it is not the board, with what to do, or that no port is
    there at all. (A link looking again and again uses a :class:`BoardFinder`.)"""
    return BoardFinder(ask_again_s=0.0)()


class BoardFinder:
    """``serial://auto``'s look for the board, called by its link at every reconnection:
    :func:`look_for_board` that remembers which ports were opened and did not answer, and
    leaves them alone for ``ask_again_s`` (or until they are unplugged and plugged in
    again), saying the same of them meanwhile."""

    def __init__(
        self,
        ask_again_s: float = ASK_AGAIN_S,
        timeout_s: float = 2.5,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ask_again_s = ask_again_s
        self.timeout_s = timeout_s
        self.clock = clock
        self._answered: dict[str, tuple[float, str]] = {}
        """Port: when it was last opened and found not to be the board, and why."""

    def __call__(self) -> str:
        ports = candidate_ports()
        now = self.clock()
        # a port gone from the list was unplugged: asked at once when it comes back
        self._answered = {p: v for p, v in self._answered.items() if p in ports}
        refused: list[str] = []
        for port in ports:
            if port in self._answered and now - self._answered[port][0] < self.ask_again_s:
                refused.append(self._answered[port][1])
                continue
            hello, why, opened = _ask(port, self.timeout_s)
            if hello is not None:
                self._answered.pop(port, None)
                log.info("found the sensor board on %s", port)
                return port
            if why is not None:
                refused.append(why)
                if opened:
                    self._answered[port] = (now, why)
        if refused:
            raise LookupError("no sensor board answered; " + "; ".join(refused))
        raise LookupError(NO_PORT)
