"""Checking commands from people before the referee sees them.

The page and the REST API send commands as JSON objects (see
``docs/SERVICE_API.md``). :func:`validate_command` accepts only the known
commands with their known fields, of the right types and sizes, and answers a
:class:`CommandInvalid` whose message says what is wrong otherwise. The
referee then checks the game meaning (is that move legal here?) and raises
:class:`core.referee.CommandError`, also with words.

Service-level commands (not for the referee, never in the session log):
``{"command": "fair_play", "on": true}``.

>>> validate_command({"command": "confirm", "move": "F"})
{'command': 'confirm', 'move': 'F'}
>>> validate_command({"command": "undo", "t": 5})
Traceback (most recent call last):
...
companion.service.commands.CommandInvalid: undo: unexpected field(s) t; allowed: none
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.rules import get_rules

REFEREE_COMMANDS = ("new_game", "set_position", "undo", "confirm", "declare_cycle_end")
SERVICE_COMMANDS = ("fair_play",)

_FIELDS: dict[str, tuple[str, ...]] = {
    "new_game": ("rules", "options", "position", "south", "north"),
    "set_position": ("position",),
    "undo": (),
    "confirm": ("pit", "count", "move"),
    "declare_cycle_end": (),
    "fair_play": ("on",),
}

MAX_TEXT = 200
MAX_NAME = 60


class CommandInvalid(ValueError):
    """A command that is malformed; never given to the referee."""


def validate_command(raw: Any) -> dict[str, Any]:
    """A clean copy of ``raw`` if it is a well-formed command (see the module docstring)."""
    if not isinstance(raw, Mapping):
        raise CommandInvalid('a command is a JSON object like {"command": "undo"}')
    name = raw.get("command")
    if not isinstance(name, str) or name not in _FIELDS:
        raise CommandInvalid(f"unknown command {name!r}; commands: {', '.join(_FIELDS)}")
    allowed = _FIELDS[name]
    unexpected = sorted(k for k in raw if k != "command" and k not in allowed)
    if unexpected:
        raise CommandInvalid(
            f"{name}: unexpected field(s) {', '.join(map(str, unexpected))}; "
            f"allowed: {', '.join(allowed) or 'none'}"
        )
    cmd: dict[str, Any] = {"command": name}
    for key in allowed:
        if key in raw and raw[key] is not None:
            cmd[key] = _check(name, key, raw[key])
    if name == "set_position" and "position" not in cmd:
        raise CommandInvalid("set_position needs a position (text form or JSON)")
    if name == "confirm" and "move" not in cmd and ("pit" not in cmd or "count" not in cmd):
        raise CommandInvalid("confirm needs a move, or a pit and the count seen in it")
    if name == "fair_play" and "on" not in cmd:
        raise CommandInvalid('fair_play needs "on": true or false')
    if name == "new_game" and ("rules" in cmd or "options" in cmd):
        try:
            get_rules(cmd.get("rules", "abapa"), **cmd.get("options", {}))
        except (ValueError, TypeError) as exc:
            raise CommandInvalid(f"new_game: {exc}") from None
    return cmd


def _check(command: str, key: str, value: Any) -> Any:
    where = f"{command}: {key}"
    if key in ("rules",):
        if not isinstance(value, str) or not 0 < len(value) <= MAX_NAME:
            raise CommandInvalid(f"{where} must be a rule-set name")
        return value
    if key in ("south", "north"):
        if not isinstance(value, str) or len(value) > MAX_NAME:
            raise CommandInvalid(f"{where} must be a name of at most {MAX_NAME} characters")
        return value.strip()
    if key == "options":
        if not isinstance(value, Mapping) or len(value) > 20:
            raise CommandInvalid(f"{where} must be an object of rule options")
        for k, v in value.items():
            ok = isinstance(v, bool | int | str) or (
                isinstance(v, list) and len(v) <= 10 and all(isinstance(i, int) for i in v)
            )
            if not ok or (isinstance(v, str) and len(v) > MAX_NAME):
                raise CommandInvalid(f"{where}: option {k!r} has an unusable value")
        return dict(value)
    if key == "position":
        if isinstance(value, str):
            if len(value) > MAX_TEXT:
                raise CommandInvalid(f"{where} text is too long")
            return value
        if isinstance(value, Mapping):
            pits, stores = value.get("pits"), value.get("stores")
            for label, seq in (("pits", pits), ("stores", stores)):
                if (
                    not isinstance(seq, list)
                    or len(seq) > 24
                    or not all(isinstance(c, int) and not isinstance(c, bool) for c in seq)
                ):
                    raise CommandInvalid(f"{where}: {label} must be a list of seed counts")
            return dict(value)
        raise CommandInvalid(f"{where} must be the text form or a JSON position")
    if key in ("pit", "move"):
        if isinstance(value, str) and 0 < len(value) <= 3:
            return value
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 24:
            return value
        raise CommandInvalid(f"{where} must be a pit name (A-F, a-f) or index")
    if key == "count":
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 192:
            return value
        raise CommandInvalid(f"{where} must be a seed count (0-192)")
    if key == "on":
        if isinstance(value, bool):
            return value
        raise CommandInvalid(f"{where} must be true or false")
    raise CommandInvalid(f"{where} is not understood")  # pragma: no cover
