"""Sources for the live service: ``serial://…`` (a real board) and ``sim://…`` (the virtual one).

Both follow the Source interface every input of the companion shares:
``open()``, ``close()`` (thread-safe), blocking iteration in a worker thread
yielding :class:`core.observation.Observation` objects or status dicts
(``{"type": "link", "state": …}``), and ``health()``.

URLs::

    serial:///dev/ttyUSB0          a board on a known port
    serial://auto                  find the board (see firmware_bridge.discovery)
    serial://auto?calibration=cal.json   (default: default_calibration_path(), if it exists)
    sim://                         the virtual board, real time, random moves
    sim://?seed=3&speed=10&mistakes=0.1&faults=2&moves=C,d,A&rate=10

``sim://`` options: ``seed`` (random seed), ``speed`` (device seconds per wall
second; 0 = as fast as read), ``mistakes`` (probability per move),
``faults`` (link faults per minute), ``rate`` (10 or 80 Hz), ``rules``,
``moves`` (comma-separated move names, played in order), ``max_moves``,
``noise`` (grams). The virtual board really runs behind a pseudo-terminal and
is read through the same :class:`~firmware_bridge.link.SerialLink` as a real
board, so ``sim://`` exercises the whole serial stack.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import platformdirs

from core.observation import Observation
from firmware_bridge.discovery import find_board
from firmware_bridge.link import LinkError, SerialLink
from firmware_bridge.observer import ObservationBuilder
from firmware_bridge.protocol import PITS, PROTOCOL_VERSION, Hello, MsgType, Reading, leds_payload
from firmware_bridge.virtual_board import DeviceOptions, PlayerOptions, VirtualBoard
from firmware_bridge.weights import Calibration, learn_seed_weight

log = logging.getLogger(__name__)

SourceItem = Observation | dict[str, Any]


class SensorSource:
    """Observations from a board behind a :class:`SerialLink` (real or virtual)."""

    def __init__(
        self,
        link: SerialLink,
        calibration: Calibration | None = None,
        name: str = "sensor",
    ) -> None:
        self.link = link
        self.calibration = calibration or Calibration()
        self.name = name
        self.builder = ObservationBuilder(self.calibration, 80, name)
        self.observations = 0
        self._t = 0.0
        self._last_sample: int | None = None
        self._rate = 80
        self._unidentified = 0  # readings dropped while waiting for that HELLO

    def open(self) -> None:
        self.link.open()

    def close(self) -> None:
        self.link.close()

    def __iter__(self) -> Iterator[SourceItem]:
        for item in self.link:
            if isinstance(item, dict):
                if item.get("reset") or item.get("state") != "connected":
                    # Readings before and after a gap do not belong to one motion.
                    self.builder.reset()
                    self._last_sample = None
                yield item
            elif isinstance(item, Hello):
                if item.protocol != PROTOCOL_VERSION:
                    yield {
                        "type": "link",
                        "state": "disconnected",
                        "detail": f"the board speaks protocol {item.protocol}, this companion "
                        f"{PROTOCOL_VERSION}: update the firmware or the companion",
                    }
                if item.rate_hz != self._rate and item.rate_hz > 0:
                    self._rate = item.rate_hz
                    self.builder.set_rate(item.rate_hz)
            elif isinstance(item, Reading):
                # Readings mean something only once this connection's HELLO (the link
                # forgets it on every new connection) named a protocol we speak.
                hello = self.link.hello
                if hello is None:
                    self._ask_identity()
                elif hello.protocol == PROTOCOL_VERSION:
                    obs = self._reading(item)
                    if obs is not None:
                        self.observations += 1
                        yield obs

    def _ask_identity(self) -> None:
        """A reading came before the board said who it is: drop it, and ask again.

        A board that started before we opened the port streams readings
        straight away, and our IDENTIFY (sent on connecting) may be lost in
        line noise; a reading from a board whose protocol we do not know could
        be read with the wrong layout, so it is not used. Asking again about
        every half second (at 80 Hz) keeps a lost IDENTIFY from blinding us.
        """
        self._unidentified += 1
        if self._unidentified % 40 == 0:
            # Disconnected meanwhile? The link reports that itself and reconnects.
            with contextlib.suppress(LinkError):
                self.link.send(MsgType.IDENTIFY)

    def _reading(self, r: Reading) -> Observation | None:
        # Time runs on the board's sample counter, so a replay of the same
        # stream gives the same times; a gap or a reset advances it by one sample.
        if self._last_sample is None or r.sample <= self._last_sample:
            self._t += 1.0 / self._rate
        else:
            self._t += (r.sample - self._last_sample) / self._rate
        self._last_sample = r.sample
        return self.builder.push(r, self._t)

    def set_leds(self, colors: list[tuple[int, int, int]]) -> bool:
        """Light the pit LEDs (one (r, g, b) per pit): a suggested move, an alert.

        Returns False, without raising, when the board is not connected or
        does not acknowledge: the LEDs are a courtesy, the game goes on.
        Call it from any thread while the source is being iterated.
        """
        try:
            return self.link.request(MsgType.SET_LEDS, leds_payload(colors), 2.0).status == 0
        except LinkError:
            return False

    def health(self) -> dict[str, Any]:
        return {
            "source": self.name,
            "observations": self.observations,
            "readings_before_hello": self._unidentified,
            **self.link.health(),
        }


class SimSource(SensorSource):
    """``sim://``: starts a :class:`VirtualBoard` on a pty and reads it like a real board."""

    def __init__(self, opts: DeviceOptions | None = None) -> None:
        self.board = VirtualBoard(opts)
        # What `oware-companion calibrate` would learn from this board's start
        # position: the mean and spread of *these* 48 seeds.
        start = [sum(s) for s in self.board.physics.seeds[:PITS]]
        noise = max(self.board.opts.noise_g, 0.01)
        mean, sd = learn_seed_weight(start, 4, noise)
        cal = Calibration(seed_mean_g=mean, seed_sd_g=sd, noise_g=noise)
        super().__init__(SerialLink(self.board.port), cal, "sim")
        self._lock = threading.Lock()
        self._started = False

    def open(self) -> None:
        with self._lock:
            if not self._started:
                self.board.start()
                self._started = True
        super().open()

    def close(self) -> None:
        super().close()
        with self._lock:
            if self._started:
                self.board.stop()
                self._started = False

    def health(self) -> dict[str, Any]:
        h = super().health()
        h["virtual_board"] = {
            "device_time_s": round(self.board.t, 2),
            "moves_played": self.board.player.moves_played,
            "faults_injected": len(self.board.injected),
        }
        return h


def _one(q: dict[str, list[str]], key: str, default: str) -> str:
    return q.get(key, [default])[-1]


def device_options_from_query(query: str) -> DeviceOptions:
    """Parse the ``sim://?…`` options (see the module docstring)."""
    q = parse_qs(query)
    known = {"seed", "speed", "mistakes", "faults", "rate", "rules", "moves", "max_moves", "noise"}
    unknown = set(q) - known
    if unknown:
        raise ValueError(f"unknown sim:// option(s): {', '.join(sorted(unknown))}")
    moves = [m for m in _one(q, "moves", "").split(",") if m] or None
    max_moves = _one(q, "max_moves", "")
    player = PlayerOptions(
        rules=_one(q, "rules", "abapa"),
        moves=moves,
        mistakes=float(_one(q, "mistakes", "0")),
        max_moves=int(max_moves) if max_moves else None,
    )
    seed = _one(q, "seed", "")
    rate = int(_one(q, "rate", "80"))
    if rate not in (10, 80):
        raise ValueError("rate must be 10 or 80")
    return DeviceOptions(
        seed=int(seed) if seed else None,
        speed=float(_one(q, "speed", "1")),
        rate_hz=rate,
        faults=float(_one(q, "faults", "0")),
        noise_g=float(_one(q, "noise", "0.03")),
        player=player,
    )


def default_calibration_path() -> Path:
    """Where ``oware-companion calibrate`` saves the board's calibration by default."""
    return platformdirs.user_config_path("oware-companion") / "scale-calibration.json"


def open_source(url: str) -> SensorSource:
    """The source for a ``sim://`` or ``serial://`` URL (not yet opened)."""
    parts = urlsplit(url)
    if parts.scheme == "sim":
        return SimSource(device_options_from_query(parts.query))
    if parts.scheme == "serial":
        q = parse_qs(parts.query)
        cal_path = _one(q, "calibration", "")
        path = Path(cal_path) if cal_path else default_calibration_path()
        cal = Calibration.load(path) if cal_path or path.exists() else None
        target = parts.netloc + parts.path
        if target in ("auto", ""):
            return SensorSource(SerialLink(find_board, max_backoff_s=1.0), cal)
        return SensorSource(SerialLink(target), cal)
    raise ValueError(f"not a sensor-board URL: {url!r} (use sim:// or serial://)")
