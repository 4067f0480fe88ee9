"""Finding the sensor board for ``serial://auto``.

Candidates are the serial ports pyserial lists (``serial.tools.list_ports``),
USB-serial bridges first (the Nano's CH340, an Uno's ATmega16U2, FTDI, CP210x).
Each candidate is opened and asked to IDENTIFY; the first that answers with a
HELLO of our protocol is the board. Opening an Arduino resets it (DTR), so a
probe also accepts the HELLO it sends when it boots.

Pseudo-terminals are not listed by pyserial, so extra candidates (the virtual
board, a ``socat`` link, a udev symlink) can be given as glob patterns in the
environment variable ``OWARE_SERIAL_PORTS`` (separated by ``os.pathsep``).
"""

from __future__ import annotations

import glob
import logging
import os
import time
from collections.abc import Iterable

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


def probe(port: str, timeout_s: float = 2.5, refused: list[str] | None = None) -> Hello | None:
    """Open ``port``, ask it to identify, and return its HELLO if it is our board.

    A port that is not the board adds why to ``refused``: it cannot be opened (a board
    the user may not open looks, to a search, like no board at all), it does not
    answer, or it answers in another version of the protocol.
    """
    notes: list[str] = [] if refused is None else refused
    try:
        ser = serial.Serial(port, BAUD, timeout=0.05)
    except (serial.SerialException, OSError, ValueError) as exc:
        log.debug("probe %s: %s", port, exc)
        notes.append(why_not_opened(port, exc))
        return None
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
                        return msg
                    if isinstance(msg, Hello):
                        notes.append(
                            f"{port}: speaks protocol {msg.protocol}, this companion"
                            f" {PROTOCOL_VERSION}: update the firmware or the companion"
                        )
                        return None
        notes.append(f"{port}: {SILENT}")
        return None
    except (serial.SerialException, OSError) as exc:
        log.debug("probe %s: %s", port, exc)
        notes.append(f"{port}: {exc}")
        return None
    finally:
        ser.close()


def find_board(
    candidates: Iterable[str] | None = None,
    timeout_s: float = 2.5,
    refused: list[str] | None = None,
) -> str | None:
    """The first port that answers like an Oware sensor board, or None (each port tried
    that is not the board added to ``refused``, with why)."""
    for port in candidate_ports() if candidates is None else candidates:
        if probe(port, timeout_s, refused) is not None:
            log.info("found the sensor board on %s", port)
            return port
    return None


def look_for_board() -> str:
    """The board's port, for ``serial://auto``'s link; :class:`LookupError` saying why
    when none answers: each port tried and why it is not the board, with what to do,
    or that no port is there at all."""
    refused: list[str] = []
    port = find_board(refused=refused)
    if port is not None:
        return port
    if refused:
        raise LookupError("no sensor board answered; " + "; ".join(refused))
    raise LookupError(NO_PORT)
