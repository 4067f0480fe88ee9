"""The serial link to the board: open, read frames, reconnect with backoff, send commands.

:class:`SerialLink` is iterated in a worker thread. It yields protocol
messages (:class:`~firmware_bridge.protocol.Hello`, ``Reading``, ``Ack``,
``Text``) and link-state dicts the dashboard can show::

    {"type": "link", "state": "connected", "detail": "/dev/ttyUSB0, firmware 1.0.0"}
    {"type": "link", "state": "disconnected", "detail": "device disconnected"}
    {"type": "link", "state": "reconnecting", "detail": "/dev/ttyUSB0: no such port: ..."}
    {"type": "link", "state": "connected", "detail": "device restarted", "reset": True}

When the cable is pulled, reads fail; the link closes the port and retries
with a backoff growing from 0.1 s to ``max_backoff_s`` (1 s by default), so
the board is back within about a second of being plugged in again.

The port can be a fixed path or a function that looks for the board (that is
how ``serial://auto`` re-discovers a board that came back under a new name); the
function returns None, or raises :class:`LookupError` saying why, when it finds none.
:meth:`close` is thread-safe and makes a blocked iteration end within about
``read_timeout_s``.
"""

from __future__ import annotations

import logging
import os
import select
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, Literal, TypedDict

import serial

from firmware_bridge.port_errors import NO_PORT, why_not_opened
from firmware_bridge.protocol import (
    Ack,
    FrameDecoder,
    Hello,
    Message,
    MsgType,
    SequenceTracker,
    encode_frame,
)

log = logging.getLogger(__name__)

LinkState = Literal["connected", "disconnected", "reconnecting"]
"""The serial link's state, as its ``link`` messages and ``health()`` say it."""

BAUD = 115200

LinkItem = Message | dict[str, Any]


class LinkError(RuntimeError):
    """A command could not be delivered or was not acknowledged."""


class LinkHealth(TypedDict):
    """The link's part of a sensor source's ``health()``."""

    state: LinkState
    detail: str
    port: str | None
    connects: int
    last_frame_age_s: float | None
    firmware: str | None
    rate_hz: int | None
    decoder: dict[str, int]
    sequence: dict[str, int]


class SerialLink:
    """One board on one serial port, with reconnects. Iterate it in a worker thread."""

    def __init__(
        self,
        port: str | Callable[[], str | None],
        *,
        baud: int = BAUD,
        read_timeout_s: float = 0.05,
        max_backoff_s: float = 1.0,
    ) -> None:
        self._port_spec = port
        self.baud = baud
        self.read_timeout_s = read_timeout_s
        self.max_backoff_s = max_backoff_s
        self.decoder = FrameDecoder()
        self.tracker = SequenceTracker()
        self.state: LinkState = "disconnected"
        self.detail = ""
        self.port: str | None = None
        self.hello: Hello | None = None
        self.connects = 0
        self.last_frame_at: float | None = None
        self._ser: Any = None
        self._closed = threading.Event()
        self._write_lock = threading.Lock()
        self._seq = 0
        self._acks: dict[int, Ack] = {}
        self._ack_cond = threading.Condition()

    # lifecycle

    def open(self) -> None:
        self._closed.clear()

    def close(self) -> None:
        """Stop the iteration soon and release the port (safe from any thread)."""
        self._closed.set()

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def _resolve(self) -> str | None:
        spec = self._port_spec
        return spec if isinstance(spec, str) else spec()

    def _status(self, state: LinkState, detail: str, **extra: Any) -> dict[str, Any]:
        self.state, self.detail = state, detail
        log.info("link %s: %s", state, detail)
        return {"type": "link", "state": state, "detail": detail, **extra}

    def __iter__(self) -> Iterator[LinkItem]:
        backoff = 0.1
        while not self._closed.is_set():
            ser = None
            # (the state, reconnecting, says it is looked for again)
            error = NO_PORT
            try:
                port = self._resolve()
            except LookupError as exc:  # a finder that says why it found nothing
                port, error = None, str(exc)
            if port is not None:
                try:
                    ser = serial.Serial(port, self.baud, timeout=self.read_timeout_s)
                except (serial.SerialException, OSError, ValueError) as exc:
                    error = why_not_opened(port, exc)
            if ser is None:
                if self.state != "reconnecting" or error != self.detail:
                    yield self._status("reconnecting", error)  # said again only if new
                self._closed.wait(backoff)
                backoff = min(backoff * 2, self.max_backoff_s)
                continue
            backoff = 0.1
            yield from self._session(ser, port or "?")

    def _session(self, ser: Any, port: str) -> Iterator[LinkItem]:
        # Stale bytes from before we opened are of no use; drop them.
        ser.reset_input_buffer()
        self._ser, self.port = ser, port
        self.decoder.reset()
        self.tracker.forget()
        self.connects += 1
        self.hello = None
        yield self._status("connected", port)
        try:
            self.send(MsgType.IDENTIFY)
            fd = ser.fileno()
            while not self._closed.is_set():
                # select + os.read on the port's descriptor: pyserial opened and
                # configured it; its own read() costs several times more CPU per
                # frame, which matters at 80 frames a second (python -m bench.bridge).
                ready, _, _ = select.select([fd], [], [], self.read_timeout_s)
                if not ready:
                    continue
                data = os.read(fd, 4096)
                if not data:
                    raise serial.SerialException("device disconnected (end of file)")
                for frame in self.decoder.feed(data):
                    msg = self.tracker.accept(frame)
                    if msg is None:
                        continue
                    self.last_frame_at = time.monotonic()
                    if isinstance(msg, Hello):
                        first = self.hello is None
                        self.hello = msg
                        if first or self.tracker.reset_seen:
                            yield self._status(
                                "connected",
                                f"{port}, firmware {msg.firmware_version}, "
                                f"{msg.pits} pits, {msg.rate_hz} Hz, boot {msg.boot_count}",
                                reset=self.tracker.reset_seen,
                            )
                    elif self.tracker.reset_seen:
                        yield self._status("connected", "device restarted", reset=True)
                    if isinstance(msg, Ack):
                        with self._ack_cond:
                            self._acks[msg.cmd_seq] = msg
                            self._ack_cond.notify_all()
                    yield msg
        except (serial.SerialException, OSError, TypeError) as exc:
            # pyserial raises TypeError from a read racing a close: treat it as a disconnect.
            if not self._closed.is_set():
                yield self._status("disconnected", f"{port}: {exc}")
        finally:
            with self._write_lock:
                self._ser = None
            try:
                ser.close()
            except Exception:  # closing a vanished port may fail; nothing left to do
                log.debug("closing %s failed", port, exc_info=True)
        if self._closed.is_set():
            self._status("disconnected", "closed")

    # commands

    def send(self, msg_type: int, payload: bytes = b"") -> int:
        """Write one command frame; return its sequence number. Raises LinkError if offline."""
        with self._write_lock:
            ser = self._ser
            if ser is None:
                raise LinkError("the board is not connected")
            seq = self._seq
            self._seq = (self._seq + 1) & 0xFF
            try:
                ser.write(encode_frame(msg_type, seq, payload))
            except (serial.SerialException, OSError) as exc:
                raise LinkError(f"write failed: {exc}") from exc
        return seq

    def write_raw(self, data: bytes) -> None:
        """Write bytes as they are (line-noise tests and diagnostics); LinkError if offline."""
        with self._write_lock:
            if self._ser is None:
                raise LinkError("the board is not connected")
            try:
                self._ser.write(data)
            except (serial.SerialException, OSError) as exc:
                raise LinkError(f"write failed: {exc}") from exc

    def request(self, msg_type: int, payload: bytes = b"", timeout_s: float = 3.0) -> Ack:
        """Send a command and wait for its ACK (the link must be iterated in another thread)."""
        seq = self.send(msg_type, payload)
        deadline = time.monotonic() + timeout_s
        with self._ack_cond:
            while seq not in self._acks:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise LinkError(f"no answer to command 0x{msg_type:02x} within {timeout_s} s")
                self._ack_cond.wait(left)
            return self._acks.pop(seq)

    def health(self) -> LinkHealth:
        age = None if self.last_frame_at is None else time.monotonic() - self.last_frame_at
        h = self.hello
        return {
            "state": self.state,
            "detail": self.detail,
            "port": self.port,
            "connects": self.connects,
            "last_frame_age_s": None if age is None else round(age, 3),
            "firmware": None if h is None else h.firmware_version,
            "rate_hz": None if h is None else h.rate_hz,
            "decoder": self.decoder.stats.as_dict(),
            "sequence": self.tracker.stats.as_dict(),
        }
