"""The teaching view: a move told in words, with the opponent's best answer.

>>> from core import Position
>>> p = Position.from_text("0-0-0-0-0-1-1-1-0-0-0-0-24-21-S")
>>> print(describe_outcome(p.outcome(5)))  # doctest: +NORMALIZE_WHITESPACE
South plays F: lifts 1 seed and sows it into a.
The last seed makes 2 in a: South captures 2 (a 2), 26 in store.
The game ends: a player has captured more than half the seeds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from core.engine.analysis import Analysis, analyze
from core.notation import join_names, move_name, player_name
from core.position import MoveOutcome, Position


def _slot_name(slot: int, players: int) -> str:
    """A sowing slot in words: a pit's name, or whose store."""
    if slot >= 0:
        return move_name(slot, players)
    return f"{player_name(-1 - slot, players)}'s store"


def _sown_text(sown: tuple[int, ...], players: int) -> str:
    """Where the seeds went, compressing repeats (a pit sown twice on a long lap)."""
    names = [_slot_name(s, players) for s in sown]
    counts: dict[str, int] = {}
    for n in names:
        counts[n] = counts.get(n, 0) + 1
    seen: list[str] = []
    for n in names:
        if n not in seen:
            seen.append(n)
    parts = [n if counts[n] == 1 else f"{n} (x{counts[n]})" for n in seen]
    return join_names(parts).replace(" or ", " and ")


def describe_outcome(outcome: MoveOutcome) -> str:
    """One move in words: what it sows, where the last seed lands, what it captures."""
    before = outcome.before
    players = before.players
    who = player_name(outcome.player, players)
    seeds = outcome.seeds
    noun = "seed" if seeds == 1 else "seeds"
    pronoun = "it" if seeds == 1 else "them"
    text = (
        f"{who} plays {outcome.name}: lifts {seeds} {noun} and sows {pronoun} into "
        f"{_sown_text(outcome.sown, players)}."
    )
    last = outcome.sown[-1] if outcome.sown else None
    after = outcome.position
    if outcome.captures:
        taken = ", ".join(f"{move_name(p, players)} {c}" for p, c in outcome.captures)
        landing = move_name(outcome.captures[0][0], players)
        made = outcome.captures[0][1]
        text += (
            f" The last seed makes {made} in {landing}: {who} captures "
            f"{outcome.captured} ({taken}), {after.stores[outcome.player]} in store."
        )
    elif outcome.grand_slam:
        text += (
            " The capture would take every seed the opponent has (a grand slam),"
            " so nothing is captured."
        )
    elif last is not None and last >= 0:
        text += (
            f" The last seed lands in {move_name(last, players)}, which now holds "
            f"{after.pits[last]}; nothing is captured."
        )
    if outcome.extra_turn:
        text += f" The last seed went into the store: {who} plays again."
    if after.is_over and after.ending is not None:
        text += f" The game ends: {after.ending.text}."
    return text


@dataclass
class Explanation:
    """A move explained: the move itself, its value, the best reply and why."""

    move: str
    value: str
    reply: str | None
    text: str

    def to_json(self) -> dict[str, Any]:
        return {"move": self.move, "value": self.value, "reply": self.reply, "text": self.text}


def explain_move(
    position: Position,
    pit: int,
    *,
    seconds: float = 0.5,
    analysis: Analysis | None = None,
    database: npt.NDArray[np.uint8] | None = None,
    db_max: int = -1,
) -> Explanation:
    """Explain playing ``pit`` from ``position``: sowing, captures, the best reply, the value.

    ``analysis`` of ``position`` (if already computed) supplies the move's value;
    ``database``/``db_max`` (an endgame database) make the reply's value exact.
    """
    outcome = position.outcome(pit)
    parts = [describe_outcome(outcome)]
    value = ""
    if analysis is not None:
        for m in analysis.moves:
            if m.pit == pit:
                value = m.text
                best = analysis.moves[0]
                if m.pit == best.pit:
                    parts.append(f"This is the engine's choice ({value}).")
                else:
                    parts.append(
                        f"The engine values it {value}; it prefers {best.name} ({best.text})."
                    )
    reply_name: str | None = None
    after = outcome.position
    if not after.is_over:
        answer = analyze(after, seconds=seconds, database=database, db_max=db_max)
        reply = answer.moves[0]
        if analysis is not None and len(analysis.pv) >= 2 and analysis.pv[0] == pit:
            # the move is the head of the line the analysis printed: its reply is the line's
            # next move (a shorter search of its own could name another and contradict it)
            reply = next((m for m in answer.moves if m.pit == analysis.pv[1]), reply)
        reply_name = reply.name
        said = describe_outcome(after.outcome(reply.pit))
        parts.append(f"Best reply: {said}")
        if reply.result is not None:
            parts.append(
                f"With best play from there, {player_name(after.to_move, after.players)}"
                f" can expect a {reply.text}."
            )
    return Explanation(outcome.name, value, reply_name, " ".join(parts))
