"""Training the deep network on physics renders: the folders are read, the counter is saved."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.counting.deep import DeepCounter
from vision.learning.train import CHECK_EVERY, main, physics_renders
from vision.render.physics_piles import build


def test_renders_are_read_with_their_counts_and_tall_piles_join_the_top_class(
    tmp_path: Path,
) -> None:
    build(tmp_path / "a", per_count=1, counts=range(2), size=48)
    (tmp_path / "b" / "20").mkdir(parents=True)
    (tmp_path / "a" / "1" / "00000.png").rename(tmp_path / "b" / "20" / "00000.png")
    crops, labels = physics_renders([tmp_path / "a", tmp_path / "b"])
    assert labels == [0, 13]  # 20 seeds: "13 or more"
    assert crops[0].shape == (48, 48, 3)


def test_a_network_trained_on_renders_is_saved_and_loads(tmp_path: Path) -> None:
    build(tmp_path / "r", per_count=CHECK_EVERY // 4, counts=range(4), size=48)
    out = tmp_path / "net.json"
    args = ["--model", "deep", "--renders", str(tmp_path / "r"), "--samples", "40"]
    assert main([*args, "--steps", "3", "--out", str(out)]) == 0
    counter = DeepCounter.from_json(json.loads(out.read_text()))
    crop = np.asarray(cv2.imread(str(next((tmp_path / "r").glob("*/*.png")))), np.uint8)
    assert counter.beliefs([crop]).shape == (1, 49)


def test_an_empty_renders_folder_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--model", "deep", "--renders", str(tmp_path), "--steps", "1"]
    assert main([*args, "--out", str(tmp_path / "n.json")]) == 1
    assert "physics_piles" in capsys.readouterr().out


def test_training_goes_on_from_a_saved_network(tmp_path: Path) -> None:
    build(tmp_path / "r", per_count=CHECK_EVERY // 4, counts=range(4), size=48)
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    args = ["--model", "deep", "--renders", str(tmp_path / "r"), "--samples", "40"]
    assert main([*args, "--steps", "3", "--out", str(first)]) == 0
    assert main([*args, "--steps", "3", "--start", str(first), "--out", str(second)]) == 0
    a = DeepCounter.from_json(json.loads(first.read_text())).networks[0]
    b = DeepCounter.from_json(json.loads(second.read_text())).networks[0]
    # three more steps move the saved weights a little, not back to a fresh draw
    moved = float(np.abs(a.head[0] - b.head[0]).mean())
    assert 0 < moved < float(np.abs(a.head[0]).mean())


def test_a_bad_start_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build(tmp_path / "r", per_count=1, counts=range(2), size=48)
    (tmp_path / "bad.json").write_text("{}")
    args = ["--model", "deep", "--renders", str(tmp_path / "r"), "--steps", "1"]
    assert (
        main([*args, "--start", str(tmp_path / "bad.json"), "--out", str(tmp_path / "n.json")]) == 1
    )
    assert "cannot start from" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["--model", "cnn", "--start", str(tmp_path / "bad.json")])
