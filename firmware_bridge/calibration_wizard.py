"""The sensor-board calibration a person walks through (``oware-companion calibrate``).

Steps, each confirmed by the person before it runs:

1. **Empty board → tare.** The firmware zeroes every load cell (TARE, kept in
   its EEPROM); the host then measures the remaining offset and the reading
   noise over a second.
2. **Known weight → scale (optional).** With a known weight (a 100 g
   calibration weight, or a filled water bottle weighed on a kitchen scale)
   the firmware fits each cell's scale (CALIBRATE, kept in EEPROM).
3. **Start position → seed weight.** With 4 seeds in each of the 12 pits (18
   or 24 on a three- or four-player board) the host learns the mean and spread
   of one seed (:func:`firmware_bridge.weights.learn_seed_weight`).

The result is a :class:`~firmware_bridge.weights.Calibration` saved as JSON.
The wizard talks through two callables (``ask`` shows a prompt and returns the
answer; ``say`` prints), so the terminal command and the tests share it.
"""

from __future__ import annotations

import struct
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from firmware_bridge.link import LinkError
from firmware_bridge.protocol import (
    AckStatus,
    MsgType,
    calibrate_payload,
    rate_payload,
    tare_payload,
)
from firmware_bridge.source import SensorSource
from firmware_bridge.weights import Calibration, learn_seed_weight, tare_from_samples

Ask = Callable[[str], str]
Say = Callable[[str], None]

CHANNEL_NAMES = [*"ABCDEF", *"abcdef", "South's store", "North's store"]


def channel_names(pits: int, stores: int) -> list[str]:
    """The cells of a board in channel order: pits, then stores.

    >>> channel_names(18, 3)[5:7], channel_names(18, 3)[-1]
    (['1F', '2A'], "player 3's store")
    """
    if pits == 12 and stores == 2:
        return list(CHANNEL_NAMES)
    names = [f"{p // 6 + 1}{'ABCDEF'[p % 6]}" for p in range(pits)]
    return names + [f"player {q + 1}'s store" for q in range(stores)]


class CalibrationError(RuntimeError):
    """The calibration cannot go on; the message says why and what to do."""


class _Reader:
    """Runs the source in a worker thread and keeps the latest grams and stability."""

    def __init__(self, source: SensorSource) -> None:
        self.source = source
        self._thread = threading.Thread(target=self._pump, name="calibration-reader", daemon=True)

    def _pump(self) -> None:
        for _ in self.source:
            pass

    def start(self) -> None:
        self.source.open()
        self._thread.start()

    def stop(self) -> None:
        self.source.close()
        self._thread.join(timeout=5)

    def wait_connected(self, timeout_s: float = 15.0) -> None:
        deadline = time.monotonic() + timeout_s
        while self.source.link.hello is None:
            if time.monotonic() > deadline:
                why = self.source.link.detail or "not connected"
                raise CalibrationError(
                    f"no sensor board answered within {timeout_s:g} s: {why}"
                    " (and check the USB cable)"
                )
            time.sleep(0.05)

    def settled_grams(self, hold_s: float = 0.3, timeout_s: float = 30.0) -> np.ndarray:
        """Grams per channel (averaged) once the board has been still for ``hold_s``."""
        deadline = time.monotonic() + timeout_s
        since: float | None = None
        samples: list[np.ndarray] = []
        builder = self.source.builder
        while time.monotonic() < deadline:
            time.sleep(0.02)
            g = builder.latest_grams
            if g is None or not builder.stable:
                since, samples = None, []
                continue
            since = since or time.monotonic()
            samples.append(g.copy())
            if time.monotonic() - since >= hold_s:
                mean: np.ndarray = np.mean(samples, axis=0)
                return mean
        raise CalibrationError("the board never settled: is something touching it?")

    def raw_samples(self, seconds: float) -> np.ndarray:
        out = []
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            time.sleep(1.0 / 80)
            g = self.source.builder.latest_grams
            if g is not None:
                out.append(g.copy())
        return np.array(out)


def _request(reader: _Reader, cmd: int, payload: bytes, what: str) -> bytes:
    try:
        ack = reader.source.link.request(cmd, payload, timeout_s=10.0)
    except LinkError as exc:
        raise CalibrationError(f"{what}: {exc}") from exc
    if ack.status != AckStatus.OK:
        raise CalibrationError(f"{what}: the board refused (status {ack.status})")
    return ack.data


def run_calibration(
    source: SensorSource, out: Path, ask: Ask, say: Say, connect_timeout_s: float = 15.0
) -> Calibration:
    """Walk through tare, optional scale and seed weight; save and return the calibration."""
    reader = _Reader(source)
    reader.start()
    try:
        reader.wait_connected(connect_timeout_s)
        hello = source.link.hello
        assert hello is not None
        say(
            f"Connected: sensor board firmware {hello.firmware_version}, "
            f"{hello.pits} pits and {hello.stores} stores."
        )
        names = channel_names(hello.pits, hello.stores)
        channels = hello.pits + hello.stores
        _request(reader, MsgType.SET_RATE, rate_payload(80), "setting 80 samples/s")

        ask("Step 1/3: take every seed off the board (pits and stores), then press Enter. ")
        reader.settled_grams()
        _request(reader, MsgType.TARE, tare_payload((1 << channels) - 1, channels), "tare")
        reader.settled_grams()
        tare, noise = tare_from_samples(reader.raw_samples(1.0))
        say(f"Tared. Reading noise: {noise * 1000:.0f} mg.")

        answer = ask(
            "Step 2/3 (optional): mass in grams of a known weight to set each cell's scale, "
            "or press Enter to keep the current scales: "
        ).strip()
        if answer:
            try:
                grams = float(answer.replace(",", "."))
            except ValueError:
                raise CalibrationError(f"{answer!r} is not a mass in grams") from None
            if not 1.0 <= grams <= 5000.0:
                raise CalibrationError("use a known weight between 1 g and 5 kg")
            for ch in range(channels):
                ask(f"  Put the {grams:g} g weight on {names[ch]}, then press Enter. ")
                reader.settled_grams()
                data = _request(
                    reader,
                    MsgType.CALIBRATE,
                    calibrate_payload(ch, round(grams * 1000)),
                    f"calibrating {names[ch]}",
                )
                (scale,) = struct.unpack("<f", data[:4]) if len(data) >= 4 else (float("nan"),)
                say(f"  {names[ch]}: {scale:.1f} counts per gram.")
            ask("  Take the weight off, then press Enter. ")
            reader.settled_grams()

        ask(
            f"Step 3/3: put 4 seeds in each of the {hello.pits} pits (the start position), "
            "then press Enter. "
        )
        grams_now = reader.settled_grams() - np.asarray(tare)
        pits = [float(g) for g in grams_now[: hello.pits]]
        typical = float(np.median(pits))
        short = [names[i] for i, g in enumerate(pits) if g < 0.5 * typical]
        if typical <= 0 or short:
            where = ", ".join(short) or "any pit"
            raise CalibrationError(f"no seeds seen on {where}: 4 seeds in every pit")
        mean, sd = learn_seed_weight(pits, 4, noise)
        if max(pits) > 1.6 * min(pits):
            say("Warning: the pits differ a lot; check that each holds exactly 4 seeds.")
        cal = Calibration(
            tare_g=tare, scale=[1.0] * channels, seed_mean_g=mean, seed_sd_g=sd, noise_g=noise
        )
        cal.save(out)
        say(f"One seed weighs {mean:.2f} g (spread {sd:.2f} g). Saved {out}.")
        return cal
    finally:
        reader.stop()
