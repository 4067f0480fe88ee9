"""The rules core of oware-companion: positions, rule sets, notation, game records.

Pure Python (stdlib and numpy only): no I/O, no cameras, no serial ports.

>>> from core import Position
>>> p = Position.initial("abapa")
>>> p.play(5).play(6).to_text()
'4-4-4-4-4-0-0-6-6-6-5-5-0-0-S'
"""

from core.errors import (
    IllegalMoveError,
    InvalidPositionError,
    RulesError,
    UnknownRulesError,
)
from core.observation import Observation, ObservationError
from core.position import MoveOutcome, Position
from core.rules import PRESETS, Ending, RuleSet, get_rules, store_slot

__all__ = [
    "PRESETS",
    "Ending",
    "IllegalMoveError",
    "InvalidPositionError",
    "MoveOutcome",
    "Observation",
    "ObservationError",
    "Position",
    "RuleSet",
    "RulesError",
    "UnknownRulesError",
    "get_rules",
    "store_slot",
]
