"""The referee: Observations in, Events out. See :mod:`core.referee.referee`."""

from core.referee.commands import CommandError
from core.referee.events import ALERT_TYPES, Event
from core.referee.referee import Referee

__all__ = ["ALERT_TYPES", "CommandError", "Event", "Referee"]
