"""`oware-companion engine` as a real subprocess speaking the protocol on stdin/stdout; in
process, its answer where a search fails."""

from __future__ import annotations

import io
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.commands import engine_service
from core.engine.analysis import analyze
from core.engine.protocol import parse_bestmove, parse_info
from core.position import Position

ROOT = Path(__file__).resolve().parents[2]
#: Every first word Aualé's client accepts from an engine.
REPLY_WORDS = {"id", "uciok", "readyok", "bestmove", "info", "option"}


class Engine:
    """A running engine process with a reader thread (so reads can time out)."""

    def __init__(self, *args: str, cache: Path) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT), OWARE_COMPANION_CACHE=str(cache))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "companion.cli", "engine", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=ROOT,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def until(self, first_word: str, timeout: float = 60.0) -> list[str]:
        """Lines up to and including the first starting with ``first_word``."""
        got: list[str] = []
        deadline = time.monotonic() + timeout
        while True:
            line = self.lines.get(timeout=max(deadline - time.monotonic(), 0.01))
            self.seen.append(line)
            got.append(line)
            if line.split()[:1] == [first_word]:
                return got


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    e = Engine("--no-endgame", cache=tmp_path)
    yield e
    if e.proc.poll() is None:
        e.proc.kill()
    e.proc.wait(10)


def test_handshake_search_and_quit(engine: Engine) -> None:
    engine.send("uci")
    hello = engine.until("uciok")
    assert hello[0].startswith("id name oware-companion") and hello[1].startswith("id author")
    engine.send("isready")
    engine.until("readyok", timeout=120)  # the first run may compile the search
    engine.send("ucinewgame")
    engine.send("position startpos moves AbCd")
    started = time.monotonic()
    engine.send("go movetime 400")
    lines = engine.until("bestmove")
    took = time.monotonic() - started
    best, ponder = parse_bestmove(lines[-1])
    p = Position.initial().play(0).play(7).play(2).play(9)
    assert best is not None and p.is_legal(best)
    assert ponder is None or p.play(best).is_legal(ponder)
    infos = [parse_info(line) for line in lines[:-1]]
    assert infos and all(i.depth and i.nodes is not None and i.nps is not None for i in infos)
    assert infos[-1].depth is not None and infos[-1].depth >= 6
    assert infos[-1].pv and infos[-1].pv[0] == "ABCDEF"[best]
    assert took < 2.5, f"movetime 400 answered after {took:.2f} s"
    engine.send("quit")
    assert engine.proc.wait(10) == 0
    assert all(line.split()[0] in REPLY_WORDS for line in engine.seen if line.strip())


def test_a_go_right_after_bestmove_is_answered(engine: Engine) -> None:
    """A GUI answering at once (a book move) sends the next go while our search
    thread is still ending: it must be searched, not refused as 'already thinking'."""
    engine.send("isready")
    engine.until("readyok", timeout=120)
    p = Position.initial()
    moves = ""
    for _ in range(30):
        engine.send(f"position startpos moves {moves}" if moves else "position startpos")
        engine.send("go depth 2")
        best, _ = parse_bestmove(engine.until("bestmove", timeout=10)[-1])
        assert best is not None and p.is_legal(best)
        p = p.play(best)
        moves += "ABCDEFabcdef"[best]
        if p.is_over:
            break
    assert not any("error" in line for line in engine.seen)


def test_won_position_is_a_mate_score_and_over_is_0000(engine: Engine) -> None:
    engine.send("isready")
    engine.until("readyok", timeout=120)
    engine.send("position fen 0-0-0-0-0-1-1-1-0-0-0-0-24-21-S")
    engine.send("go depth 5")
    lines = engine.until("bestmove")
    assert lines[-1] == "bestmove F"
    assert parse_info(lines[-2]).mate == 1
    engine.send("position fen 0-0-0-0-0-1-1-1-0-0-0-0-24-21-S moves F")
    engine.send("go movetime 100")
    assert engine.until("bestmove") == ["bestmove 0000"]


def test_infinite_thinks_until_stop(engine: Engine) -> None:
    engine.send("isready")
    engine.until("readyok", timeout=120)
    engine.send("position startpos")
    engine.send("go infinite")
    time.sleep(1.0)
    assert all(not line.startswith("bestmove") for line in list(engine.lines.queue))
    engine.send("isready")  # answered while thinking
    engine.until("readyok", timeout=5)
    engine.send("stop")
    best, _ = parse_bestmove(engine.until("bestmove", timeout=5)[-1])
    assert best is not None and Position.initial().is_legal(best)


def test_errors_are_info_strings_and_the_loop_goes_on(engine: Engine) -> None:
    engine.send("position startpos moves Aa")  # A then a: fine
    engine.send("position startpos moves AA")
    assert engine.until("info") == [
        "info string error: move 2 (A) is illegal: pit A belongs to South; North is to move"
    ]
    engine.send("dance")
    assert engine.until("info") == ["info string error: unknown command 'dance'"]
    engine.send("go depth 1")  # the last good position stands: after A a, South moves
    best, _ = parse_bestmove(engine.until("bestmove")[-1])
    assert best is not None and Position.initial().play(0).play(6).is_legal(best)
    engine.proc.stdin.close()  # type: ignore[union-attr]  # end of input ends the loop
    assert engine.proc.wait(10) == 0


def test_endgame_databases_are_used_when_built(tmp_path: Path) -> None:
    from companion import endgame_store

    endgame_store.build(8, root=tmp_path, show_progress=False)
    e = Engine(cache=tmp_path)
    try:
        e.send("isready")
        e.until("readyok", timeout=120)
        e.send("position fen 1-0-0-0-2-0-0-1-0-0-1-0-24-19-S")  # 5 seeds, known exactly
        e.send("go movetime 300")
        lines = e.until("bestmove")
        assert "tbhits" in lines[0] and any(" tbhits 0 " not in line for line in lines[:-1])
        e.send("quit")
        assert e.proc.wait(10) == 0
    finally:
        if e.proc.poll() is None:
            e.proc.kill()


def bestmove_at(cache: Path, fen: str, depth: int) -> str:
    """The engine's ``bestmove`` at ``fen`` searched to ``depth`` plies, book off."""
    e = Engine(cache=cache)
    try:
        e.send("setoption name OwnBook value false")
        e.send("isready")
        e.until("readyok", timeout=120)
        e.send(f"position fen {fen}")
        e.send(f"go depth {depth}")
        best = e.until("bestmove", timeout=120)[-1].split()[1]
        e.send("quit")
        assert e.proc.wait(10) == 0
        return best
    finally:
        if e.proc.poll() is None:
            e.proc.kill()


def test_the_stored_game_bounds_keep_a_proven_draw(tmp_path: Path) -> None:
    """An 11-seed board where the bounds prove South a draw that D, rated higher by the
    values, gives up (``tests/engine/test_proof_guard.py``): with the values alone the
    engine plays D at depth 12; once ``endgame build --bounds`` has stored the bounds it
    maps them and plays F, the one move that keeps the draw."""
    from companion import endgame_store

    fen = "0-1-1-1-3-3-0-0-1-0-1-0-19-18-S"
    endgame_store.build(12, root=tmp_path, show_progress=False)
    assert bestmove_at(tmp_path, fen, 12) == "D"
    endgame_store.build_bounds(12, root=tmp_path, show_progress=False)
    assert bestmove_at(tmp_path, fen, 12) == "F"


#: South to move: A, the first legal move, leaves North 6.5 seeds better off than C, the
#: move a search of MIN_DEPTH plies plays.
A_LOSES_SEEDS = "7-5-1-0-7-6-0-1-6-1-7-7-0-0-S"


def _answer_after_a_fault(monkeypatch: pytest.MonkeyPatch, fault: Callable[..., Any]) -> str:
    """The in-process service's ``bestmove`` at :data:`A_LOSES_SEEDS` when its first
    analysis is ``fault`` (given the real analysis's arguments); later ones are real."""
    calls: list[Position] = []

    def first_fails(position: Position, **kwargs: Any) -> Any:
        calls.append(position)
        return fault(position, **kwargs) if len(calls) == 1 else analyze(position, **kwargs)

    monkeypatch.setattr(engine_service, "analyze", first_fails)
    out = io.StringIO()
    service = engine_service.EngineService(out, use_database=False, own_book=False)
    service.handle(f"position fen {A_LOSES_SEEDS}")
    service.handle("go movetime 300")
    deadline = time.monotonic() + 120
    while "bestmove" not in out.getvalue() and time.monotonic() < deadline:
        time.sleep(0.02)
    lines = out.getvalue().splitlines()
    assert "info string error: search failed: boom" in lines, lines
    return next(line for line in lines if line.startswith("bestmove")).split()[1]


def test_a_search_failing_before_its_first_depth_is_answered_by_a_plain_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Not by the first legal move, the answer before (game 9's A, docs/ENGINE.md)."""

    def fails(position: Position, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    assert _answer_after_a_fault(monkeypatch, fails) == "C"


def test_a_search_failing_after_a_depth_is_answered_by_that_depths_move(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The depth reported last stands, here one whose best move is E (neither A, the
    first legal move, nor C, a plain search's)."""

    def fails_after_a_depth(position: Position, **kwargs: Any) -> Any:
        found = analyze(position, seconds=0.01)
        found.moves.sort(key=lambda m: m.pit != 4)  # E first
        kwargs["on_iteration"](found)
        raise RuntimeError("boom")

    assert _answer_after_a_fault(monkeypatch, fails_after_a_depth) == "E"
