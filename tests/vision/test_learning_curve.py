"""Cross-validation on shares of a folder's train split (:mod:`vision.evaluation.learning_curve`,
printed by ``python -m bench.learning_curve``)."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from bench.learning_curve import main
from vision.evaluation.dataset import is_held_out
from vision.evaluation.learning_curve import photographs_for, power_law, take_share
from vision.render.synth import random_style, render_pit


def _folder(root: Path, per_count: int) -> None:
    rng = np.random.default_rng(3)
    style = random_style(rng)
    for count in range(4):
        (root / str(count)).mkdir()
        for k in range(per_count):
            cv2.imwrite(str(root / str(count) / f"q{count}_{k}.png"), render_pit(count, style, rng))


def test_the_power_law_is_recovered_and_extrapolated() -> None:
    ns = [50.0, 100.0, 200.0]
    a, b = power_law(ns, [0.8 * n**-0.5 for n in ns])
    assert a == pytest.approx(0.8) and b == pytest.approx(0.5)
    # 0.8 / sqrt(n) = 0.01  ⇔  n = 6400
    assert photographs_for(a, b, 0.01) == pytest.approx(6400.0)


@pytest.mark.parametrize(
    ("ns", "errors"),
    [
        ([100.0, 100.0], [0.2, 0.1]),  # one size only
        ([50.0, 100.0], [0.1, 0.0]),  # a perfect share: no logarithm
        ([50.0, 100.0], [0.1, 0.2]),  # more photographs, more errors: no curve to follow
    ],
)
def test_no_extrapolation_without_a_falling_curve(ns: list[float], errors: list[float]) -> None:
    assert power_law(ns, errors) is None


def test_shares_are_stratified_nested_and_keep_every_count(tmp_path: Path) -> None:
    from vision.evaluation.dataset import load_folder

    _folder(tmp_path, 9)
    examples = load_folder(tmp_path)
    half = take_share(examples, 0.5)
    quarter = take_share(examples, 0.25)
    names = {e.path.name for e in half}
    assert {e.path.name for e in quarter} < names
    for count in range(4):
        assert sum(e.count == count for e in half) == round(0.5 * 9)
        assert sum(e.count == count for e in quarter) >= 1
    assert len(take_share(examples, 1.0)) == len(examples)


def test_the_curve_reads_only_the_train_split_and_prints_every_share(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _folder(tmp_path, 12)
    names = [p.name for p in tmp_path.glob("*/*.png")]
    train = sum(not is_held_out(n) for n in names)
    assert 0 < train < len(names)  # the folder has both splits
    code = main(
        ["--dataset", str(tmp_path), "--counter", "cnn", "--steps", "10", "--shares", "0.5,1"]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert out.startswith(f"{train} photographs of the train split")
    assert "(the held-out split is not read)" in out
    rows = [line.split() for line in out.splitlines() if line[:5] in (" 0.50", " 1.00")]
    assert [r[0] for r in rows] == ["0.50", "1.00"]
    given = [int(r[1]) for r in rows]
    # Each fold is given four fifths of the train split, or half of that.
    assert given[0] < given[1] <= math.ceil(train * 4 / 5)
    assert "exact 0-9 >= 95%" in out and "exact 0-5 >= 99%" in out


@pytest.mark.parametrize("shares", ["0", "0.5,1.5", "half", "-1"])
def test_bad_shares_are_refused(tmp_path: Path, shares: str) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--dataset", str(tmp_path), "--shares", shares])
    assert exit_.value.code == 2


def test_a_missing_folder_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--dataset", str(tmp_path / "nowhere")]) == 1
    assert "no such dataset folder" in capsys.readouterr().err


def test_the_help_names_one_network_per_fold(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "networks to fine-tune and average in each fold (default 1;" in help_text


def test_misread_lists_exactly_the_photographs_counted_wrong(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _folder(tmp_path, 12)
    # Two empty pits filed under three seeds: the wrong labels the list is there to catch.
    planted = [n for n in (f"wrong{k}.png" for k in range(20)) if not is_held_out(n)][:2]
    rng = np.random.default_rng(5)
    for name in planted:
        cv2.imwrite(str(tmp_path / "3" / name), render_pit(0, random_style(rng), rng))
    train = [p for p in tmp_path.glob("*/*.png") if not is_held_out(p.name)]
    code = main(
        ["--dataset", str(tmp_path), "--counter", "cnn", "--steps", "10", "--shares", "1"]
        + ["--misread"]
    )
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    exact = float(next(line for line in out if line.startswith(" 1.00")).split()[2][:-1])
    header = next(line for line in out if line.startswith("misread at share 1:"))
    listed = [line.split() for line in out if " read as " in line]
    assert int(header.split()[4]) == len(listed)
    # The list is what the exact share leaves: every photograph read wrongly, none read right.
    assert abs(100 * (1 - len(listed) / len(train)) - exact) < 0.06
    for words in listed:
        path = Path(words[-1])
        assert path in train and int(words[0]) == int(path.parent.name) != int(words[3])
    assert {Path(words[-1]).name for words in listed} >= set(planted)
