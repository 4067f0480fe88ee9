"""A client for engines that speak the protocol (Aualé's and Aalina's UCI-like dialect).

The other side of ``oware-companion engine``: start an engine program as a
subprocess, hand it positions and ask for moves. Used by ``analyze --engine
CMD``, by the live engine worker (``serve --engine CMD``,
:mod:`companion.service.outside_engine`) and by the match bench
(:mod:`companion.engine_match`). A reader thread
queues the engine's lines so that every wait has a time limit; an engine that
breaks the protocol, says nothing in time or exits raises
:class:`EngineFault` with the end of its stderr. The stderr goes to a log file
in the temporary folder, deleted when the engine is closed unless it failed
(the fault's message names the file).
"""

from __future__ import annotations

import contextlib
import os
import queue
import shlex
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass

from core.engine.protocol import (
    ProtocolError,
    go_command,
    parse_bestmove,
    parse_info,
    position_command,
)


class EngineFault(Exception):
    """An engine broke the protocol or the rules (the game is void)."""


@dataclass
class MoveReport:
    """One move an engine chose, with what its last ``info`` line said."""

    pit: int | None
    depth: int | None
    nodes: int | None
    nps: int | None
    seconds: float
    book: bool
    score_cp: int | None = None
    mate: int | None = None
    pv: tuple[str, ...] = ()
    seeds: int | None = None
    """Seeds on the board when the move was asked for (set by the match bench)."""
    ply: int | None = None
    """The move's ply in the game, 1 for the first (set by the match bench)."""
    error: str | None = None
    """What an ``info string error: ...`` line said while the engine chose the move (our
    service's way of telling a search that failed, answered with a fallback move)."""


class ProtocolEngine:
    """An engine subprocess spoken to through the protocol."""

    def __init__(
        self,
        command: str,
        name: str,
        *,
        cwd: str | None = None,
        uci_timeout: float = 120.0,
        ready_timeout: float = 600.0,
    ) -> None:
        """Start ``command`` and wait for ``uciok`` and ``readyok`` (within the timeouts);
        a program that cannot be started raises OSError, one that fails the handshake
        :class:`EngineFault` (and is ended)."""
        self.command = command
        self.name = name
        self.faulted = False
        """Whether the engine raised a fault (or was said to have one): its log is kept."""
        self._closed = False
        words = shlex.split(command)  # ValueError for an unclosed quote
        if not words:
            raise OSError("the engine command is empty")
        self.log = tempfile.NamedTemporaryFile(  # noqa: SIM115 - lives as long as the engine
            "w+", prefix=f"engine-{name}-", suffix=".log", delete=False
        )
        try:
            self.proc = subprocess.Popen(
                words,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.log,
                text=True,
                bufsize=1,
                cwd=cwd,
            )
        except OSError:
            self.log.close()
            os.unlink(self.log.name)
            raise
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.title = name
        try:
            self.send("uci")
            for line in self.until("uciok", uci_timeout):
                if line.startswith("id name "):
                    self.title = line[8:].strip() or name
            self.ready(ready_timeout)  # ours compiles its search on the first run
        except EngineFault:
            self.close()  # a program that is not an engine is not left running
            raise

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except OSError as exc:
            raise self._fault(f"{self.name} is not running ({exc})") from None

    def until(self, word: str, timeout: float) -> list[str]:
        """Lines up to the first that starts with ``word``; EngineFault on timeout or exit."""
        got: list[str] = []
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                line = self.lines.get(timeout=max(left, 0.001))
            except queue.Empty:
                raise self._fault(
                    f"{self.name} sent no {word!r} within {timeout:.1f} s{self._last_words()}"
                ) from None
            if line is None:
                raise self._fault(f"{self.name} exited (waiting for {word!r}){self._last_words()}")
            got.append(line)
            if line.split()[:1] == [word]:
                return got

    def _fault(self, message: str) -> EngineFault:
        """The fault to raise; the engine's log is then kept when it is closed."""
        self.faulted = True
        return EngineFault(message)

    def _last_words(self) -> str:
        """The end of the engine's stderr (its log file), for a fault's message."""
        try:
            with open(self.log.name) as f:
                tail = f.read()[-300:].strip().splitlines()
        except OSError:
            return ""
        return f" (stderr {self.log.name}: {tail[-1]})" if tail else ""

    def ready(self, timeout: float = 60) -> None:
        self.send("isready")
        self.until("readyok", timeout)

    def new_game(self) -> None:
        self.send("ucinewgame")
        self.ready()

    def think(
        self, moves: list[int], movetime_ms: int, grace: float, fen: str | None = None
    ) -> MoveReport:
        """Ask for a move after ``moves`` from ``fen`` (None: the start position)."""
        self.send(position_command(fen, moves))
        started = time.monotonic()
        self.send(go_command(movetime_ms))
        lines = self.until("bestmove", movetime_ms / 1000 + grace)
        seconds = time.monotonic() - started
        try:
            pit, _ = parse_bestmove(lines[-1])
        except ProtocolError as exc:
            raise self._fault(f"{self.name}: {exc}") from None
        depth = nodes = nps = score = mate = None
        pv: tuple[str, ...] = ()
        book = False
        error: str | None = None
        for line in lines[:-1]:
            if not line.startswith("info"):
                continue
            info = parse_info(line)
            if info.string is not None and "book" in info.string.lower():
                book = True
            if info.string is not None and info.string.startswith("error"):
                error = info.string
            if info.depth is not None:
                depth = info.depth
                nodes, nps = info.nodes, info.nps
                score, mate, pv = info.score_cp, info.mate, info.pv
        book = book and depth is None
        return MoveReport(pit, depth, nodes, nps, seconds, book, score, mate, pv, error=error)

    def close(self, *, keep_log: bool | None = None) -> None:
        """End the program (``quit``, else killed) and close its stderr log, which is
        deleted unless ``keep_log`` (by default: kept if the engine raised a fault, so
        that the file the fault's message names still holds its last words). Closing
        again does nothing."""
        if self._closed:
            return
        self._closed = True
        if self.proc.poll() is None:
            try:
                self.send("quit")
                self.proc.wait(5)
            except (EngineFault, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait(5)
        self.log.close()
        if not (self.faulted if keep_log is None else keep_log):
            with contextlib.suppress(OSError):
                os.unlink(self.log.name)
