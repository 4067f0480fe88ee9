"""From grams to seed counts: calibration, the count model and the stability detector.

The firmware reports a weight per channel (12 pits, then the 2 stores). The
host owns the calibration, because it is where seeds are known:

* per channel, a ``tare`` (grams to subtract: the empty pit, plus drift since
  the firmware's own tare) and a ``scale`` (a gain correction, normally 1);
* the seed weight: mean and spread, learned by weighing the 48 seeds of the
  start position (:func:`learn_seed_weight`);
* the reading noise of one channel (grams, one standard deviation).

A pit holding ``n`` seeds then weighs about ``n * mean`` with variance
``noise² + n * spread²``. :meth:`CountModel.probabilities` turns each weight
into a probability vector over counts 0, 1, 2, … — the referee combines it
with the rules, so the model never has to be certain.

>>> model = CountModel(Calibration())
>>> vec = model.probabilities([4 * 2.4] + [0.0] * 13)[0]
>>> max(range(len(vec)), key=vec.__getitem__)
4
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from firmware_bridge.protocol import CHANNELS

#: Seeds in an Oware set: the most a pit or a store can ever hold (on a two-player board).
TOTAL_SEEDS = 48
#: Channels of the boards there are: 2, 3 or 4 players, each with 6 pits and a store.
BOARD_CHANNELS = (14, 21, 28)
#: Probabilities below this are cut from the tail of a vector (then renormalised).
TAIL_CUTOFF = 1e-6


@dataclass(slots=True)
class Calibration:
    """Host-side calibration of one board. Saved as JSON (see :meth:`save`)."""

    tare_g: list[float] = field(default_factory=lambda: [0.0] * CHANNELS)
    scale: list[float] = field(default_factory=lambda: [1.0] * CHANNELS)
    seed_mean_g: float = 2.4
    seed_sd_g: float = 0.25
    noise_g: float = 0.05

    @classmethod
    def for_channels(cls, channels: int, **values: float) -> Calibration:
        """A neutral calibration (no tare, unit scales) of a board of ``channels`` cells."""
        return cls(tare_g=[0.0] * channels, scale=[1.0] * channels, **values)

    @property
    def channels(self) -> int:
        return len(self.tare_g)

    def grams(self, weights_mg: Sequence[int]) -> np.ndarray:
        """Calibrated grams per channel from a READING's milligrams."""
        raw = np.asarray(weights_mg, dtype=np.float64) / 1000.0
        out: np.ndarray = (raw - np.asarray(self.tare_g)) * np.asarray(self.scale)
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "format": "oware-scale-calibration",
            "version": 1,
            "tare_g": list(self.tare_g),
            "scale": list(self.scale),
            "seed_mean_g": self.seed_mean_g,
            "seed_sd_g": self.seed_sd_g,
            "noise_g": self.noise_g,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Calibration:
        if data.get("format") != "oware-scale-calibration":
            raise ValueError("not an oware-scale-calibration file")
        cal = cls(
            tare_g=[float(x) for x in data["tare_g"]],
            scale=[float(x) for x in data["scale"]],
            seed_mean_g=float(data["seed_mean_g"]),
            seed_sd_g=float(data["seed_sd_g"]),
            noise_g=float(data["noise_g"]),
        )
        if len(cal.tare_g) != len(cal.scale) or len(cal.tare_g) not in BOARD_CHANNELS:
            raise ValueError(
                f"a calibration needs {CHANNELS} tare and scale values "
                "(21 or 28 for a three- or four-player board)"
            )
        if not (cal.seed_mean_g > 0 and cal.seed_sd_g >= 0 and cal.noise_g > 0):
            raise ValueError("seed mean and noise must be positive")
        return cal

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_json(), indent=2) + "\n")

    @classmethod
    def load(cls, path: Path) -> Calibration:
        return cls.from_json(json.loads(path.read_text()))


def tare_from_samples(samples_g: np.ndarray) -> tuple[list[float], float]:
    """Tare offsets (mean per channel) and the reading noise from an empty board.

    ``samples_g`` has shape (samples, channels), in grams *before* tare. The
    noise is the median per-channel standard deviation, floored so the model
    never believes a channel is perfect.
    """
    samples_g = np.asarray(samples_g, dtype=np.float64)
    tare = samples_g.mean(axis=0)
    noise = float(np.median(samples_g.std(axis=0))) if len(samples_g) > 1 else 0.05
    return [float(x) for x in tare], max(noise, 0.01)


def learn_seed_weight(
    pit_grams: Sequence[float], seeds_per_pit: int = 4, noise_g: float = 0.05
) -> tuple[float, float]:
    """Seed mean and spread from the pits of the start position (4 seeds in each).

    The mean is the total over the total count. Each pit's weight has variance
    ``noise² + k·sd²`` for ``k`` seeds, so the spread follows from the
    variance between pits. With 12 pits that estimate is rough, so it is kept
    between 3 % and 30 % of the mean.
    """
    w = np.asarray(pit_grams, dtype=np.float64)
    if len(w) == 0 or seeds_per_pit <= 0:
        raise ValueError("need at least one pit with seeds")
    mean = float(w.sum() / (len(w) * seeds_per_pit))
    if mean <= 0:
        raise ValueError("the pits weigh nothing: are the seeds on the board?")
    var_pit = float(w.var(ddof=1)) if len(w) > 1 else 0.0
    sd = math.sqrt(max(var_pit - noise_g**2, 0.0) / seeds_per_pit)
    return mean, min(max(sd, 0.03 * mean), 0.3 * mean)


class CountModel:
    """Weight (grams) → probability vector over seed counts, for every channel at once."""

    def __init__(self, cal: Calibration, max_count: int = TOTAL_SEEDS) -> None:
        self.cal = cal
        n = np.arange(max_count + 1, dtype=np.float64)
        self._n = n
        self._mu = n * cal.seed_mean_g
        # A little extra variance for drift between re-tares (a tenth of a seed).
        var = cal.noise_g**2 + n * cal.seed_sd_g**2 + (0.1 * cal.seed_mean_g) ** 2
        self._inv2var = 0.5 / var
        self._lognorm = -0.5 * np.log(var)

    def probabilities(self, grams: Sequence[float] | np.ndarray) -> list[tuple[float, ...]]:
        """One probability vector per channel (counts 0 … max_count, tail cut)."""
        g = np.asarray(grams, dtype=np.float64)[:, None]
        logp = self._lognorm - (g - self._mu) ** 2 * self._inv2var
        logp -= logp.max(axis=1, keepdims=True)
        p = np.exp(logp)
        p /= p.sum(axis=1, keepdims=True)
        out: list[tuple[float, ...]] = []
        for row in p:
            keep = np.nonzero(row >= TAIL_CUTOFF)[0]
            last = int(keep[-1]) + 1 if len(keep) else 1
            v = row[:last]
            out.append(tuple((v / v.sum()).tolist()))
        return out

    def most_likely(self, grams: Sequence[float] | np.ndarray) -> list[int]:
        """The most likely count per channel (what a display would show).

        Only the two counts either side of ``grams / mean`` can win (the
        likelihood is unimodal in the count), so only those are compared:
        this runs 80 times a second per board.
        """
        g = np.asarray(grams, dtype=np.float64)
        top = len(self._mu) - 1
        lo = np.clip(np.floor(g / self.cal.seed_mean_g), 0, top - 1).astype(np.intp)
        hi = lo + 1
        lp_lo = self._lognorm[lo] - (g - self._mu[lo]) ** 2 * self._inv2var[lo]
        lp_hi = self._lognorm[hi] - (g - self._mu[hi]) ** 2 * self._inv2var[hi]
        return np.where(lp_hi > lp_lo, hi, lo).tolist()  # type: ignore[no-any-return]


class StabilityDetector:
    """Says, per channel, whether the weight has settled over a short window.

    A hand pressing on a pit or a seed still rolling makes the weight move by a
    good fraction of a seed within a fraction of a second; a settled pit only
    shows reading noise. A channel is stable when its readings over the last
    ``window_s`` seconds all lie within ``tolerance`` grams (default: a third
    of a seed, or 6 noise sigmas if that is larger).
    """

    def __init__(self, cal: Calibration, rate_hz: int, window_s: float = 0.25) -> None:
        self.window = max(3, round(window_s * rate_hz))
        self.tolerance = max(cal.seed_mean_g / 3.0, 6.0 * cal.noise_g)
        self._buf = np.zeros((self.window, len(cal.tare_g)))
        self._filled = 0

    def push(self, grams: np.ndarray) -> np.ndarray:
        """Add one reading; return a boolean array, True where the channel is stable."""
        self._buf[self._filled % self.window] = grams
        self._filled += 1
        if self._filled < self.window:
            return np.zeros(len(grams), dtype=bool)
        buf = self._buf
        return np.asarray((buf.max(axis=0) - buf.min(axis=0)) <= self.tolerance)

    def clear(self) -> None:
        """Forget the history (after a reset or a reconnect: old readings are stale)."""
        self._filled = 0
