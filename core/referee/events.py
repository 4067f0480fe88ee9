"""Events: what the referee says. One JSON object per event, appended to the session log.

Every event has ``type``, ``seq`` (0, 1, 2, … per referee) and ``t`` (the time of
the observation or command that caused it, so that a replay gives exactly the
same events). Alerts also carry ``pits`` (the pit indices involved), ``names``
(their move letters) and ``text`` (what was expected and what was seen, in
words).

Types: ``move``, ``capture_pending``, ``missed_capture``, ``wrong_capture``,
``illegal_sowing``, ``illegal_move``, ``board_disturbed``, ``board_restored``,
``ambiguous``, ``confirmed``, ``corrected``, ``new_game``, ``game_over``,
``bad_observation``, and ``suggestion`` (from the engine worker).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: Event types that ask a person to look at the board.
ALERT_TYPES = frozenset(
    {
        "illegal_move",
        "illegal_sowing",
        "missed_capture",
        "wrong_capture",
        "board_disturbed",
        "ambiguous",
        "bad_observation",
    }
)


@dataclass(frozen=True, slots=True)
class Event:
    """One thing the referee says. ``data`` holds the fields of its type."""

    type: str
    seq: int
    t: float
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def is_alert(self) -> bool:
        return self.type in ALERT_TYPES

    def __getitem__(self, key: str) -> Any:
        if key in ("type", "seq", "t"):
            return getattr(self, key)
        return self.data[key]

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "seq": self.seq, "t": self.t, **self.data}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Event:
        rest = {k: v for k, v in data.items() if k not in ("type", "seq", "t")}
        return cls(str(data["type"]), int(data["seq"]), float(data["t"]), rest)
