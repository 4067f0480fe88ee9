"""One board at run time: source thread → asyncio queue → referee → log → index → pages.

A :class:`BoardRuntime` owns everything about one physical board:

* a worker thread iterating the source (sources block) and handing each item
  to the event loop with ``call_soon_threadsafe``;
* the :class:`~core.referee.Referee`, fed on the event loop only, so
  observations and people's commands are handled one at a time, in order;
* the session log (:mod:`companion.service.recorder`): each observation and
  accepted command is written and flushed, then its events are written and
  ``fsync``-ed, and only then broadcast and indexed;
* the games index row of the game in progress;
* the engine worker, if any, told about every new position;
* a watch on the link: a source that was connected and has sent no frame for
  ``silent_after`` seconds is reported ``"silent"`` (a hung board keeps its
  port open and says nothing), to the pages and in ``/health``; its next
  frame brings the state it had back.

Crash resume: at start, if the index has an unfinished log for this board,
it is replayed line by line into a fresh referee (exactly what
:func:`core.referee.session.replay` does). The referee then stands at the
same position with the same moves and alerts; events the crashed process had
not written yet (it died between an observation and its events) are written
now. New observations continue the same log.

Observation times: a restarted source starts its clock again, and the
referee's timing (how long a board has been still) must never run backwards,
so times are shifted to continue after the last logged one. The log holds
the shifted times, which is what a replay needs.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

from core.observation import Observation, most_likely
from core.position import Position
from core.records import GameRecord, records_from_events
from core.referee import Event, Referee
from core.referee.command_check import validate_command
from core.referee.session import (
    feed_line,
    line_kind,
    referee_from_header,
    session_header,
)
from core.source import Source
from dashboard.contracts import CommandNotLogged
from dashboard.hub import Hub, Role, Subscriber

from .camera import CameraControls, camera_controls
from .checkpoint import CHECKPOINT_BUSY, Checkpointer
from .checkpoint import load as load_checkpoint
from .collector import IdleCollector
from .index import GameIndex, IndexWriter, Ref
from .recorder import DamagedLine, LogWriteError, SessionLog, read_log

log = logging.getLogger(__name__)

#: Seconds put between the last logged observation and a restarted source's first.
RESTART_GAP = 1.0

#: Longest wait for pages to receive what was published before reading on (seconds).
DRAIN_TIMEOUT = 0.05
#: Items from a source waiting for the referee, at most. A source that reads faster than the
#: referee judges (a virtual board flat out, a replay) waits for it: otherwise its thread
#: fills memory and, holding the interpreter, starves the event loop that serves the pages.
PENDING = 64

#: Seconds without a frame after which a connected source is reported silent.
SILENT_AFTER = 2.0

#: Link states in which a source is expected to send frames.
TALKING = ("connected", "unsure")
#: Link states in which the board is not followed: each is a problem in ``/health``
#: (``disconnected`` too, unless the source says it ``ended``: a replay or a video file
#: read to its end).
UNHEARD = ("reconnecting", "silent", "unsure", "disconnected")

StorageState = Literal["ok", "failing"]
"""Whether the session log is being written (the storage message's and health's word)."""

#: Seconds between two tries to write again after a write failed (a full disk).
STORAGE_RETRY = 0.5

#: Events after which the position the engine should think about has changed.
POSITION_EVENTS = frozenset({"move", "corrected", "new_game", "game_over"})


class BoardRuntime:
    """The live game of one board. Create, then ``await start()`` on the event loop."""

    def __init__(
        self,
        board: str,
        url: str,
        source: Source,
        *,
        index: GameIndex,
        writer: IndexWriter,
        data_dir: Path,
        start: Position,
        referee_settings: dict[str, Any] | None = None,
        fair_play: bool = False,
        engine_factory: Callable[[Callable[[dict[str, Any]], None]], Any] | None = None,
        resume: bool = True,
        silent_after: float = SILENT_AFTER,
    ) -> None:
        self.board = board
        self.url = url
        self.source = source
        self.index = index
        self.writer = writer
        self.data_dir = data_dir
        self.fair_play = fair_play
        self.hub = Hub()
        self.link: dict[str, Any] = {"type": "link", "state": "starting", "detail": ""}
        self.suggestion: dict[str, Any] | None = None
        self.events: list[dict[str, Any]] = []
        self.reading: dict[str, Any] | None = None
        """The last still board the source read (most likely counts), for corrections."""
        self.resumed = False
        self.observations = 0
        self.damaged: list[DamagedLine] = []
        """Lines of the resumed log that could not be read (skipped)."""
        self.storage_error: str | None = None
        """Why the log cannot be written now (a full disk); None when it can."""
        self.dropped = 0
        """Observations neither logged nor judged because the log could not be written."""
        self._unwritten: tuple[list[dict[str, Any]], list[Event], dict[str, Any] | None] | None
        self._unwritten = None
        """Events the referee gave whose write failed: written (then shown) when it can."""
        self._retry_handle: asyncio.TimerHandle | None = None
        self.resuming = False
        """True while the log is being replayed (the board does not play yet)."""
        self.resume_seconds: float | None = None
        self._ready: asyncio.Task[None] | None = None
        self._busy = 0.0
        """Seconds spent judging since the last checkpoint."""
        self.collector = IdleCollector()
        """Garbage collected between readings (:mod:`.collector`)."""
        self.prepared = 0
        """Histories the referee prepared for between readings (``Referee.prepare``)."""
        self._game_ended = False
        self._checkpointer: Checkpointer
        self._start = start
        self._settings = dict(referee_settings or {})
        self._engine_factory = engine_factory
        self._engine: Any = None
        self._resume = resume
        self._queue: asyncio.Queue[Any] = asyncio.Queue(maxsize=PENDING)
        self._thread: threading.Thread | None = None
        self._task: asyncio.Task[None] | None = None
        self._stopping = threading.Event()
        self.silent_after = silent_after
        self._last_frame = time.monotonic()
        """When the source last gave a frame (set by its thread; monotonic seconds)."""
        self._talking: dict[str, Any] | None = None
        """The link state a silence interrupted, given back at the next frame."""
        self._watch: asyncio.Task[None] | None = None
        self._last_t = 0.0
        self._offset = 0.0
        self.referee: Referee
        self._game_start: Position
        """Where the game being played started (the session's start, or its new_game)."""
        self._game_events: list[dict[str, Any]] = []
        """The events of the game being played: its record is rebuilt from them."""
        self.session: SessionLog
        self.log_ref: Ref
        self.game_ref: Ref

    # -- life cycle ----------------------------------------------------------------
    async def start(self) -> None:
        """Open the source and the log: a new log at once; a log to resume is replayed
        on a thread (``await ready()``), the pages and /health answering meanwhile."""
        loop = asyncio.get_running_loop()
        existing = self.index.open_log(self.board) if self._resume else None
        self.source.open()  # a source that cannot open stops the start here
        if existing is not None and (self.data_dir / existing["path"]).is_file():
            self.resuming = True
            self._ready = asyncio.create_task(self._resume_and_run(existing, loop))
        else:
            self._new_log()
            self._run(loop)

    async def ready(self) -> None:
        """Wait until the board plays (its log resumed, if it had one)."""
        if self._ready is not None:
            await self._ready

    async def _resume_and_run(
        self, existing: dict[str, Any], loop: asyncio.AbstractEventLoop
    ) -> None:
        started = time.monotonic()
        try:
            await asyncio.to_thread(self._resume_log, existing)
        except Exception as exc:
            # its header is unreadable...: no game to resume from it; it stays on disk as is
            log.error(
                "board %s: cannot resume %s (%s); a new session log is started",
                self.board,
                existing["path"],
                exc,
            )
            self.writer.close_log(Ref(int(existing["id"])))
            self._new_log()
        self.resume_seconds = round(time.monotonic() - started, 3)
        self.resuming = False
        self._run(loop)

    def _run(self, loop: asyncio.AbstractEventLoop) -> None:
        """The engine, the source's thread, and the task that judges what it reads."""
        if self._engine_factory is not None:
            self._engine = self._engine_factory(self._on_suggestion)
            self._engine.update(self.referee.position)
        self._thread = threading.Thread(
            target=self._pump, args=(loop,), name=f"source-{self.board}", daemon=True
        )
        self._thread.start()
        self.collector.install()
        self._task = asyncio.create_task(self._consume(), name=f"board-{self.board}")
        if self.silent_after > 0:
            self._watch = asyncio.create_task(self._watch_link(), name=f"watch-{self.board}")

    async def stop(self) -> None:
        """Close the source, wait for its thread, flush and close the log."""
        self._stopping.set()
        try:
            self.source.close()
        except Exception:  # a broken source must not stop the shutdown
            log.exception("board %s: closing the source failed", self.board)
        if self._ready is not None and not self._ready.done():
            with contextlib.suppress(Exception):  # (a replay cannot be cut short: wait)
                await self._ready
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join, 5.0)
        for task in (self._task, self._watch):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self.collector.uninstall()
        if self._engine is not None:
            await asyncio.to_thread(self._engine.close)
        if self._retry_handle is not None:
            self._retry_handle.cancel()
        if hasattr(self, "session"):
            if self._unwritten is None and self.storage_error is None:
                self._checkpoint()  # the next start replays nothing
            await asyncio.to_thread(self._checkpointer.close)
            self.session.close()

    def _pump(self, loop: asyncio.AbstractEventLoop) -> None:
        """The source thread: hand every item to the event loop."""
        try:
            for item in self.source:
                if not _is_status(item):
                    self._last_frame = time.monotonic()
                if self._stopping.is_set() or not self._hand_over(loop, item):
                    break
        except Exception as exc:
            log.exception("board %s: source %s failed", self.board, self.url)
            status = {"type": "link", "state": "disconnected", "detail": f"source failed: {exc}"}
            self._hand_over(loop, status)

    def _hand_over(self, loop: asyncio.AbstractEventLoop, item: Any) -> bool:
        """Put ``item`` on the queue, waiting while it is full; False once stopping."""
        put = self._queue.put(item)
        try:
            done = asyncio.run_coroutine_threadsafe(put, loop)
        except RuntimeError:  # the loop is closed
            put.close()
            return False
        while not self._stopping.is_set():
            try:
                done.result(timeout=0.2)
                return True
            except TimeoutError:
                continue
            except (RuntimeError, asyncio.CancelledError):  # the loop is closing
                return False
        done.cancel()
        return False

    async def _consume(self) -> None:
        while True:
            item = await self._queue.get()
            published = self.hub.published
            began = time.perf_counter()
            try:
                self.handle(item)
            except Exception:
                # one bad item must not stop the board; it is in the log for a post-mortem
                log.exception("board %s: could not handle %r", self.board, item)
            self._busy += time.perf_counter() - began
            if self._busy >= CHECKPOINT_BUSY or self._game_ended:
                self._checkpoint()
            if self._queue.empty():
                # Waiting for the next frame: what the next reading will need is built now,
                # and the collector's pass run, so neither delays a reading. (Counted as
                # busy all the same: a restart's replay builds and collects too.)
                began = time.perf_counter()
                try:
                    self.prepared += self.referee.prepare()
                except Exception:  # (a cache only: the next reading builds it anyway)
                    log.exception("board %s: preparing the next reading failed", self.board)
                self.collector.idle()
                self._busy += time.perf_counter() - began
            # get() does not yield while items are waiting: let HTTP and WebSockets in,
            # and let the pages have what was just published before the next reading
            await asyncio.sleep(0)
            if self.hub.published != published:
                await self.hub.drained(DRAIN_TIMEOUT)

    async def _watch_link(self) -> None:
        """Report a connected source that sends nothing as silent (see the module docstring)."""
        while True:
            await asyncio.sleep(min(0.25, self.silent_after / 4))
            quiet = time.monotonic() - self._last_frame
            if self.link.get("state") in TALKING and quiet >= self.silent_after:
                self._talking = self.link
                self.link = {
                    "type": self.link.get("type", "link"),
                    "state": "silent",
                    "detail": f"no frame from the board for {self.silent_after:g} s: "
                    "is it on and plugged in?",
                }
                log.warning("board %s: silent (no frame for %.1f s)", self.board, quiet)
                self.hub.publish({**self.link, "board": self.board})

    def _heard(self) -> None:
        """A frame came: a silent link has its state back."""
        if self.link.get("state") != "silent":
            return
        self.link = self._talking or {"type": "link", "state": "connected", "detail": ""}
        self._talking = None
        log.info("board %s: frames again", self.board)
        self.hub.publish({**self.link, "board": self.board})

    def _checkpoint(self) -> None:
        """Save where the game stands (:mod:`.checkpoint`): a restart replays from here."""
        if self._unwritten is not None or self.storage_error is not None:
            return  # what the referee judged is not all in the log yet
        self._busy = 0.0
        self._game_ended = False
        state = {
            "referee": self.referee,
            "last_t": self._last_t,
            "game_start": self._game_start,
            "game_events": self._game_events,
            "reading": self.reading,
            "observations": self.observations,
        }
        try:
            self._checkpointer.save(
                state, offset=self.session.size, lines=self.session.lines, events=self.events
            )
        except Exception as exc:  # (a referee that cannot be pickled...): replays are longer
            log.warning("board %s: no checkpoint (%s)", self.board, exc)

    # -- the log ---------------------------------------------------------------------
    def _new_log(self) -> None:
        header_source = getattr(self.source, "header", None)
        if isinstance(header_source, dict):
            # a replayed session: same start and referee settings as recorded
            header = dict(header_source)
            self.referee = referee_from_header(header)
        else:
            header = session_header(self._start, **self._settings)
            self.referee = Referee(self._start, **self._settings)
        self._game_start = Position.from_json(header["start"])
        self._game_events = []
        stamp = time.strftime("%Y%m%d-%H%M%S")
        folder = self.data_dir / "sessions"
        for n in range(1000):
            name = f"board{self.board}-{stamp}" + (f"-{n}" if n else "") + ".jsonl"
            if not (folder / name).exists():
                break
        self.session = SessionLog.create(folder / name, header)
        self._checkpointer = Checkpointer(folder / name, 0, 0)
        rel = str((folder / name).relative_to(self.data_dir))
        self.log_ref = self.writer.add_log(self.board, self.url, rel)
        self.game_ref = self.writer.start_game(self.board, self.log_ref, self.referee.start.rules)
        self._index_game()  # its (empty) record at once: it exports before its first move
        log.info("board %s: new session log %s", self.board, rel)

    def _resume_log(self, row: dict[str, Any]) -> None:
        """Stand where the log's last line left the game (on a thread: nothing else runs
        on this board meanwhile). From its checkpoint when it has one that fits."""
        path = self.data_dir / row["path"]
        damaged: list[DamagedLine] = []
        checkpoint = load_checkpoint(path)
        if checkpoint is not None:
            state = checkpoint.state
            self.referee = state["referee"]
            self._last_t = float(state["last_t"])
            self._game_start = state["game_start"]
            self._game_events = list(state["game_events"])
            self.reading = state["reading"]
            self.observations = int(state["observations"])
            previous = checkpoint.events
            lines, valid = read_log(
                path, damaged, start=checkpoint.offset, first_line=checkpoint.lines + 1
            )
            tail, count = lines, checkpoint.lines + len(lines)
            self._checkpointer = Checkpointer(path, checkpoint.events_bytes, len(previous))
        else:
            lines, valid = read_log(path, damaged)
            self.referee = referee_from_header(lines[0])
            self._game_start = Position.from_json(lines[0]["start"])
            self._game_events = []
            previous = []
            tail, count = lines[1:], len(lines)
            self._checkpointer = Checkpointer(path, 0, 0)
        logged: list[dict[str, Any]] = []
        produced: list[dict[str, Any]] = []
        written = 0
        """Events produced up to the last event line in the log: those were written."""
        for line in tail:
            kind = line_kind(line)
            if kind == "event":
                logged.append(line)
                written = len(produced)
                continue
            if kind == "observation" and isinstance(line.get("t"), int | float):
                self._last_t = max(self._last_t, float(line["t"]))
            produced.extend(_as_json(e) for e in feed_line(self.referee, line))
        self.session = SessionLog.open_existing(path, valid, count + len(damaged))
        if damaged:
            self.damaged = damaged
            log.warning(
                "board %s: %s: %d damaged line(s) skipped: %s",
                self.board,
                path.name,
                len(damaged),
                "; ".join(map(str, damaged[:5])) + (" ..." if len(damaged) > 5 else ""),
            )
        elif produced[: len(logged)] != logged:
            log.warning(
                "board %s: the events in %s differ from its replay; the replay is kept",
                self.board,
                path.name,
            )
        # events the crashed process had not written yet: those after the last logged one
        missing = produced[written:]
        self.session.append_many(missing, sync=True)
        self.events = previous + produced
        for event in produced:  # the game being played: since the session's last new_game
            if event.get("type") == "new_game":
                self._game_start = Position.from_json(event["position"])
                self._game_events = []
            else:
                self._game_events.append(event)
        self.log_ref = Ref(int(row["id"]))
        last = self.index.last_game(int(row["id"]))
        # one game row per game of the log; the writer's last rows may not have reached the
        # index before the crash: then the game being played gets its row now
        games = 1 + sum(e.get("type") == "new_game" for e in self.events)
        if last is not None and self.index.count_games(int(row["id"])) >= games:
            self.game_ref = Ref(last)
        else:
            self.game_ref = self.writer.start_game(self.board, self.log_ref, self._game_start.rules)
        self._offset = 0.0
        self._restarted = True
        self.resumed = True
        self._index_game()
        self._checkpoint()  # the next restart starts here
        log.info(
            "board %s: resumed %s at move %d (%d events; %d lines replayed%s; %d events "
            "written now)",
            self.board,
            path.name,
            len(self.referee.moves),
            len(self.events),
            len(tail),
            " after its checkpoint" if checkpoint is not None else "",
            len(missing),
        )

    # -- items from the source ----------------------------------------------------------
    _restarted = False

    def handle(self, item: Any) -> None:
        """One item from the source (on the event loop)."""
        if not _is_status(item):
            self._heard()
        if isinstance(item, Observation):
            self._observe(item)
        elif isinstance(item, dict) and "command" in item:
            # a replayed session's command: it keeps its recorded time
            t = float(item.get("t", self._last_t)) + self._offset
            self._run_command(validate_command({k: v for k, v in item.items() if k != "t"}), t)
        elif isinstance(item, dict) and item.get("type") in ("link", "camera"):
            was = self.link.get("state")
            self.link = {k: item[k] for k in ("type", "state", "detail", "ended") if k in item}
            self._talking = None
            unheard = self.link_problem()
            if unheard is not None and self.link.get("state") != was:
                log.warning("board %s: %s", self.board, unheard)
            if self.link.get("state") in TALKING:  # (re)connected: frames are due from now
                self._last_frame = time.monotonic()
            self.hub.publish({**self.link, "board": self.board})
        elif isinstance(item, dict):
            self._observe_raw(item)

    def _retime(self, t: float) -> float:
        shifted = t + self._offset
        if self._restarted or shifted < self._last_t:
            self._offset = self._last_t + RESTART_GAP - t
            shifted = t + self._offset
            self._restarted = False
        return shifted

    def _observe(self, obs: Observation) -> None:
        obs = replace(obs, t=self._retime(obs.t))
        self._last_t = obs.t
        self.observations += 1
        line = obs.to_json()
        if not self._log(line):
            return
        if obs.stable:
            self.reading = {
                "t": obs.t,
                "pits": [most_likely(p) for p in obs.pits],
                "stores": None if obs.stores is None else [most_likely(s) for s in obs.stores],
            }
        # The referee judges the observation as the log holds it (read back, its beliefs
        # normalised as a replay normalises them), so a replay or a restart after a crash
        # sees exactly what the live referee saw, to the last bit.
        self._publish(self.referee.observe(Observation.from_json(line)))

    def _observe_raw(self, raw: dict[str, Any]) -> None:
        """A line a replay could not parse: the referee says ``bad_observation``."""
        if self._log(raw):
            self._publish(self.referee.observe(raw))

    # -- when the log cannot be written ----------------------------------------------------
    def _log(self, line: dict[str, Any]) -> bool:
        """Write an observation's line; False (and it is dropped, unjudged) when it cannot be."""
        if self._unwritten is not None and not self._write_unwritten():
            self.dropped += 1  # events wait to be written: nothing may come after them
            return False
        try:
            self.session.append(line)
        except LogWriteError as exc:
            self._storage_failed(exc)
            self.dropped += 1
            return False
        self._storage_ok()
        return True

    def _storage_failed(self, exc: OSError) -> None:
        """The log could not be written: say so once (log, pages, health)."""
        if self.storage_error is None:
            self.storage_error = str(exc)
            log.error(
                "board %s: %s; the game waits (observations are dropped, unjudged) until "
                "it can be written again",
                self.board,
                exc,
            )
            self.hub.publish(self.storage_message())

    def _storage_ok(self) -> None:
        if self.storage_error is not None:
            self.storage_error = None
            log.info(
                "board %s: the session log can be written again (%d observations were "
                "dropped); the game goes on",
                self.board,
                self.dropped,
            )
            self.hub.publish(self.storage_message())

    def _write_unwritten(self) -> bool:
        """Write the events that wait, then show them; False while it still cannot."""
        if self._unwritten is None:
            return True
        lines, events, names = self._unwritten
        try:
            self.session.append_many(lines, sync=True)
        except LogWriteError:
            self._schedule_retry()
            return False
        self._unwritten = None
        self._storage_ok()
        self._after_written(lines, events, names)
        return True

    def _schedule_retry(self) -> None:
        """Try the waiting events again soon, even if the source says nothing more."""
        if self._retry_handle is not None:
            return

        def retry() -> None:
            self._retry_handle = None
            self._write_unwritten()

        with contextlib.suppress(RuntimeError):  # no running loop: the next item retries
            self._retry_handle = asyncio.get_running_loop().call_later(STORAGE_RETRY, retry)

    def storage_state(self) -> StorageState:
        """``ok``, or ``failing`` while the session log cannot be written."""
        return "ok" if self.storage_error is None else "failing"

    def storage_message(self) -> dict[str, Any]:
        """What the pages show about the log: ``ok``, or ``failing`` with why."""
        return {
            "type": "storage",
            "board": self.board,
            "state": self.storage_state(),
            "detail": self.storage_error or "",
            "dropped": self.dropped,
        }

    # -- commands from people -------------------------------------------------------------
    def command(self, raw: Any) -> list[dict[str, Any]]:
        """Carry out a command (on the event loop); raises ``CommandInvalid``,
        ``CommandError``, or ``CommandNotLogged`` when the log could not be written
        (the game is then unchanged)."""
        cmd = validate_command(raw)
        # Events that wait to be written come first: nothing may be logged after them. (A
        # storage error alone does not refuse: the command's own write tries the disk
        # again, so a quiet board takes commands as soon as there is room.)
        if self._unwritten is not None and not self._write_unwritten():
            raise CommandNotLogged(
                f"not applied: the session log cannot be written ({self.storage_error}); "
                "nothing can be recorded until there is room again (the game goes on by itself "
                "then)"
            )
        if cmd["command"] == "fair_play":
            self.set_fair_play(bool(cmd["on"]))
            return []
        return [e.to_json() for e in self._run_command(cmd, self._last_t)]

    def _run_command(self, cmd: dict[str, Any], t: float) -> list[Event]:
        names: dict[str, Any] = {k: cmd.pop(k) for k in ("south", "north") if k in cmd}
        line = {**cmd, "t": t}
        # Written first, applied only once written: a command the log lacks never changed
        # the game. One the referee refuses stays in the log; a replay refuses it too.
        try:
            self.session.append(line)
        except OSError as exc:
            self._storage_failed(exc)  # said once (log, pages, health) until it is written
            raise CommandNotLogged(
                "not applied: the session log cannot be written "
                f"({exc.strerror or exc}); the game is as it was"
            ) from None
        self._storage_ok()
        events = self.referee.command(line, t)  # CommandError: refused, nothing changed
        self._publish(events, names)
        return events

    def set_fair_play(self, on: bool) -> None:
        self.fair_play = on
        if self._engine is not None:
            self._engine.set_fair_play(on)
        self._publish_state()

    def _publish_state(self) -> None:
        """The state to every page; under fair play only the referee's copy has a suggestion."""
        if not self.fair_play:
            self.hub.publish({**self.state(), "type": "state"})
            return
        self.hub.publish(
            {**self.state("referee"), "type": "state"}, lambda sub: sub.role == "referee"
        )
        self.hub.publish({**self.state(), "type": "state"}, lambda sub: sub.role != "referee")

    # -- after the referee spoke ----------------------------------------------------------------
    def _publish(self, events: list[Event], names: dict[str, Any] | None = None) -> None:
        if not events:
            return
        lines = [_as_json(e) for e in events]
        try:
            self.session.append_many(lines, sync=True)  # on disk before anyone sees it
        except LogWriteError as exc:
            # the referee has judged: its events wait (and nothing is read) until written
            self._unwritten = (lines, events, names)
            self._storage_failed(exc)
            self._schedule_retry()
            return
        self._after_written(lines, events, names)

    def _after_written(
        self, lines: list[dict[str, Any]], events: list[Event], names: dict[str, Any] | None
    ) -> None:
        """Events now in the log: keep them, index them, show them."""
        self.events.extend(lines)
        new_game = False
        for line in lines:
            if line.get("type") != "new_game":
                self._game_events.append(line)
                continue
            # the next game of the session: from the New game button (names given there),
            # or set up on the board after a game ended (the referee saw it: "auto")
            new_game = True
            self._game_ended = True  # the game that ended: never replayed again
            self._index_game()  # the game that ends: its last events
            self.writer.end_game(self.game_ref)
            self._game_start = Position.from_json(line["position"])
            self._game_events = []
            names = names or {}
            self.game_ref = self.writer.start_game(
                self.board,
                self.log_ref,
                self._game_start.rules,
                south=names.get("south"),
                north=names.get("north"),
            )
        self._index_game()
        if any(e.type in POSITION_EVENTS for e in events):
            self.suggestion = None
            if self._engine is not None:
                self._engine.update(self.referee.position)
        if any(e.type == "move" for e in events) and hasattr(self.source, "confirm"):
            # a camera learns this board's seeds from every confirmed position
            try:
                self.source.confirm(list(self.referee.position.pits), len(self.referee.moves))
            except Exception:
                log.exception("board %s: camera confirm failed", self.board)
        for line in lines:
            self.hub.publish({**line, "board": self.board})
        if new_game or any(e.type == "corrected" for e in events):
            # The new game's whole state (rules, players, moves), or the record after a
            # correction: a command's, a late answer's or the referee's own taking moves
            # back (moves missed earlier, found again) changes moves already shown.
            self._publish_state()

    def _on_suggestion(self, event: dict[str, Any]) -> None:
        """From the engine worker (called on the event loop)."""
        if event.get("position") != self.referee.position.to_text():
            return  # about a position that is already gone
        message = _as_json_dict(event)
        self.suggestion = message
        fair = self.fair_play

        def accept(sub: Subscriber) -> bool:
            # fair play: the players may see any screen but the referee's
            return not fair or sub.role == "referee"

        self.hub.publish({**message, "board": self.board}, accept)

    def _index_game(self) -> None:
        # the record's own counts: the list and the exports say the same (and the game that
        # ends at a new_game is indexed after the referee has started the next one)
        record = self.record()
        ended = time.time() if record.final().is_over else None
        self.writer.update_game(
            self.game_ref,
            moves=len(record.moves),
            result=record.result(),
            record=record.to_json(),
            ended=ended,
        )

    # -- views ---------------------------------------------------------------------------
    def record(self) -> GameRecord:
        """The game being played, every move of it (a missed capture too), from its events
        (:func:`core.records.records_from_events`)."""
        return records_from_events(self._game_start, self._game_events)[-1]

    def state(self, role: Role | None = None) -> dict[str, Any]:
        """``Referee.state()`` plus what the page needs about the board (SERVICE_API.md).

        Under fair play only the referee's copy carries a suggestion: the players can see
        every other screen (their own, the hall's, the stream), and none must be able to
        show one, even from the browser's developer tools.
        """
        hidden = self.fair_play and role != "referee"
        return {
            **self.referee.state(),
            "board": self.board,
            "source": self.url,
            "fair_play": self.fair_play,
            "suggestion": None if hidden else self.suggestion,
            "link": self.link,
            "reading": self.reading,
            "storage": self.storage_message(),
        }

    def camera(self) -> CameraControls | None:
        """The camera's controls for the referee's page (corners by hand), or None when no
        camera watches this board."""
        return camera_controls(self.source)

    def link_problem(self) -> str | None:
        """One line for ``/health``'s problems while the board is not followed (a port that
        cannot be opened, a hung board, a camera that counts too unsurely), else None.

        The source's own detail says what is wrong: ``link reconnecting: /dev/ttyUSB0: no
        such port: is the sensor board plugged in?``.
        """
        state = self.link.get("state")
        if state not in UNHEARD or self.link.get("ended"):
            return None
        detail = str(self.link.get("detail") or "").strip()
        kind = self.link.get("type", "link")
        return f"{kind} {state}" + (f": {detail}" if detail else "")

    def health(self) -> dict[str, Any]:
        link: Mapping[str, Any]
        try:
            link = self.source.health()
        except Exception as exc:  # health must answer even when the source is broken
            link = {"error": str(exc)}
        out: dict[str, Any] = {
            "source": self.url,
            "link": link,
            "link_state": self.link.get("state"),
            "last_frame_s": round(time.monotonic() - self._last_frame, 1),
            "phase": self.referee.phase,
            "moves": len(self.referee.moves),
            "observations": self.observations,
            "spectators": self.hub.count,
            "log": str(self.session.path.relative_to(self.data_dir)),
            "resumed": self.resumed,
            "storage": self.storage_state(),
        }
        if self.storage_error is not None:
            out["storage_error"] = self.storage_error
        if self.dropped:
            out["dropped_observations"] = self.dropped
        if self.damaged:
            out["damaged_lines"] = [d.to_json() for d in self.damaged[:20]]
            out["damaged_count"] = len(self.damaged)
        if self._engine is not None:
            out["engine"] = self._engine.health()
        return out


def _is_status(item: Any) -> bool:
    """A source's word about its link or camera (not a frame from the board)."""
    return isinstance(item, dict) and item.get("type") in ("link", "camera")


def _as_json(event: Event) -> dict[str, Any]:
    """An event exactly as it reads back from the log (tuples become lists...)."""
    return _as_json_dict(event.to_json())


def _as_json_dict(data: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(json.dumps(data))
    return result
