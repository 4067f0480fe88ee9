"""The protocol match (companion.engine_match, run by ``python -m bench.engine --match-engine``)
with real engine subprocesses."""

from __future__ import annotations

import io
import json
import shlex
import sys
import tempfile
import textwrap
from operator import itemgetter
from pathlib import Path

import pytest

from companion import endgame_store
from companion.commands.engine_client import MoveReport, ProtocolEngine
from companion.engine_match import (
    GameResult,
    elo,
    game_line,
    games_of_output,
    moves_record,
    open_board_depth,
    opening_for,
    print_ratings,
    print_totals,
    proven,
    rate_game,
    rating,
    run_match,
)
from core import Position
from core.engine import retrograde
from core.engine.protocol import moves_word

ROOT = Path(__file__).resolve().parents[2]


def fake_engine(
    tmp_path: Path, name: str, answer: str, info: str = "depth 3 score cp 0 pv A"
) -> str:
    """A tiny real engine program answering every ``go`` with ``info INFO``, then ``answer``."""
    script = tmp_path / f"{name}.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import sys
            for line in sys.stdin:
                word = line.split()[0] if line.split() else ""
                if word == "uci":
                    print("id name {name}"); print("uciok", flush=True)
                elif word == "isready":
                    print("readyok", flush=True)
                elif word == "go":
                    print("info {info}"); print("{answer}", flush=True)
                elif word == "quit":
                    break
            """
        )
    )
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


@pytest.fixture
def logs() -> Path:
    """The temporary folder the engines' stderr logs go to: this test's own, which
    ``tests/conftest.py`` sets up."""
    return Path(tempfile.gettempdir())


@pytest.fixture
def ours(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, logs: Path) -> str:
    monkeypatch.setenv("OWARE_COMPANION_CACHE", str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    return f"{shlex.quote(sys.executable)} -m companion.cli engine --no-endgame"


def test_ours_against_ours_plays_whole_games(ours: str, logs: Path) -> None:
    out, log = io.StringIO(), io.StringIO()
    results = run_match(
        ours, ours, 2, 0.05, 7, out=out, progress=io.StringIO(), cwd=str(ROOT), moves_log=log
    )
    text = out.getvalue()
    assert len(results) == 2 and all(g.points is not None for g in results), text
    # the moves log: a JSON line per game, each engine's moves at their plies as played
    records = sorted(
        (json.loads(line) for line in log.getvalue().splitlines()), key=itemgetter("game")
    )
    assert [r["game"] for r in records] == [1, 2]
    for g, record in zip(results, records, strict=True):
        assert record["moves"] == moves_word(g.moves) and record["points"] == g.points
        for name, reports in zip(("ours", "other"), g.reports, strict=True):
            said = record[name]
            assert len(said) == len(reports) > 0
            for move in said:
                assert move["move"] == record["moves"][move["ply"] - 1]
                assert move["book"] or move["depth"] > 0
    assert results[0].opening == results[1].opening == opening_for(7 * 100_000, 2, "abapa")
    assert [g.first_side for g in results] == [0, 1]
    for g in results:
        assert sum(g.seeds) == 48 or g.ending in ("score", "repetition", "no_feed")
        # a move from the opening book says no depth (as Aalina's): every other one does
        assert g.reports[0] and all(r.depth for r in g.reports[0] if not r.book)
        assert all(r.depth is None for r in g.reports[0] if r.book)
    assert any(r.book for g in results for r in g.reports[0])  # the 2-ply openings are in it
    assert "Elo difference" in text and "nps mean" in text and "game   2 seed 700000" in text
    # each move's board size is noted: the opening's first moves are at 48 seeds
    assert all(r.seeds is not None and 0 < r.seeds <= 48 for g in results for r in g.reports[0])
    assert results[0].reports[0][0].seeds == 48
    assert "boards of more than 22 seeds:" in text
    # where each side took longest: the game and ply to replay
    assert all(r.ply is not None for g in results for r in g.reports[0])
    assert [r.ply for r in results[0].reports[0]][:2] == [3, 5]  # South, after 2 opening plies
    slowest = max((r.seconds, g.number, r.ply) for g in results for r in g.reports[0])
    assert f"longest move {slowest[0]:.2f} s: game {slowest[1] + 1}, ply {slowest[2]}," in text
    assert list(logs.iterdir()) == []  # no engine failed: their stderr logs are gone


def test_open_board_depth_counts_full_time_moves_of_untabled_boards_only() -> None:
    """Depth on boards no table holds: a book move, an early answer and a 20-seed board
    are left out; per second is each move's depth over its thinking time."""

    def move(depth: int | None, seconds: float, seeds: int, book: bool = False) -> MoveReport:
        return MoveReport(0, depth, None, None, seconds, book, seeds=seeds)

    reports = [
        move(20, 0.5, 40),
        move(30, 0.4, 30),
        move(10, 0.5, 24),
        move(None, 0.01, 46, book=True),
        move(60, 0.1, 35),  # answered early
        move(50, 0.5, 20),  # a tabled board
    ]
    line = open_board_depth(reports, 0.5)
    assert "depth mean 20.0 median 20" in line
    assert "per second of thinking median 40.0" in line  # 20/0.5, 30/0.4, 10/0.5
    assert "over 3 full-time moves" in line
    assert "no full-time move" in open_board_depth(reports[3:], 0.5)


def test_an_illegal_move_voids_the_game_and_is_counted(
    ours: str, tmp_path: Path, logs: Path
) -> None:
    cheat = fake_engine(tmp_path, "cheat", "bestmove a")  # North's pit, whoever moves
    out = io.StringIO()
    results = run_match(ours, cheat, 2, 0.05, 1, out=out, progress=io.StringIO(), cwd=str(ROOT))
    text = out.getvalue()
    first = results[0]  # ours South: the cheat (North) plays a at once, which is legal
    assert all(g.points is None and g.faulty == 1 for g in results), text
    assert "illegal move" in (first.fault or "") and "faults: ours 0, other 2" in text
    assert "no valid game" in text
    # the faulty engine's stderr is kept, once per game, and named; the other's is not
    kept = sorted(logs.iterdir())
    assert len(kept) == 2 and all(f.name.startswith("engine-other-") for f in kept)
    assert all(any(str(f) in (g.fault or "") for g in results) for f in kept)


def test_a_false_claim_of_the_end_voids_the_game(ours: str, tmp_path: Path) -> None:
    quitter = fake_engine(tmp_path, "quitter", "bestmove 0000")
    out = io.StringIO()
    results = run_match(quitter, ours, 1, 0.05, 1, out=out, progress=io.StringIO(), cwd=str(ROOT))
    assert results[0].points is None and results[0].faulty == 0
    assert "claimed the game was over" in (results[0].fault or "")


def test_a_move_answered_after_an_error_is_logged_and_counted(tmp_path: Path) -> None:
    """Our service answers a search that failed with ``info string error: ...`` and a
    fallback move: the bench keeps the error with the move and counts such moves."""
    broken = fake_engine(tmp_path, "broken", "bestmove A", "string error: search failed: boom")
    engine = ProtocolEngine(broken, "broken")
    try:
        report = engine.think([], 50, 5.0)
    finally:
        engine.close()
    assert report.pit == 0 and report.depth is None and not report.book
    assert report.error == "error: search failed: boom"
    report.ply = 1
    g = GameResult(0, 1, 0, [], moves=[0], points=0.5, reports=([report], []))
    assert moves_record(g, ("ours", "other"))["ours"][0]["error"] == report.error  # type: ignore[index]
    out = io.StringIO()
    print_totals([g], ("ours", "other"), 0.05, out)
    assert "ours: 1 moves answered after an error (first: game 1, ply 1: error: search" in (
        out.getvalue()
    )


def test_elo_and_its_interval() -> None:
    assert elo(5, 10, [1.0, 0.0] * 5)[0] == pytest.approx(0)
    e, lo, hi = elo(7.5, 10, [1.0] * 7 + [0.5] + [0.0] * 2)
    assert e == pytest.approx(190.8, abs=0.5) and lo < e < hi
    e, lo, hi = elo(0, 20, [0.0] * 20)  # all lost: clamped half a game in, still an interval
    assert e < -400 and lo <= e < hi


def test_database_ratings_and_games_lost_below_them(tmp_path: Path) -> None:
    values = endgame_store.build(6, root=tmp_path, show_progress=False)
    database = (values, 6)
    won = Position.from_text("0-0-0-0-0-1-1-1-0-0-0-0-24-21-S")  # F wins for South
    assert rating(won, 0, database) == 1.0 and rating(won, 1, database) == 0.0
    drawn = Position.from_text("1-0-0-0-2-0-0-1-0-0-1-0-24-19-S")
    assert rating(drawn, 0, database) == rating(drawn, 1, database) == 0.5
    assert rating(Position.initial(), 0, database) is None  # 48 seeds: not covered
    g = GameResult(0, 1, 0, [], points=0.0, promise=0.5, proven_promise=None)
    assert g.broken and not g.proven_broken
    g = GameResult(0, 1, 0, [], points=0.0, promise=0.5, proven_promise=0.5)
    assert g.broken and g.proven_broken
    g = GameResult(0, 1, 0, [], points=0.5, promise=0.5, proven_promise=0.5)
    assert not g.broken and not g.proven_broken
    # the goal's words: lost (not drawn) after a rating of won or drawn
    assert GameResult(0, 1, 0, [], points=0.5, promise=1.0).broken
    for points, promise, capture, lost, lost_capture in (
        (0.5, 1.0, None, False, False),
        (0.0, 1.0, None, True, False),
        (0.0, 1.0, 0.5, True, True),
        (0.0, 0.0, 0.0, False, False),
    ):
        g = GameResult(0, 1, 0, [], points=points, promise=promise, capture_promise=capture)
        assert (g.lost_from_rating, g.lost_from_capture_rating) == (lost, lost_capture)
    games = [
        GameResult(0, 1, 0, [], points=0.5, promise=1.0),
        GameResult(1, 1, 1, [], points=0.0, promise=1.0, capture_promise=0.5),
        GameResult(2, 1, 0, [], points=0.0, promise=0.5),
        GameResult(3, 1, 1, [], points=1.0, promise=1.0, capture_promise=1.0),
    ]
    out = io.StringIO()
    print_totals(games, ("ours", "other"), 0.5, out)
    text = out.getvalue()
    assert "ended below the databases' rating of a position in 3 of 4 games" in text, text
    assert "ours lost 2 of them" in text and "1 of those after a position reached by a" in text
    names = ("ours", "other")
    assert "rate won; drawn at one reached by a capture)" in game_line(games[1], names, 0.5)
    assert "rate drawn)" in game_line(games[2], names, 0.5)
    games[2].capture_promise = 0.5
    assert "rate drawn, reached by a capture)" in game_line(games[2], names, 0.5)
    assert "from a position" not in game_line(games[3], names, 0.5)


def test_a_proven_rating_is_what_the_game_bounds_force_without_history(tmp_path: Path) -> None:
    values = endgame_store.build(7, root=tmp_path, show_progress=False)
    lows, highs = retrograde.game_bounds(8)
    bounds = (lows, highs, 7)
    # from a game of the sanity match: North to move with all 7 seeds, just after a
    # capture. The databases say North takes all 7 (25-23) by their cycle convention;
    # the game bounds prove neither side a win (the game ended 26-22 for South)
    p = Position.from_text("0-0-0-0-0-0-2-1-0-0-1-3-23-18-N")
    assert rating(p, 1, (values, 7)) == 1.0
    assert proven(p, 1, bounds) == 0.0 and proven(p, 0, bounds) == 0.0
    won = Position.from_text("0-0-0-0-0-1-1-1-0-0-0-0-24-21-S")  # F takes 2: 26
    assert proven(won, 0, bounds) == 1.0 and proven(won, 1, bounds) == 0.0
    quiet = Position.from_text("0-0-0-0-1-1-1-1-0-0-0-0-22-22-S").play(4)  # E: no capture
    assert quiet.prev is not None and proven(quiet, 0, bounds) is None
    assert proven(Position.initial(), 0, bounds) is None  # 48 seeds: not stored


#: Game 43 of the 100 seed-3 games on the store v2 (the figures between the result and
#: the moves shortened). At ply 156 South (ours) has all six seeds, 18-24: the boards'
#: values give it all six (a draw), but from there the play must come back round to a
#: position of the history; Aalina won 27-21 by repetition.
GAME_43 = (
    "game  43 seed 300021 ours South: loss (from a position the databases rate drawn) "
    "21-27 (repetition, 169 plies) | ours: x | moves "
    "AbBcAfAaFcEdAbFbEdFcCeFdEeFcBaAeCdEeDcAaEdFcCfAeAfAaFaDcBdBcFaEaCbCaFaBdCcDaEbFfAaDe"
    "AcBbDfAeCdBcAfAeCdBeCfFaEaBcFaDaAbCeBdDeCcEdDaFaEbFfAeCcDaBbEdDeCcEdDeEfFcCdBeAbDcCaB"
)


def test_a_board_rated_drawn_whose_history_forces_the_loss_is_rated_lost() -> None:
    values, (lows, highs) = retrograde.build(6), retrograde.game_bounds(6)
    (game,) = games_of_output("match [#] 42/100\r" + GAME_43 + "\njunk")
    assert (game.number, game.first_side, game.points, len(game.moves)) == (42, 0, 0.0, 169)
    rate_game(game, "abapa", (values, 6), (lows, highs, 5))
    assert game.board_promise == 0.5 and game.lost_from_board_rating
    assert game.promise == 0.0 and game.lowered_by_history == 1
    assert not game.lost_from_rating and not game.broken
    out = io.StringIO()
    print_ratings([game], ("ours", "other"), out.write)
    assert "ours lost 0 of them" in out.getvalue()
    assert "histories left out: ours lost 1 from a rating; the history of 1 positions" in (
        out.getvalue()
    )
    (bare,) = games_of_output(GAME_43)  # without the game bounds the history is not read
    rate_game(bare, "abapa", (values, 6), None)
    assert bare.promise == 0.5 and bare.lost_from_rating


def _near_the_end(seed: int, left: int) -> list[int]:
    """A random legal game's moves but its last ``left``: a start close to an ending."""
    import numpy as np

    rng = np.random.default_rng(seed)
    p, line = Position.initial(), []
    while not p.is_over and len(line) < 400:
        pit = int(rng.choice(p.legal_moves()))
        line.append(pit)
        p = p.play(pit)
    return line[:-left]


def test_openings_from_a_file_start_each_pair(ours: str, tmp_path: Path) -> None:
    from companion.engine_match import read_openings

    start = _near_the_end(5, 3)
    other = opening_for(11, 4, "abapa")
    path = tmp_path / "openings.txt"
    path.write_text(
        f"# where play resumes\n{moves_word(start)}\n\n"
        f"game  7 seed 300003 ours North: loss 23-25 (repetition) | moves {moves_word(other)}\n"
    )
    assert read_openings(path) == [start, other]
    out = io.StringIO()
    results = run_match(
        ours, ours, 2, 0.05, 7, out=out, progress=io.StringIO(), cwd=str(ROOT), openings=[start]
    )
    text = out.getvalue()
    assert all(g.points is not None for g in results), text
    assert [g.opening for g in results] == [start, start]
    assert all(g.moves[: len(start)] == start for g in results)
    assert [g.line for g in results] == [1, 1]
    assert "game   1 opening 1 ours South" in text and "game   2 opening 1 ours North" in text
    assert "openings: 1..1 of the file's" in text and "opening seeds" not in text


def test_a_bad_openings_file_is_one_line_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bench.engine import main_match
    from companion.engine_match import read_openings

    path = tmp_path / "openings.txt"
    path.write_text("AaFb\nAA\n")  # the second move is North's: A is a South pit
    with pytest.raises(ValueError, match=r"line 2 of .*openings.txt: move 2 \(A\)"):
        read_openings(path)
    path.write_text("AaXb\n")
    with pytest.raises(ValueError, match=r"line 1 of .*: 'AaXb' is not a list of moves"):
        read_openings(path)
    path.write_text("# nothing\n\n")
    with pytest.raises(ValueError, match="holds no line of moves"):
        read_openings(path)
    assert main_match("unused", 2, 0.05, 1, 1, openings=tmp_path / "missing.txt") == 2
    err = capsys.readouterr().err
    assert err.startswith("error: cannot read the openings file") and err.count("\n") == 1
