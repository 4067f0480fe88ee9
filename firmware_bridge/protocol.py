"""The sensor board's wire protocol (version 1): frames, messages and a robust decoder.

``hardware/PROTOCOL.md`` is the normative description; this module is the host
side of it. A frame on the wire is::

    A5 5A | LEN | TYPE | SEQ | PAYLOAD (LEN bytes) | CRC16 (little endian)

The CRC is CRC-16/CCITT-FALSE (polynomial 0x1021, initial value 0xFFFF) over
``LEN TYPE SEQ PAYLOAD``. Each direction numbers its frames with its own 8-bit
``SEQ`` counter, so the host can see loss (a jump), duplicates (a repeat) and
resets (a new ``HELLO``, or the sample counter going backwards).

:class:`FrameDecoder` turns an arbitrary byte stream into good frames. It never
raises on input: garbage, cut frames, CRC errors and oversize lengths are
counted in :class:`DecoderStats` and skipped, so a noisy cable can never
produce a reading.

>>> wire = encode_frame(MsgType.TEXT, 7, b"hi") + b"\\x00junk" + encode_frame(MsgType.TEXT, 8, b"!")
>>> dec = FrameDecoder()
>>> [(f.type, f.seq, f.payload) for f in dec.feed(wire[:5]) + dec.feed(wire[5:])]
[(4, 7, b'hi'), (4, 8, b'!')]
>>> dec.stats.bytes_skipped
5
"""

from __future__ import annotations

import binascii
import logging
import struct
from dataclasses import dataclass, field
from enum import IntEnum

log = logging.getLogger(__name__)

PROTOCOL_VERSION = 1
SYNC = b"\xa5\x5a"
HEADER_SIZE = 5  # sync (2) + len + type + seq
CRC_SIZE = 2
#: Longest payload either side may send. A longer LEN byte is corruption. (The sensor
#: board's own frames stay within 80 bytes; a wide board's READING_WIDE takes up to 122.)
MAX_PAYLOAD = 128
#: Channels the two-player board weighs: 12 pits then 2 stores (South's, North's).
CHANNELS = 14
PITS = 12
STORES = 2
#: A wide board (3 or 4 players: 6 pits and a store each) weighs up to 28 channels.
MAX_CHANNELS = 28
#: Sample rates the HX711 supports (its RATE pin).
SAMPLE_RATES = (10, 80)
#: Number of LEDs (one per pit) and bytes per LED (R, G, B).
LEDS = 12


class MsgType(IntEnum):
    """Frame types. Device → host below 0x80, host → device from 0x80."""

    HELLO = 0x01
    READING = 0x02
    ACK = 0x03
    TEXT = 0x04
    READING_WIDE = 0x05
    IDENTIFY = 0x81
    TARE = 0x82
    CALIBRATE = 0x83
    SET_LEDS = 0x84
    SET_RATE = 0x85


class AckStatus(IntEnum):
    """The status byte of an ACK."""

    OK = 0
    BAD_ARGUMENT = 1
    UNKNOWN_COMMAND = 2
    FAILED = 3


class ProtocolError(ValueError):
    """A frame whose CRC was right but whose payload does not fit its type."""


def crc16(data: bytes | bytearray | memoryview) -> int:
    """CRC-16/CCITT-FALSE, the frame checksum (``binascii`` does it in C).

    >>> hex(crc16(b"123456789"))  # the standard check value
    '0x29b1'
    """
    return binascii.crc_hqx(data, 0xFFFF)


def encode_frame(msg_type: int, seq: int, payload: bytes = b"") -> bytes:
    """One complete frame, ready to write to the port."""
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(payload)} bytes exceeds {MAX_PAYLOAD}")
    body = bytes((len(payload), msg_type & 0xFF, seq & 0xFF)) + payload
    return SYNC + body + crc16(body).to_bytes(2, "little")


@dataclass(frozen=True, slots=True)
class Frame:
    """A frame whose CRC checked out (its payload is not interpreted yet)."""

    type: int
    seq: int
    payload: bytes


@dataclass(slots=True)
class DecoderStats:
    """What the decoder threw away, for ``health()`` and the logs."""

    frames: int = 0
    bytes_in: int = 0
    bytes_skipped: int = 0
    crc_errors: int = 0
    oversize: int = 0

    def as_dict(self) -> dict[str, int]:
        return {
            "frames": self.frames,
            "bytes_in": self.bytes_in,
            "bytes_skipped": self.bytes_skipped,
            "crc_errors": self.crc_errors,
            "oversize": self.oversize,
        }


class FrameDecoder:
    """Incremental, resynchronising frame decoder. Feed it any bytes; get good frames.

    On a bad candidate frame (wrong CRC or impossible length) it skips only the
    first sync byte and searches again, so a real frame that started inside
    the garbage is still found.
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self.stats = DecoderStats()

    def feed(self, data: bytes | bytearray | memoryview) -> list[Frame]:
        """Append ``data`` and return every complete, valid frame now available."""
        buf = self._buf
        buf += data
        self.stats.bytes_in += len(data)
        frames: list[Frame] = []
        pos = 0
        end = len(buf)
        stats = self.stats
        while True:
            start = buf.find(SYNC, pos)
            if start < 0:
                # Keep a trailing 0xA5: it may be the first half of a sync.
                keep = end - 1 if end > pos and buf[end - 1] == SYNC[0] else end
                stats.bytes_skipped += keep - pos
                pos = keep
                break
            stats.bytes_skipped += start - pos
            pos = start
            if end - pos < HEADER_SIZE:
                break
            length = buf[pos + 2]
            if length > MAX_PAYLOAD:
                stats.oversize += 1
                stats.bytes_skipped += 1
                pos += 1
                continue
            total = HEADER_SIZE + length + CRC_SIZE
            if end - pos < total:
                break
            crc_at = pos + HEADER_SIZE + length
            if binascii.crc_hqx(buf[pos + 2 : crc_at], 0xFFFF) != (
                buf[crc_at] | (buf[crc_at + 1] << 8)
            ):
                stats.crc_errors += 1
                stats.bytes_skipped += 1
                pos += 1
                continue
            frames.append(Frame(buf[pos + 3], buf[pos + 4], bytes(buf[pos + HEADER_SIZE : crc_at])))
            pos += total
        if pos:
            del buf[:pos]
        stats.frames += len(frames)
        return frames

    def reset(self) -> None:
        """Forget a partial frame (after the port was closed and reopened)."""
        self._buf.clear()


# --- messages ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hello:
    """Sent by the device on start and in answer to IDENTIFY."""

    protocol: int
    firmware: tuple[int, int, int]
    pits: int
    stores: int
    rate_hz: int
    boot_count: int
    reset_cause: int

    @property
    def firmware_version(self) -> str:
        return ".".join(str(v) for v in self.firmware)


@dataclass(frozen=True, slots=True)
class Reading:
    """One sample of every channel: weights in milligrams, pits then stores.

    ``stale`` has bit ``k`` set when channel ``k`` did not convert in time (a
    broken or unplugged cell): its weight is the last good one, repeated, and
    the host must treat the channel as unseen.
    """

    sample: int
    flags: int
    weights_mg: tuple[int, ...]
    stale: int = 0

    #: Flag bit: a channel did not become ready in time (its weight is stale).
    FLAG_TIMEOUT = 0x01
    #: Flag bit: a channel's ADC is at full scale (overload or broken wire).
    FLAG_SATURATED = 0x02


@dataclass(frozen=True, slots=True)
class Ack:
    """The device's answer to a command (matched by ``cmd_seq``)."""

    cmd_type: int
    cmd_seq: int
    status: int
    data: bytes = b""


@dataclass(frozen=True, slots=True)
class Text:
    """A human-readable log line from the firmware."""

    text: str


Message = Hello | Reading | Ack | Text

_HELLO = struct.Struct("<BBBBBBBHB")
_READING_HEAD = struct.Struct("<IBBH")
_WIDE_HEAD = struct.Struct("<IBBI")
_ACK_HEAD = struct.Struct("<BBB")
_READING_BODY = {n: struct.Struct(f"<{n}i") for n in range(MAX_CHANNELS + 1)}


def parse_message(frame: Frame) -> Message:
    """Interpret a device → host frame; raise :class:`ProtocolError` if it does not fit."""
    t, p = frame.type, frame.payload
    if t in (MsgType.READING, MsgType.READING_WIDE):
        head = _READING_HEAD if t == MsgType.READING else _WIDE_HEAD
        most = CHANNELS if t == MsgType.READING else MAX_CHANNELS
        name = MsgType(t).name
        if len(p) < head.size:
            raise ProtocolError(f"{name} shorter than its header")
        sample, flags, n, stale = head.unpack_from(p)
        body = _READING_BODY.get(n) if n <= most else None
        if body is None or len(p) != head.size + body.size:
            raise ProtocolError(f"{name} with {n} channels and {len(p)} bytes")
        return Reading(sample, flags, body.unpack_from(p, head.size), stale)
    if t == MsgType.HELLO:
        if len(p) < _HELLO.size:  # a later version may append fields
            raise ProtocolError(f"HELLO of {len(p)} bytes, expected {_HELLO.size}")
        proto, ma, mi, pa, pits, stores, rate, boots, cause = _HELLO.unpack_from(p)
        return Hello(proto, (ma, mi, pa), pits, stores, rate, boots, cause)
    if t == MsgType.ACK:
        if len(p) < _ACK_HEAD.size:
            raise ProtocolError("ACK shorter than its header")
        cmd, cseq, status = _ACK_HEAD.unpack_from(p)
        return Ack(cmd, cseq, status, bytes(p[_ACK_HEAD.size :]))
    if t == MsgType.TEXT:
        return Text(p.decode("ascii", errors="replace"))
    raise ProtocolError(f"unknown device message type 0x{t:02x}")


# --- encoders (device side: used by the virtual board; host side: commands) ----------------


def hello_payload(h: Hello) -> bytes:
    return _HELLO.pack(
        h.protocol, *h.firmware, h.pits, h.stores, h.rate_hz, h.boot_count & 0xFFFF, h.reset_cause
    )


def reading_payload(r: Reading) -> bytes:
    """A READING (at most 14 channels: the two-player board)."""
    n = len(r.weights_mg)
    return _READING_HEAD.pack(r.sample & 0xFFFFFFFF, r.flags, n, r.stale) + _READING_BODY[n].pack(
        *r.weights_mg
    )


def reading_message(r: Reading) -> tuple[MsgType, bytes]:
    """The frame type and payload of a reading: READING for up to 14 channels, READING_WIDE
    (a 32-bit stale mask) for a wide board's 21 or 28.

    >>> kind, payload = reading_message(Reading(1, 0, (0,) * 21))
    >>> kind.name, len(payload)
    ('READING_WIDE', 94)
    """
    n = len(r.weights_mg)
    if n <= CHANNELS:
        return MsgType.READING, reading_payload(r)
    if n > MAX_CHANNELS:
        raise ValueError(f"a reading has at most {MAX_CHANNELS} channels, not {n}")
    head = _WIDE_HEAD.pack(r.sample & 0xFFFFFFFF, r.flags, n, r.stale)
    return MsgType.READING_WIDE, head + _READING_BODY[n].pack(*r.weights_mg)


def ack_payload(a: Ack) -> bytes:
    return _ACK_HEAD.pack(a.cmd_type, a.cmd_seq, a.status) + a.data


def tare_payload(mask: int = (1 << CHANNELS) - 1, channels: int = CHANNELS) -> bytes:
    """TARE: zero the channels whose bit is set (default: all 14); a wide board
    (more than 16 channels) takes a 32-bit mask."""
    return struct.pack("<H" if channels <= 16 else "<I", mask)


def calibrate_payload(channel: int, weight_mg: int) -> bytes:
    """CALIBRATE: a known weight (mg) now lies on ``channel``; the device fits its scale."""
    return struct.pack("<BI", channel, weight_mg)


def leds_payload(colors: list[tuple[int, int, int]]) -> bytes:
    """SET_LEDS: one (r, g, b) per pit, pit order."""
    if len(colors) != LEDS:
        raise ValueError(f"need {LEDS} colours, got {len(colors)}")
    return bytes(c & 0xFF for rgb in colors for c in rgb)


def rate_payload(rate_hz: int) -> bytes:
    if rate_hz not in SAMPLE_RATES:
        raise ValueError(f"sample rate must be one of {SAMPLE_RATES}")
    return bytes((rate_hz,))


# --- sequence tracking ---------------------------------------------------------------------


@dataclass(slots=True)
class SequenceStats:
    """Loss, duplicates and resets seen on the device → host stream."""

    lost: int = 0
    duplicates: int = 0
    resets: int = 0
    malformed: int = 0

    def as_dict(self) -> dict[str, int]:
        return {
            "lost": self.lost,
            "duplicates": self.duplicates,
            "resets": self.resets,
            "malformed": self.malformed,
        }


@dataclass(slots=True)
class SequenceTracker:
    """Turns good frames into messages in order, dropping duplicates and noticing resets.

    ``accept`` returns the parsed message, or ``None`` when the frame must be
    ignored (a duplicate, or a payload that does not fit its type). After it
    returns, :attr:`reset_seen` says whether this frame showed a device reset
    (a HELLO with a new boot count, or a sample counter that went backwards).
    """

    stats: SequenceStats = field(default_factory=SequenceStats)
    last_seq: int | None = None
    last_sample: int | None = None
    boot_count: int | None = None
    reset_seen: bool = False

    def accept(self, frame: Frame) -> Message | None:
        self.reset_seen = False
        try:
            msg = parse_message(frame)
        except ProtocolError as exc:
            self.stats.malformed += 1
            log.warning("dropping malformed frame: %s", exc)
            return None
        if isinstance(msg, Hello):
            if self.boot_count is not None and msg.boot_count != self.boot_count:
                self._reset("HELLO with a new boot count")
            self.boot_count = msg.boot_count
            self.last_seq = frame.seq
            return msg
        if self.last_seq is not None:
            step = (frame.seq - self.last_seq) & 0xFF
            if step == 0:
                self.stats.duplicates += 1
                return None
            if 1 < step < 128:
                self.stats.lost += step - 1
        self.last_seq = frame.seq
        if isinstance(msg, Reading):
            if self.last_sample is not None and msg.sample < self.last_sample:
                self._reset("sample counter went backwards")
            elif self.last_sample is not None and msg.sample == self.last_sample:
                self.stats.duplicates += 1
                return None
            self.last_sample = msg.sample
        return msg

    def _reset(self, why: str) -> None:
        self.stats.resets += 1
        self.reset_seen = True
        self.last_sample = None
        log.warning("device reset detected: %s", why)

    def forget(self) -> None:
        """Start afresh (a new connection): the next frame sets the baseline."""
        self.last_seq = None
        self.last_sample = None
