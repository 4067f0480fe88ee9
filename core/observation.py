"""Observations: what every source (camera, sensor board, simulator, replay) emits.

An observation is one reading of the whole board at time ``t`` (seconds, any
monotonic origin the source chooses). Each pit is one of

* an exact count (``int``),
* ``None``: not seen (a hand is over it, or the sensor dropped out),
* a probability vector over counts 0, 1, 2, … (``tuple[float, ...]``).

``stable`` says the source believes nothing is moving. Stores are optional
(``None`` when the source does not read them).

The JSON form is one line of a recorded session::

    {"t": 12.34, "source": "camera", "stable": true,
     "pits": [4, 4, null, [0.0, 0.05, 0.9, 0.05], ...], "stores": null}

>>> obs = Observation.from_json({"t": 1.0, "source": "sim", "stable": True,
...                              "pits": [4] * 12, "stores": [0, 0]})
>>> obs.pits[0], obs.stable
(4, True)
>>> Observation.from_json({"t": 0, "source": "x", "stable": True, "pits": [-1] * 12})
Traceback (most recent call last):
...
core.observation.ObservationError: pit 0: a count cannot be negative (got -1)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

PitReading = int | None | tuple[float, ...]
"""One pit: exact count, unknown (``None``) or a probability vector over counts."""

#: How far a probability vector may sum from 1 before it is rejected.
PROBABILITY_TOLERANCE = 1e-3

#: Longest probability vector accepted (counts 0 … 192: four players' seeds).
MAX_VECTOR_LENGTH = 193


class ObservationError(ValueError):
    """A malformed observation; the message says what is wrong in words."""


@dataclass(frozen=True, slots=True)
class Observation:
    """One reading of the board. See the module docstring for the fields."""

    t: float
    source: str
    stable: bool
    pits: tuple[PitReading, ...]
    stores: tuple[PitReading, ...] | None = None
    lifted: int | None = None
    """Optional: the pit a sensor saw lifted first (used by touch-move)."""

    def to_json(self) -> dict[str, Any]:
        """The JSON-ready dict of one session line."""
        out: dict[str, Any] = {
            "t": self.t,
            "source": self.source,
            "stable": self.stable,
            "pits": [_reading_to_json(r) for r in self.pits],
            "stores": None if self.stores is None else [_reading_to_json(r) for r in self.stores],
        }
        if self.lifted is not None:
            out["lifted"] = self.lifted
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any], *, pits: int | None = None) -> Observation:
        """Parse and validate one observation; raise :class:`ObservationError` if malformed.

        ``pits`` (optional) is the number of pits the game has; a reading of
        any other length is rejected.
        """
        if not isinstance(data, Mapping):
            raise ObservationError("an observation must be a JSON object")
        try:
            t = data["t"]
            raw_pits = data["pits"]
        except KeyError as exc:
            raise ObservationError(f"missing field {exc.args[0]!r}") from None
        if isinstance(t, bool) or not isinstance(t, int | float) or not math.isfinite(t):
            raise ObservationError(f"'t' must be a finite number of seconds (got {t!r})")
        source = data.get("source", "unknown")
        if not isinstance(source, str):
            raise ObservationError("'source' must be a string")
        stable = data.get("stable", False)
        if not isinstance(stable, bool):
            raise ObservationError("'stable' must be true or false")
        if not isinstance(raw_pits, Sequence) or isinstance(raw_pits, str):
            raise ObservationError("'pits' must be a list")
        if pits is not None and len(raw_pits) != pits:
            raise ObservationError(f"expected {pits} pits, got {len(raw_pits)}")
        parsed = tuple(parse_reading(r, f"pit {i}") for i, r in enumerate(raw_pits))
        raw_stores = data.get("stores")
        stores: tuple[PitReading, ...] | None = None
        if raw_stores is not None:
            if not isinstance(raw_stores, Sequence) or isinstance(raw_stores, str):
                raise ObservationError("'stores' must be a list or null")
            stores = tuple(parse_reading(r, f"store {i}") for i, r in enumerate(raw_stores))
        lifted = data.get("lifted")
        if lifted is not None and (
            isinstance(lifted, bool) or not isinstance(lifted, int) or lifted < 0
        ):
            raise ObservationError("'lifted' must be a pit index")
        return cls(float(t), source, stable, parsed, stores, lifted)


def parse_reading(raw: Any, where: str) -> PitReading:
    """Validate one pit reading (count, null or probability vector)."""
    if raw is None:
        return None
    if isinstance(raw, bool):
        raise ObservationError(f"{where}: expected a count, null or a list (got {raw!r})")
    if isinstance(raw, int):
        if raw < 0:
            raise ObservationError(f"{where}: a count cannot be negative (got {raw})")
        return raw
    if isinstance(raw, float) and raw.is_integer() and raw >= 0:
        return int(raw)
    if isinstance(raw, Sequence) and not isinstance(raw, str):
        if not raw:
            raise ObservationError(f"{where}: an empty probability vector")
        if len(raw) > MAX_VECTOR_LENGTH:
            raise ObservationError(f"{where}: probability vector too long ({len(raw)})")
        vec: list[float] = []
        for p in raw:
            if isinstance(p, bool) or not isinstance(p, int | float):
                raise ObservationError(f"{where}: probabilities must be numbers")
            if not math.isfinite(p) or p < 0:
                raise ObservationError(f"{where}: probabilities must be finite and >= 0")
            vec.append(float(p))
        total = sum(vec)
        if abs(total - 1.0) > PROBABILITY_TOLERANCE:
            raise ObservationError(f"{where}: probabilities sum to {total:.4f}, not 1")
        return tuple(v / total for v in vec)
    raise ObservationError(f"{where}: expected a count, null or a list (got {raw!r})")


def _reading_to_json(r: PitReading) -> Any:
    return list(r) if isinstance(r, tuple) else r


def most_likely(r: PitReading) -> int | None:
    """The single most likely count of a reading (``None`` if unknown).

    >>> most_likely(3), most_likely(None), most_likely((0.1, 0.7, 0.2))
    (3, None, 1)
    """
    if r is None or isinstance(r, int):
        return r
    return max(range(len(r)), key=r.__getitem__)


def probability(r: PitReading, count: int) -> float:
    """P(pit holds ``count``) under a reading. Unknown readings are uninformative (1.0).

    >>> probability(3, 3), probability(3, 2), probability((0.2, 0.8), 1), probability(None, 7)
    (1.0, 0.0, 0.8, 1.0)
    """
    if r is None:
        return 1.0
    if isinstance(r, int):
        return 1.0 if r == count else 0.0
    return r[count] if 0 <= count < len(r) else 0.0
