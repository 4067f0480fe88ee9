"""Game records: OGN reading and writing, JSON, readable text."""

from __future__ import annotations

import pytest

from core import Position, get_rules
from core.records import GameRecord, RecordError

SAMPLE = """[Variant "abapa"]
[Event "Club night"]
[Site "Kraków"]
[Date "2026.11.21"]
[Round "1"]
[South "Ama"]
[North "Kofi"]
[Result "*"]

1. F {a quiet start} a 2. E ; comment to end of line
 *
"""


def test_read_sample_with_comments() -> None:
    rec = GameRecord.from_ogn(SAMPLE)
    assert rec.moves == [5, 6, 4]
    assert rec.tags["Site"] == "Kraków" and rec.tags["South"] == "Ama"
    assert rec.result() == "*"


def test_written_ogn_has_standard_tags_in_order_and_captures() -> None:
    start = Position.from_text("1-4-2-1-4-4-6-0-3-0-6-4-7-6-N")
    rec = GameRecord(start, [11], {"South": "Ama", "North": "Kofi"})
    text = rec.to_ogn()
    lines = text.splitlines()
    assert lines[0] == '[Variant "abapa"]'
    assert (
        lines.index('[South "Ama"]') < lines.index('[North "Kofi"]') < lines.index('[Result "*"]')
    )
    assert '[FEN "1-4-2-1-4-4-6-0-3-0-6-4-7-6-N"]' in lines
    assert text.rstrip().endswith("1... f+5 *")


def test_capture_count_that_disagrees_is_an_error() -> None:
    start = Position.from_text("1-4-2-1-4-4-6-0-3-0-6-4-7-6-N")
    ogn = f'[FEN "{start.to_text()}"]\n\n1... f+4 *'
    with pytest.raises(RecordError, match=r"move 1 \(f\+4\) captures 5, not 4"):
        GameRecord.from_ogn(ogn)


def test_illegal_move_in_record_names_the_move() -> None:
    with pytest.raises(RecordError, match=r"move 2 \(F\) is illegal: pit F belongs to South"):
        GameRecord.from_ogn("1. F F *")
    with pytest.raises(RecordError, match="'Z' is not a move"):
        GameRecord.from_ogn("1. Z *")


def test_finished_game_result_and_options_tag() -> None:
    rules = get_rules("abapa", grand_slam="forbidden")
    start = Position(rules, [0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 1], [24, 20], 0)
    rec = GameRecord(start, [5])
    assert rec.final().is_over and rec.result() == "1-0"
    ogn = rec.to_ogn()
    assert '[Options "{\\"grand_slam\\": \\"forbidden\\"}"]' in ogn
    again = GameRecord.from_ogn(ogn)
    assert again.start.ruleset == rules and again.result() == "1-0"


def test_declared_end_round_trips() -> None:
    start = Position(get_rules("abapa-declared"), [0, 0, 0, 0, 2, 1, 1, 0, 0, 0, 0, 0], [22, 22])
    rec = GameRecord(start, [], declared_end=True)
    assert rec.result() == "1-0"
    again = GameRecord.from_ogn(rec.to_ogn())
    assert again.declared_end and again.final().scores == (25, 23)


def test_three_player_record() -> None:
    start = Position.initial("universal", players=3)
    p, moves = start, []
    for _ in range(6):
        m = p.legal_moves()[-1]
        moves.append(m)
        p = p.play(m)
    rec = GameRecord(start, moves)
    assert "1F" in rec.movetext() or "2F" in rec.movetext()
    assert GameRecord.from_ogn(rec.to_ogn()) == rec


def test_readable_text_mentions_captures_and_result() -> None:
    start = Position.from_text("1-4-2-1-4-4-6-0-3-0-6-4-7-6-N")
    text = GameRecord(start, [11], {"South": "Ama", "North": "Kofi"}).to_text()
    assert "Ama vs Kofi" in text
    assert "captures 5" in text


def test_json_record_rejects_other_formats() -> None:
    with pytest.raises(RecordError, match="not an oware-game record"):
        GameRecord.from_json({"moves": []})
