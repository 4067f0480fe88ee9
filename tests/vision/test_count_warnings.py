"""`oware-companion count` says when its counts come from a counter that never saw the board,
and its hint for a board it cannot find names an option it has (``--corners``)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.commands import count as count_command
from tests.vision.conftest import Board


def _count(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="oware-companion")
    count_command.register(parser.add_subparsers(dest="command"))
    return parser.parse_args(["count", *argv])


def test_count_without_calibration_warns_it_has_never_seen_the_board(
    tmp_path: Path, board: Board, capsys: pytest.CaptureFixture[str]
) -> None:
    photo = tmp_path / "photo.png"
    cv2.imwrite(str(photo), board.frame([4] * 12, seed=3))
    args = _count(str(photo), "--json")
    assert args.func(args) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["calibration"] is None  # the output stays clean JSON
    assert "never seen this board" in captured.err
    assert "oware-companion calibrate" in captured.err


def test_a_board_not_found_names_count_s_own_corners_option(
    tmp_path: Path, board: Board, capsys: pytest.CaptureFixture[str]
) -> None:
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((720, 1280, 3), 90, np.uint8))
    args = _count(str(blank))
    assert args.func(args) == 2
    err = capsys.readouterr().err
    assert "--corners" in err and "Traceback" not in err
    # and the option is there: the corners given by hand, the board is counted
    corners = " ".join(f"{x:.1f},{y:.1f}" for x, y in board.calibration.corners)
    photo = tmp_path / "photo.png"
    cv2.imwrite(str(photo), board.frame([4] * 12, seed=5))
    args = _count(str(photo), "--corners", corners, "--json")
    assert args.func(args) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["method"] == "manual" and len(report["pits"]) == 12
