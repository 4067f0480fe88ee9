"""Commands from people: new game, position set by hand, undo, a count or a move confirmed.

:func:`run` turns a command (the JSON object the page or the API sends, see
``docs/SERVICE_API.md``) into a call on the referee, and refuses one that
cannot be carried out with :class:`CommandError`, whose message says why. A
command that changes the position resets the tracker to it; the referee then
compares it with the board and, if they disagree, says so in its single
out-of-sync alert (:meth:`core.referee.Referee.check_board`).

>>> from core.referee import Referee
>>> ref = Referee()
>>> [e.type for e in run(ref, {"command": "set_position",
...                            "position": "1-4-2-1-4-4-6-0-3-0-6-4-7-6-N"}, 1.0)]
['corrected']
>>> run(ref, {"command": "fly"}, 2.0)
Traceback (most recent call last):
...
core.referee.command_check.CommandInvalid: unknown command 'fly'; commands: new_game, \
set_position, undo, confirm, declare_cycle_end, fair_play

Every command is first checked by :func:`core.referee.command_check.validate_command`
(the one check of a command's form: the page's, the API's and a log's alike).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from core.errors import IllegalMoveError, RulesError
from core.notation import parse_move
from core.position import Position
from core.rules import RuleSet, get_rules

if TYPE_CHECKING:
    from core.referee.events import Event
    from core.referee.referee import Referee

NAMES = ("new_game", "set_position", "undo", "confirm", "declare_cycle_end")


class CommandError(ValueError):
    """A command that cannot be carried out; the message says why."""


def run(referee: Referee, cmd: Mapping[str, Any], t: float) -> list[Event]:
    """Carry out ``cmd`` at time ``t`` (a log's line may carry its own ``t``: it is not part
    of the command); raises :class:`CommandError`."""
    # (imported here: the check's own error builds on CommandError, defined above)
    from core.referee.command_check import validate_command

    if not isinstance(cmd, Mapping):
        raise CommandError('a command is an object with a "command" name')
    cmd = validate_command({k: v for k, v in cmd.items() if k != "t"})
    name = cmd["command"]
    try:
        if name == "new_game":
            return referee.new_game(
                t, rules=cmd.get("rules"), options=cmd.get("options"), position=cmd.get("position")
            )
        if name == "set_position":
            return referee.set_position(t, cmd.get("position"))
        if name == "undo":
            return referee.undo(t)
        if name == "confirm":
            return referee.confirm(
                t, pit=cmd.get("pit"), count=cmd.get("count"), move=cmd.get("move")
            )
        if name == "declare_cycle_end":
            return referee.declare_cycle_end(t)
    except (RulesError, IllegalMoveError) as exc:
        raise CommandError(str(exc)) from None
    raise CommandError(f"unknown command {name!r}; commands: {', '.join(NAMES)}")


def parse_position(position: Any, rules: RuleSet | str) -> Position:
    """A position given as its text form or as JSON, under ``rules`` unless it names its own."""
    if position is None:
        raise CommandError("a position is needed (text form or JSON)")
    try:
        if isinstance(position, str):
            return Position.from_text(position, rules)
        if isinstance(position, Mapping):
            data = dict(position)
            if "rules" not in data and not isinstance(rules, str):
                return Position(
                    rules, list(data["pits"]), list(data["stores"]), int(data.get("to_move", 0))
                )
            data.setdefault("rules", rules if isinstance(rules, str) else rules.name)
            return Position.from_json(data)
    except (KeyError, TypeError, ValueError) as exc:
        raise CommandError(f"bad position: {exc}") from None
    raise CommandError("a position is given as its text form or as JSON")


def start_position(
    rules: str | None, options: Mapping[str, Any] | None, position: Any, current: RuleSet
) -> Position:
    """The first position of a new game."""
    if position is not None:
        return parse_position(position, rules or current)
    ruleset = get_rules(rules, **(options or {})) if rules else current
    return Position.initial(ruleset)


def move_pit(move: Any, position: Position) -> int:
    """A move given by name or index that is legal in ``position``."""
    if isinstance(move, str):
        try:
            move = parse_move(move, position.players)
        except ValueError:
            raise CommandError(
                f"move {move!r} is not a pit name: give one such as A or f"
            ) from None
    if isinstance(move, bool) or not isinstance(move, int) or not position.is_legal(move):
        raise CommandError(f"move {move!r} is not legal here")
    return move


def counted_pit(pit: Any, count: Any, position: Position) -> tuple[int, int]:
    """A pit (by name or index) and the seeds a person counted in it."""
    rules = position.ruleset
    if isinstance(pit, str):
        try:
            pit = parse_move(pit, rules.players)
        except ValueError:
            raise CommandError(f"{pit!r} is not a pit name: give one such as A or f") from None
    if isinstance(pit, bool) or not isinstance(pit, int) or not 0 <= pit < rules.num_pits:
        raise CommandError(
            f"pit {pit!r} is not on this board: confirm needs a pit name (or index) and its"
            " count, or a move"
        )
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise CommandError("confirm needs the number of seeds counted in the pit")
    return pit, count
