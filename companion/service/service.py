"""The live service: every board of one process, the games index, start and stop.

:class:`Service` is what ``oware-companion serve`` builds and what the
FastAPI app (``dashboard.app.create_app``) serves: it has what the app asks of a
service (:class:`dashboard.contracts.LiveService`). It is created outside the
event loop; :meth:`Service.start` (called from the app's lifespan) opens the
sources and resumes unfinished sessions, :meth:`Service.stop` closes them.

>>> from dashboard.app import create_app
>>> from companion.service.config import ServiceConfig
>>> app = create_app(Service(["sim://"], ServiceConfig()))
>>> paths = sorted(p for p in app.openapi()["paths"] if p.startswith("/api/board/"))
>>> paths[0], [p.rsplit("/", 1)[1] for p in paths[-3:]]
('/api/board/{b}/camera', ['command', 'events', 'state'])

Data directory layout::

    DATA_DIR/games.sqlite            the index (companion.service.index)
    DATA_DIR/sessions/board1-….jsonl one session log per board and run
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.sources import (
    check_source,
    is_camera_url,
    open_source,
    pit_photo_folder,
    referee_settings_for,
    rules_for,
    validate_url,
)
from core.position import Position
from core.rules import parse_rules_spec
from core.source import Source
from dashboard.contracts import HealthStatus

from .board import BoardRuntime
from .config import ServiceConfig, check_token
from .index import GameIndex, IndexWriter

log = logging.getLogger(__name__)

EngineFactory = Callable[[Callable[[dict[str, Any]], None]], Any]


def is_loopback(host: str) -> bool:
    """True for addresses only this machine can reach (``127.0.0.1``, ``::1``, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Service:
    """Boards ``"1"``, ``"2"``, … (one per source URL), the index, and the security settings."""

    def __init__(
        self,
        sources: list[str],
        config: ServiceConfig,
        *,
        engine: bool | None = None,
        resume: bool = True,
        source_factory: Callable[[str], Source] | None = None,
    ) -> None:
        if not sources:
            raise ValueError("at least one source URL is needed (e.g. sim://)")
        for url in sources:
            if source_factory is None:  # the real sources: refuse what they could not open
                check_source(url, config.calibration_for(url))
            else:
                validate_url(url)
        check_token(config.token, "the token")
        self.config = config
        self.urls = list(sources)
        self.data_dir = Path(config.data_dir).resolve()
        self.ruleset = parse_rules_spec(config.rules)
        # a sim:// board may name its own game (sim://?players=4); the rest play --rules
        self.board_rules = [rules_for(url, self.ruleset) for url in sources]
        self.engine_enabled = config.engine if engine is None else engine
        self.resume = resume
        self._source_factory = source_factory or (
            lambda url: open_source(
                url,
                config.calibration_for(url),
                self.pit_photos_for(url),
                rules_for(url, self.ruleset),
            )
        )
        self.index: GameIndex | None = None
        self.starting: dict[str, BoardRuntime] = {}
        """Boards still resuming their logs (in ``boards`` once they play)."""
        self._ready: asyncio.Task[None] | None = None
        self.index_writer: IndexWriter | None = None
        self.boards: dict[str, BoardRuntime] = {}

    def pit_photos_for(self, url: str) -> Path | None:
        """Where the camera at ``url`` keeps the pit photos the game labels (None: not kept)."""
        if not self.config.keep_pit_photos or not is_camera_url(url):
            return None
        return pit_photo_folder(self.data_dir, url)

    # -- security ---------------------------------------------------------------------
    @property
    def token_required(self) -> bool:
        """Commands need a token off loopback, and whenever one is configured."""
        return self.config.token is not None or not is_loopback(self.config.host)

    def check_token(self, given: str | None) -> bool:
        if not self.token_required:
            return True
        if self.config.token is None or given is None:
            return False
        return hmac.compare_digest(given.encode(), self.config.token.encode())

    # -- life cycle ----------------------------------------------------------------------
    def resume_conflicts(self) -> list[str]:
        """Boards whose unfinished session was recorded with another source or rule set
        than this start asks for (one line each); resuming them would play the old one."""
        if not self.resume or not (self.data_dir / "games.sqlite").is_file():
            return []
        index = GameIndex(self.data_dir / "games.sqlite")
        found: list[str] = []
        try:
            for number, url in enumerate(self.urls, start=1):
                row = index.open_log(str(number))
                path = None if row is None else self.data_dir / row["path"]
                if row is None or path is None or not path.is_file():
                    continue
                rules = Position.initial(self.board_rules[number - 1]).rules
                with path.open("rb") as fh:
                    try:
                        recorded = json.loads(fh.readline()).get("rules")
                    except (ValueError, AttributeError):
                        recorded = None  # an unreadable header: the board starts a new log
                if row["source"] != url:
                    found.append(f"board {number} was recorded from {row['source']}, not {url}")
                elif recorded is not None and recorded != rules and url.split(":")[0] != "replay":
                    found.append(f"board {number} was recorded playing {recorded}, not {rules}")
        finally:
            index.close()
        return found

    async def start(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.index = GameIndex(self.data_dir / "games.sqlite")
        self.index_writer = IndexWriter(self.index.path)
        loop = asyncio.get_running_loop()
        for number, url in enumerate(self.urls, start=1):
            board = str(number)
            runtime = BoardRuntime(
                board,
                url,
                self._source_factory(url),
                index=self.index,
                writer=self.index_writer,
                data_dir=self.data_dir,
                start=Position.initial(self.board_rules[number - 1]),
                referee_settings=referee_settings_for(url),
                fair_play=self.config.fair_play,
                engine_factory=self._engine_factory(loop) if self.engine_enabled else None,
                resume=self.resume,
                silent_after=self.config.silent_after,
            )
            await runtime.start()
            self.starting[board] = runtime
            log.info("board %s: %s", board, url)
        self._ready = asyncio.create_task(self._when_ready())

    async def _when_ready(self) -> None:
        """Boards join ``boards`` (the API, the pages) in order, once resumed."""
        for board, runtime in list(self.starting.items()):
            await runtime.ready()
            self.boards[board] = runtime
            del self.starting[board]
            if runtime.resume_seconds is not None:
                log.info("board %s: resumed in %.2f s", board, runtime.resume_seconds)

    async def ready(self) -> None:
        """Wait until every board plays."""
        if self._ready is not None:
            await self._ready

    async def stop(self) -> None:
        for runtime in [*self.boards.values(), *self.starting.values()]:
            await runtime.stop()
        if self.index_writer is not None:
            await asyncio.to_thread(self.index_writer.close)
        if self.index is not None:
            self.index.close()
        log.info("service stopped; logs closed")

    def _engine_factory(self, loop: asyncio.AbstractEventLoop) -> EngineFactory:
        seconds = self.config.engine_seconds
        fair_play = self.config.fair_play
        command = self.config.engine_command  # an outside engine (serve --engine), if any

        def make(publish: Callable[[dict[str, Any]], None]) -> Any:
            # imported here: numba compiles on first use, and --no-engine should not pay it
            from companion.service.engine_worker import EngineWorker

            return EngineWorker(
                publish, seconds=seconds, fair_play=fair_play, loop=loop, engine_command=command
            )

        return make

    # -- views ---------------------------------------------------------------------------
    def health(self) -> dict[str, Any]:
        """``status``: ``ok``; ``resuming`` while boards replay their logs after a restart
        (``resuming`` lists them); ``degraded`` while a board's log cannot be written or a
        board is not followed (its port cannot be opened, it is silent, its camera counts
        too unsurely: ``problems`` says why, one line each)."""
        boards = {b: r.health() for b, r in self.boards.items()}
        problems = [
            f"board {b}: session log: {h['storage_error']}"
            for b, h in boards.items()
            if "storage_error" in h
        ]
        for b, runtime in self.boards.items():
            unheard = runtime.link_problem()
            if unheard is not None:
                problems.append(f"board {b}: {unheard}")
        status: HealthStatus = "resuming" if self.starting else "degraded" if problems else "ok"
        out: dict[str, Any] = {
            "status": status,
            "problems": problems,
            "boards": boards,
        }
        if self.starting:
            out["resuming"] = sorted(self.starting)
        if self.index_writer is not None:
            # the index is a copy: while it waits the games go on (status stays ok)
            out["index"] = self.index_writer.health()
        return out

    def board_list(self) -> list[dict[str, Any]]:
        return [
            {
                "board": b,
                "source": r.url,
                "rules": r.referee.position.rules,
                "players": r.referee.position.players,
            }
            for b, r in self.boards.items()
        ]
