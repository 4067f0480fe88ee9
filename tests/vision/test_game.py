"""A rendered game video replayed through the referee yields exactly the game's moves."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from core import Position
from core.referee import Referee
from vision.capture.pipeline import CAMERA_REFEREE, BoardReader, counter_for
from vision.learning.calibrate import PositionLearner, locate, teach


@pytest.mark.slow
def test_rendered_game_is_refereed_move_for_move(game_dir: Path) -> None:
    truth = json.loads((game_dir / "game.json").read_text())
    empty = np.asarray(cv2.imread(str(game_dir / "empty.png")), np.uint8)
    start = np.asarray(cv2.imread(str(game_dir / "start.png")), np.uint8)
    # The user's calibration step: find the board, then the empty board and the start.
    calibration = teach(locate(empty), [(empty, [0] * 12), (start, [4] * 12)])
    reader = BoardReader(calibration, counter_for(calibration))
    learner = PositionLearner(reader.counter)
    referee = Referee(Position.initial(truth["rules"]), **CAMERA_REFEREE)
    moves: list[int] = []
    alerts: list[str] = []
    cap = cv2.VideoCapture(str(game_dir / "game.avi"))
    frame_no = 0
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        frame_no += 1
        obs = reader.process(np.asarray(frame, np.uint8), frame_no / truth["fps"])
        for event in referee.observe(obs):
            if event.type == "move":
                moves.append(int(event.to_json()["pit"]))
                # Learning from the game: the confirmed position labels 12 pit images.
                assert reader.last_stable_crops is not None
                refit = learner.add(reader.last_stable_crops, referee.position.pits)
                if refit is not None:
                    reader.counter = refit
            elif event.is_alert:
                alerts.append(event.type)
    cap.release()
    assert frame_no == truth["frames"]
    assert moves == truth["moves"]
    assert alerts == []
    assert list(referee.position.pits) == truth["positions"][-1]
