"""Game records: OGN (the PGN-like Oware Game Notation) and JSON.

OGN as written and read here::

    [Variant "abapa"]
    [Event "Club night"]
    [Site "Kraków"]
    [Date "2026.11.21"]
    [Round "1"]
    [South "Ama"]
    [North "Kofi"]
    [Result "1-0"]

    1. F f+2 2. A b 1-0

* Tag pairs as in PGN (``\\"`` and ``\\\\`` escapes). ``Variant`` is the rule-set
  name; ``Options`` (JSON) carries options that differ from it; ``FEN`` gives a
  start position in the text form (``4-4-…-0-0-S``); ``Termination
  "declared"`` records a cycle ended by declaration.
* Moves are pit names (``A``–``F`` South, ``a``–``f`` North; ``1A``… with 3–4
  players), with ``+N`` when the move captured N seeds. A number ``N.``
  precedes each of South's (player 1's) moves; ``N...`` starts a record whose
  first move is not South's. Numbers, comments in ``{}`` and ``;`` are
  ignored when reading; a ``+N`` that disagrees with the rules is an error.
* Result: ``1-0`` South wins, ``0-1`` North wins, ``1/2-1/2`` a draw, ``*``
  unfinished. With 3–4 players one field per player (``0-1-0``).

>>> rec = GameRecord.from_ogn('[Variant "abapa"]\\n\\n1. F a 2. E *')
>>> [rec.name(i) for i in range(len(rec.moves))], rec.final().to_text()
(['F', 'a', 'E'], '4-4-4-4-0-1-1-7-7-6-5-5-0-0-N')
>>> GameRecord.from_ogn(rec.to_ogn()) == rec
True
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from core.errors import IllegalMoveError, InvalidPositionError
from core.notation import move_name, parse_move
from core.position import MoveOutcome, Position
from core.rules import get_rules, non_default_options

#: Tags written first, in this order (the "seven tag roster" of Oware records).
STANDARD_TAGS = ("Variant", "Event", "Site", "Date", "Round", "South", "North", "Result")

_TAG_RE = re.compile(r'^\s*\[\s*([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\s*\]\s*$')
_MOVE_RE = re.compile(r"^([1-4]?[A-Fa-f])(?:\+(\d+))?[!?]*$")
_NUMBER_RE = re.compile(r"^\d+\.(\.\.)?$")
_RESULT_RE = re.compile(r"^(\*|1/2-1/2|[01](?:/2)?(?:-[01](?:/2)?){1,3})$")


class RecordError(InvalidPositionError):
    """A game record that cannot be read; the message says where and why."""


@dataclass
class GameRecord:
    """A game: tags, a start position and the moves (pit indices) played from it."""

    start: Position = field(default_factory=Position.initial)
    moves: list[int] = field(default_factory=list)
    tags: dict[str, str] = field(default_factory=dict)
    declared_end: bool = False
    """The game was ended by declaring an endless cycle after the last move."""

    def __post_init__(self) -> None:
        self._positions: list[Position] | None = None
        self.positions()  # validate every move now, with a clear error

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, GameRecord)
            and self.start == other.start
            and self.moves == other.moves
            and self.declared_end == other.declared_end
            and {k: v for k, v in self.tags.items() if k != "Result"}
            == {k: v for k, v in other.tags.items() if k != "Result"}
        )

    # -- positions ------------------------------------------------------------------
    def positions(self) -> list[Position]:
        """The start position and the position after each move."""
        if self._positions is None or len(self._positions) != len(self.moves) + 1:
            positions = [self.start]
            for i, pit in enumerate(self.moves):
                try:
                    positions.append(positions[-1].play(pit))
                except IllegalMoveError as exc:
                    name = (
                        move_name(pit, self.start.players)
                        if 0 <= pit < len(self.start.pits)
                        else str(pit)
                    )
                    raise RecordError(f"move {i + 1} ({name}) is illegal: {exc}") from None
            if self.declared_end:
                positions[-1] = positions[-1].declare_cycle_end()
            self._positions = positions
        return self._positions

    def final(self) -> Position:
        return self.positions()[-1]

    def outcomes(self) -> list[MoveOutcome]:
        """The outcome of each move (sowing path, captures…)."""
        positions = self.positions()
        return [positions[i].outcome(m) for i, m in enumerate(self.moves)]

    def name(self, index: int) -> str:
        return move_name(self.moves[index], self.start.players)

    def result(self) -> str:
        """The Result tag value of the game as it stands (``*`` while unfinished)."""
        final = self.final()
        if not final.is_over:
            return "*"
        scores = final.scores
        best = max(scores)
        leaders = [p for p, s in enumerate(scores) if s == best]
        if len(leaders) == 1:
            return "-".join("1" if p == leaders[0] else "0" for p in range(len(scores)))
        return "-".join("1/2" if p in leaders else "0" for p in range(len(scores)))

    # -- OGN --------------------------------------------------------------------------
    def to_ogn(self) -> str:
        """The game as OGN text (see the module docstring)."""
        tags = dict(self.tags)
        tags["Variant"] = self.start.rules
        tags["Result"] = self.result()
        extra = non_default_options(self.start.ruleset)
        if extra:
            tags["Options"] = json.dumps(extra, sort_keys=True)
        if self.start != Position.initial(self.start.ruleset):
            tags["FEN"] = self.start.to_text()
        if self.declared_end:
            tags["Termination"] = "declared"
        order = [t for t in STANDARD_TAGS if t in tags] + [
            t for t in tags if t not in STANDARD_TAGS
        ]
        lines = [f'[{t} "{_escape(tags[t])}"]' for t in order]
        return "\n".join(lines) + "\n\n" + self.movetext() + "\n"

    def movetext(self) -> str:
        """Only the moves and result: ``1. F f+2 2. A b 1-0``."""
        tokens: list[str] = []
        number = 0
        for i, out in enumerate(self.outcomes()):
            if out.player == 0:
                number += 1
                tokens.append(f"{number}.")
            elif i == 0:
                number = 1
                tokens.append("1...")
            tokens.append(out.notation)
        tokens.append(self.result())
        return " ".join(tokens)

    @classmethod
    def from_ogn(cls, text: str) -> GameRecord:
        """Read one game in OGN; raises :class:`RecordError` saying what is wrong."""
        tags: dict[str, str] = {}
        body: list[str] = []
        for lineno, line in enumerate(text.splitlines(), 1):
            stripped = line.strip()
            if stripped.startswith("[") and not body:
                m = _TAG_RE.match(stripped)
                if not m:
                    raise RecordError(f"line {lineno}: malformed tag pair {stripped!r}")
                tags[m.group(1)] = _unescape(m.group(2))
            elif stripped.startswith("%"):
                continue
            else:
                body.append(line.split(";", 1)[0])
        try:
            options = json.loads(tags["Options"]) if "Options" in tags else {}
        except json.JSONDecodeError:
            raise RecordError("the Options tag is not valid JSON") from None
        if not isinstance(options, Mapping):
            raise RecordError("the Options tag must be a JSON object")
        rules = get_rules(tags.get("Variant", "abapa"), **options)
        start = Position.from_text(tags["FEN"], rules) if "FEN" in tags else Position.initial(rules)
        movetext = re.sub(r"\{[^}]*\}", " ", " ".join(body))
        moves: list[int] = []
        pos = start
        for token in movetext.split():
            if _NUMBER_RE.match(token) or _RESULT_RE.match(token):
                continue
            m = _MOVE_RE.match(token)
            if not m:
                raise RecordError(f"{token!r} is not a move (after {len(moves)} moves)")
            try:
                pit = parse_move(m.group(1), start.players)
                out = pos.outcome(pit)
            except IllegalMoveError as exc:
                raise RecordError(f"move {len(moves) + 1} ({token}) is illegal: {exc}") from None
            if m.group(2) is not None and int(m.group(2)) != out.captured:
                raise RecordError(
                    f"move {len(moves) + 1} ({token}) captures {out.captured}, not {m.group(2)}"
                )
            moves.append(pit)
            pos = out.position
        declared = tags.pop("Termination", "") == "declared"
        for derived in ("Variant", "Options", "FEN"):
            tags.pop(derived, None)
        return cls(start, moves, tags, declared)

    # -- JSON ----------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """``{"format": "oware-game", "version": 1, "tags", "start", "moves", "result", ...}``."""
        final = self.final()
        return {
            "format": "oware-game",
            "version": 1,
            "tags": dict(self.tags),
            "start": self.start.to_json(),
            "moves": [
                {"pit": o.pit, "name": o.name, "player": o.player, "captured": o.captured}
                for o in self.outcomes()
            ],
            "declared_end": self.declared_end,
            "result": self.result(),
            "scores": list(final.scores),
            "final": final.to_json(),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameRecord:
        if not isinstance(data, Mapping) or data.get("format") != "oware-game":
            raise RecordError('not an oware-game record (missing "format": "oware-game")')
        start = Position.from_json(data["start"])
        moves = []
        for i, m in enumerate(data.get("moves", [])):
            pit = m.get("pit") if isinstance(m, Mapping) else m
            if isinstance(pit, bool) or not isinstance(pit, int):
                raise RecordError(f"move {i + 1} has no pit index")
            moves.append(pit)
        tags = data.get("tags") or {}
        return cls(
            start,
            moves,
            {str(k): str(v) for k, v in tags.items()},
            bool(data.get("declared_end", False)),
        )

    # -- readable text --------------------------------------------------------------------
    def to_text(self) -> str:
        """A readable record: one line per move with what it did and the score."""
        lines = []
        title = " vs ".join(self.tags.get(k, "") for k in ("South", "North") if self.tags.get(k))
        if title:
            lines.append(title)
        lines.append(f"Rules: {self.start.ruleset.describe()}")
        for i, out in enumerate(self.outcomes(), 1):
            who = out.before.ruleset.player_name(out.player)
            what = (
                f"captures {out.captured}"
                if out.captured
                else ("grand slam, captures nothing" if out.grand_slam else "")
            )
            score = "-".join(map(str, out.position.stores))
            lines.append(f"{i:3d}. {who:8s} {out.name:3s} {what:30s} {score}")
        final = self.final()
        if final.is_over and final.ending is not None:
            lines.append(
                f"Game over: {final.ending.text}. Final score "
                f"{'-'.join(map(str, final.scores))} ({self.result()})."
            )
        return "\n".join(lines)


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)
