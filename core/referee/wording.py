"""The words of every event the referee says.

Each function returns the fields people read (``text``, and for alerts
``expected`` and ``seen``); the tracker decides *when* to say them. Pits are
named by their move letters (``A``–``F`` for South, ``a``–``f`` for North,
``1A``… with more players).

>>> from core import Position
>>> out = Position.from_text("1-4-2-1-4-4-6-0-3-0-6-4-7-6-N").outcome(11)
>>> move_text(out, capture_missed=False)
'North plays f, captures 5 from D, C'
>>> capture_pending_text(out)
'North captures 5: take D (2), C (3)'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core.position import MoveOutcome, Position
from core.rules.base import RuleSet


def move_text(out: MoveOutcome, *, capture_missed: bool) -> str:
    """``South plays F``, with its captures, grand slam or extra turn."""
    rules = out.before.ruleset
    text = f"{rules.player_name(out.player)} plays {out.name}"
    if out.captured and not capture_missed:
        text += f", captures {out.captured} from " + ", ".join(
            rules.pit_name(p) for p, _ in out.captures
        )
    elif capture_missed and out.captured:
        text += f"; its capture of {out.captured} was left on the board"
    elif out.grand_slam and rules.family == "oware":
        text += ": a grand slam, which captures nothing"
    if out.extra_turn:
        text += ", and plays again"
    return text


def listed_captures(rules: RuleSet, captures: Sequence[tuple[int, int]]) -> str:
    """``D (2), C (3)``."""
    return ", ".join(f"{rules.pit_name(p)} ({c})" for p, c in captures)


def capture_pending_text(out: MoveOutcome) -> str:
    rules = out.before.ruleset
    return (
        f"{rules.player_name(out.player)} captures {out.captured}: take "
        f"{listed_captures(rules, out.captures)}"
    )


def expected_moves_text(pos: Position) -> str:
    """What the referee expects next: ``South to play one of A, B, F``."""
    rules = pos.ruleset
    moves = ", ".join(rules.pit_name(m) for m in pos.legal_moves())
    if not moves:
        return "no move: the game is over"
    return f"{rules.player_name(pos.to_move)} to play one of {moves}"


def missed_capture_alert(out: MoveOutcome, next_move: int) -> dict[str, Any]:
    rules = out.before.ruleset
    captured = listed_captures(rules, out.captures)
    who = rules.player_name(out.position.to_move)
    return {
        "type": "missed_capture",
        "pits": [p for p, _ in out.captures],
        "move": out.pit,
        "text": f"{who} started playing {rules.pit_name(next_move)} while the capture of "
        f"move {out.name} was still on the board: {captured} should have been taken",
        "expected": f"capture {captured}",
        "seen": f"{rules.pit_name(next_move)} lifted with the seeds still there",
        "next_move": next_move,
    }


def illegal_move_alert(pos: Position, pit: int) -> dict[str, Any]:
    rules = pos.ruleset
    reason = pos.illegal_reason(pit) or f"pit {rules.pit_name(pit)} may not be played now"
    return {
        "type": "illegal_move",
        "pits": [pit],
        "text": f"pit {rules.pit_name(pit)} was lifted: {reason}",
        "expected": expected_moves_text(pos),
        "seen": f"pit {rules.pit_name(pit)} lifted",
    }


def touch_move_alert(rules: RuleSet, touched: int, played: int) -> dict[str, Any]:
    name = rules.pit_name
    return {
        "type": "illegal_move",
        "pits": [touched, played],
        "text": f"touch-move: pit {name(touched)} was touched first, so {name(touched)} "
        f"must be played, not {name(played)}",
        "expected": f"move {name(touched)}",
        "seen": f"move {name(played)}",
    }


def sowing_mistake_words(rules: RuleSet, kind: str, origin: int, a: int, b: int) -> str:
    """Why a sowing went wrong, for each kind of :func:`core.referee.stages.mistaken_path`.

    ``a`` and ``b``: for ``skip`` the pit skipped and the pit that got its seed; for
    ``double`` the pit that got two seeds and the pit the second belonged in; for
    ``clockwise`` the pit sown first and the pit that should have been; unused for
    ``origin``.
    """
    name = rules.pit_name
    if kind == "skip":
        return (
            f"pit {name(a)} was skipped: the seed meant for {name(a)} went into "
            f"{name(b)}; each pit gets one seed per lap"
        )
    if kind == "double":
        return (
            f"pit {name(a)} received 2 seeds; each pit gets one per lap: the next seed "
            f"belonged in {name(b)}"
        )
    if kind == "origin":
        return (
            f"a seed was sown into the origin pit {name(origin)}; with 12 or more seeds the "
            "origin pit is skipped on every lap"
        )
    if kind == "clockwise":
        return (
            f"seeds were sown clockwise (into {name(a)} after {name(origin)}); sowing goes "
            f"counter-clockwise: the first seed belongs in {name(b)}"
        )
    raise ValueError(f"unknown sowing mistake {kind!r}")


def sowing_alert(
    out: MoveOutcome, pits: Sequence[int], text: str, path: Sequence[int], wrong_index: int
) -> dict[str, Any]:
    """An ``illegal_sowing`` alert: ``path`` the slots the seeds went to, ``wrong_index`` the
    first seed that went wrong."""
    name = out.before.ruleset.pit_name
    return {
        "type": "illegal_sowing",
        "pits": list(pits),
        "move": out.pit,
        "text": text,
        "expected": f"move {out.name} sows " + " ".join(name(s) for s in out.sown if s >= 0),
        "seen": "seeds in " + " ".join(name(s) for s in path[: wrong_index + 1] if s >= 0),
    }


def why_not_capturable(out: MoveOutcome, board: Sequence[int], pit: int) -> str:
    """Why ``pit`` may not be taken after ``out`` (``board``: the board the move sowed)."""
    rules = out.before.ruleset
    name = rules.pit_name(pit)
    if rules.family != "oware":
        return f"pit {name} may not be taken by move {out.name}"
    if out.grand_slam:
        return (
            f"move {out.name} is a grand slam (it would take every seed of "
            f"{rules.player_name(1 - out.player)}), so it captures nothing"
        )
    if rules.owner(pit) == out.player:
        return f"pit {name} is on the mover's own side and may not be taken"
    if board[pit] not in (2, 3):
        return f"pit {name} held {board[pit]}: only pits of 2 or 3 may be taken"
    last = next(s for s in reversed(out.sown) if s >= 0)
    return (
        f"pit {name} is not joined to the last seed's pit {rules.pit_name(last)} by pits "
        "holding 2 or 3: the chain was broken"
    )


def wrong_capture_alert(
    out: MoveOutcome, sown_board: Sequence[int], removed: Sequence[int]
) -> dict[str, Any]:
    rules = out.before.ruleset
    allowed = {p for p, _ in out.captures}
    wrong = [p for p in removed if p not in allowed]
    return {
        "type": "wrong_capture",
        "pits": wrong,
        "move": out.pit,
        "text": "; ".join(why_not_capturable(out, sown_board, p) for p in wrong),
        "expected": f"capture {listed_captures(rules, out.captures)}"
        if out.captures
        else "no capture",
        "seen": "seeds taken from " + ", ".join(rules.pit_name(p) for p in removed),
    }


def describe_stage(rules: RuleSet, kind: str, move: int | None) -> str:
    """A stage of play in a few words (an alert's ``expected`` or ``seen``)."""
    if move is None:
        return "the board unchanged"
    name = rules.pit_name(move)
    return {
        "sow": f"move {name} being sown",
        "cap": f"move {name} sown, capture pending",
        "done": f"move {name} played",
    }.get(kind, f"a mistake with pit {name}")


def differences(
    rules: RuleSet, boards: Sequence[Sequence[int]]
) -> tuple[list[int], list[dict[str, Any]], str, str]:
    """Where ``boards`` (the most likely first) differ: the pits; for each, the counts a
    person's count would choose between (an ``ambiguous`` alert's ``options``); and, in
    words, the pits to count (``pit D and pit E``) and what each would be (``D: 4 or 5, E:
    4 or 5``, the most likely board's count first), the first three."""
    pits = [i for i in range(len(boards[0])) if len({b[i] for b in boards}) > 1]
    options = [
        {"pit": p, "name": rules.pit_name(p), "counts": sorted({b[p] for b in boards})}
        for p in pits
    ]
    ask = " and ".join(f"pit {rules.pit_name(p)}" for p in pits[:3])
    what = ", ".join(
        f"{rules.pit_name(p)}: " + " or ".join(str(c) for c in dict.fromkeys(b[p] for b in boards))
        for p in pits[:3]
    )
    return pits, options, ask, what


def stalled_text(out: MoveOutcome, left: int, seconds: float, ask: str, what: str) -> str:
    seeds, them = ("one seed", "it") if left == 1 else (f"{left} seeds", "them")
    return (
        f"move {out.name} has been {seeds} short of done for {seconds:g} s: sow {them}, "
        f"or count {ask} ({what})"
    )


def late_doubt_text(taken: Sequence[str], question: str) -> str:
    """A question about a game's last moves, left open once its end was judged."""
    return (
        f"the game ended without settling the doubt; {_listed(taken)} taken as the likelier"
        f" line, and your answer still counts: {question}"
    )


def taken_back_text(taken: Sequence[str], position: str) -> str:
    """The moves a game's end took, taken back on a person's late answer."""
    return f"your answer does not fit {_listed(taken)}: judged again from {position}"


def rewound_text(taken: Sequence[str], position: str) -> str:
    """The moves taken back when the board shows two quick moves were missed before them
    (they are confirmed again, with those two: :func:`missed_pair_text`)."""
    return f"two quick moves were missed before {_listed(taken)}: judged again from {position}"


def overruled_text(taken: Sequence[str], position: str) -> str:
    """The moves named after a command, taken back when the board turned out to show the
    game before it all along (the game is then taken up there)."""
    return (
        f"the board went on with the game before the command: {_listed(taken)} taken back,"
        f" judged again from {position}"
    )


def undo_overruled_text(name: str) -> str:
    """How the game was found again when the board showed the move a person undid."""
    return f"move {name} stands (the board shows it played)"


def missed_pair_text(names: Sequence[str]) -> str:
    """How the game was found again when two quick moves had been missed."""
    return f"{_listed(names)} were played and not seen"


def _listed(names: Sequence[str]) -> str:
    if len(names) == 1:
        return f"move {names[0]}"
    return "moves " + ", ".join(names[:-1]) + f" and {names[-1]}"


def doubt_text(ask: str, what: str, explanations: int = 2) -> str:
    many = "two" if explanations == 2 else str(explanations)
    return f"count {ask}: the reading does not decide between {many} explanations ({what})"


def twin_moves_text(rules: RuleSet, moves: Sequence[int]) -> str:
    listed = " and ".join(rules.pit_name(m) for m in moves)
    return f"moves {listed} leave the same board: confirm which was played"


#: What led to the board being out of sync, in the alert's first words.
OUT_OF_SYNC_CAUSES = {
    "board": "the board matches no legal move or known mistake",
    "new_game": "the board does not show the new game's start",
    "set_position": "the board does not show the position set by hand",
    "undo": "the board does not show the position after the move taken back",
    "declare_cycle_end": "the board does not show the position of the declared end",
}

#: What to do about it, by cause.
OUT_OF_SYNC_ADVICE = {
    "board": "put the seeds back as they were, or correct the position",
    "new_game": "set up the start position, or correct the position",
    "set_position": "make the board match it, or correct the position again",
    "undo": "put the seeds back as they were before that move, or confirm the move played",
    "declare_cycle_end": "make the board match it, or correct the position",
}


def out_of_sync_text(cause: str, diff: Sequence[dict[str, Any]]) -> str:
    listed = ", ".join(f"pit {d['name']}: expected {d['expected']}, seen {d['seen']}" for d in diff)
    head = OUT_OF_SYNC_CAUSES[cause]
    return f"{head}: {listed}" if listed else head


def found_again_how(played: int, stands: str = "") -> str:
    """How the game before a command was found again: the move undone that stands, if
    one does, and the moves played meanwhile."""
    parts = [stands] if stands else []
    if played:
        parts.append(f"{played} move(s) played meanwhile")
    return "; ".join(parts)


def resync_text(how: str) -> str:
    return f"the board matches the game again: {how}" if how else "the board matches the game again"


def stale_doubt_text(out: MoveOutcome, ended: bool = False) -> str:
    """A move taken as the likelier after the game went on (or ended: ``ended``) without
    settling it."""
    went = "ended" if ended else "went on"
    return (
        f"the game {went} without settling the doubt; {out.name} is taken as played "
        "(undo, or set the position, if it was not)"
    )
