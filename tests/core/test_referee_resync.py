"""The search for the game when it is lost (core.referee.resync)."""

from __future__ import annotations

import pickle
import random

from core.observation import Observation
from core.position import Position
from core.referee import Referee, presets, resync
from core.referee.likelihood import log_likelihood_table
from core.referee.resync import Anchor, search


def test_lines_are_listed_once_per_position_object_and_found_the_same() -> None:
    start = Position.initial()
    table = log_likelihood_table(start.play(5).play(6).pits, 48)
    first = search([Anchor("root", start, 3)], table)
    assert first is not None and first.line == (5, 6)
    listed, boards = resync._lines_of(start, 3)
    again, boards_again = resync._lines_of(start, 3)
    # the same anchor, searched at every still board while the game is lost: listed once
    assert again is listed and boards_again is boards
    assert len(listed) == len(list(resync.lines(start, 3))) and boards.shape == (len(listed), 12)
    # an equal position is another object (its history may end lines otherwise): listed anew
    other = Position.initial()
    assert resync._lines_of(other, 3)[0] is not listed
    assert search([Anchor("root", other, 3)], table) == first
    # a line's position and board agree, whichever way it was listed
    for (line, q), row in zip(listed, boards, strict=True):
        assert tuple(row) == q.pits
        p = start
        for m in line:
            p = p.play(m)
        assert p == q


def test_the_game_played_on_after_new_game_is_followed_beyond_the_searchs_reach() -> None:
    # A person presses New game; the players do not notice and play six more moves of
    # their game, quickly, no still board between them. The resync search looks four
    # moves on from the game before the command: six are out of its reach, and the
    # referee stayed out of sync. The game before the command is followed all along
    # (core.referee.shadow), and taken up at the first still board.
    start = Position.initial()
    rng = random.Random(5)
    ref = Referee(start, **presets.CAMERA)
    pos, t = start, 0.0
    for _ in range(6):
        pos = pos.play(rng.choice(pos.legal_moves()))
        for _ in range(3):
            t += 0.2
            ref.observe(Observation(t, "test", False, pos.pits))
        for _ in range(5):
            t += 0.3
            ref.observe(Observation(t, "test", True, pos.pits))
    assert len(ref.moves) == 6
    before = ref.position
    events = ref.command({"command": "new_game"}, t + 0.1)
    assert any(e.type == "board_disturbed" for e in events)
    played = []
    for _ in range(6):
        m = rng.choice(pos.legal_moves())
        played.append(m)
        pos = pos.play(m)
        for _ in range(3):
            t += 0.2
            events += ref.observe(Observation(t, "test", False, pos.pits))
    assert not any(e.type == "board_restored" for e in events)
    # (a checkpoint now, mid-way, goes on to say exactly the same)
    copy = pickle.loads(pickle.dumps(ref))
    for _ in range(4):
        t += 0.3
        seen = ref.observe(Observation(t, "test", True, pos.pits))
        assert copy.observe(Observation(t, "test", True, pos.pits)) == seen
        events += seen
    restored = [e for e in events if e.type == "board_restored"]
    assert len(restored) == 1, [e.type for e in events]
    assert ref.position == pos
    assert [o.pit for o in ref.moves[-6:]] == played
    assert before != pos


def test_a_record_with_two_one_seed_moves_missed_is_found_and_its_moves_added_pay() -> None:
    # A game's record of four moves (F, f, B, b); the truth has two one-seed moves more
    # after its second (South's C, North's c). The board shows the true game: no line from
    # the record's position explains it, the record with the two put in does.
    before = Position.from_text("1-0-0-0-0-4-1-0-0-0-0-4-17-21-S")
    record_moves = [5, 11, 1, 7]
    true_moves = [5, 11, 2, 8, 1, 7]
    positions = [before]
    for m in record_moves:
        positions.append(positions[-1].play(m))
    record = list(zip(positions, record_moves, strict=False))
    truth = before
    for m in true_moves:
        truth = truth.play(m)
    listed = resync.missed_pairs(record, 1)
    # every pair is of one-seed moves, and the record's moves follow it unchanged
    for anchor, line, q, added in listed:
        assert anchor.name == "earlier" and anchor.position == positions[anchor.ply or 0]
        x, y = line[:2]
        assert anchor.position.pits[x] == 1 and anchor.position.play(x).pits[y] == 1
        assert line[2 : 2 + len(record_moves) - (anchor.ply or 0)] == tuple(
            record_moves[anchor.ply or 0 :]
        )
        assert added == len(line) - (len(record_moves) - (anchor.ply or 0))
        p = anchor.position
        for m in line:
            p = p.play(m)
        assert p.pits == q.pits
    table = log_likelihood_table(truth.pits, 48)
    root = positions[-1]
    assert search([Anchor("root", root, 4)], table) is None
    found = search([Anchor("root", root, 4)], table, rewrites=resync.Rewrites.of(listed, 12))
    assert found is not None and found.position.pits == truth.pits
    assert found.anchor.ply == 2 and found.line == (2, 8, 1, 7)
    # the two moves added pay PER_MOVE each: the board fits exactly
    assert found.score == 2 * resync.PER_MOVE
    assert resync.missed_pairs([], 2) == []
