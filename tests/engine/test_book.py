"""The opening book: keys, the format, a resumable build, the engine answering from it."""

from __future__ import annotations

import io
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from companion import engine_book
from companion.cli import main
from companion.commands.engine_client import ProtocolEngine
from companion.commands.engine_service import EngineService
from core.engine.book import (
    ABAPA,
    NODES,
    Book,
    BookEntry,
    BookError,
    board_key,
    decode_key,
    encode,
    key_position,
    position_key,
)
from core.engine.kernel import to_relative
from core.position import Position

ROOT = Path(__file__).resolve().parents[2]
START = Position.initial()
OURS = f"{sys.executable} -m companion.cli engine --no-endgame"


# -- keys ---------------------------------------------------------------------------------
def test_keys_are_fixed_numbers_the_same_in_every_process() -> None:
    # pinned: a book built on one machine is read on another, by another Python
    assert position_key(START) == 0x100012D6EAA5A42
    assert position_key(START.play(5)) == 0x1000132C5F144A7
    assert position_key(START.play(0).play(6)) == 0x100010CD7372B03
    assert position_key(START) >> 56 == ABAPA
    script = (
        "from core import Position; from core.engine.book import position_key; "
        "print(position_key(Position.initial().play(2).play(7)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=True
    ).stdout
    assert int(out) == position_key(START.play(2).play(7))


def test_keys_tell_positions_apart_and_decode_back() -> None:
    seen: dict[int, tuple[tuple[int, ...], int, int]] = {}
    for position in engine_book.positions(3):
        mover = position.to_move
        seen_as = (
            tuple(int(x) for x in to_relative(position.pits, mover)),
            position.stores[mover],
            position.stores[1 - mover],
        )
        key = position_key(position)
        assert seen.setdefault(key, seen_as) == seen_as
        board, mine, theirs = decode_key(key)
        assert (tuple(board.tolist()), mine, theirs) == seen_as
    assert len(seen) == 233
    # the same board with other stores, or the other side's pits first, is another key
    a = Position.from_text("0-0-0-0-0-1-1-1-0-0-0-0-24-21-S")
    b = Position.from_text("0-0-0-0-0-1-1-1-0-0-0-0-21-24-S")
    c = Position.from_text("1-1-0-0-0-0-0-0-0-0-0-1-24-21-S")
    assert len({position_key(a), position_key(b), position_key(c)}) == 3
    # seen from the side to move: North to move is South's mirrored board
    assert position_key(Position.from_text("1-1-0-0-0-0-0-0-0-0-0-1-21-24-N")) == position_key(a)
    assert key_position(position_key(a)) == a


def test_keys_are_for_abapa_only() -> None:
    with pytest.raises(ValueError, match="Abapa"):
        position_key(Position.initial("abapa", grand_slam="capture_all"))
    with pytest.raises(ValueError, match="not an Oware board"):
        board_key([49] + [0] * 11, 0, 0)
    with pytest.raises(ValueError):
        decode_key(0)


# -- the format -----------------------------------------------------------------------------
def _records(count: int) -> list[BookEntry]:
    rng = np.random.default_rng(7)
    found: dict[int, BookEntry] = {}
    while len(found) < count:
        pits = rng.multinomial(40, [1 / 12] * 12)
        key = board_key(pits, 5, 3)
        move = int(rng.integers(0, 6))
        found[key] = BookEntry(key, move, int(rng.integers(-100_500, 100_500)), 20, move == 2)
    return list(found.values())


def test_encoded_records_come_back_from_bytes_and_from_a_memory_map(tmp_path: Path) -> None:
    records = _records(300)
    data = encode(records, plies=4, budget=5000, budget_kind=NODES)
    assert len(data) == 32 + 16 * 300
    path = tmp_path / "b.owb"
    path.write_bytes(data)
    mapped = engine_book.load(path)
    assert mapped is not None and isinstance(mapped.keys, np.memmap)
    for book in (Book(data), mapped):
        assert (len(book), book.plies, book.budget, book.seconds) == (300, 4, 5000, None)
        assert sorted(records, key=lambda r: r.key) == list(book)
        for r in records[:50]:
            assert book.find(r.key) == r
        keys = {r.key for r in records}
        for missing in (0, 2**64 - 1, *(k + 1 for k in list(keys)[:20] if k + 1 not in keys)):
            assert book.find(missing) is None


def test_bad_books_are_refused(tmp_path: Path) -> None:
    data = encode(_records(3), plies=1, budget=10)
    with pytest.raises(BookError, match="first bytes"):
        Book(b"X" + data[1:])
    with pytest.raises(BookError, match="bytes where"):
        Book(data[:-1])
    with pytest.raises(ValueError, match="two records"):
        encode(_records(2) * 2, plies=1, budget=10)
    empty = tmp_path / "empty.owb"
    empty.write_bytes(b"")
    with pytest.raises(BookError):
        engine_book.load(empty)
    assert engine_book.load(tmp_path / "missing.owb") is None


def test_probe_answers_for_the_mirrored_position_too() -> None:
    after_f = START.play(5)  # North to move
    key = position_key(after_f)
    book = Book(encode([BookEntry(key, 1, -40, 17, False)], plies=1, budget=2000))
    move = book.probe(after_f)
    assert move is not None and (move.pit, move.score, move.depth) == (7, -40, 17)
    mirrored = book.probe(key_position(key))  # the same board, South to move
    assert mirrored is not None and mirrored.pit == 1
    assert book.probe(START) is None
    assert book.probe(Position.initial("abapa", grand_slam="capture_all").play(5)) is None


# -- building -------------------------------------------------------------------------------
def test_a_stopped_build_resumes_and_makes_the_same_book(tmp_path: Path) -> None:
    whole = tmp_path / "whole.owb"
    report = engine_book.build(2, whole, nodes=800, show_progress=False)
    assert (report.total, report.searched, report.finished) == (43, 43, True)

    path = tmp_path / "resumed.owb"
    stream = io.StringIO()
    first = engine_book.build(2, path, nodes=800, max_positions=10, stream=stream)
    assert (first.searched, first.finished) == (10, False)
    assert not path.exists() and engine_book.partial_path(path).exists()
    assert "10/43" in stream.getvalue()
    with pytest.raises(ValueError, match="another budget"):
        engine_book.build(2, path, nodes=900, show_progress=False)
    second = engine_book.build(2, path, nodes=800, show_progress=False)
    assert (second.reused, second.searched, second.finished) == (10, 33, True)
    assert not engine_book.partial_path(path).exists()
    assert path.read_bytes() == whole.read_bytes()

    # a deeper book goes on from the shallower one; another budget starts afresh
    seen: list[Position] = []
    deeper = engine_book.build(
        3,
        path,
        nodes=800,
        max_positions=2,
        show_progress=False,
        on_position=lambda p, r: seen.append(p),
    )
    assert (deeper.reused, deeper.searched) == (43, 2)
    assert all(len(engine_book.positions(2)) <= engine_book.positions(3).index(p) for p in seen)
    fresh = engine_book.build(1, tmp_path / "whole.owb", seconds=0.02, show_progress=False)
    assert (fresh.reused, fresh.searched) == (0, 7)
    book = engine_book.load(tmp_path / "whole.owb")
    assert book is not None and book.seconds == 0.02 and book.plies == 1


def test_book_command_builds_and_reports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OWARE_COMPANION_CACHE", str(tmp_path))
    assert main(["book", "build", "--plies", "1", "--nodes", "500", "--no-endgame", "--quiet"]) == 0
    assert "book of 7 positions" in capsys.readouterr().out
    assert engine_book.default_path() == engine_book.user_path()
    assert main(["book", "status"]) == 0
    assert "7 positions up to 1 plies" in capsys.readouterr().out


# -- the shipped book and the engine ---------------------------------------------------------
def test_the_shipped_book_holds_a_legal_move_for_every_opening_position() -> None:
    path = engine_book.packaged_path()
    assert path.stat().st_size < 200_000
    book = engine_book.load(path)
    assert book is not None and book.plies >= 3 and book.seconds is not None
    assert len(book) == len(engine_book.positions(book.plies))
    for record in book:
        position = key_position(record.key)
        assert position.is_legal(record.move), position.to_text()
    for position in engine_book.positions(book.plies):
        found = book.probe(position)
        assert found is not None and position.is_legal(found.pit)


def test_the_protocol_loop_offers_the_option_and_answers_from_a_given_book() -> None:
    out = io.StringIO()
    book = Book(encode([BookEntry(position_key(START), 3, 25, 19, False)], plies=0, budget=2000))
    service = EngineService(out, use_database=False, book=book)
    service.handle("uci")
    assert "option name OwnBook type check default true" in out.getvalue().splitlines()
    service.handle("position startpos")
    service.handle("go movetime 60000")  # answered at once, in this thread
    assert out.getvalue().splitlines()[-2:] == [
        "info string book D score cp 25 searched to depth 19",
        "bestmove D",
    ]
    service.handle("go infinite")  # pondering: a search, never the book
    time.sleep(0.2)
    service.handle("stop")
    lines = out.getvalue().splitlines()
    assert lines[-1].startswith("bestmove") and lines[-2].startswith("info depth")
    service.handle("quit")


def test_the_engine_answers_from_the_book_and_searches_without_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OWARE_COMPANION_CACHE", str(tmp_path))  # no user book: the shipped one
    book = engine_book.load(engine_book.packaged_path())
    assert book is not None
    engine = ProtocolEngine(OURS, "ours", cwd=str(ROOT))
    try:
        expected = book.probe(START.play(2))
        assert expected is not None
        started = time.monotonic()
        report = engine.think([2], 5000, 10.0)
        assert time.monotonic() - started < 2.0  # answered at once, not after 5 s
        assert report.book and report.depth is None and report.pit == expected.pit
        engine.send("setoption name OwnBook value false")
        report = engine.think([2], 200, 10.0)
        assert not report.book and report.depth is not None and report.depth >= 1
        engine.send("setoption name OwnBook value true")
        report = engine.think([2, 7, 0, 8, 1], 200, 10.0)  # five plies: past the book
        assert not report.book and report.depth is not None
    finally:
        engine.close()
