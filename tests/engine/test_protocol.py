"""The protocol's parsing and formatting (core.engine.protocol), in Aualé's dialect."""

from __future__ import annotations

import pytest

from core.engine.protocol import (
    START_FEN,
    ProtocolError,
    build_position,
    format_bestmove,
    format_info,
    format_score,
    go_command,
    parse_bestmove,
    parse_command,
    parse_info,
    position_command,
)
from core.position import Position


def test_position_startpos_with_moves_in_one_word_as_aualé_sends_them() -> None:
    c = parse_command("position startpos moves AbCd")
    assert c is not None and c.name == "position" and c.fen is None
    assert c.moves == ("A", "b", "C", "d")
    p = build_position(c.fen, c.moves, "abapa")
    expected = Position.initial().play(0).play(7).play(2).play(9)
    assert p == expected and p.to_move == 0


def test_moves_separated_by_spaces_are_accepted_too() -> None:
    c = parse_command("position startpos moves A b  C")
    assert c is not None and c.moves == ("A", "b", "C")


def test_position_fen_is_the_text_form() -> None:
    c = parse_command("position fen 0-0-0-0-0-1-1-1-0-0-0-0-24-21-S moves F")
    assert c is not None and c.fen == "0-0-0-0-0-1-1-1-0-0-0-0-24-21-S" and c.moves == ("F",)
    p = build_position(c.fen, c.moves, "abapa")
    assert p.is_over and p.scores[0] == 26


def test_history_since_the_last_capture_is_kept() -> None:
    # a position reached by moves keeps its chain of earlier positions (for the cycle rule)
    p = build_position(None, ("A", "b"), "abapa")
    assert p.prev is not None and p.prev.prev is not None


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("position", "startpos or fen"),
        ("position fen", "needs a position"),
        ("position startpos AbC", "expected 'moves'"),
        ("position startpos moves AZ", "not a list of moves"),
        ("go movetime", "needs a number"),
        ("go movetime soon", "whole number"),
        ("go depth 0", "at least 1"),
        ("go sideways", "does not understand"),
        ("setoption Hash", "name NAME"),
    ],
)
def test_malformed_commands_say_why(line: str, why: str) -> None:
    with pytest.raises(ProtocolError, match=why):
        parse_command(line)


def test_illegal_moves_and_bad_positions_say_why() -> None:
    with pytest.raises(ProtocolError, match=r"move 3 .a. is illegal: pit a belongs to North"):
        build_position(None, ("A", "a", "a"), "abapa")  # North's a, then South's turn
    with pytest.raises(ProtocolError, match=r"move 1 .a. is illegal"):
        build_position(None, ("a",), "abapa")  # South moves first
    with pytest.raises(ProtocolError, match="bad position"):
        build_position("4-4-4-S", (), "abapa")


def test_go_forms() -> None:
    c = parse_command("go movetime 500 depth 127")  # what Aualé sends
    assert c is not None and (c.movetime_ms, c.depth, c.infinite) == (500, 127, False)
    c = parse_command("go infinite")
    assert c is not None and c.infinite and c.movetime_ms is None
    c = parse_command("go ponder")
    assert c is not None and c.infinite and c.ponder
    c = parse_command("go wtime 1000 btime 1000")
    assert c is not None and c.movetime_ms is None
    assert parse_command("   ") is None
    c = parse_command("setoption name UseLeaves value false")
    assert c is not None and (c.option, c.value) == ("UseLeaves", "false")


def test_replies_format_and_parse_back() -> None:
    line = format_info(9, -35, 12345, 0.5, [0, 7, 2])
    assert line == "info depth 9 score cp -35 nodes 12345 nps 24690 time 500 pv AbC"
    info = parse_info(line)
    assert (info.depth, info.score_cp, info.nodes, info.nps, info.pv) == (
        9,
        -35,
        12345,
        24690,
        ("A", "b", "C"),
    )
    # Aalina's own lines
    info = parse_info("info depth 11 score cp -20 lowerbound pv AdE")
    assert (info.depth, info.score_cp, info.nodes, info.pv) == (11, -20, None, ("A", "d", "E"))
    assert parse_info("info string A book move was chosen").string == "A book move was chosen"
    assert format_bestmove(5, 9) == "bestmove F ponder d"
    assert format_bestmove(None) == "bestmove 0000"
    assert parse_bestmove("bestmove F ponder d") == (5, 9)
    assert parse_bestmove("bestmove 0000") == (None, None)
    with pytest.raises(ProtocolError):
        parse_bestmove("bestmove Z")


def test_proven_results_are_mate_scores() -> None:
    assert format_score(100_000 + 300, 3) == "mate 2"
    assert format_score(-100_000 - 100, 2) == "mate -1"
    assert format_score(99_999, 3) == "cp 99999"
    assert parse_info("info depth 3 score mate -2 pv AbC").mate == -2


def test_client_side_commands() -> None:
    assert position_command(None, []) == "position startpos"
    assert position_command(None, [0, 7]) == "position startpos moves Ab"
    assert position_command(START_FEN, [5]) == f"position fen {START_FEN} moves F"
    assert go_command(500) == "go movetime 500"
    assert go_command(depth=8) == "go depth 8"
    assert go_command() == "go infinite"
