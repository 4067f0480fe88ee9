"""Game records: OGN (the PGN-like Oware Game Notation) and JSON, and the games of a session.

OGN as written and read here::

    [Variant "abapa"]
    [Event "Club night"]
    [Site "Kraków"]
    [Date "2026.11.21"]
    [Round "1"]
    [South "Ama"]
    [North "Kofi"]
    [Result "26-22"]

    1. F f+2 2. A b {capture missed: 2 seeds left in e} 3. C ... 26-22

* Tag pairs as in PGN (``\\"`` and ``\\\\`` escapes). ``Variant`` is the rule-set
  name; ``Options`` (JSON) carries options that differ from it; ``FEN`` gives a
  start position in the text form (``4-4-…-0-0-S``); ``Termination
  "declared"`` records a cycle ended by declaration.
* Moves are pit names (``A``–``F`` South, ``a``–``f`` North; ``1A``… with 3–4
  players), with ``+N`` when the move captured N seeds. A number ``N.``
  precedes each of South's (player 1's) moves; ``N...`` starts a record whose
  first move is not South's. A move whose capture the players left on the
  board (a missed capture: the game went on from the sown board) is followed
  by the comment ``{capture missed: …}``; other comments in ``{}``, variations
  in ``()``, numbers and ``;`` are ignored when reading; a ``+N`` that
  disagrees with the rules is an error.
* Result: the final score, South's first (``26-22``; one field per player with
  3–4 players, ``12-30-6``), as Aualé writes it; ``*`` while unfinished. The
  winner form (``1-0``, ``0-1``, ``1/2-1/2``) is read too, and is what
  :meth:`GameRecord.result` gives (the games index).

Aualé (the desktop Oware program) writes the same notation with three
differences, all read here: ``[Variant "Oware Abapa"]``, ``"?"`` for unknown
tags, and on the move that ends a game by a repetition or by a player who
cannot move, a ``+N`` that also counts the seeds on the mover's side gathered
into their store at the end.

>>> rec = GameRecord.from_ogn('[Variant "abapa"]\\n\\n1. F a 2. E *')
>>> [rec.name(i) for i in range(len(rec.moves))], rec.final().to_text()
(['F', 'a', 'E'], '4-4-4-4-0-1-1-7-7-6-5-5-0-0-N')
>>> GameRecord.from_ogn(rec.to_ogn()) == rec
True
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from core.errors import IllegalMoveError, InvalidPositionError
from core.notation import move_name, parse_move
from core.position import MoveOutcome, Position
from core.rules import get_rules, non_default_options

#: Tags written first, in this order (the "seven tag roster" of Oware records).
STANDARD_TAGS = ("Variant", "Event", "Site", "Date", "Round", "South", "North", "Result")

_TAG_RE = re.compile(r'^\s*\[\s*([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\s*\]\s*$')
#: Variant names other programs write, and the rule set each is.
_VARIANTS = {"oware abapa": "abapa", "abapa": "abapa", "oware": "abapa"}
#: The comment that marks a move whose capture was left on the board.
MISSED = "capture missed"
_MOVE_RE = re.compile(r"^([1-4]?[A-Fa-f])(?:\+(\d+))?[!?]*$")
_NUMBER_RE = re.compile(r"^\d+\.(\.\.)?$")
_RESULT_RE = re.compile(r"^(\*|1/2-1/2|[01](?:/2)?(?:-[01](?:/2)?){1,3}|\d{1,3}(?:-\d{1,3}){1,3})$")


class RecordError(InvalidPositionError):
    """A game record that cannot be read; the message says where and why."""


def capture_left(out: MoveOutcome) -> Position:
    """The position after ``out`` with its capture left on the board (a missed capture): the
    sown board, the stores before the capture, the same player to move next.

    >>> p = Position.from_text("1-4-2-1-4-4-6-0-3-0-6-4-7-6-N")
    >>> capture_left(p.outcome(11)).to_text()
    '2-5-3-2-4-4-6-0-3-0-6-0-7-6-S'
    """
    pits = list(out.position.pits)
    for pit, seeds in out.captures:
        pits[pit] += seeds
    stores = list(out.position.stores)
    stores[out.player] -= out.captured
    return Position(out.before.ruleset, pits, stores, out.position.to_move)


@dataclass
class GameRecord:
    """A game: tags, a start position and the moves (pit indices) played from it.

    ``missed`` holds the indices of the moves whose capture the players left on the board
    (the game went on from the sown board, see :func:`capture_left`).
    """

    start: Position = field(default_factory=Position.initial)
    moves: list[int] = field(default_factory=list)
    tags: dict[str, str] = field(default_factory=dict)
    declared_end: bool = False
    """The game was ended by declaring an endless cycle after the last move."""
    missed: frozenset[int] = frozenset()

    def __post_init__(self) -> None:
        self.missed = frozenset(self.missed)
        self._positions: list[Position] | None = None
        self.positions()  # validate every move now, with a clear error

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, GameRecord)
            and self.start == other.start
            and self.moves == other.moves
            and self.declared_end == other.declared_end
            and self.missed == other.missed
            and {k: v for k, v in self.tags.items() if k != "Result"}
            == {k: v for k, v in other.tags.items() if k != "Result"}
        )

    # -- positions ------------------------------------------------------------------
    def positions(self) -> list[Position]:
        """The start position and the position after each move."""
        if self._positions is None or len(self._positions) != len(self.moves) + 1:
            positions = [self.start]
            for i, pit in enumerate(self.moves):
                positions.append(self._after(positions[-1], i, pit))
            if self.declared_end:
                positions[-1] = positions[-1].declare_cycle_end()
            self._positions = positions
        return self._positions

    def _after(self, before: Position, index: int, pit: int) -> Position:
        name = move_name(pit, self.start.players) if 0 <= pit < len(self.start.pits) else str(pit)
        try:
            out = before.outcome(pit)
        except IllegalMoveError as exc:
            raise RecordError(f"move {index + 1} ({name}) is illegal: {exc}") from None
        if index not in self.missed:
            return out.position
        if not out.captures:
            raise RecordError(f"move {index + 1} ({name}) captures nothing: no capture to miss")
        return capture_left(out)

    def final(self) -> Position:
        return self.positions()[-1]

    def outcomes(self) -> list[MoveOutcome]:
        """The outcome of each move under the rules (sowing path, captures…); a missed
        capture's outcome still names the capture the players did not take."""
        positions = self.positions()
        return [positions[i].outcome(m) for i, m in enumerate(self.moves)]

    def name(self, index: int) -> str:
        return move_name(self.moves[index], self.start.players)

    def result(self) -> str:
        """The game's result in the winner form (``1-0``, ``0-1``, ``1/2-1/2``, ``0-1-0``;
        ``*`` while unfinished): the games index keeps it."""
        final = self.final()
        if not final.is_over:
            return "*"
        scores = final.scores
        best = max(scores)
        leaders = [p for p, s in enumerate(scores) if s == best]
        if len(leaders) == 1:
            return "-".join("1" if p == leaders[0] else "0" for p in range(len(scores)))
        return "-".join("1/2" if p in leaders else "0" for p in range(len(scores)))

    def score_result(self) -> str:
        """The OGN result: the final score, South's (player 1's) first (``26-22``), as Aualé
        writes it; ``*`` while unfinished."""
        final = self.final()
        return "-".join(map(str, final.scores)) if final.is_over else "*"

    # -- OGN --------------------------------------------------------------------------
    def to_ogn(self) -> str:
        """The game as OGN text (see the module docstring)."""
        tags = dict(self.tags)
        tags["Variant"] = self.start.rules
        tags["Result"] = self.score_result()
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
        """Only the moves and result: ``1. F f+2 2. A b 26-22``."""
        tokens: list[str] = []
        number = 0
        players = self.start.players
        for i, out in enumerate(self.outcomes()):
            if out.player == 0:
                number += 1
                tokens.append(f"{number}.")
            elif i == 0:
                number = 1
                tokens.append("1...")
            if i in self.missed:
                pits = ", ".join(move_name(p, players) for p, _ in out.captures)
                tokens.append(out.name)
                tokens.append(f"{{{MISSED}: {out.captured} seeds left in {pits}}}")
            else:
                tokens.append(out.notation)
        tokens.append(self.score_result())
        return " ".join(tokens)

    @classmethod
    def from_ogn(cls, text: str) -> GameRecord:
        """Read one game in OGN, ours or Aualé's; raises :class:`RecordError` saying what
        is wrong."""
        tags: dict[str, str] = {}
        body: list[str] = []
        for lineno, line in enumerate(text.splitlines(), 1):
            stripped = line.strip()
            if stripped.startswith("[") and not body:
                m = _TAG_RE.match(stripped)
                if not m:
                    raise RecordError(f"line {lineno}: malformed tag pair {stripped!r}")
                value = _unescape(m.group(2))
                if value != "?":  # "?" is PGN's (and Aualé's) "unknown"
                    tags[m.group(1)] = value
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
        variant = tags.get("Variant", "abapa")
        rules = get_rules(_VARIANTS.get(variant.strip().lower(), variant), **options)
        start = Position.from_text(tags["FEN"], rules) if "FEN" in tags else Position.initial(rules)
        moves, missed = _read_moves(start, " ".join(body))
        declared = tags.pop("Termination", "") == "declared"
        for derived in ("Variant", "Options", "FEN"):
            tags.pop(derived, None)
        return cls(start, moves, tags, declared, frozenset(missed))

    # -- JSON ----------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """``{"format": "oware-game", "version": 1, "tags", "start", "moves", "result", ...}``;
        a move whose capture was left on the board says ``"capture_missed": true`` (its
        ``captured`` is what the rules would have taken)."""
        final = self.final()
        return {
            "format": "oware-game",
            "version": 1,
            "tags": dict(self.tags),
            "start": self.start.to_json(),
            "moves": [
                {
                    "pit": o.pit,
                    "name": o.name,
                    "player": o.player,
                    "captured": 0 if i in self.missed else o.captured,
                    "capture_missed": i in self.missed,
                    **({"missed_seeds": o.captured} if i in self.missed else {}),
                }
                for i, o in enumerate(self.outcomes())
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
        missed = set()
        for i, m in enumerate(data.get("moves", [])):
            pit = m.get("pit") if isinstance(m, Mapping) else m
            if isinstance(pit, bool) or not isinstance(pit, int):
                raise RecordError(f"move {i + 1} has no pit index")
            moves.append(pit)
            if isinstance(m, Mapping) and m.get("capture_missed") is True:
                missed.add(i)
        tags = data.get("tags") or {}
        return cls(
            start,
            moves,
            {str(k): str(v) for k, v in tags.items()},
            bool(data.get("declared_end", False)),
            frozenset(missed),
        )

    # -- readable text --------------------------------------------------------------------
    def to_text(self) -> str:
        """A readable record: one line per move with what it did and the score."""
        lines = []
        title = " vs ".join(self.tags.get(k, "") for k in ("South", "North") if self.tags.get(k))
        if title:
            lines.append(title)
        lines.append(f"Rules: {self.start.ruleset.describe()}")
        positions = self.positions()
        for i, out in enumerate(self.outcomes(), 1):
            who = out.before.ruleset.player_name(out.player)
            if i - 1 in self.missed:
                what = f"capture of {out.captured} missed"
            elif out.captured:
                what = f"captures {out.captured}"
            else:
                what = "grand slam, captures nothing" if out.grand_slam else ""
            score = "-".join(map(str, positions[i].stores))
            lines.append(f"{i:3d}. {who:8s} {out.name:3s} {what:30s} {score}")
        final = self.final()
        if final.is_over and final.ending is not None:
            lines.append(
                f"Game over: {final.ending.text}. Final score "
                f"{'-'.join(map(str, final.scores))} ({self.result()})."
            )
        return "\n".join(lines)


def _read_moves(start: Position, movetext: str) -> tuple[list[int], set[int]]:
    """The moves of a movetext (and which of them missed their capture).

    A ``+N`` must be what the move captured, or (Aualé) on a move that ends the game, what
    the mover's store gained with the seeds gathered at the end."""
    movetext = re.sub(r"\([^)]*\)", " ", movetext)  # variations: not the game played
    moves: list[int] = []
    missed: set[int] = set()
    checks: list[tuple[str, int | None]] = []
    pos = start
    for part in re.split(r"(\{[^}]*\})", movetext):
        if part.startswith("{"):
            if (
                moves
                and part[1:].strip().lower().startswith(MISSED)
                and len(moves) - 1 not in missed
            ):
                # the move just read left its capture on the board: the game went on from it
                index = len(moves) - 1
                token, claimed = checks[index]
                before = _replay(start, moves[:-1], missed)
                out = before.outcome(moves[-1])
                if not out.captures:
                    raise RecordError(f"move {index + 1} ({token}) captures nothing to miss")
                if claimed:
                    raise RecordError(f"move {index + 1} ({token}) missed its capture: no +N")
                missed.add(index)
                pos = capture_left(out)
            continue
        for token in part.split():
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
            claimed = None if m.group(2) is None else int(m.group(2))
            if claimed is not None and claimed != out.captured:
                end = out.position
                gathered = end.scores[out.player] - pos.stores[out.player] if end.is_over else None
                if claimed != gathered:
                    raise RecordError(
                        f"move {len(moves) + 1} ({token}) captures {out.captured}, not {claimed}"
                    )
            moves.append(pit)
            checks.append((token, claimed))
            pos = out.position
    return moves, missed


def _replay(start: Position, moves: list[int], missed: set[int]) -> Position:
    pos = start
    for i, pit in enumerate(moves):
        out = pos.outcome(pit)
        pos = capture_left(out) if i in missed else out.position
    return pos


def read_games(text: str) -> list[GameRecord]:
    """Every game of an OGN file (games one after another, each with its tags).

    >>> two = GameRecord(moves=[5]).to_ogn() + GameRecord(moves=[2, 8]).to_ogn()
    >>> [len(g.moves) for g in read_games(two)]
    [1, 2]
    """
    games: list[list[str]] = [[]]
    in_moves = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("[") and in_moves:
            games.append([])
            in_moves = False
        elif stripped and not stripped.startswith(("[", "%")):
            in_moves = True
        games[-1].append(line)
    return [GameRecord.from_ogn("\n".join(g)) for g in games if "".join(g).strip()]


def records_from_events(
    start: Position, events: Iterable[Mapping[str, Any]], tags: Mapping[str, str] | None = None
) -> list[GameRecord]:
    """Every game of a session, from the referee's events (``move``, ``new_game``,
    ``corrected``; the session log's contract, see ``docs/SERVICE_API.md``).

    Each ``new_game`` starts the next game; a game left with no move at all is left out
    (unless it is the only one). Every move is kept, a missed capture too (the event's
    ``capture_missed``). A position set by hand, or a move the rules could not have
    played from the position before it, starts the record again from that position
    (the OGN ``FEN`` tag): the moves before it cannot be replayed into it.
    """
    games: list[_Game] = [_Game(start)]
    for e in events:
        kind = e.get("type")
        if kind == "new_game":
            games.append(_Game(Position.from_json(e["position"])))
        elif kind == "move":
            games[-1].move(e)
        elif kind == "corrected":
            games[-1].corrected(e)
    kept = [g for g in games if g.moves] or games[-1:]
    return [g.record(tags) for g in kept]


class _Game:
    """One game of a session being read back from its events."""

    def __init__(self, start: Position) -> None:
        self._restart(start)

    def _restart(self, start: Position) -> None:
        self.start = start
        self.positions = [start]
        self.moves: list[int] = []
        self.plies: list[Any] = []
        """Each move's number in the referee's game (its event's ``ply``)."""
        self.missed: set[int] = set()
        self.declared = False

    def move(self, event: Mapping[str, Any]) -> None:
        seen = Position.from_json(event["position"])
        before = self.positions[-1]
        try:
            out = before.outcome(int(event["pit"]))
        except (IllegalMoveError, KeyError, ValueError, TypeError):
            self._restart(seen)
            return
        missed = bool(event.get("capture_missed")) and bool(out.captures)
        after = capture_left(out) if missed else out.position
        if after != seen:  # not what the rules make of the move: start again from the board
            self._restart(seen)
            return
        if missed:
            self.missed.add(len(self.moves))
        self.moves.append(out.pit)
        self.plies.append(event.get("ply"))
        self.positions.append(after)

    def corrected(self, event: Mapping[str, Any]) -> None:
        position = Position.from_json(event["position"])
        action = event.get("action")
        ply = event.get("ply")
        # Moves the referee took back (a late answer, or moves it missed found again):
        # ``ply`` moves are left, and the record goes on from the last of them.
        first = self.plies.index(ply + 1) if isinstance(ply, int) and ply + 1 in self.plies else -1
        if first >= 0 and self.positions[first] == position:
            del self.positions[first + 1 :], self.moves[first:], self.plies[first:]
            self.missed = {i for i in self.missed if i < first}
        elif action == "undo" and self.declared and self.positions[-1] == position:
            self.declared = False
        elif action == "undo" and len(self.positions) > 1 and self.positions[-2] == position:
            self.positions.pop()
            self.moves.pop()
            self.plies.pop()
            self.missed.discard(len(self.moves))
        elif (
            action == "declare_cycle_end"
            and not self.declared
            and _declared(self.positions[-1], position)
        ):
            self.declared = True
        else:
            self._restart(position)

    def record(self, tags: Mapping[str, str] | None) -> GameRecord:
        return GameRecord(
            self.start, self.moves, dict(tags or {}), self.declared, frozenset(self.missed)
        )


def _declared(before: Position, after: Position) -> bool:
    try:
        return before.declare_cycle_end() == after
    except IllegalMoveError:
        return False


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)
