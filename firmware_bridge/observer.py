"""Turns the 80 Hz stream of weights into the few Observations the referee needs.

The referee does not want 80 observations a second of an unchanged board. An
:class:`ObservationBuilder` emits one when

* the board becomes stable or unstable,
* the board is stable and a most-likely count changed (a slow, clean change),
* the board is unstable and ``min_interval_s`` has passed (so the dashboard
  can follow a hand sowing),
* ``heartbeat_s`` has passed (so the live page knows the link is alive).

A channel that is moving (a hand on it, a seed rolling) is reported as
``None``: "not seen", exactly like a pit hidden by a hand on camera. The first
pit whose seeds disappear after a stable board is reported as ``lifted``
(touch-move).
"""

from __future__ import annotations

import numpy as np

from core.observation import Observation, PitReading
from firmware_bridge.protocol import PITS, Reading
from firmware_bridge.weights import TOTAL_SEEDS, Calibration, CountModel, StabilityDetector


class ObservationBuilder:
    """Feed it every reading; it returns an :class:`Observation` when one is due."""

    def __init__(
        self,
        cal: Calibration,
        rate_hz: int,
        source: str = "sensor",
        *,
        min_interval_s: float = 0.1,
        heartbeat_s: float = 1.0,
        pits: int = PITS,
        total_seeds: int = TOTAL_SEEDS,
    ) -> None:
        """``pits`` of the board's channels are pits (the rest are stores); no channel can
        hold more than ``total_seeds`` (every seed of the game)."""
        self.cal = cal
        self.pits = pits
        self.total_seeds = total_seeds
        self.model = CountModel(cal, total_seeds)
        self.source = source
        self.min_interval_s = min_interval_s
        self.heartbeat_s = heartbeat_s
        self.set_rate(rate_hz)
        self._last_t: float | None = None
        self._last_stable: bool | None = None
        self._last_counts: list[int] | None = None
        self._stable_counts: list[int] | None = None
        self._lifted: int | None = None
        self.latest_grams: np.ndarray | None = None
        #: Whether the last reading pushed left the whole board settled.
        self.stable = False
        # Auto-zero tracking (as shop scales do): an empty, settled channel slowly
        # follows its own drift, so hours of creep never add up to a phantom seed.
        self._zero = np.zeros(len(cal.tare_g))
        self._bits = 1 << np.arange(len(cal.tare_g))
        self._tare = np.asarray(cal.tare_g, dtype=np.float64)
        self._scale = np.asarray(cal.scale, dtype=np.float64)
        self._pending: list[int] | None = None
        self._pending_n = 0

    def set_rate(self, rate_hz: int) -> None:
        self.detector = StabilityDetector(self.cal, rate_hz)
        self.debounce = max(2, rate_hz // 10)

    def reset(self) -> None:
        """The device restarted or the cable was replugged: old history is meaningless."""
        self.detector.clear()
        self._last_stable = None
        self._lifted = None

    def push(self, reading: Reading, t: float) -> Observation | None:
        grams = (np.array(reading.weights_mg) * 0.001 - self._tare) * self._scale - self._zero
        self.latest_grams = grams
        settled = self.detector.push(grams)
        # More than every seed of the game, or clearly less than nothing, is a hand resting
        # on the cup (or lifting it), however still it is held: not seen, not stable.
        mean = self.cal.seed_mean_g
        impossible = (grams > (self.total_seeds + 1) * mean) | (grams < -0.5 * mean)
        if impossible.any():
            settled &= ~impossible
        if reading.stale:
            # A cell that did not convert repeats its last value: it looks perfectly
            # still but is not seen, so it is reported unknown; it must not hold
            # the rest of the board unstable forever either.
            stale = (reading.stale & self._bits) != 0
            stable = bool((settled | stale).all())
            settled &= ~stale
        else:
            stable = bool(settled.all())
        self.stable = stable
        counts = self.model.most_likely(grams)
        empty = settled & (np.abs(grams) < 0.25 * self.cal.seed_mean_g)
        self._zero[empty] += 0.01 * grams[empty]
        # A count that changes on a settled board must hold for a few samples:
        # a weight sitting on the boundary between two counts must not chatter.
        if stable and counts != self._last_counts:
            if counts == self._pending:
                self._pending_n += 1
            else:
                self._pending, self._pending_n = counts, 1
        else:
            self._pending, self._pending_n = None, 0
        changed = self._pending_n >= self.debounce
        if stable:
            self._stable_counts = counts
            self._lifted = None
        elif self._lifted is None and self._stable_counts is not None:
            half_seed = 0.5 * self.cal.seed_mean_g
            for pit in range(self.pits):
                if self._stable_counts[pit] > 0 and grams[pit] < half_seed:
                    self._lifted = pit
                    break
        due = (
            self._last_t is None
            or stable != self._last_stable
            or (stable and changed)
            or (not stable and t - self._last_t >= self.min_interval_s)
            or t - self._last_t >= self.heartbeat_s
        )
        if not due:
            return None
        self._last_t, self._last_stable, self._last_counts = t, stable, counts
        probs = self.model.probabilities(grams)
        readings: list[PitReading] = [
            p if ok else None for p, ok in zip(probs, settled, strict=True)
        ]
        return Observation(
            t=round(t, 4),
            source=self.source,
            stable=stable,
            pits=tuple(readings[: self.pits]),
            stores=tuple(readings[self.pits :]),
            lifted=self._lifted,
        )
