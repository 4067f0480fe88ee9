"""What a board's events say about it: position, scores, last move, open alerts, the game.

Pure: fed the events of one session log in order (:meth:`BoardSummary.add`), it
follows the referee's own rules for alerts: an alert stays open until a
``board_restored`` closes it (``closes``: its ``alert_id``), or until the position
changes (a move, a correction, a new game), which closes every alert but a
disturbed board's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.position import Position
from core.records import records_from_events
from core.referee.events import ALERT_TYPES

#: Events after which the referee stands at a new position.
NEW_POSITION = frozenset({"move", "corrected", "new_game"})
#: The events a game's record is made of (:func:`core.records.records_from_events`).
RECORDED = frozenset({"move", "corrected", "new_game"})
#: The fields of an alert event its headline is made from (``alertHeadline`` in
#: ``dashboard/static/js/view.js``).
HEADLINE_FIELDS = ("pits", "moves")


class BoardSummary:
    """One board's session, from its events."""

    def __init__(self, start: Mapping[str, Any]) -> None:
        self.session_start = Position.from_json(dict(start))
        self.game_start = self.session_start
        self.game_events: list[dict[str, Any]] = []
        self.position = self.session_start
        self.moves = 0
        self.last_move_at: float | None = None
        self.alerts: list[dict[str, Any]] = []
        self.game_over: str | None = None
        self.result: dict[str, Any] | None = None
        """The ended game's winner (``None``: a draw) and scores, for the page's own words."""
        self.seq = -1
        self._record: dict[str, Any] | None = None
        """The record as of the last event in :data:`RECORDED` (made again after one)."""

    def add(self, event: Mapping[str, Any], at: float) -> None:
        """Event number ``seq + 1`` of the log, read at ``at`` (Unix time)."""
        self.seq += 1
        kind = event.get("type")
        if kind in RECORDED:
            self._record = None
        if kind == "new_game":
            self.game_start = Position.from_json(event["position"])
            self.game_events = []
            self.moves = 0
            self.game_over = None
            self.result = None
        else:
            self.game_events.append(dict(event))
        if kind in NEW_POSITION:
            if "position" in event:
                self.position = Position.from_json(event["position"])
            self.alerts = [a for a in self.alerts if a.get("type") == "board_disturbed"]
        if kind == "move":
            self.moves += 1
            self.last_move_at = at
        elif kind == "board_restored":
            self.alerts = [a for a in self.alerts if a.get("alert_id") != event.get("closes")]
        elif kind == "game_over":
            self.game_over = str(event.get("text", "game over"))
            self.result = {"winner": event.get("winner"), "scores": list(event.get("scores", []))}
        elif kind in ALERT_TYPES:
            alert_id = event.get("alert_id", event.get("seq"))
            self.alerts = [a for a in self.alerts if a.get("alert_id") != alert_id]
            self.alerts.append(
                {
                    "type": kind,
                    "alert_id": alert_id,
                    "text": event.get("text", kind),
                    "at": at,
                    "seq": self.seq,
                    # what a page needs to say the alert in its own language, as the
                    # board's page does: the pits named, the moves in doubt
                    **{k: event[k] for k in HEADLINE_FIELDS if k in event},
                }
            )

    def record(self) -> dict[str, Any]:
        """The game being played (:class:`core.records.GameRecord` as JSON)."""
        # made from the whole game: once per move, not once per event (a summary is
        # sent after every event, and most events, a provisional move or an alert, do
        # not change the record)
        if self._record is None:
            self._record = records_from_events(self.game_start, self.game_events)[-1].to_json()
        return self._record

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "position": self.position.to_json(),
            "scores": list(self.position.scores),
            "to_move": self.position.to_move,
            "rules": self.position.rules,
            "moves": self.moves,
            "last_move_at": self.last_move_at,
            "alerts": list(self.alerts),
            "game_over": self.game_over,
            "result": self.result,
        }
