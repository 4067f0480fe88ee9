"""The referee: Observations in, Events out. See :mod:`core.referee.referee`."""

from core.referee.commands import CommandError
from core.referee.events import ALERT_TYPES, Event
from core.referee.presets import CAMERA, SENSOR
from core.referee.referee import Referee

__all__ = ["ALERT_TYPES", "CAMERA", "SENSOR", "CommandError", "Event", "Referee"]
