"""Sources for the live service: ``serial://…`` (a real board) and ``sim://…`` (the virtual one).

Both are a :class:`core.source.Source`: ``open()``, ``close()`` (thread-safe),
blocking iteration in a worker thread yielding
:class:`core.observation.Observation` objects or status dicts
(``{"type": "link", "state": …}``), and ``health()``. They are opened from
their URLs by the table of schemes (:mod:`companion.sources`: its ``sim`` and
``serial`` modules).

URLs::

    serial:///dev/ttyUSB0          a board on a known port
    serial://auto                  find the board (see firmware_bridge.discovery)
    serial://auto?calibration=cal.json   (default: default_calibration_path(), if it exists)
    sim://                         the virtual board, real time, random moves
    sim://?seed=3&speed=10&mistakes=0.1&faults=2&moves=C,d,A&rate=10
    sim://?players=4               a four-player board (universal mancala)
    sim://?rules=universal:players=3,variants=3+9

``sim://`` options (:data:`SIM_OPTIONS`): ``seed`` (random seed), ``speed``
(device seconds per wall second; 0 = as fast as read), ``mistakes``
(probability per move), ``faults`` (link faults per minute), ``rate`` (10 or
80 Hz), ``rules`` (a rule set, ``NAME[:key=value,...]`` as ``--rules`` takes
it; by default the one the service referees), ``players`` (2, 3 or 4: with
more than two, universal mancala), ``moves`` (comma-separated move names,
played in order), ``max_moves``, ``noise`` (grams), ``loop`` (``0``: stop
after one game; by default the players lay out the next game when one ends).
The virtual board really runs behind a pseudo-terminal and is read through
the same :class:`~firmware_bridge.link.SerialLink` as a real board, so
``sim://`` exercises the whole serial stack.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import platformdirs

from core.observation import Observation
from core.rules import RuleSet, get_rules, parse_rules_spec
from core.source import SourceHealth, SourceItem, SourceURLError
from firmware_bridge.link import LinkError, LinkHealth, SerialLink
from firmware_bridge.observer import ObservationBuilder
from firmware_bridge.protocol import PROTOCOL_VERSION, Hello, MsgType, Reading, leds_payload
from firmware_bridge.virtual_board import DeviceOptions, PlayerOptions, VirtualBoard
from firmware_bridge.weights import Calibration, learn_seed_weight

#: The options a ``sim://`` URL takes, with what each means (the module docstring says more).
SIM_OPTIONS = {
    "seed": "random seed of the virtual game (default: random)",
    "speed": "board seconds per real second (default 1; 0 = as fast as it is read)",
    "mistakes": "probability that a move is a player's mistake (default 0)",
    "faults": "link faults per minute: garbage, lost frames, resets, unplugs (default 0)",
    "rate": "samples per second, 10 or 80 (default 80)",
    "rules": "rule set NAME[:key=value,...] (default: the one the service referees)",
    "players": "2, 3 or 4 (more than 2: universal mancala)",
    "moves": "comma-separated moves to play in order, then stop (e.g. C,d,A)",
    "max_moves": "stop after this many moves",
    "noise": "reading noise of a cell in grams (default 0.03)",
    "loop": "1 (default): lay out the next game when one ends; 0: stop after one",
}

log = logging.getLogger(__name__)


class SensorHealth(SourceHealth, LinkHealth):
    """A sensor board's ``health()``: the link's, and what was read from it."""

    observations: int
    readings_before_hello: int


class SimHealth(SensorHealth):
    """The virtual board's ``health()``: a sensor board's, and the game it plays."""

    virtual_board: dict[str, Any]


class SensorSource:
    """Observations from a board behind a :class:`SerialLink` (real or virtual)."""

    def __init__(
        self,
        link: SerialLink,
        calibration: Calibration | None = None,
        name: str = "sensor",
    ) -> None:
        self.link = link
        self._calibration_given = calibration is not None
        self.calibration = calibration or Calibration()
        self.name = name
        self.builder = self._builder(80)
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
                mismatch = self._fit_board(item)
                if mismatch:
                    yield {"type": "link", "state": "disconnected", "detail": mismatch}
                if item.rate_hz != self._rate and item.rate_hz > 0:
                    self._rate = item.rate_hz
                    self.builder.set_rate(item.rate_hz)
            elif isinstance(item, Reading):
                # Readings mean something only once this connection's HELLO (the link
                # forgets it on every new connection) named a protocol we speak.
                hello = self.link.hello
                if hello is None:
                    self._ask_identity()
                elif (
                    hello.protocol == PROTOCOL_VERSION
                    and len(item.weights_mg) == self.calibration.channels
                ):
                    obs = self._reading(item)
                    if obs is not None:
                        self.observations += 1
                        yield obs

    def _builder(self, rate_hz: int) -> ObservationBuilder:
        pits = self.calibration.channels * 6 // 7  # 6 pits and a store per player
        # a pit or store holds at most every seed of the game (4 a pit at the start)
        return ObservationBuilder(
            self.calibration, rate_hz, self.name, pits=pits, total_seeds=4 * pits
        )

    def _fit_board(self, hello: Hello) -> str:
        """Follow the board's size (its HELLO's pits and stores): "" when the calibration
        fits or was neutral (a neutral one is resized), else why the readings are unused."""
        channels = hello.pits + hello.stores
        if channels == self.calibration.channels:
            return ""
        if self._calibration_given:
            return (
                f"the board weighs {hello.pits} pits and {hello.stores} stores, but its "
                f"calibration is for {self.calibration.channels} cells: calibrate this board "
                "(oware-companion calibrate --source URL)"
            )
        old = self.calibration
        self.calibration = Calibration.for_channels(
            channels, seed_mean_g=old.seed_mean_g, seed_sd_g=old.seed_sd_g, noise_g=old.noise_g
        )
        self.builder = self._builder(self._rate)
        return ""

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

    def health(self) -> SensorHealth:
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
        rules = self.board.player.ruleset
        # What `oware-companion calibrate` would learn from this board's start
        # position: the mean and spread of *these* seeds (48 on a two-player board).
        start = [sum(s) for s in self.board.physics.seeds[: self.board.pits]]
        noise = max(self.board.opts.noise_g, 0.01)
        mean, sd = learn_seed_weight(start, rules.seeds_per_pit, noise)
        cal = Calibration.for_channels(
            self.board.channels, seed_mean_g=mean, seed_sd_g=sd, noise_g=noise
        )
        super().__init__(SerialLink(self.board.port), cal, "sim")
        self.builder = ObservationBuilder(
            cal, 80, "sim", pits=self.board.pits, total_seeds=rules.total_seeds
        )
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

    def health(self) -> SimHealth:
        return {
            **super().health(),
            "virtual_board": {
                "device_time_s": round(self.board.t, 2),
                "moves_played": self.board.player.moves_played,
                "faults_injected": len(self.board.injected),
            },
        }


def sim_query(query: str) -> dict[str, str]:
    """The options of a ``sim://?…`` query, each once, unknown ones refused.

    A ``+`` stays a plus (``variants=3+9``), not a space as in HTML forms.

    >>> sim_query("rules=universal:players=3,variants=3+9&seed=2")
    {'rules': 'universal:players=3,variants=3+9', 'seed': '2'}
    """
    q = parse_qs(query.replace("+", "%2B"), keep_blank_values=True)
    unknown = set(q) - set(SIM_OPTIONS)
    if unknown:
        raise SourceURLError(
            f"unknown sim:// option(s): {', '.join(sorted(unknown))}; "
            f"options: {', '.join(SIM_OPTIONS)}"
        )
    return {k: v[-1] for k, v in q.items()}


def sim_rules(query: str, default: str | RuleSet = "abapa") -> RuleSet:
    """The rule set a ``sim://`` URL plays: its ``rules`` and ``players``, else ``default``.

    >>> sim_rules("players=3").name, sim_rules("players=3").players
    ('universal-3', 3)
    >>> sim_rules("rules=universal&players=4").players
    4
    >>> sim_rules("", "mankala-pl").name
    'mankala-pl'
    """
    q = sim_query(query)
    spec = q.get("rules") or None
    players = q.get("players") or None
    if players is not None and players not in ("2", "3", "4"):
        raise SourceURLError(f"sim:// option players must be 2, 3 or 4, not {players!r}")
    if spec is not None:
        rules = parse_rules_spec(spec)
    else:
        rules = parse_rules_spec(default) if isinstance(default, str) else default
    if players is None or rules.players == int(players):
        return rules
    if rules.family == "universal":
        return get_rules("universal", **{**rules.options, "players": int(players)})
    if spec is None:  # players=3 on a service refereeing Oware: the board is universal
        return get_rules(f"universal-{players}")
    raise SourceURLError(
        f"{rules.name} is a game for {rules.players} players; for {players} players "
        "play universal mancala (sim://?players=N alone says so)"
    )


def _number(q: dict[str, str], key: str, default: str, kind: type[float] | type[int]) -> Any:
    raw = q.get(key) or default
    try:
        return kind(raw)
    except ValueError:
        what = "a whole number" if kind is int else "a number"
        raise SourceURLError(f"sim:// option {key} must be {what}, not {raw!r}") from None


def device_options_from_query(query: str, rules: str | RuleSet = "abapa") -> DeviceOptions:
    """Parse the ``sim://?…`` options (see the module docstring); ``rules`` is the rule set
    played when the URL names none."""
    q = sim_query(query)
    moves = [m for m in q.get("moves", "").split(",") if m] or None
    max_moves = q.get("max_moves") or None
    loop = q.get("loop", "1")
    if loop not in ("0", "1"):
        raise SourceURLError("sim:// option loop must be 0 or 1")
    player = PlayerOptions(
        rules=sim_rules(query, rules),
        moves=moves,
        mistakes=_number(q, "mistakes", "0", float),
        max_moves=None if max_moves is None else _number(q, "max_moves", "", int),
        loop=loop == "1",
    )
    seed = q.get("seed") or None
    rate = _number(q, "rate", "80", int)
    if rate not in (10, 80):
        raise SourceURLError("sim:// option rate must be 10 or 80")
    speed = _number(q, "speed", "1", float)
    if not speed >= 0:
        raise SourceURLError("sim:// option speed must be 0 (as fast as read) or more")
    return DeviceOptions(
        seed=None if seed is None else _number(q, "seed", "", int),
        speed=speed,
        rate_hz=rate,
        faults=_number(q, "faults", "0", float),
        noise_g=_number(q, "noise", "0.03", float),
        player=player,
    )


def default_calibration_path() -> Path:
    """Where ``oware-companion calibrate`` saves the board's calibration by default."""
    return platformdirs.user_config_path("oware-companion") / "scale-calibration.json"
