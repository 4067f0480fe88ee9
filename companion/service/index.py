"""The games index: an SQLite database (WAL mode) of session logs, games, players, results.

The JSONL session logs are the truth; this database is the catalogue the
dashboard's history page and the export endpoints read, so they never have
to scan log files. Tables:

* ``logs``: one row per session log (board, source URL, file name relative to
  the data directory, when it started, whether it was closed cleanly);
* ``players``: names seen in games;
* ``games``: one row per game (board, log, start and end time, rule set,
  South and North, result ``1-0`` / ``0-1`` / ``1/2-1/2`` / ``*``, number of
  moves) with the game record as JSON (:meth:`core.records.GameRecord.to_json`).

The service never writes it from its event loop: :class:`IndexWriter` queues
the writes and one thread of its own carries them out, in order, on its own
connection. When the database is locked (a backup holding a write lock) or
cannot be written (a full disk), the writer waits and tries again, keeping
the queue (an update of a game replaces the one queued before it), and says
so in :meth:`IndexWriter.health`; the game, the log and the pages go on. A
row's id is known only once the writer has inserted it, so the writer hands
out :class:`Ref` objects the later writes name it by. Readers (the HTTP
handlers) use a :class:`GameIndex` of their own: in WAL mode reading never
waits for a writer, and an outside reader (a backup, ``sqlite3`` by hand)
can look while the service runs.
"""

from __future__ import annotations

import collections
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

#: Seconds the writer waits for a lock before it lets go and tries again later.
LOCK_WAIT = 0.2
#: Seconds between two tries when the index cannot be written.
RETRY = 0.5

SCHEMA = """
CREATE TABLE IF NOT EXISTS logs (
    id INTEGER PRIMARY KEY,
    board TEXT NOT NULL,
    source TEXT NOT NULL,
    path TEXT NOT NULL UNIQUE,
    started REAL NOT NULL,
    closed INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS players (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    board TEXT NOT NULL,
    log_id INTEGER NOT NULL REFERENCES logs(id),
    started REAL NOT NULL,
    ended REAL,
    rules TEXT NOT NULL,
    south INTEGER REFERENCES players(id),
    north INTEGER REFERENCES players(id),
    result TEXT NOT NULL DEFAULT '*',
    moves INTEGER NOT NULL DEFAULT 0,
    record TEXT
);
CREATE INDEX IF NOT EXISTS games_by_board ON games(board, id);
"""


class GameIndex:
    """The SQLite catalogue. ``path`` is the database file (created if missing)."""

    def __init__(self, path: Path, timeout: float = 5.0) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(
            path, timeout=timeout, check_same_thread=False, isolation_level=None
        )
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        # NORMAL is durable enough in WAL mode: the logs, fsync-ed, are the truth.
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        self._db.close()

    # -- logs -------------------------------------------------------------------
    def add_log(self, board: str, source: str, path: str, started: float | None = None) -> int:
        cur = self._db.execute(
            "INSERT INTO logs (board, source, path, started) VALUES (?, ?, ?, ?)",
            (board, source, path, time.time() if started is None else started),
        )
        assert cur.lastrowid is not None
        return cur.lastrowid

    def open_log(self, board: str) -> dict[str, Any] | None:
        """The board's latest log that was not closed for good, if any (to resume)."""
        row = self._db.execute(
            "SELECT * FROM logs WHERE board = ? AND closed = 0 ORDER BY id DESC LIMIT 1", (board,)
        ).fetchone()
        return dict(row) if row else None

    def close_log(self, log_id: int) -> None:
        self._db.execute("UPDATE logs SET closed = 1 WHERE id = ?", (log_id,))

    def log_path(self, log_id: int) -> str | None:
        row = self._db.execute("SELECT path FROM logs WHERE id = ?", (log_id,)).fetchone()
        return None if row is None else str(row["path"])

    # -- players and games ---------------------------------------------------------
    def _player(self, name: str | None) -> int | None:
        if not name:
            return None
        self._db.execute("INSERT OR IGNORE INTO players (name) VALUES (?)", (name,))
        row = self._db.execute("SELECT id FROM players WHERE name = ?", (name,)).fetchone()
        return int(row["id"])

    def start_game(
        self,
        board: str,
        log_id: int,
        rules: str,
        south: str | None = None,
        north: str | None = None,
        started: float | None = None,
    ) -> int:
        cur = self._db.execute(
            "INSERT INTO games (board, log_id, started, rules, south, north) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (
                board,
                log_id,
                time.time() if started is None else started,
                rules,
                self._player(south),
                self._player(north),
            ),
        )
        assert cur.lastrowid is not None
        return cur.lastrowid

    def count_games(self, log_id: int) -> int:
        row = self._db.execute("SELECT COUNT(*) AS n FROM games WHERE log_id = ?", (log_id,))
        return int(row.fetchone()["n"])

    def last_game(self, log_id: int) -> int | None:
        row = self._db.execute(
            "SELECT id FROM games WHERE log_id = ? ORDER BY id DESC LIMIT 1", (log_id,)
        ).fetchone()
        return None if row is None else int(row["id"])

    def update_game(
        self,
        game_id: int,
        *,
        moves: int,
        result: str,
        record: dict[str, Any],
        ended: float | None = None,
    ) -> None:
        self._db.execute(
            "UPDATE games SET moves = ?, result = ?, record = ?, ended = ? WHERE id = ?",
            (moves, result, json.dumps(record), ended, game_id),
        )

    def end_game(self, game_id: int, ended: float | None = None) -> None:
        self._db.execute(
            "UPDATE games SET ended = COALESCE(ended, ?) WHERE id = ?",
            (time.time() if ended is None else ended, game_id),
        )

    _GAME_COLUMNS = (
        "SELECT g.id, g.board, g.started, g.ended, g.rules, ps.name AS south, "
        "pn.name AS north, g.result, g.moves, l.path AS log, g.record FROM games g "
        "JOIN logs l ON l.id = g.log_id LEFT JOIN players ps ON ps.id = g.south "
        "LEFT JOIN players pn ON pn.id = g.north"
    )

    def games(self, limit: int = 50, board: str | None = None) -> list[dict[str, Any]]:
        """Newest first, without the records (the history list)."""
        sql = self._GAME_COLUMNS
        params: list[Any] = []
        if board is not None:
            sql += " WHERE g.board = ?"
            params.append(board)
        sql += " ORDER BY g.id DESC LIMIT ?"
        params.append(limit)
        rows = self._db.execute(sql, params).fetchall()
        return [{k: row[k] for k in dict(row) if k != "record"} for row in rows]

    def game(self, game_id: int) -> dict[str, Any] | None:
        """One game with its record (``record`` parsed, or ``None``)."""
        row = self._db.execute(self._GAME_COLUMNS + " WHERE g.id = ?", (game_id,)).fetchone()
        if row is None:
            return None
        out = dict(row)
        out["record"] = json.loads(row["record"]) if row["record"] else None
        return out


class Ref:
    """A row the :class:`IndexWriter` will insert: its id once it has (None before)."""

    __slots__ = ("id",)

    def __init__(self, row_id: int | None = None) -> None:
        self.id = row_id

    def __repr__(self) -> str:
        return f"Ref({self.id})"


_Op = tuple[str, Callable[[GameIndex], None], Any]


class IndexWriter:
    """Writes to the index from a thread of its own, in order; no call waits for SQLite."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._ops: collections.deque[_Op] = collections.deque()
        self._cond = threading.Condition()
        self._closing = False
        self.error: str | None = None
        """Why the index cannot be written now (None when it can)."""
        self.written = 0
        self._thread = threading.Thread(target=self._run, name="index-writer", daemon=True)
        self._thread.start()

    # -- the writes (from the event loop) ----------------------------------------------------
    def add_log(self, board: str, source: str, path: str) -> Ref:
        ref = Ref()
        started = time.time()

        def op(db: GameIndex) -> None:
            ref.id = db.add_log(board, source, path, started)

        self._put("add_log", op)
        return ref

    def start_game(
        self,
        board: str,
        log_ref: Ref,
        rules: str,
        south: str | None = None,
        north: str | None = None,
    ) -> Ref:
        ref = Ref()
        started = time.time()

        def op(db: GameIndex) -> None:
            if log_ref.id is not None:
                ref.id = db.start_game(board, log_ref.id, rules, south, north, started)

        self._put("start_game", op)
        return ref

    def update_game(
        self,
        game: Ref,
        *,
        moves: int,
        result: str,
        record: dict[str, Any],
        ended: float | None,
    ) -> None:
        def op(db: GameIndex) -> None:
            if game.id is not None:
                db.update_game(game.id, moves=moves, result=result, record=record, ended=ended)

        self._put("update_game", op, game)

    def end_game(self, game: Ref) -> None:
        ended = time.time()

        def op(db: GameIndex) -> None:
            if game.id is not None:
                db.end_game(game.id, ended)

        self._put("end_game", op)

    def close_log(self, log_ref: Ref) -> None:
        def op(db: GameIndex) -> None:
            if log_ref.id is not None:
                db.close_log(log_ref.id)

        self._put("close_log", op)

    def _put(self, name: str, op: Callable[[GameIndex], None], key: Any = None) -> None:
        with self._cond:
            if key is not None:
                # the same game's record again: only the newest one needs writing. Looked
                # for back through other games' records only (never past another kind of
                # write, which must keep its order), and never the first in the queue
                # (it may be being written)
                for i in range(len(self._ops) - 1, 0, -1):
                    queued = self._ops[i][2]
                    if queued is None:
                        break
                    if queued is key:
                        self._ops[i] = (name, op, key)
                        return
            self._ops.append((name, op, key))
            self._cond.notify()

    # -- the thread ---------------------------------------------------------------------
    def _run(self) -> None:
        db: GameIndex | None = None
        while True:
            with self._cond:
                while not self._ops and not self._closing:
                    self._cond.wait()
                if not self._ops:
                    break
                name, op, _ = self._ops[0]
            try:
                if db is None:
                    db = GameIndex(self.path, timeout=LOCK_WAIT)
                op(db)
            except sqlite3.OperationalError as exc:  # locked, busy, disk full: try again
                self._failed(f"{exc}")
                if db is not None:
                    db.close()
                    db = None
                with self._cond:
                    if self._closing:
                        break
                    self._cond.wait(RETRY)  # close() wakes it
                continue
            except (sqlite3.Error, ValueError, TypeError) as exc:  # this write cannot be done
                log.error("games index: %s failed (%s); left out", name, exc)
            with self._cond:
                if self._ops:  # (close() may have given up on the queue meanwhile)
                    self._ops.popleft()
                self.written += 1
                self._cond.notify_all()
            if self.error is not None:
                log.info("games index: written again (%d writes waiting)", len(self._ops))
                self.error = None
        if db is not None:
            db.close()

    def _failed(self, why: str) -> None:
        if self.error is None:
            log.warning(
                "games index %s cannot be written now (%s); the games go on, the index "
                "is written when it can be",
                self.path.name,
                why,
            )
        self.error = why

    # -- waiting, closing, health ------------------------------------------------------
    @property
    def pending(self) -> int:
        return len(self._ops)

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until every queued write is done; False if that took over ``timeout``."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._ops:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
        return True

    def close(self, timeout: float = 5.0) -> None:
        """Write what is queued (for at most ``timeout`` s: the logs are the truth), stop."""
        self.flush(timeout)
        with self._cond:
            self._closing = True
            if self._ops:
                log.warning(
                    "games index: %d writes left undone at stop (the session logs hold every game)",
                    len(self._ops),
                )
                self._ops.clear()
            self._cond.notify_all()
        self._thread.join(timeout)

    def health(self) -> dict[str, Any]:
        out: dict[str, Any] = {"pending": len(self._ops), "state": "ok"}
        if self.error is not None:
            out.update(state="waiting", error=self.error)
        return out
