"""Frames to observations: nulls under hands, stable only when still, honest vectors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from core.observation import Observation
from tests.vision.conftest import Board
from vision.capture.pipeline import BoardReader, belief_to_reading, counter_for


def test_reading_is_trimmed_and_normalised() -> None:
    b = np.zeros(49)
    b[:3] = [0.1, 0.6, 0.3]
    b[40] = 1e-9
    r = belief_to_reading(b)
    assert isinstance(r, tuple) and len(r) == 3
    assert abs(sum(r) - 1) < 1e-5


def test_still_board_then_a_hand(board: Board) -> None:
    reader = BoardReader(board.calibration, counter_for(board.calibration))
    pits = [4, 4, 4, 1, 4, 4, 4, 4, 4, 4, 2, 4]
    still = board.frame(pits, seed=31, noise=0.0)
    observations = [reader.process(still, t=k / 30) for k in range(8)]
    last = observations[-1]
    assert not observations[0].stable and last.stable
    assert all(isinstance(r, tuple) for r in last.pits)
    # The JSON form is a valid Observation (what the session log stores).
    parsed = Observation.from_json(last.to_json(), pits=12)
    assert parsed.stable
    counts = [int(np.argmax(r)) for r in last.pits]  # type: ignore[arg-type]
    assert counts[3] == 1 and counts[10] == 2
    # A hand reaches for pit 3: its reading becomes null and the board is not stable.
    hand = board.frame(pits, seed=31, noise=0.0, hand=(3 * 64 + 32, 64 + 32))
    obs = reader.process(hand, t=1.0)
    assert obs.pits[3] is None
    assert not obs.stable
    assert any(r is not None for r in obs.pits)  # the far side is still read


def test_a_nudged_board_is_found_again(board: Board) -> None:
    """Markers make the board easy to re-find: after a nudge the reader follows it."""
    from vision.geometry.locate import corner_error
    from vision.render.synth import Camera, render_scene

    reader = BoardReader(board.calibration, counter_for(board.calibration), relocate_every=1.0)
    pits = [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3]
    before = board.frame(pits, seed=41, noise=0.0)
    for k in range(6):
        reader.process(before, t=k * 0.1)
    moved = Camera(tuple((x + 30.0, y + 12.0) for x, y in board.camera.corners))
    after, truth = render_scene(
        pits, board.style, np.random.default_rng(41), moved, markers=True, noise=0.0
    )
    last = None
    for k in range(30):
        last = reader.process(after, t=1.0 + k * 0.1)
    assert reader.calibration.method == "aruco"
    assert corner_error(reader.calibration, truth.corners) < 4.0
    assert last is not None and last.stable
    counts = [int(np.argmax(r)) for r in last.pits]  # type: ignore[arg-type]
    assert counts[:4] == [0, 1, 2, 3]


def test_the_count_made_as_the_board_settles_reads_each_pit_in_eight_views(
    board: Board, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once a move, as the board settles, every pit is read turned and mirrored eight ways
    (the count the referee judges the move by); counts while a hand moves read one view;
    a calibration that chose its views keeps them."""
    from vision.capture.pipeline import SETTLE_VIEWS
    from vision.counting.deep import DeepCounter
    from vision.counting.ensemble import EnsembleCounter

    asked: list[tuple[int, int]] = []  # (views, pits) of each count
    real = EnsembleCounter.beliefs

    def spy(self: Any, crops: Any, pits: Any = None) -> Any:
        asked.append((self.view_count, len(crops)))
        return real(self, crops, pits)

    monkeypatch.setattr(EnsembleCounter, "beliefs", spy)
    pits = [4, 4, 4, 1, 4, 4, 4, 4, 4, 4, 2, 4]
    still = board.frame(pits, seed=31, noise=0.0)
    moved = board.frame([1, *pits[1:]], seed=32, noise=0.0)  # a move later
    for counter, at_settle in (
        (DeepCounter.builtin(), SETTLE_VIEWS),
        (DeepCounter.builtin().with_views(2), 2),  # chosen at calibration: kept
    ):
        asked.clear()
        reader = BoardReader(board.calibration, counter)
        observations = [reader.process(still, t=k / 30) for k in range(8)]
        settled = next(k for k, o in enumerate(observations) if o.stable)
        before = [v for v, _ in asked[:-1]]
        assert asked[-1] == (at_settle, 12), asked  # the settle: every pit, in many views
        # counts before it (the first frame, all pits) in the counter's own views
        assert before and set(before) == {counter.view_count}, asked
        assert observations[settled].stable and len(asked) == len(before) + 1
        # the next settle (a move later) is counted in as many views
        asked.clear()
        observations = [reader.process(moved, t=1 + k / 30) for k in range(10)]
        assert observations[-1].stable and asked[-1] == (at_settle, 12), asked
    assert SETTLE_VIEWS == 8
    # settle_views=1: as every other count
    asked.clear()
    reader = BoardReader(board.calibration, DeepCounter.builtin(), settle_views=1)
    for k in range(8):
        reader.process(still, t=k / 30)
    assert {v for v, _ in asked} == {1}
