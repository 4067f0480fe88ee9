"""The one check of commands from people, before the referee carries them out.

The page and the REST API send commands as JSON objects (see
``docs/SERVICE_API.md``); a session log holds them as written.
:func:`validate_command` accepts only the known commands with their known
fields, of the right types and sizes, and raises :class:`CommandInvalid` (a
:class:`core.referee.CommandError`) whose message says what is wrong
otherwise. :func:`core.referee.commands.run` checks every command with it, so a
command read back from a log meets the same check as one from the page; the
referee then checks the game meaning (is that move legal here?).

One command is the service's, not the referee's (never in the session log):
``{"command": "fair_play", "on": true}``.

>>> validate_command({"command": "confirm", "move": "F"})
{'command': 'confirm', 'move': 'F'}
>>> validate_command({"command": "undo", "t": 5})
Traceback (most recent call last):
...
core.referee.command_check.CommandInvalid: undo: unexpected field(s) t; allowed: none

Every command arrives as JSON text (an HTTP body, a WebSocket message);
:func:`parse_json` reads it strictly, so that what reaches the referee can be
written to the log and read back unchanged: ``NaN``, ``Infinity`` and numbers
that overflow to them, integers past Python's 4,300 digits and values nested
deeper than :data:`MAX_DEPTH` are refused with one line, never a traceback.

>>> parse_json('{"command": "set_position", "position": {"pits": [NaN]}}')
Traceback (most recent call last):
...
core.referee.command_check.CommandInvalid: NaN and Infinity are not allowed in a command
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from core.referee.commands import CommandError
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
#: Deepest nesting of objects and lists accepted in a message (a command needs 4).
MAX_DEPTH = 8
#: Largest seed count in a pit or a store.
MAX_SEEDS = 192
_POSITION_FIELDS = ("rules", "options", "pits", "stores", "to_move")


class CommandInvalid(CommandError):
    """A command that is malformed (refused before the referee sees it: HTTP 400, where a
    :class:`CommandError` the referee raises about the game is 409)."""


def _no_constant(name: str) -> Any:
    raise CommandInvalid("NaN and Infinity are not allowed in a command")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e999
        raise CommandInvalid(f"the number {text[:20]} is too large")
    return value


def parse_json(data: bytes | str) -> Any:
    """The JSON value of a message, read strictly (see the module docstring);
    raises :class:`CommandInvalid` with one line saying what is wrong."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            raise CommandInvalid("the message is not UTF-8 text") from None
    try:
        value = json.loads(data, parse_constant=_no_constant, parse_float=_finite_float)
    except json.JSONDecodeError as exc:
        raise CommandInvalid(f"not valid JSON ({exc.msg} at character {exc.pos})") from None
    except RecursionError:
        raise CommandInvalid(f"values nested deeper than {MAX_DEPTH} levels") from None
    except CommandInvalid:
        raise
    except ValueError:  # int('9' * 5000): past the 4,300 digits Python converts
        raise CommandInvalid("a number with too many digits") from None
    if _depth(value) > MAX_DEPTH:
        raise CommandInvalid(f"values nested deeper than {MAX_DEPTH} levels")
    return value


def _depth(value: Any) -> int:
    """How deeply objects and lists nest in ``value`` (a scalar is 0), without recursion."""
    deepest = 0
    stack = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            level += 1
            deepest = max(deepest, level)
            if level > MAX_DEPTH:
                break
            stack.extend((v, level) for v in (item.values() if isinstance(item, dict) else item))
    return deepest


def validate_command(raw: Any) -> dict[str, Any]:
    """A clean copy of ``raw`` if it is a well-formed command (see the module docstring)."""
    if not isinstance(raw, Mapping) or "command" not in raw:
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
        return _options(where, value)
    if key == "position":
        if isinstance(value, str):
            if len(value) > MAX_TEXT:
                raise CommandInvalid(f"{where} text is too long")
            return value
        if isinstance(value, Mapping):
            return _position(where, value)
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


def _is_int(value: Any, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _options(where: str, value: Any) -> dict[str, Any]:
    if not isinstance(value, Mapping) or len(value) > 20:
        raise CommandInvalid(f"{where} must be an object of rule options")
    for k, v in value.items():
        ok = (
            isinstance(v, bool | str)
            or _is_int(v, -1000, 1000)
            or (isinstance(v, list) and len(v) <= 10 and all(_is_int(i, -1000, 1000) for i in v))
        )
        if not ok or len(k) > MAX_NAME or (isinstance(v, str) and len(v) > MAX_NAME):
            raise CommandInvalid(f"{where}: option {k[:MAX_NAME]!r} has an unusable value")
    return dict(value)


def _position(where: str, value: Mapping[str, Any]) -> dict[str, Any]:
    """A JSON position with only the fields of ``Position.to_json``, each of its type."""
    unexpected = sorted(str(k)[:MAX_NAME] for k in value if k not in _POSITION_FIELDS)
    if unexpected:
        raise CommandInvalid(
            f"{where}: unexpected field(s) {', '.join(unexpected)}; "
            f"allowed: {', '.join(_POSITION_FIELDS)}"
        )
    for label, longest in (("pits", 24), ("stores", 4)):
        seq = value.get(label)
        if label == "stores" and seq is None:
            continue
        if (
            not isinstance(seq, list)
            or len(seq) > longest
            or not all(_is_int(c, 0, MAX_SEEDS) for c in seq)
        ):
            raise CommandInvalid(f"{where}: {label} must be a list of seed counts (0-{MAX_SEEDS})")
    out: dict[str, Any] = {"pits": list(value["pits"])}
    if value.get("stores") is not None:
        out["stores"] = list(value["stores"])
    if "to_move" in value:
        if not _is_int(value["to_move"], 0, 3):
            raise CommandInvalid(f"{where}: to_move must be a player number (0-3)")
        out["to_move"] = value["to_move"]
    if "rules" in value:
        rules = value["rules"]
        if not isinstance(rules, str) or not 0 < len(rules) <= MAX_NAME:
            raise CommandInvalid(f"{where}: rules must be a rule-set name")
        out["rules"] = rules
    if value.get("options") is not None:
        out["options"] = _options(f"{where}: options", value["options"])
    return out
