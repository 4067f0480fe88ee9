"""The engine protocol of Aualé and Aalina: parsing commands, formatting replies.

A UCI-like text protocol, one command per line. This module only turns
lines into values and values into lines (no I/O); the loop that reads stdin
and runs the search is ``companion.commands.engine_service``, and the match
bench's client side is ``python -m bench.engine``.

The dialect, as Aualé (the GUI) and Aalina (its engine) speak it:

* moves are pit letters: South ``A``-``F`` (pits 0-5), North ``a``-``f``
  (pits 6-11); a list of moves is written as **one word with no spaces**,
  e.g. ``position startpos moves AbCd`` (Aalina refuses spaces between
  them; we accept both);
* a position (``position fen F``) is the text form of
  :meth:`core.Position.to_text`: twelve pits, South's store, North's
  store, the side to move, joined by ``-``: ``4-4-4-4-4-4-4-4-4-4-4-4-0-0-S``;
* ``go movetime MS`` (milliseconds), ``go depth N`` (plies), ``go
  infinite`` and ``go ponder`` (think until ``stop``); Aualé sends ``go
  movetime MS depth N`` together;
* replies ``id name``/``id author``, ``option ...``, ``uciok``,
  ``readyok``, ``info depth D score cp S ... pv MOVES`` (the line as one
  word, like the moves), ``info string TEXT``, ``bestmove X [ponder Y]``,
  and ``bestmove 0000`` when the game is over. Aualé's client rejects any
  other first word, so nothing else may reach stdout.

Scores are in centi-seeds for the side to move (100 = one seed). A result
the search has proven is sent as ``score mate N``: N moves (of the side to
move) along the principal variation to a won game, negative for a loss.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

from core.errors import IllegalMoveError
from core.position import Position
from core.rules import RuleSet

#: The start position in the ``fen`` notation.
START_FEN = "4-4-4-4-4-4-4-4-4-4-4-4-0-0-S"

#: The ``bestmove`` of a finished game.
NULL_MOVE = "0000"

_LETTERS = "ABCDEFabcdef"

#: Score from which a result counts as proven (see core.engine.evaluation.WIN).
_WIN = 100_000


@dataclass(frozen=True)
class Command:
    """One command line from the GUI: the command word and its arguments."""

    name: str
    """``uci``, ``isready``, ``ucinewgame``, ``position``, ``go``, ``stop``,
    ``ponderhit``, ``setoption``, ``debug``, ``quit``, or an unknown word."""
    fen: str | None = None
    """``position``: the ``fen`` given, None for ``startpos``."""
    moves: tuple[str, ...] = ()
    """``position``: the moves after it, one letter each."""
    movetime_ms: int | None = None
    depth: int | None = None
    infinite: bool = False
    """``go infinite`` or ``go ponder``: think until ``stop``."""
    ponder: bool = False
    option: str | None = None
    value: str | None = None
    args: tuple[str, ...] = field(default_factory=tuple)


class ProtocolError(ValueError):
    """A command line that cannot be understood (the reply says why in one line)."""


def split_moves(words: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """Move words (``AbC`` or ``A b C``) to single letters; raises for anything else."""
    letters: list[str] = []
    for word in words:
        for ch in word:
            if ch not in _LETTERS:
                raise ProtocolError(f"{word!r} is not a list of moves (pits A-F and a-f)")
            letters.append(ch)
    return tuple(letters)


def _int_after(words: list[str], i: int, what: str) -> int:
    if i + 1 >= len(words):
        raise ProtocolError(f"go {what} needs a number")
    try:
        return int(words[i + 1])
    except ValueError:
        raise ProtocolError(f"go {what} needs a whole number, not {words[i + 1]!r}") from None


def parse_command(line: str) -> Command | None:
    """Parse one line; None for a blank line. Raises :class:`ProtocolError` when malformed."""
    words = line.split()
    if not words:
        return None
    name, rest = words[0], words[1:]
    if name == "position":
        return _parse_position(rest)
    if name == "go":
        return _parse_go(rest)
    if name == "setoption":
        return _parse_setoption(rest)
    return Command(name, args=tuple(rest))


def _parse_position(words: list[str]) -> Command:
    fen: str | None = None
    moves: tuple[str, ...] = ()
    if not words:
        raise ProtocolError("position needs startpos or fen")
    if words[0] == "startpos":
        rest = words[1:]
    elif words[0] == "fen":
        if len(words) < 2:
            raise ProtocolError("position fen needs a position, e.g. " + START_FEN)
        fen, rest = words[1], words[2:]
    else:
        raise ProtocolError(f"position needs startpos or fen, not {words[0]!r}")
    if rest:
        if rest[0] != "moves":
            raise ProtocolError(f"expected 'moves' after the position, not {rest[0]!r}")
        moves = split_moves(rest[1:])
    return Command("position", fen=fen, moves=moves)


def _parse_go(words: list[str]) -> Command:
    movetime: int | None = None
    depth: int | None = None
    infinite = ponder = False
    i = 0
    while i < len(words):
        word = words[i]
        if word == "movetime":
            movetime = _int_after(words, i, word)
            i += 1
        elif word == "depth":
            depth = _int_after(words, i, word)
            i += 1
        elif word == "infinite":
            infinite = True
        elif word == "ponder":
            ponder = infinite = True
        elif word in ("wtime", "btime", "winc", "binc", "movestogo", "nodes", "mate"):
            _int_after(words, i, word)  # understood, but clocks are not used: movetime rules
            i += 1
        else:
            raise ProtocolError(f"go does not understand {word!r}")
        i += 1
    if movetime is not None and movetime < 0:
        raise ProtocolError("go movetime must not be negative")
    if depth is not None and depth < 1:
        raise ProtocolError("go depth must be at least 1")
    return Command("go", movetime_ms=movetime, depth=depth, infinite=infinite, ponder=ponder)


def _parse_setoption(words: list[str]) -> Command:
    if not words or words[0] != "name":
        raise ProtocolError("setoption needs: name NAME [value VALUE]")
    if "value" in words:
        k = words.index("value")
        return Command("setoption", option=" ".join(words[1:k]), value=" ".join(words[k + 1 :]))
    return Command("setoption", option=" ".join(words[1:]))


def build_position(fen: str | None, moves: tuple[str, ...], rules: str | RuleSet) -> Position:
    """The position a ``position`` command describes, with its history since the last capture.

    Raises :class:`ProtocolError` for a bad position or an illegal move.
    """
    try:
        start = Position.from_text(fen or START_FEN, rules=rules)
    except ValueError as exc:
        raise ProtocolError(f"bad position {fen!r}: {exc}") from None
    if start.players != 2:
        raise ProtocolError("the protocol is for two-player Oware")
    p = start
    for k, letter in enumerate(moves):
        pit = _LETTERS.index(letter)
        if not p.is_legal(pit):
            why = p.illegal_reason(pit) or "the game is over"
            raise ProtocolError(f"move {k + 1} ({letter}) is illegal: {why}")
        p = p.play(pit)
    return p


def move_letter(pit: int) -> str:
    """The letter of an absolute pit (0-11)."""
    if not 0 <= pit < 12:
        raise IllegalMoveError(f"there is no pit {pit}")
    return _LETTERS[pit]


def move_pit(letter: str) -> int:
    """The absolute pit (0-11) of a move letter."""
    if len(letter) != 1 or letter not in _LETTERS:
        raise ProtocolError(f"{letter!r} is not a move (pits A-F and a-f)")
    return _LETTERS.index(letter)


def moves_word(pits: list[int]) -> str:
    """Absolute pits as one word of letters (the dialect's way of writing a line)."""
    return "".join(move_letter(p) for p in pits)


def position_command(fen: str | None, pits: list[int]) -> str:
    """The ``position`` line for a start (None: the start position) and the moves since."""
    head = "position startpos" if fen is None else f"position fen {fen}"
    return head + (f" moves {moves_word(pits)}" if pits else "")


def go_command(movetime_ms: int | None = None, depth: int | None = None) -> str:
    """A ``go`` line (neither limit: ``go infinite``)."""
    parts = ["go"]
    if movetime_ms is not None:
        parts += ["movetime", str(movetime_ms)]
    if depth is not None:
        parts += ["depth", str(depth)]
    if len(parts) == 1:
        parts.append("infinite")
    return " ".join(parts)


def format_score(score: int, pv_length: int) -> str:
    """``cp S``, or ``mate N`` for a proven result (N moves of the side to move)."""
    if abs(score) >= _WIN and pv_length > 0:
        moves = (pv_length + 1) // 2
        return f"mate {moves if score > 0 else -moves}"
    return f"cp {score}"


def format_info(
    depth: int,
    score: int,
    nodes: int,
    seconds: float,
    pv: list[int],
    *,
    db_hits: int | None = None,
) -> str:
    """An ``info`` line: depth, score, nodes, nps, time (ms) and the line (absolute pits)."""
    nps = int(nodes / seconds) if seconds > 0 else 0
    line = (
        f"info depth {depth} score {format_score(score, len(pv))} nodes {nodes} "
        f"nps {nps} time {int(seconds * 1000)}"
    )
    if db_hits is not None:
        line += f" tbhits {db_hits}"
    if pv:
        line += f" pv {moves_word(pv)}"
    return line


def format_bestmove(pit: int | None, ponder: int | None = None) -> str:
    """``bestmove X [ponder Y]``; ``bestmove 0000`` when there is no move."""
    if pit is None:
        return f"bestmove {NULL_MOVE}"
    line = f"bestmove {move_letter(pit)}"
    if ponder is not None:
        line += f" ponder {move_letter(ponder)}"
    return line


@dataclass
class Info:
    """What an engine's ``info`` line said (fields it left out stay None)."""

    depth: int | None = None
    score_cp: int | None = None
    mate: int | None = None
    nodes: int | None = None
    nps: int | None = None
    time_ms: int | None = None
    pv: tuple[str, ...] = ()
    string: str | None = None


_INT_FIELDS = {"depth": "depth", "nodes": "nodes", "nps": "nps", "time": "time_ms"}
_SKIP_ONE = {"seldepth", "multipv", "currmove", "currmovenumber", "hashfull", "tbhits", "cpuload"}


def parse_info(line: str) -> Info:
    """Parse an engine's ``info`` line (unknown fields are skipped)."""
    words = line.split()
    info = Info()
    i = 1 if words and words[0] == "info" else 0
    while i < len(words):
        word = words[i]
        if word == "string":
            info.string = " ".join(words[i + 1 :])
            break
        if word == "pv":
            info.pv = split_moves(words[i + 1 :])
            break
        if word in _INT_FIELDS and i + 1 < len(words):
            with contextlib.suppress(ValueError):
                setattr(info, _INT_FIELDS[word], int(words[i + 1]))
            i += 2
            continue
        if word == "score" and i + 2 < len(words):
            kind, value = words[i + 1], words[i + 2]
            try:
                if kind == "cp":
                    info.score_cp = int(value)
                elif kind == "mate":
                    info.mate = int(value)
            except ValueError:
                pass
            i += 3
            continue
        i += 2 if word in _SKIP_ONE else 1
    return info


def parse_bestmove(line: str) -> tuple[int | None, int | None]:
    """Parse ``bestmove X [ponder Y]`` into absolute pits (None for ``0000``)."""
    words = line.split()
    if len(words) < 2 or words[0] != "bestmove":
        raise ProtocolError(f"not a bestmove line: {line!r}")
    best = None if words[1] in (NULL_MOVE, "(none)") else move_pit(words[1])
    ponder = None
    if len(words) >= 4 and words[2] == "ponder":
        ponder = None if words[3] == NULL_MOVE else move_pit(words[3])
    return best, ponder
