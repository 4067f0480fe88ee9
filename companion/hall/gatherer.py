"""``oware-companion hall``: every board of the hall, from the broker.

The gatherer subscribes to ``HALL/board/+/#`` on a persistent session (a fixed
client id, ``clean_session`` off: the broker keeps what came while the hall was
away) and, per board:

* takes each session's events in ``seq`` order: one already taken is a duplicate
  (dropped, counted); one after a missing number waits in ``pending`` and the
  board shows a gap (since when) until the missing ones come;
* keeps what it took in ``DATA_DIR/board-N/SESSION`` (SESSION: the board's log file
  name; one ``{"seq", "at", "got", "event"}`` a line, ``at`` when the board's
  publisher read it, ``got`` when the hall took it), read back at start so that a
  restarted hall neither doubles nor loses;
* keeps the last summary (``state``), and whether the board's client is online
  (its will says when the broker lost it);
* notes which boards changed since :meth:`Gatherer.changes` last asked (the page's
  stream, :mod:`companion.hall.stream`, sends only those);
* writes the round's games, every board's game as OGN
  (:meth:`core.records.GameRecord.to_ogn`), to ``DATA_DIR/round-R.ogn`` and to the
  retained topic ``HALL/round/R/ogn``.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from pathlib import Path
from typing import Any

from core.records import GameRecord, RecordError

from .broker import BrokerAddress, make_client

log = logging.getLogger(__name__)

#: Seconds without a word from a board's client after which the page says it is stale.
STALE_AFTER = 15.0
#: Seconds between two writes of the round's OGN file (at most).
OGN_EVERY = 0.5


class BoardView:
    """What the hall knows of one board."""

    def __init__(self, board: str) -> None:
        self.board = board
        self.session: str | None = None
        self.expected = 0
        """The next ``seq`` to take."""
        self.taken = 0
        self.duplicates = 0
        self.pending: dict[int, dict[str, Any]] = {}
        self.gap_since: float | None = None
        self.joined_at: int | None = None
        self.past: dict[str, int] = {}
        """Earlier sessions of this board (a service restarted with --fresh): the next
        ``seq`` of each, so that a late copy of one of their events is still known."""
        self.state: dict[str, Any] | None = None
        self.online: bool | None = None
        self.offline_since: float | None = None
        self.heard = 0.0
        self.last_event_at: float | None = None
        """When the board read its last event taken here (its ``at``)."""
        self.ogn: tuple[dict[str, Any], str] | None = None
        """The last record written to the round's OGN, and its OGN (made again only
        when the record changes: every board's game, twice a second, is a lot)."""

    def _gap(self) -> dict[str, Any]:
        return {
            "since": self.gap_since,
            "missing_from": self.expected,
            "waiting": len(self.pending),
        }

    def stale_since(self, now: float) -> float | None:
        """Since when the board has been lost (its client offline, or silent too long)."""
        if self.online is False:
            return self.offline_since
        if self.heard and now - self.heard > STALE_AFTER:
            return self.heard
        return None

    def to_json(self, now: float) -> dict[str, Any]:
        summary = (self.state or {}).get("summary") or {}
        stale_since = self.stale_since(now)
        return {
            "board": self.board,
            "session": self.session,
            "url": (self.state or {}).get("url"),
            "summary": summary,
            "problem": (self.state or {}).get("problem"),
            "taken": self.taken,
            "next_seq": self.expected,
            "duplicates": self.duplicates,
            "gap": None if self.gap_since is None else self._gap(),
            "online": self.online,
            "stale_since": stale_since,
            "heard": self.heard or None,
            "joined_at": self.joined_at,
        }


class Gatherer:
    """The hall's view of every board, kept up by paho's network thread."""

    def __init__(
        self,
        address: BrokerAddress,
        data_dir: Path,
        *,
        round_number: int = 1,
        client_id: str | None = None,
        **client_options: Any,
    ) -> None:
        self.address = address
        self.data_dir = data_dir
        self.round = round_number
        self.boards: dict[str, BoardView] = {}
        self.lock = threading.Lock()
        self.connected = False
        self._changed: set[str] = set()
        """Boards that heard something since :meth:`changes` last asked."""
        self._shown_stale: dict[str, float | None] = {}
        """Each board's ``stale_since`` as :meth:`changes` last gave it."""
        self._ogn_dirty = False
        self._ogn_written = 0.0
        self.ogn_path = data_dir / f"round-{round_number}.ogn"
        data_dir.mkdir(parents=True, exist_ok=True)
        self._load_archives()
        self.client = make_client(address, client_id or f"{address.hall}-hall", **client_options)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self.client.on_connect_fail = self._on_connect_fail
        self._unreachable_said = False
        self._stop = threading.Event()
        self._writer = threading.Thread(target=self._write_loop, name="hall-ogn", daemon=True)

    # -- life cycle ----------------------------------------------------------------------------
    def start(self) -> None:
        self.client.connect_async(self.address.host, self.address.port, keepalive=10)
        self.client.loop_start()
        self._writer.start()

    def stop(self) -> None:
        self._stop.set()
        self.client.disconnect()
        self.client.loop_stop()
        self.write_ogn()

    def _load_archives(self) -> None:
        """Where a restarted hall stands: the last session of each board it kept."""
        for folder in sorted(self.data_dir.glob("board-*")):
            # by name: a log's name holds when it began (board1-20261125-173614.jsonl)
            logs = sorted(folder.glob("*.jsonl"))
            if not logs:
                continue
            view = BoardView(folder.name.removeprefix("board-"))
            for archive in logs:
                taken = 0
                data = _without_torn_tail(archive)
                for raw in data.splitlines():
                    try:
                        taken = int(json.loads(raw)["seq"]) + 1
                    except (ValueError, KeyError, TypeError):
                        continue  # a damaged line: that event is taken again
                    view.taken += 1
                view.past[archive.name] = taken
            view.session = logs[-1].name
            view.expected = view.past.pop(view.session)
            self.boards[view.board] = view

    # -- paho's thread ------------------------------------------------------------------------
    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if getattr(reason, "is_failure", False):
            log.warning("hall: broker refused: %s", reason)
            return
        self.connected = True
        self._unreachable_said = False
        client.subscribe(f"{self.address.hall}/board/+/#", qos=1)
        log.info("hall: gathering %s", self.address.shown)

    def _on_connect_fail(self, client: Any, userdata: Any) -> None:
        # paho tries again by itself; said once until it gets through, not at every try
        if not self._unreachable_said:
            log.warning(
                "hall: cannot reach the broker at %s (is Mosquitto running there?); trying again",
                self.address.shown,
            )
            self._unreachable_said = True

    def _on_disconnect(
        self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any
    ) -> None:
        if self.connected:
            log.warning("hall: lost the broker (%s)", reason)
        self.connected = False

    def _on_message(self, client: Any, userdata: Any, msg: Any) -> None:
        parts = msg.topic.split("/")
        if len(parts) != 4 or parts[1] != "board":
            return
        board, leaf = parts[2], parts[3]
        now = time.time()
        with self.lock:
            view = self.boards.get(board)
            if view is None:
                view = self.boards[board] = BoardView(board)
            view.heard = now
            try:
                if leaf == "online":
                    view.online = msg.payload == b"1"
                    view.offline_since = None if view.online else now
                    self._changed.add(board)
                elif leaf == "state":
                    state = json.loads(msg.payload)
                    if _shown(state) != _shown(view.state):
                        self._changed.add(board)  # (not a board's "still here" every 5 s)
                    self._state(view, state)
                elif leaf == "events":
                    self._event(view, json.loads(msg.payload), now)
                    self._changed.add(board)
            except (ValueError, KeyError, TypeError) as exc:
                log.warning("hall: board %s: unreadable %s message: %s", board, leaf, exc)

    def _state(self, view: BoardView, state: dict[str, Any]) -> None:
        if view.online is None:
            view.online = True
        new = state.get("session") != view.session and view.session is not None
        if new and int(state.get("summary", {}).get("seq", -1)) < 0:
            self._new_session(view, str(state["session"]))
        view.state = state
        self._ogn_dirty = True

    def _new_session(self, view: BoardView, session: str) -> None:
        if view.session is not None:
            view.past[view.session] = view.expected
        view.session = session
        view.expected = 0
        view.pending.clear()
        view.gap_since = None
        view.joined_at = None

    def _event(self, view: BoardView, message: dict[str, Any], now: float) -> None:
        seq = int(message["seq"])
        session = str(message["session"])
        if session in view.past:  # an earlier session's event, come late
            if seq != view.past[session]:
                view.duplicates += 1  # (or after a gap there: that session is over)
                return
            self._take(view, message, session)
            view.past[session] += 1
            return
        if session != view.session:
            self._new_session(view, session)
            if seq > 0 and not (self.data_dir / f"board-{view.board}").is_dir():
                # a hall started after the board: it takes the session from here on
                view.expected = view.joined_at = seq
        if seq < view.expected or seq in view.pending:
            view.duplicates += 1
            return
        view.pending[seq] = message
        while view.expected in view.pending:
            self._take(view, view.pending.pop(view.expected), str(view.session))
            view.expected += 1
        if view.pending:
            view.gap_since = view.gap_since or now
        else:
            view.gap_since = None

    def _take(self, view: BoardView, message: dict[str, Any], session: str) -> None:
        folder = self.data_dir / f"board-{view.board}"
        folder.mkdir(exist_ok=True)
        line = json.dumps(
            {
                "seq": message["seq"],
                "at": message.get("at"),
                "got": time.time(),
                "event": message["event"],
            },
            separators=(",", ":"),
        )
        with (folder / _archive_name(session)).open("a") as fh:
            fh.write(line + "\n")
        view.taken += 1
        view.last_event_at = message.get("at")

    # -- views ----------------------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        """Every board (in board order) and every open alert, newest first."""
        now = time.time()
        with self.lock:
            boards = [v.to_json(now) for v in sorted(self.boards.values(), key=_board_key)]
        alerts = [
            {**alert, "board": b["board"], "url": b["url"]}
            for b in boards
            for alert in b["summary"].get("alerts", [])
        ]
        alerts.sort(key=lambda a: a.get("at") or 0, reverse=True)
        return {
            "hall": self.address.hall,
            "broker": self.address.shown,
            "connected": self.connected,
            "round": self.round,
            "ogn": f"/round/{self.round}.ogn",
            "now": now,
            "boards": boards,
            "alerts": alerts,
        }

    def changes(self) -> list[dict[str, Any]]:
        """The boards that heard something, or became stale or fresh, since the last call
        (board order): what a page that had the last snapshot lacks."""
        now = time.time()
        with self.lock:
            changed, self._changed = self._changed, set()
            out: list[dict[str, Any]] = []
            for view in sorted(self.boards.values(), key=_board_key):
                stale = view.stale_since(now)
                if view.board in changed or stale != self._shown_stale.get(view.board):
                    self._shown_stale[view.board] = stale
                    out.append(view.to_json(now))
        return out

    def round_ogn(self) -> str:
        """Every board's game of this round, as OGN (board order)."""
        with self.lock:
            views = sorted(self.boards.values(), key=_board_key)
            states = [(v, v.state) for v in views]
        games: list[str] = []
        for view, state in states:
            if not state or not state.get("record"):
                continue
            record = state["record"]
            if view.ogn is not None and view.ogn[0] == record:
                games.append(view.ogn[1])  # the game has not changed since it was written
                continue
            try:
                game = GameRecord.from_json(record)
            except (RecordError, ValueError, KeyError, TypeError) as exc:
                log.warning("hall: board %s: record not readable: %s", view.board, exc)
                continue
            game.tags.update(
                {"Event": self.address.hall, "Round": str(self.round), "Board": view.board}
            )
            view.ogn = (record, game.to_ogn())
            games.append(view.ogn[1])
        return "\n".join(games)

    def write_ogn(self) -> None:
        text = self.round_ogn()
        tmp = self.ogn_path.with_suffix(".tmp")
        tmp.write_text(text)
        os.replace(tmp, self.ogn_path)
        if self.connected:
            topic = f"{self.address.hall}/round/{self.round}/ogn"
            self.client.publish(topic, text, qos=1, retain=True)

    def _write_loop(self) -> None:
        while not self._stop.wait(OGN_EVERY):
            if self._ogn_dirty:
                self._ogn_dirty = False
                try:
                    self.write_ogn()
                except OSError as exc:
                    log.warning("hall: cannot write %s: %s", self.ogn_path, exc)


def _shown(state: dict[str, Any] | None) -> tuple[Any, ...]:
    """What the page shows of a board's state message (not when it was sent)."""
    state = state or {}
    return (state.get("summary"), state.get("session"), state.get("url"), state.get("problem"))


def _without_torn_tail(archive: Path) -> bytes:
    """The archive's complete lines; a last line a killed hall left without its newline is
    cut off the file, so the event taken again starts a line of its own."""
    data = archive.read_bytes()
    end = data.rfind(b"\n") + 1
    if end < len(data):
        with archive.open("r+b") as fh:
            fh.truncate(end)
        log.warning("hall: %s ended in a torn line; that event is taken again", archive.name)
    return data[:end]


def _archive_name(session: str) -> str:
    """The archive of a session (its log's file name, kept to one path level)."""
    name = session.replace("/", "_")
    return name if name.endswith(".jsonl") else name + ".jsonl"


def _board_key(view: BoardView) -> tuple[int, str]:
    return (int(view.board), "") if view.board.isdigit() else (1 << 30, view.board)
