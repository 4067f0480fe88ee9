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

Only the event-loop thread of the service writes; readers (HTTP handlers)
run on the same thread, so one connection is enough. WAL lets an outside
reader (a backup, ``sqlite3`` by hand) look while the service runs.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

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

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
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
        record: dict[str, Any] | None,
        ended: float | None = None,
    ) -> None:
        self._db.execute(
            "UPDATE games SET moves = ?, result = ?, record = ?, ended = ? WHERE id = ?",
            (moves, result, None if record is None else json.dumps(record), ended, game_id),
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
