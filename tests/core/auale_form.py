"""Aualé's side of OGN, written from reading its public serializer (joansalasoler/auale,
``src/auale/serialize/ogn.py`` and ``game/match.py``), for testing our records against it.

Our own code, not Aualé's:

* :func:`write_as_auale` writes a game as Aualé saves it: the seven-tag roster with
  ``"?"`` for unknown values and ``[Variant "Oware Abapa"]``, then other tags sorted
  (``FEN`` only when the start is not the initial board *and* North is to move, as
  its test reads); a move number before every second ply from the first; each move
  with ``+N``, N what the mover's store gained from the position before to the one
  after, where a game that ends by a repetition or by a player who cannot move has
  its remaining seeds gathered, each side's into its own store, so the last move's
  N counts them too; comments as ``{ words }``; the result as the final score,
  South's first (``22-26``), after the moves of a finished game; lines kept under
  80 characters.
* :func:`read_as_auale` reads a file the way Aualé does: the tag pairs at the top, then
  every letter ``A``–``F`` / ``a``–``f`` outside comments ``{}`` and variations ``()``
  is a move (numbers, ``+N`` and the result are skipped as they hold no such letter);
  the ``FEN`` tag, when there is one, is the start.

``python -m tests.core.auale_form OUT_DIR`` writes the sample files
``tests/core/ogn/auale-*.ogn`` (random Abapa games played to their end: seeds 1 to 4, and
28 and 36, whose games end by a repetition, the last move's ``+N`` gathering seeds).
"""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

from core import Position
from core.notation import move_name, parse_move
from core.records import GameRecord

ROSTER = ("Variant", "Event", "Site", "Date", "Round", "South", "North", "Result")
TAG = re.compile(r'\s*\[\s*(\w+)\s+"((?:[^"]|\\")*)"\s*\]')


def write_as_auale(record: GameRecord, comments: dict[int, str] | None = None) -> str:
    """``record`` (two-player Abapa, no missed capture) as Aualé would save it."""
    comments = comments or {}
    positions = record.positions()
    final = positions[-1]
    tags = {tag: "?" for tag in ROSTER}
    tags.update(record.tags)
    tags["Variant"] = "Oware Abapa"
    tags["Result"] = "-".join(map(str, final.scores)) if final.is_over else "*"
    start = record.start
    if start != Position.initial() and start.to_move != 0:
        tags["FEN"] = start.to_text()
    lines = [f'[{t} "{tags[t]}"]' for t in ROSTER]
    lines += [f'[{t} "{v}"]' for t, v in sorted(tags.items()) if t not in ROSTER]
    if not record.moves:
        return "\n".join(lines) + "\n"
    tokens: list[str] = []
    for i, pit in enumerate(record.moves):
        if i % 2 == 0:
            tokens.append(f"{i // 2 + 1}.")
        before, after = positions[i], positions[i + 1]
        mover = before.to_move
        gained = (after.scores if after.is_over else after.stores)[mover] - before.stores[mover]
        tokens.append(move_name(pit) + (f"+{gained}" if gained else ""))
        if i in comments:
            tokens += ["{", *comments[i].split(), "}"]
    if final.is_over:
        tokens.append(tags["Result"])
    out, line = [], tokens[0]
    for token in tokens[1:]:
        if 1 + len(line) + len(token) < 80:
            line = f"{line} {token}"
        else:
            out.append(line)
            line = token
    out.append(line)
    return "\n".join(lines) + "\n\n" + "\n".join(out) + "\n"


def read_as_auale(text: str) -> tuple[Position, list[int]]:
    """The start and the moves Aualé reads from ``text``."""
    tags: dict[str, str] = {}
    index = 0
    while index < len(text):
        m = TAG.match(text, index)
        if m is None:
            break
        tags[m.group(1)] = m.group(2).replace('\\"', '"').replace("\\\\", "\\")
        index = m.end(0)
    moves = []
    while index < len(text):
        char = text[index]
        if char in "{(":
            close = text.find("}" if char == "{" else ")", index + 1)
            index = len(text) if close < 0 else close
        elif char in "ABCDEFabcdef":
            moves.append(parse_move(char))
        index += 1
    start = Position.from_text(tags["FEN"]) if "FEN" in tags else Position.initial()
    return start, moves


def random_game(seed: int, start: Position | None = None) -> GameRecord:
    """A random Abapa game played to its end."""
    rng = random.Random(seed)
    position = start or Position.initial()
    moves = []
    while not position.is_over:
        pit = rng.choice(position.legal_moves())
        moves.append(pit)
        position = position.play(pit)
    return GameRecord(start or Position.initial(), moves)


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for seed in (1, 2, 3, 4, 28, 36):
        record = random_game(seed)
        record.tags.update({"Event": "Aualé form sample", "Round": str(seed)})
        text = write_as_auale(record, {len(record.moves) // 2: "a comment, as Aualé keeps it"})
        (out / f"auale-{seed}.ogn").write_text(text)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
